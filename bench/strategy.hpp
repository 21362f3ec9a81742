// Search strategies: how a sweep chooses which configurations of a kernel's space to measure.
// Every strategy sees one interface, a Search: the space (its legal configurations), an
// evaluation (the time of a configuration, +inf for one that failed), a budget (evaluations
// and/or seconds) and a seeded random source. The same Search runs on a device (bench/sweep.cpp)
// and on a cache of measurements with no device (replay), so strategies can be compared over many
// seeds. Each strategy is its own file under bench/strategies/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/tunable.hpp"

namespace gpubench {

// What one evaluation gives a strategy.
struct Measured {
  bool ok = false;
  double seconds = 0;     // per call, when ok
  double noise = 0.01;    // half the relative spread of its samples (at least 1%)
  bool not_launched = false;  // it could not be built or launched at all (not a wrong or slow result)
};

struct SearchBudget {
  std::optional<std::size_t> evaluations;  // --max-evals
  std::optional<double> seconds;           // --time-budget: none started after it is spent
};

// Thrown by Search::cost when the budget forbids another evaluation: the strategy ends there.
struct BudgetSpent {};

class Search {
 public:
  // `measure` evaluates a legal configuration; `clock` is seconds (for the time budget).
  Search(const TunableSpace& space, Params heuristic, std::function<Measured(const Params&)> measure,
         SearchBudget budget, std::function<double()> clock, std::uint64_t seed,
         std::set<std::string> listed = {});

  const TunableSpace& space() const { return space_; }
  const Params& heuristic() const { return heuristic_; }  // legal, or empty when not
  // The legal configurations, in the space's enumeration order (computed once).
  const std::vector<Params>& legal();
  std::mt19937_64& random() { return random_; }
  // The parameters whose values the user listed (--param): a walk visits all of them.
  bool listed(const std::string& name) const { return listed_.count(name) > 0; }

  // The cost of `p`: its time per call, +inf when it failed. A configuration measured before is
  // answered from memory and costs nothing; a new one throws BudgetSpent when the budget is spent.
  double cost(const Params& p);
  const Measured* known(const Params& p) const;  // nullptr when not measured yet
  bool spent() const;                             // whether a new evaluation would be refused
  std::size_t evaluations() const { return order_.size(); }
  // Evaluations the budget still allows (nullopt: no count limit).
  std::optional<std::size_t> left() const;
  // All legal configurations measured: nothing more to learn.
  bool exhausted();
  // The best so far (nullopt when none succeeded) and its cost.
  std::optional<Params> best() const;
  // A legal configuration not measured yet, uniformly (nullopt when none is left).
  std::optional<Params> random_unmeasured();

  // A hint to the measurement: these will be measured next (what is measured already is left out).
  void prepare(const std::vector<Params>& upcoming);
  std::function<void(const std::vector<Params>&)> on_prepare;  // where the hint goes (none: dropped)

  // A configuration as a point of [0, 1]^d: each parameter's place along its values.
  std::vector<double> coordinates(const Params& p) const;
  // Seconds since the search started, and the time budget (nullopt: none).
  double elapsed() const;
  const SearchBudget& budget() const { return budget_; }

  // A time budget from now on where none was given (auto's search of a large space).
  void limit_seconds(double seconds) {
    if (!budget_.seconds) budget_.seconds = elapsed() + seconds;
  }

  int patience = 3;   // the walk: steps without improvement before it stops
  std::optional<double> default_seconds;  // auto's time budget when none was given
  std::string used;   // what "auto" chose, for the tables ("exhaustive", "bayes")

 private:
  TunableSpace space_;
  Params heuristic_;
  std::function<Measured(const Params&)> measure_;
  SearchBudget budget_;
  std::function<double()> clock_;
  double start_ = 0;
  std::mt19937_64 random_;
  std::set<std::string> listed_;
  std::optional<std::vector<Params>> legal_;
  std::map<Params, Measured> measured_;
  std::vector<Params> order_;
  std::vector<std::map<int, std::size_t>> index_;  // value -> its place, per parameter
};

struct Strategy {
  std::string name;
  std::string help;  // one line for --help
  std::function<void(Search&)> run;
};

// Every strategy, the default ("auto") first.
const std::vector<Strategy>& strategies();
// UsageError naming the valid ones.
const Strategy& strategy_named(const std::string& name);
std::string strategy_names();  // "auto, exhaustive, ..."

// The strategies themselves (bench/strategies/*.cpp). Each returns when its search is done, the
// space is exhausted, or the budget is spent.
namespace strategies_impl {
void exhaustive(Search& s);
void random(Search& s);
void walk(Search& s);
void climb(Search& s);
void annealing(Search& s);
void genetic(Search& s);
void bayes(Search& s);
}  // namespace strategies_impl

}  // namespace gpubench
