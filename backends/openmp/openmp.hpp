// The OpenMP backend's one device: the host CPU. ViennaCL's host memory domain runs on the same
// device, so its backend describes it with this too.
#pragma once

#include <vector>

#include "backends/device.hpp"

namespace gpubench::openmp {

// The host CPU as one device (backend "openmp", index 0), described from /proc (Linux) with
// portable fallbacks.
std::vector<DeviceInfo> host_devices();

}  // namespace gpubench::openmp
