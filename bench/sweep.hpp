// The work-group sweeper. For each tunable kernel and each work-group size, it starts at 1
// work-group per compute unit and adds one per step, stopping once no step has improved on the
// best by more than the measurement noise for `patience` steps (or walks the whole range with
// --exhaustive), as in the OpenCL CG thesis the project descends from. Every configuration is
// verified; one that fails to launch, verify, or finish within the time limit is recorded with
// its reason and the sweep goes on.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/tunable.hpp"
#include "bench/tuning_db.hpp"

namespace gpubench {

struct SweepOptions {
  // --param NAME=LIST_OR_RANGE, expanded: the values to visit instead of the legal range.
  std::vector<std::pair<std::string, std::vector<int>>> params;
  bool exhaustive = false;
  int patience = 3;           // steps without improvement before the walk over WG/CU stops
  double time_limit_s = 2.0;  // per call of a kernel
};

// Parses one --param value: "work_group_size=64,128,256", "work_groups_per_cu=1:16" (a range,
// inclusive), or both forms mixed ("1:4,8"). Throws UsageError naming what is wrong.
std::pair<std::string, std::vector<int>> parse_param(const std::string& text);

struct ConfigResult {
  Params params;
  std::string status = "verified";  // "verified", "launch failed", "wrong result", "time limit", "error"
  std::string reason;               // empty when verified
  KernelTiming timing;
  double gflops = 0, gbps = 0, roofline_pct = 0;
  bool ok() const { return status == "verified"; }
};

struct KernelSweep {
  std::string kernel;
  TuningKey key;
  double flops_per_call = 0, bytes_per_call = 0;
  std::vector<ConfigResult> configs;  // in the order visited
  int best = -1;      // index into configs; -1 when none verified
  int baseline = -1;  // 1 WG/CU at the best work-group size; the heuristic's where no WG/CU
  double reduction_pct() const;  // (t_baseline - t_best) / t_baseline, in %
};

struct SweepReport {
  DeviceInfo device;
  std::string problem;
  Precision precision = Precision::f64;
  std::optional<Ceilings> ceilings;
  std::vector<KernelSweep> kernels;
  std::vector<std::string> untunable;
  double seconds = 0;  // wall time of the sweep
};

// Sweeps every kernel of `target`; progress to `log` (a bar on a terminal, lines otherwise).
// Throws UsageError when a --param names no parameter of any kernel or a value out of range.
SweepReport sweep(SweepTarget& target, const SweepOptions& options, const std::optional<Ceilings>& ceilings,
                  std::ostream& log, bool terminal);

// The thesis's table per kernel: time at 1 WG/CU, best time, best WG/CU and size, reduction.
void write_sweep_table(const std::vector<SweepReport>& reports, std::ostream& out);
// Every configuration of every kernel, for plots.
nlohmann::json sweep_json(const std::vector<SweepReport>& reports);
// The best configuration of each kernel, as tuning database entries.
std::vector<TuningEntry> best_entries(const SweepReport& report, const std::string& date, const std::string& commit);

}  // namespace gpubench
