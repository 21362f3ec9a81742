// The CG kernels as the sweeper sees them (bench/tunable.hpp): each one set up on a device with
// known inputs, verified against the host after every change of launch parameters, and timed
// alone with device events.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/tunable.hpp"
#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

// The tunable kernels of `backend`'s CG operations on `device` (all of tunable_kernels(), or
// only `kernel` when non-empty), sharing one Operations with `problem`'s matrix. Throws
// UsageError for an unknown kernel name or a backend without launch parameters, DeviceError
// when the device cannot hold the problem.
SweepTarget make_sweep_target(const DeviceInfo& device, std::shared_ptr<const Problem> problem, Precision precision,
                              const std::string& kernel);

// The built-in heuristic for `kernel` on a device: its tunables' declared defaults (kernel_tunables).
Params heuristic_params(const std::string& kernel, std::size_t max_work_group_size, bool spmv_forms = true);

}  // namespace gpubench::cg
