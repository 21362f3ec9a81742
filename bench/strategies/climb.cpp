// Sample and climb, as Kernel Tuner's greedy strategies and CLBlast's tuner do: the heuristic and
// 32 configurations at random, then hill climbing from the best 3 of them (each step moves to the
// best neighbour, one parameter one step up or down, while it beats the current one by more than
// the noise). When every climb has reached its local optimum, it starts again from a random
// configuration not measured yet, while the budget lasts (with no budget: one round).
#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

namespace {

constexpr std::size_t sample = 32, climbs = 3;

void climb_from(Search& s, Params current) {
  for (;;) {
    const double here = s.cost(current);
    const double noise = s.known(current)->noise;
    Params next = current;
    double best = here * (1 - noise);
    for (const Params& n : s.space().neighbours(current)) {
      const double t = s.cost(n);
      if (t < best) {
        best = t;
        next = n;
      }
    }
    if (next == current) return;  // a local optimum
    current = next;
  }
}

}  // namespace

void climb(Search& s) {
  std::vector<Params> drawn;
  if (!s.heuristic().empty()) drawn.push_back(s.heuristic());
  for (std::size_t i = 0; i < sample; ++i)
    if (const auto p = s.random_unmeasured()) {
      if (std::find(drawn.begin(), drawn.end(), *p) == drawn.end()) drawn.push_back(*p);
    }
  for (const Params& p : drawn) s.cost(p);
  std::sort(drawn.begin(), drawn.end(), [&](const Params& a, const Params& b) { return s.cost(a) < s.cost(b); });
  drawn.resize(std::min(drawn.size(), climbs));
  for (const Params& p : drawn)
    if (s.known(p)->ok) climb_from(s, p);
  // Restarts, only within a budget (a search without one ends after its first round).
  if (!s.budget().evaluations && !s.budget().seconds) return;
  while (const auto p = s.random_unmeasured()) {
    if (s.cost(*p) < INFINITY) climb_from(s, *p);
  }
}

}  // namespace gpubench::strategies_impl
