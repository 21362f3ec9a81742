// The host memory a run may still take, and the check every suite makes before it allocates
// what a problem needs: MemAvailable, or less under this process's address-space limit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/resource.h>

#include "common/errors.hpp"
#include "common/test_hooks.hpp"

namespace gpubench {

namespace host_memory_detail {

// A number of kB from a "Key:   123 kB" line of a /proc file; 0 where it is not there.
inline std::uint64_t proc_kilobytes(const char* file, const std::string& wanted) {
  std::ifstream in(file);
  for (std::string key; in >> key;) {
    if (key == wanted) {
      std::uint64_t kilobytes = 0;
      in >> kilobytes;
      return kilobytes;
    }
  }
  return 0;
}

inline std::string gigabytes(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return buffer;
}

}  // namespace host_memory_detail

struct HostMemory {
  bool known = false;
  std::uint64_t available = 0;
  bool limited = false;  // the address-space limit, not the machine, is what binds
};

// MemAvailable of /proc/meminfo, or less where this process's address-space limit (ulimit -v)
// leaves less room above what it has mapped already. The test-only hook
// GPUBENCH_HOST_MEMORY_AVAILABLE (bytes) stands in for MemAvailable, so that a test of the limit
// does not depend on what the machine's other processes hold at that moment.
inline HostMemory available_host_memory() {
  using host_memory_detail::proc_kilobytes;
  HostMemory m;
  if (const char* hook = test_hook("GPUBENCH_HOST_MEMORY_AVAILABLE"))
    m.available = std::strtoull(hook, nullptr, 10);
  else
    m.available = proc_kilobytes("/proc/meminfo", "MemAvailable:") * 1024;
  m.known = m.available > 0;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t mapped = proc_kilobytes("/proc/self/status", "VmSize:") * 1024;
    const std::uint64_t room = limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0;
    if (!m.known || room < m.available) m = {true, room, true};
  }
  return m;
}

// Throws InputError "<what> needs X GB of host memory; Y GB is available" (or "is left under
// this process's address-space limit") when `bytes` is more than the host can give now; no
// check where the kernel does not say.
inline void check_host_memory(std::uint64_t bytes, const std::string& what) {
  using host_memory_detail::gigabytes;
  const auto [known, available, limited] = available_host_memory();
  if (known && bytes > available)
    throw InputError(what + " needs " + gigabytes(bytes) + " of host memory; " + gigabytes(available) +
                     (limited ? " is left under this process's address-space limit (ulimit -v)" : " is available"));
}

}  // namespace gpubench
