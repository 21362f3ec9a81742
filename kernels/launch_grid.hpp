// The grid of the grid-stride kernels of CG and EP: their two tunables, their defaults (the
// built-in heuristic the tuning database falls back to) and the one conversion from a parameter
// set to them. The harness (bench/) knows parameters only by the names a suite declares.
#pragma once

#include <map>
#include <string>

#include "bench/params.hpp"
#include "common/errors.hpp"

namespace gpubench {

// The grid of a kernel: work_groups_per_cu x compute units groups of work_group_size items (the
// grid-stride kernels; others take only the group size). The defaults are the built-in
// heuristic the tuning database falls back to.
struct LaunchConfig {
  int work_group_size = 256;   // work-items per work-group (OpenCL local size, CUDA block)
  int work_groups_per_cu = 8;  // grid = compute units * this
};

// `params` over the defaults. A parameter LaunchConfig has no field for is a UsageError naming it
// and `kernel`: a suite that declares one must give LaunchConfig the field first.
inline LaunchConfig to_launch_config(const Params& params, const std::string& kernel) {
  LaunchConfig launch;
  for (const auto& [name, value] : params) {
    if (name == "work_group_size") launch.work_group_size = value;
    else if (name == "work_groups_per_cu") launch.work_groups_per_cu = value;
    else
      throw UsageError("kernel " + kernel + " has no launch parameter '" + name +
                       "' (valid: work_group_size, work_groups_per_cu)");
  }
  return launch;
}

}  // namespace gpubench
