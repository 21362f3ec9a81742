// gpubench sweep --replay CACHE: the strategies run against sweep caches (bench/sweep_cache.hpp)
// with no device: each evaluation is answered from the cache, and the clock of a time budget is
// the time the sweep took to measure what was asked. Over many seeds, it says how close each
// strategy comes to the cache's optimum for a number of evaluations.
//
// A cache that does not hold the whole space is replayed over the configurations it holds (and
// says so): its optimum is the best of those.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/tunable.hpp"

namespace gpubench {

struct ReplayOptions {
  std::vector<std::string> strategies;  // names (bench/strategy.hpp)
  std::uint64_t seed = 1;               // the first seed
  int seeds = 1;
  std::optional<std::size_t> max_evals;  // none: the two budgets of the targets (below)
  std::optional<double> time_budget_s;
  int patience = 3;
};

// Fractions of the optimum (optimum time / best time so far; 0 before anything ran) over seeds.
struct ReplayRun {
  std::string strategy;
  std::size_t budget = 0;            // evaluations allowed
  std::vector<double> median, p10;   // after 1, 2, .. budget evaluations
  double final_median = 0, final_p10 = 0;
  double evaluations_median = 0;     // what the runs used (a strategy may end early)
  std::optional<double> to_97_median;  // evaluations until 97% of the optimum (median; none if not half reach it)
};

struct ReplayKernel {
  std::string file, id;
  std::size_t declared = 0;   // legal configurations the sweep declared
  std::size_t measured = 0;   // of them in the cache (the space replayed)
  std::size_t failed = 0;
  double optimum_s = 0;
  Params optimum;
  std::vector<ReplayRun> runs;  // per strategy: one per budget
  double seconds = 0;           // the replay's own time
};

// The budgets a replay uses without --max-evals: max(10% of the space, 20) and max(25%, 40),
// each at most the space.
std::vector<std::size_t> target_budgets(std::size_t space);

std::vector<ReplayKernel> replay(const std::vector<std::string>& files, const ReplayOptions& options, std::ostream& log);
void write_replay_table(const std::vector<ReplayKernel>& kernels, const ReplayOptions& options, std::ostream& out);
nlohmann::json replay_json(const std::vector<ReplayKernel>& kernels, const ReplayOptions& options);

}  // namespace gpubench
