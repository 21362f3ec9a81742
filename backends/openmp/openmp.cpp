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
#include <filesystem>
#include <set>
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

}  // namespace

// The last-level cache, as Linux's topology under /sys says: the largest level's size times its
// instances (a two-socket host has two L3s), "32768K" read as 32 MiB. sysconf's
// _SC_LEVEL3_CACHE_SIZE is no use: glibc computes it from CPUID and can be off by 10x (320 MiB
// on a 2-core EPYC VM whose L3 is 32 MiB). sysconf only where /sys says nothing.
std::uint64_t last_level_cache_bytes(const std::string& sys_cpu) {
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text);
    return text;
  };
  const auto bytes = [](const std::string& text) -> std::uint64_t {
    std::uint64_t size = 0;
    std::size_t used = 0;
    try {
      size = std::stoull(text, &used);
    } catch (const std::exception&) {
      return 0;
    }
    const char unit = used < text.size() ? text[used] : 0;
    return size << (unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0);
  };
  int best_level = 0;
  std::uint64_t best_size = 0;
  int best_index = -1;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = sys_cpu + "/cpu0/cache/index" + std::to_string(index);
    const std::string type = read(dir + "/type");
    if (type.empty()) continue;
    if (type == "Instruction") continue;
    const int level = std::atoi(read(dir + "/level").c_str());
    const std::uint64_t size = bytes(read(dir + "/size"));
    if (size > 0 && (level > best_level || (level == best_level && size > best_size)))
      best_level = level, best_size = size, best_index = index;
  }
  if (best_index >= 0) {
    // Its instances: the distinct sets of CPUs that share one.
    std::set<std::string> instances;
    for (int cpu = 0; cpu < 4096; ++cpu) {
      const std::string dir = sys_cpu + "/cpu" + std::to_string(cpu);
      if (!std::filesystem::exists(dir)) break;
      const std::string shared = read(dir + "/cache/index" + std::to_string(best_index) + "/shared_cpu_list");
      if (!shared.empty()) instances.insert(shared);
    }
    return best_size * std::max<std::size_t>(1, instances.size());
  }
  std::uint64_t largest = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE  // glibc
  for (const int level :
       {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE}) {
    const long size = sysconf(level);
    if (size > 0) largest = std::max(largest, static_cast<std::uint64_t>(size));
  }
#endif
  return cpuid_cache_bound(largest, proc_field("/proc/cpuinfo", "vendor_id"), sysconf(_SC_NPROCESSORS_ONLN));
}

std::uint64_t cpuid_cache_bound(std::uint64_t cpuid_bytes, const std::string& vendor, long cpus) {
  constexpr std::uint64_t amd_ccd_l3_max = std::uint64_t{96} << 20;
  if (vendor != "AuthenticAMD" || cpus <= 0) return cpuid_bytes;
  return std::min(cpuid_bytes, amd_ccd_l3_max * static_cast<std::uint64_t>(cpus));
}

namespace {

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
  info.max_work_group_size = 0;  // no work-groups here: launch parameters do not apply
  info.global_mem_bytes = host_memory_bytes();
  info.max_alloc_bytes = info.global_mem_bytes;
  info.local_mem_bytes = 0;
  info.cache_bytes = last_level_cache_bytes("/sys/devices/system/cpu");
  info.fp64 = true;
  return {info};
}

}  // namespace gpubench::openmp

GPUBENCH_REGISTER_BACKEND(.name = "openmp", .devices = gpubench::openmp::host_devices, .order = 20);
