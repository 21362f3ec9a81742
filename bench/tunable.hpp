// What a suite tells the sweeper about one tunable kernel on one device: its parameters and their
// legal ranges, and how to measure it (verified) with a given set of values. The sweeper
// (bench/sweep.hpp) walks the parameters; the suite knows the kernel.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "common/precision.hpp"
#include "bench/tuning_db.hpp"

namespace gpubench {

// A tunable parameter and its legal values: the integers in [min, max], or only the powers of
// two there.
struct TunableRange {
  std::string name;  // "work_group_size", "work_groups_per_cu"
  int min = 1, max = 1;
  bool power_of_two = false;
};

using Params = std::map<std::string, int>;

// One configuration's measurement: the device time per call over several timed batches.
struct KernelTiming {
  double seconds = 0;            // per call: the median of the samples
  std::vector<double> samples;   // per call, one per timed batch
};

class TunableKernel {
 public:
  virtual ~TunableKernel() = default;
  virtual std::string name() const = 0;                  // "spmv"
  virtual std::vector<TunableRange> tunables() const = 0;
  virtual Params heuristic() const = 0;                  // the built-in default
  virtual TuningKey key() const = 0;                     // where its best configuration is stored
  virtual double flops_per_call() const = 0;             // declared work
  virtual double bytes_per_call() const = 0;
  // Runs the kernel once with `params` from known inputs and checks its result, then times it.
  // Throws DeviceError when it cannot build or launch, VerificationError when the result is
  // wrong, and Error(ExitCode::point_failed) when one call takes longer than `time_limit_s`.
  virtual KernelTiming measure(const Params& params, double time_limit_s) = 0;
};

// What a run launches one kernel with: the tuning database's choice for `key` (exact key,
// nearest size, the device's default, then `heuristic`), or `heuristic` when `db` is null
// (--tuning off). Only the parameters `tunables` names are taken; a value outside its range is
// an InputError naming the entry and the device.
struct LaunchChoice {
  Params params;
  TuningChoice choice;
};
LaunchChoice choose_launch_params(const TuningDb* db, const DeviceInfo& device, const TuningKey& key,
                                  const Params& heuristic, const std::vector<TunableRange>& tunables);

// The kernels of one suite on one device, problem and precision.
struct SweepTarget {
  DeviceInfo device;
  std::string problem;  // "poisson2d:4096"
  Precision precision = Precision::f64;
  std::vector<std::unique_ptr<TunableKernel>> kernels;
  std::vector<std::string> untunable;  // kernels asked for with nothing to tune here, and why
};

}  // namespace gpubench
