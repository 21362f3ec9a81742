// The grid of the grid-stride kernels of CG and EP: their two tunables, declared once with their
// defaults (the built-in heuristic the tuning database falls back to), and what a launch reads
// of a parameter set. The harness (bench/) knows parameters only by the names a suite declares;
// the suites pass the same generic map (Params) down to their backends, which read it here.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "bench/params.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"

namespace gpubench::grid {

inline constexpr int default_group_size = 256, default_groups_per_cu = 8;

// Work-items per work-group (OpenCL local size, CUDA block): powers of two from 32 (or
// `largest`, if lower) to the largest power of two within `largest`; 256 by default.
inline Tunable group_size(int largest) {
  int top = 1;
  while (top <= largest / 2 && top < (1 << 30)) top *= 2;
  return Tunable::powers_of_two("work_group_size", std::min(32, top), top).defaulting_to(default_group_size);
}

// Work-groups per compute unit (the grid is compute units x this): 1 to 64; 8 by default.
inline Tunable groups_per_cu() { return Tunable::range("work_groups_per_cu", 1, 64).defaulting_to(default_groups_per_cu); }

// What a launch with `p` uses: its value, or the tunable's default where `p` has none (a kernel
// that declares only the group size, or a caller that leaves the choice to the heuristic).
// These read the values as given: the backends check them against the device.
inline int group_size_of(const Params& p) {
  const auto it = p.find("work_group_size");
  return it != p.end() ? it->second : default_group_size;
}
inline int groups_per_cu_of(const Params& p) {
  const auto it = p.find("work_groups_per_cu");
  return it != p.end() ? it->second : default_groups_per_cu;
}

// A parameter set of both: what tests and fixed launches write.
inline Params params(int group_size, int groups_per_cu) {
  return {{"work_group_size", group_size}, {"work_groups_per_cu", groups_per_cu}};
}

// A UsageError naming the parameter (and `kernel`, unless empty) when `p` holds one these
// kernels do not take (the two above and `extra`, a kernel's own), or a value below 1.
inline void check(const Params& p, const std::string& kernel, const std::vector<std::string>& extra = {}) {
  const std::string of = kernel.empty() ? "" : " of kernel " + kernel;
  for (const auto& [name, value] : p) {
    if (name != "work_group_size" && name != "work_groups_per_cu" &&
        std::find(extra.begin(), extra.end(), name) == extra.end()) {
      std::string valid = "work_group_size, work_groups_per_cu";
      for (const std::string& e : extra) valid += ", " + e;
      throw UsageError("no launch parameter '" + name + "'" + of + " (valid: " + valid + ")");
    }
    if (value < 1) throw UsageError(name + " " + std::to_string(value) + of + " is invalid (must be >= 1)");
  }
}

}  // namespace gpubench::grid
