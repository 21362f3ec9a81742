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
// the largest data or unified level's size times its instances; sysconf where that says nothing; 0
// when neither does.
std::uint64_t last_level_cache_bytes(const std::string& sys_cpu);

}  // namespace gpubench::openmp
