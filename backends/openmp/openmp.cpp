// The OpenMP backend: one device, the host CPU, described from /proc (Linux) with portable
// fallbacks.
#ifndef _OPENMP
#error "backends/openmp/openmp.cpp needs OpenMP (-fopenmp)"
#endif

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "backends/openmp/openmp.hpp"
#include "backends/registry.hpp"

namespace gpubench::openmp {

namespace {

// The value of the first "key : value" line of a /proc file whose key is `key`; empty if none.
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    if (name != key) continue;
    const auto value = line.find_first_not_of(" \t", colon + 1);
    return value == std::string::npos ? std::string() : line.substr(value);
  }
  return {};
}

std::uint64_t host_memory_bytes() {
  // "MemTotal:       131891808 kB"
  const std::string total = proc_field("/proc/meminfo", "MemTotal");
  if (!total.empty()) {
    try {
      return std::stoull(total) * 1024;
    } catch (const std::exception&) {
      // fall through to sysconf
    }
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : 0;
}

// The largest CPU cache level's size (the LLC): sysconf where glibc knows it, else the sizes
// Linux lists under /sys ("32K", "1024K", "32M"); 0 when neither says.
std::uint64_t last_level_cache_bytes() {
  std::uint64_t largest = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE  // glibc
  for (const int level :
       {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE}) {
    const long size = sysconf(level);
    if (size > 0) largest = std::max(largest, static_cast<std::uint64_t>(size));
  }
#endif
  if (largest > 0) return largest;
  for (int index = 0; index < 16; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::uint64_t size = 0;
    if (!(in >> size)) continue;
    char unit = 0;
    if (in >> unit) size <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
    largest = std::max(largest, size);
  }
  return largest;
}

// _OPENMP is the date of the specification the compiler implements.
std::string openmp_version() {
  switch (_OPENMP) {
    case 200505:
      return "2.5";
    case 200805:
      return "3.0";
    case 201107:
      return "3.1";
    case 201307:
      return "4.0";
    case 201511:
      return "4.5";
    case 201811:
      return "5.0";
    case 202011:
      return "5.1";
    case 202111:
      return "5.2";
    case 202411:
      return "6.0";
    default:
      return std::to_string(_OPENMP);
  }
}

}  // namespace

std::vector<DeviceInfo> host_devices() {
  DeviceInfo info;
  info.backend = "openmp";
  info.index = 0;
  info.api = "OpenMP " + openmp_version();
  info.platform = "host";
  info.name = proc_field("/proc/cpuinfo", "model name");
  if (info.name.empty()) info.name = "host CPU";
  info.vendor = proc_field("/proc/cpuinfo", "vendor_id");
  if (info.vendor.empty()) info.vendor = "unknown";
#if defined(__clang__)
  info.driver = "clang " __clang_version__;
#else
  info.driver = "gcc " __VERSION__;
#endif
  info.type = "cpu";
  info.compute_units = omp_get_max_threads();
  info.max_work_group_size = 0;  // no work-groups here: LaunchConfig does not apply
  info.global_mem_bytes = host_memory_bytes();
  info.max_alloc_bytes = info.global_mem_bytes;
  info.local_mem_bytes = 0;
  info.cache_bytes = last_level_cache_bytes();
  info.fp64 = true;
  return {info};
}

}  // namespace gpubench::openmp

GPUBENCH_REGISTER_BACKEND(.name = "openmp", .devices = gpubench::openmp::host_devices, .order = 20);
