// The sweeper: it walks every parameter a kernel declares (bench/tunable.hpp), one of three ways.
//  - A kernel with work_groups_per_cu: the walk of the OpenCL CG thesis the project descends
//    from. For each legal combination of the other parameters it starts at 1 work-group per
//    compute unit and adds one per step, stopping once no step has improved on the best by more
//    than the measurement noise for `patience` steps (--exhaustive: every value).
//  - Otherwise, a space of at most `small_space` legal configurations (or any, with
//    --exhaustive): every legal configuration.
//  - Otherwise, as Kernel Tuner and CLBlast do: the heuristic and a random sample of
//    `random_sample` legal configurations (seeded: the same seed visits the same ones), then hill
//    climbing from the best `climb_from` of them (each step moves to the best neighbour, one
//    parameter one step up or down, while it beats the current one by more than the noise). It
//    stops when every climb has reached a local optimum or when the kernel's time budget is
//    spent; a configuration started within the budget is finished.
// Configurations that break a constraint are never measured. Every configuration is verified;
// one that fails to launch, verify, or finish within the time limit is recorded with its reason
// and the sweep goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/tunable.hpp"
#include "bench/tuning_db.hpp"

namespace gpubench {

inline constexpr std::size_t small_space = 256;  // larger spaces get the budgeted search
inline constexpr std::size_t random_sample = 32;
inline constexpr std::size_t climb_from = 3;

struct SweepOptions {
  // --param NAME=LIST_OR_RANGE, expanded: the values to visit instead of the legal range.
  std::vector<std::pair<std::string, std::vector<int>>> params;
  bool exhaustive = false;       // every WG/CU value in the walk; the whole space instead of the search
  int patience = 3;              // steps without improvement before the walk over WG/CU stops
  double time_limit_s = 2.0;     // per call of a kernel
  double time_budget_s = 120.0;  // per kernel, for the search of a large space
  std::uint64_t seed = 1;        // of the search's random sample
  std::function<double()> clock; // seconds, for the budget; empty: the host's steady clock
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
  std::string strategy;  // "walk over WG/CU", "whole space", "sample + climb"
  bool budget_spent = false;
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

// Measures and verifies one configuration, turning its failure into a status: every
// configuration a sweep visits goes through here. `params` must be legal (the caller checks).
// Rethrows UsageError (a bad request, not a bad configuration). Each configuration is a unit of
// crash isolation named `unit` (bench/isolation.hpp): one that crashed a worker is "crashed".
ConfigResult evaluate(TunableKernel& k, const Params& params, const SweepOptions& options,
                      const std::optional<Ceilings>& ceilings, Precision precision, const std::string& unit);

// Sweeps every kernel of `target`; progress to `log` (a bar on a terminal, lines otherwise).
// Throws UsageError when a --param names no parameter of any kernel, a value outside its legal
// values, or one that no legal configuration can take (naming the constraint).
SweepReport sweep(SweepTarget& target, const SweepOptions& options, const std::optional<Ceilings>& ceilings,
                  std::ostream& log, bool terminal);

// The thesis's table per kernel: time at 1 WG/CU (or the heuristic's), best time, best
// parameters, reduction.
void write_sweep_table(const std::vector<SweepReport>& reports, std::ostream& out);
// Every configuration of every kernel, for plots.
nlohmann::json sweep_json(const std::vector<SweepReport>& reports);
// The best configuration of each kernel, as tuning database entries.
std::vector<TuningEntry> best_entries(const SweepReport& report, const std::string& date, const std::string& commit);

}  // namespace gpubench
