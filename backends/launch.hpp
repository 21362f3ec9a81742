// The shape of a kernel launch, shared by every API that launches kernels: 1 to 3 dimensions,
// work-items per dimension (OpenCL's global size, CUDA's grid x block) and per work-group
// (OpenCL's local size, CUDA's block), and the checks every API makes on it against the limits
// its device reports. Knows nothing about any suite.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace gpubench {

// Sizes along x, y and z; a dimension a launch does not use is 1.
struct Range3 {
  std::size_t x = 1, y = 1, z = 1;
  std::size_t operator[](unsigned dimension) const { return dimension == 0 ? x : dimension == 1 ? y : z; }
  std::size_t product() const { return x * y * z; }
};

struct Geometry {
  unsigned dims = 1;  // 1..3
  Range3 global;      // work-items per dimension
  Range3 local;       // work-items per work-group, per dimension

  // CUDA's form: `groups` blocks (the grid) of `local` threads.
  static Geometry of_groups(unsigned dims, Range3 groups, Range3 local);
  Range3 groups() const;  // global / local per dimension
  std::string text() const;  // "global 64x8, local 16x4"
};

// What a device launches at most. OpenCL: CL_DEVICE_MAX_WORK_ITEM_SIZES and
// CL_DEVICE_MAX_WORK_GROUP_SIZE, no limit on groups; CUDA: maxThreadsDim, maxThreadsPerBlock and
// maxGridSize.
struct LaunchLimits {
  static constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();
  Range3 local{unlimited, unlimited, unlimited};
  std::size_t local_total = unlimited;
  Range3 groups{unlimited, unlimited, unlimited};
};

// Throws DeviceError naming `kernel`, the dimension and what is wrong: dims outside 1..3, a zero
// size, a size other than 1 in an unused dimension, a local size that does not divide the global
// one, or a size above `limits` (naming the limit).
void check_geometry(std::string_view kernel, const Geometry& geometry, const LaunchLimits& limits = {});

}  // namespace gpubench
