// The OpenMP backend's one device: the host CPU. ViennaCL's host memory domain runs on the same
// device, so its backend describes it with this too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/device.hpp"

namespace gpubench::openmp {

// The host CPU as one device (backend "openmp", index 0), described from /proc (Linux) with
// portable fallbacks.
std::vector<DeviceInfo> host_devices();

// The host's last-level cache in bytes, from the topology under `sys_cpu` (/sys/devices/system/cpu):
// the largest data or unified level's size times its instances; sysconf where that says nothing
// (bounded by cpuid_cache_bound, with the host's vendor and online CPUs); 0 when neither does.
std::uint64_t last_level_cache_bytes(const std::string& sys_cpu);

// What CPUID says of the last-level cache (through sysconf) bounded where the vendor's design bounds
// it: an AMD core reaches only its own CCD's L3, at most 96 MiB (3D V-Cache), so `cpus` of them at
// most cpus x 96 MiB. A hypervisor's CPUID can say anything: a 2-core EPYC VM without /sys cache
// topology says 508 MiB, and the bandwidth probe's arrays (4 x that each) took 20 s of page faults.
// Other vendors' figures are returned as they are (an Intel L3 is shared by every core of a die).
std::uint64_t cpuid_cache_bound(std::uint64_t cpuid_bytes, const std::string& vendor, long cpus);

}  // namespace gpubench::openmp
