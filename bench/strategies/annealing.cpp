// Simulated annealing (after Kernel Tuner's simulated_annealing, written anew): a walk through
// neighbouring configurations (one parameter one step up or down) that always takes a faster
// one and takes a slower one with probability exp(-(relative slowdown) / T). The temperature
// falls geometrically from 1 to 0.001 over the budget (the evaluations allowed, or the legal
// configurations when no count is given). Every step measures a configuration not measured
// before: a configuration whose neighbours are all measured jumps to a random unmeasured one
// (a restart), so the walk never spins on answers it has, and ends when the space is exhausted.
#include <cmath>
#include <random>
#include <vector>

#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

void annealing(Search& s) {
  constexpr double t_start = 1.0, t_end = 1e-3;
  const double horizon = static_cast<double>(s.budget().evaluations ? *s.budget().evaluations : s.legal().size());
  std::uniform_real_distribution<double> uniform(0, 1);
  Params current;
  if (!s.heuristic().empty()) current = s.heuristic();
  else if (const auto p = s.random_unmeasured()) current = *p;
  else return;
  double here = s.cost(current);
  while (!s.exhausted()) {
    std::vector<Params> fresh;
    for (Params& n : s.space().neighbours(current))
      if (!s.known(n)) fresh.push_back(std::move(n));
    if (fresh.empty()) {
      // Stuck where everything near is measured: restart from the best or, often, anywhere new.
      const auto best = s.best();
      if (best && uniform(s.random()) < 0.5) {
        for (Params& n : s.space().neighbours(*best))
          if (!s.known(n)) fresh.push_back(std::move(n));
      }
      if (fresh.empty()) {
        const auto p = s.random_unmeasured();
        if (!p) return;
        fresh.push_back(*p);
      }
    }
    const Params next = fresh[std::uniform_int_distribution<std::size_t>(0, fresh.size() - 1)(s.random())];
    const double there = s.cost(next);
    const double progress = std::min(1.0, static_cast<double>(s.evaluations()) / std::max(horizon, 1.0));
    const double temperature = t_start * std::pow(t_end / t_start, progress);
    bool take = there < here;
    if (!take && std::isfinite(there)) {
      const double slowdown = std::isfinite(here) ? (there - here) / here : 0.0;
      take = uniform(s.random()) < std::exp(-slowdown / temperature);
    }
    if (take) {
      current = next;
      here = there;
    }
  }
}

}  // namespace gpubench::strategies_impl
