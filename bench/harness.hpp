// Runs planned points through Google Benchmark (manual time = device time per iteration,
// repetitions and their aggregates), after a warm-up and one per-kernel profiled pass each.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/roofline.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"

namespace gpubench {

// The linearly interpolated quantile q of `sorted` (numpy's default); 0 for none.
double quantile(const std::vector<double>& sorted, double q);

// What marks a point's machine busy (its records' machine_load): other processes' share of the
// CPUs it may run on, and another process's SM use of its device.
inline constexpr double busy_cpu_fraction = 0.25, busy_gpu_sm_pct = 10;

struct PointResult {
  PointId id;
  bool failed = false;         // an error, or a repetition that did not verify
  std::string error;           // the first error or verification failure
  ExitCode failure = ExitCode::point_failed;  // what a failed point makes the run exit with
  std::vector<Outcome> repetitions;
  std::vector<KernelRow> kernels;  // from the profiled pass, plus an "overhead" row
  double profiled_seconds_per_iteration = 0;  // the profiled pass's own iteration
  std::string time_includes;       // the point's own words (Point::time_includes)
  std::string compute_unit;        // Point::compute_unit, once prepared ("": the FMA pipes)
  double flops_per_iteration = 0, bytes_per_iteration = 0;
  double median_seconds_per_iteration = 0;  // over verified repetitions
  // The spread of the verified repetitions' time per iteration: the interquartile range over the
  // median, and the repetitions that hyperfine's rule calls outliers (a modified z-score, the
  // distance from the median in median absolute deviations x 1.4826, above 14; the scale at least
  // 1% of the median).
  double iqr_fraction = 0;
  std::vector<double> outlier_seconds;
  std::optional<Ceilings> ceilings;          // the device's, when known
  // Harness-wide values measured for the point beyond its times, by their record field's name
  // (bench/record_fields.cpp reads them): the worker's hand-off carries them whole.
  nlohmann::json measured = nlohmann::json::object();

  double gflops() const;
  double gbps() const;
  // Where the median iteration sits under the device's roofline (zeros without ceilings).
  RooflinePlace roofline() const;
  RooflinePlace roofline(const KernelRow& k) const;
};

// Each device's ceilings, by "backend:index".
using CeilingsByDevice = std::map<std::string, Ceilings>;
std::string device_key(const DeviceInfo& d);
// One roof per physical device (bench/roofline.hpp's physical_device): the ceilings of `devices`
// that are one device (the host's CPU seen by openmp, PoCL and ViennaCL) are replaced by their merge,
// each figure the best any backend measured; each merge is said on `log`.
void one_roof_per_physical_device(CeilingsByDevice& ceilings, const std::vector<DeviceInfo>& devices, std::ostream& log);

struct RunReport {
  nlohmann::json context;              // Google Benchmark's context block, with gpubench's fields
  nlohmann::json benchmarks;           // Google Benchmark entries (iterations and aggregates)
  std::vector<PointResult> points;
  std::vector<std::string> unavailable;  // from the plan: asked for, not runnable here
  bool any_failed() const;
  // 0 when every point verified, else the most severe of the failed points' codes: 4 (device)
  // when one ran out of memory, 1 otherwise.
  int exit_code() const;
};

// Progress goes to `log` (stderr in the CLI). Never throws for a point's failure: it is recorded.
// Each point is one unit of crash isolation (bench/isolation.hpp), named by PointId::name(): in
// a worker process, a point that crashed an earlier worker is reported FAILED with the reason.
// `after_each`, when given, gets the report of the points measured so far after each point (what a
// run ended early still has to write).
// How each point is timed: its repetitions, the untimed runs before them (--warmup), and the
// least device time of one repetition (--min-time: the run repeated until it has taken that long,
// the time per iteration over all of them, for kernels whose timer resolution matters).
struct Timing {
  Timing(int repetitions_ = 9, int warmup_ = 0, double min_time_s_ = 0)  // NOLINT: a count alone is the usual case
      : repetitions(repetitions_), warmup(warmup_), min_time_s(min_time_s_) {}
  int repetitions;
  int warmup;
  double min_time_s;
  // --interleave SEED (>= 0), as Google Benchmark's random interleaving: the repetitions run in
  // rounds, each round every point once in an order shuffled from SEED, each point set up and
  // released around its repetition; its profiled pass and warm-up in its first round, its energy
  // pass in its last. The seed and every round's order go into the records' context.
  long long interleave_seed = -1;
  // Within a point's run (set by the interleaved rounds): whether it makes its profiled pass and
  // warm-up runs, and its energy pass.
  bool profile = true, energy = true;
};

RunReport run_plan(Plan& plan, const Timing& timing, const CeilingsByDevice& ceilings, std::ostream& log,
                   const std::function<void(const RunReport&)>& after_each = {});

}  // namespace gpubench
