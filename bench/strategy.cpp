#include "bench/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/errors.hpp"

namespace gpubench {

namespace {

// A space this large is searched by drawing configurations, not by listing them.
constexpr std::size_t listed_space_limit = 2'000'000;
// "auto" measures a space of at most this many legal configurations whole (when the budget allows).
constexpr std::size_t whole_space_limit = 256;

}  // namespace

Search::Search(const TunableSpace& space, Params heuristic, std::function<Measured(const Params&)> measure,
               SearchBudget budget, std::function<double()> clock, std::uint64_t seed, std::set<std::string> listed)
    : space_(space),
      measure_(std::move(measure)),
      budget_(budget),
      clock_(std::move(clock)),
      random_(seed),
      listed_(std::move(listed)) {
  if (space_.legal(heuristic)) heuristic_ = std::move(heuristic);
  start_ = clock_();
  for (const auto& t : space_.params) {
    index_.emplace_back();
    for (std::size_t i = 0; i < t.values.size(); ++i) index_.back()[t.values[i]] = i;
  }
}

const std::vector<Params>& Search::legal() {
  if (!legal_) {
    if (space_.size() > listed_space_limit)
      throw UsageError("a space of " + std::to_string(space_.size()) +
                       " parameter sets is too large to search: narrow it with --param");
    legal_ = space_.enumerate();
  }
  return *legal_;
}

double Search::elapsed() const { return clock_() - start_; }

bool Search::spent() const {
  if (budget_.evaluations && order_.size() >= *budget_.evaluations) return true;
  if (budget_.seconds && elapsed() >= *budget_.seconds) return true;
  return false;
}

std::optional<std::size_t> Search::left() const {
  if (!budget_.evaluations) return std::nullopt;
  return *budget_.evaluations - std::min(*budget_.evaluations, order_.size());
}

const Measured* Search::known(const Params& p) const {
  const auto it = measured_.find(p);
  return it == measured_.end() ? nullptr : &it->second;
}

double Search::cost(const Params& p) {
  const Measured* m = known(p);
  if (!m) {
    if (spent()) throw BudgetSpent{};
    order_.push_back(p);
    m = &(measured_[p] = measure_(p));
  }
  return m->ok ? m->seconds : std::numeric_limits<double>::infinity();
}

bool Search::exhausted() { return measured_.size() >= legal().size(); }

std::optional<Params> Search::best() const {
  std::optional<Params> best;
  double t = std::numeric_limits<double>::infinity();
  for (const Params& p : order_) {
    const Measured& m = measured_.at(p);
    if (m.ok && m.seconds < t) {
      t = m.seconds;
      best = p;
    }
  }
  return best;
}

std::optional<Params> Search::random_unmeasured() {
  const auto& all = legal();
  if (measured_.size() >= all.size()) return std::nullopt;
  // Rejection while most are left; otherwise pick among those left.
  if (measured_.size() * 2 < all.size()) {
    for (;;) {
      const Params& p = all[std::uniform_int_distribution<std::size_t>(0, all.size() - 1)(random_)];
      if (!known(p)) return p;
    }
  }
  std::vector<const Params*> rest;
  for (const Params& p : all)
    if (!known(p)) rest.push_back(&p);
  return *rest[std::uniform_int_distribution<std::size_t>(0, rest.size() - 1)(random_)];
}

void Search::prepare(const std::vector<Params>& upcoming) {
  if (!on_prepare) return;
  std::vector<Params> fresh;
  for (const Params& p : upcoming)
    if (!known(p)) fresh.push_back(p);
  if (const auto n = left(); n && fresh.size() > *n) fresh.resize(*n);
  if (!fresh.empty()) on_prepare(fresh);
}

std::vector<double> Search::coordinates(const Params& p) const {
  std::vector<double> x;
  for (std::size_t i = 0; i < space_.params.size(); ++i) {
    const std::size_t n = space_.params[i].values.size();
    const std::size_t at = index_[i].at(p.at(space_.params[i].name));
    x.push_back(n > 1 ? static_cast<double>(at) / static_cast<double>(n - 1) : 0.0);
  }
  return x;
}

namespace {

// The default. Without an evaluation budget, the kernel's own strategy where it declares one
// (CG's and EP's: the walk over work-groups per compute unit). Otherwise the whole space where it
// is small and fits the budget (judged from the heuristic's measurement, the first it makes), and
// the model-based search where it does not, within the time budget (default_seconds when none
// was given).
void automatic(Search& s) {
  if (!s.space().strategy.empty() && !s.budget().evaluations) {
    s.used = s.space().strategy;
    return strategy_named(s.used).run(s);
  }
  const std::size_t legal = s.legal().size();
  bool whole = legal <= whole_space_limit && (!s.left() || legal <= *s.left());
  const std::optional<double> seconds = s.budget().seconds ? s.budget().seconds : s.default_seconds;
  if (whole && seconds && !s.heuristic().empty()) {
    const double before = s.elapsed();
    s.cost(s.heuristic());
    const double estimate = (s.elapsed() - before) * static_cast<double>(legal);
    whole = estimate <= *seconds;
  }
  s.used = whole ? "exhaustive" : "bayes";
  if (whole) return strategies_impl::exhaustive(s);
  if (seconds) s.limit_seconds(*seconds);
  strategies_impl::bayes(s);
}

}  // namespace

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> all = {
      {"auto", "without --max-evals the kernel's own strategy where it declares one (CG, EP: walk); else the whole "
               "space when it has at most 256 legal configurations and fits the budget, else bayes",
       automatic},
      {"exhaustive", "every legal configuration, in order", strategies_impl::exhaustive},
      {"random", "legal configurations in a random order", strategies_impl::random},
      {"walk", "the OpenCL CG thesis's walk: for each setting of the other parameters, the walked one (the last "
               "declared) up from its first value until 3 steps in a row bring nothing beyond the noise",
       strategies_impl::walk},
      {"climb", "the heuristic and 32 at random, then hill climbing from the best 3", strategies_impl::climb},
      {"annealing", "simulated annealing over neighbouring configurations, cooling over the budget",
       strategies_impl::annealing},
      {"genetic", "a genetic algorithm: tournament selection, uniform crossover, mutation by one step",
       strategies_impl::genetic},
      {"bayes", "Bayesian optimisation: a Gaussian process of log time, expected improvement",
       strategies_impl::bayes},
  };
  return all;
}

std::string strategy_names() {
  std::string s;
  for (const auto& st : strategies()) s += (s.empty() ? "" : ", ") + st.name;
  return s;
}

const Strategy& strategy_named(const std::string& name) {
  for (const auto& s : strategies())
    if (s.name == name) return s;
  throw UsageError("--strategy '" + name + "' is not a strategy (valid: " + strategy_names() + ")");
}

}  // namespace gpubench
