// The sweeper: it searches the parameters each kernel declares (bench/tunable.hpp) with a
// strategy (bench/strategy.hpp; --strategy, default auto), within a budget of evaluations
// (--max-evals) and/or seconds (--time-budget). Configurations that break a constraint are never
// measured. Every configuration is verified; one that fails to build, launch, verify, or finish
// within the time limit is recorded with its reason and the sweep goes on. With --cache FILE
// every measurement is also appended to FILE (bench/sweep_cache.hpp), and a configuration FILE
// holds is taken from it instead of being measured again.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/strategy.hpp"
#include "bench/tunable.hpp"
#include "bench/tuning_db.hpp"

namespace gpubench {

// auto's time budget for a search of a large space when --time-budget is not given.
inline constexpr double default_time_budget_s = 120.0;

struct SweepOptions {
  // --param NAME=LIST_OR_RANGE, expanded: the values to visit instead of the legal range.
  std::vector<std::pair<std::string, std::vector<int>>> params;
  std::string strategy = "auto";        // bench/strategy.hpp (--exhaustive: "exhaustive")
  int patience = 3;                     // the walk: steps without improvement before it stops
  double time_limit_s = 2.0;            // per call of a kernel
  std::optional<std::size_t> max_evals;  // per kernel
  std::optional<double> time_budget_s;   // per kernel (auto's search: default_time_budget_s)
  std::uint64_t seed = 1;               // of the strategies' random choices
  std::string cache;                    // --cache FILE: empty for none
  Objective objective = Objective::time;  // --objective: what the search minimizes
  std::function<double()> clock; // seconds, for the budget; empty: the host's steady clock
};

// Parses one --param value: "NAME=8,16,32", "NAME=1:16" (a range, inclusive), or both forms
// mixed ("1:4,8"). Throws UsageError naming what is wrong.
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
  std::string strategy;  // the strategy's name; auto's with what it chose: "auto: bayes"
  bool budget_spent = false;
  std::size_t from_cache = 0;  // configurations the cache answered
  TuningKey key;
  double flops_per_call = 0, bytes_per_call = 0;
  std::vector<ConfigResult> configs;  // in the order visited
  int best = -1;      // index into configs; -1 when none verified
  // After a walk, the walked parameter at its first value with the best's others (the thesis's
  // one work-group per compute unit; baseline_name says which, "NAME=1"); otherwise the
  // heuristic's configuration.
  int baseline = -1;
  std::string baseline_name;
  std::string heuristic_source;  // what the heuristic is (TunableKernel::heuristic_source)
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
  Objective objective = Objective::time;  // what the best minimizes
};

// Measures and verifies one configuration, turning its failure into a status: every
// configuration a sweep visits goes through here. `params` must be legal (the caller checks).
// Rethrows UsageError (a bad request, not a bad configuration). Each configuration is a unit of
// crash isolation named `unit` (bench/isolation.hpp): one that crashed a worker is "crashed".
// What a strategy sees of a configuration's result.
Measured measured_of(const ConfigResult& r, Objective objective = Objective::time);

// UsageError, before anything is measured, where `objective` needs an energy meter `device` lacks.
void check_objective(const DeviceInfo& device, Objective objective);

// A parameter set as JSON ({"NAME": 16, ..}) and back (nlohmann's errors for a value not an integer).
nlohmann::json params_json(const Params& p);
Params params_of(const nlohmann::json& j);

ConfigResult evaluate(TunableKernel& k, const Params& params, const SweepOptions& options,
                      const std::optional<Ceilings>& ceilings, Precision precision, const std::string& unit);

// Sweeps every kernel of `target`; progress to `log` (a bar on a terminal, lines otherwise).
// Throws UsageError when a --param names no parameter of any kernel, a value outside its legal
// values, or one that no legal configuration can take (naming the constraint).
SweepReport sweep(SweepTarget& target, const SweepOptions& options, const std::optional<Ceilings>& ceilings,
                  std::ostream& log, bool terminal);

// The thesis's table per kernel: the baseline's time (KernelSweep::baseline), best time, best
// parameters, reduction.
void write_sweep_table(const std::vector<SweepReport>& reports, std::ostream& out);
// Every configuration of every kernel, for plots.
nlohmann::json sweep_json(const std::vector<SweepReport>& reports);
// The best configuration of each kernel, as tuning database entries.
std::vector<TuningEntry> best_entries(const SweepReport& report, const std::string& date, const std::string& commit);

}  // namespace gpubench
