// A genetic algorithm (after Kernel Tuner's genetic_algorithm, written anew). A population of
// legal configurations (the heuristic among the first); each generation keeps the better half
// (elitism), and fills the other half with children: two parents chosen by tournament (the faster
// of two drawn at random), uniform crossover (each parameter from either), then mutation (each
// parameter, with probability 1/d, one step up or down). A child that breaks a constraint or was
// measured before is mutated again, and after 20 tries replaced by a random unmeasured
// configuration, so that every child costs one new measurement. It ends when the space is
// exhausted or the budget is spent.
#include <algorithm>
#include <random>
#include <vector>

#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

namespace {

Params mutate(Search& s, Params p, double rate) {
  std::uniform_real_distribution<double> uniform(0, 1);
  for (const Tunable& t : s.space().params) {
    if (t.values.size() < 2 || uniform(s.random()) >= rate) continue;
    const auto at = static_cast<std::size_t>(std::find(t.values.begin(), t.values.end(), p.at(t.name)) - t.values.begin());
    std::size_t to = at;
    if (at == 0) to = 1;
    else if (at + 1 == t.values.size()) to = at - 1;
    else to = uniform(s.random()) < 0.5 ? at - 1 : at + 1;
    p[t.name] = t.values[to];
  }
  return p;
}

}  // namespace

void genetic(Search& s) {
  const std::size_t legal = s.legal().size();
  const std::size_t budget = s.budget().evaluations ? *s.budget().evaluations : legal;
  // About 5 generations within the budget, 4 to 20 at a time.
  const std::size_t size = std::clamp<std::size_t>(budget / 5, 4, 20);
  const double rate = 1.0 / static_cast<double>(std::max<std::size_t>(1, s.space().params.size()));
  // The first generation: the heuristic and distinct configurations drawn at random.
  std::vector<Params> population;
  if (!s.heuristic().empty()) population.push_back(s.heuristic());
  std::vector<const Params*> pool;
  for (const Params& p : s.legal())
    if (!s.known(p) && p != s.heuristic()) pool.push_back(&p);
  std::shuffle(pool.begin(), pool.end(), s.random());
  for (std::size_t i = 0; i < pool.size() && population.size() < size; ++i) population.push_back(*pool[i]);
  auto faster = [&](const Params& a, const Params& b) { return s.cost(a) < s.cost(b); };
  while (!s.exhausted()) {
    for (const Params& p : population) s.cost(p);
    std::stable_sort(population.begin(), population.end(), faster);
    const std::size_t keep = std::max<std::size_t>(2, population.size() / 2);
    std::vector<Params> next(population.begin(), population.begin() + static_cast<std::ptrdiff_t>(std::min(keep, population.size())));
    std::uniform_int_distribution<std::size_t> pick(0, population.size() - 1);
    auto tournament = [&]() -> const Params& {
      const Params& a = population[pick(s.random())];
      const Params& b = population[pick(s.random())];
      return s.cost(a) <= s.cost(b) ? a : b;
    };
    while (next.size() < size) {
      const Params& mother = tournament();
      const Params& father = tournament();
      Params child;
      for (const Tunable& t : s.space().params)
        child[t.name] = std::uniform_int_distribution<int>(0, 1)(s.random()) ? mother.at(t.name) : father.at(t.name);
      child = mutate(s, child, rate);
      for (int tries = 0; (!s.space().legal(child) || s.known(child) ||
                           std::find(next.begin(), next.end(), child) != next.end()) && tries < 20; ++tries)
        child = mutate(s, mother, std::max(rate, 0.5));
      if (!s.space().legal(child) || s.known(child) || std::find(next.begin(), next.end(), child) != next.end()) {
        const auto p = s.random_unmeasured();
        if (!p || std::find(next.begin(), next.end(), *p) != next.end()) break;
        child = *p;
      }
      next.push_back(std::move(child));
    }
    if (next.size() <= keep) {  // nothing new could be bred: the rest of the space at random
      while (const auto p = s.random_unmeasured()) s.cost(*p);
      return;
    }
    population = std::move(next);
  }
}

}  // namespace gpubench::strategies_impl
