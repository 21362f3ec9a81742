// Every legal configuration, in the space's order (the first parameter outermost).
#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

void exhaustive(Search& s) {
  if (!s.heuristic().empty()) s.cost(s.heuristic());  // what a run without tuning gets, first
  s.prepare(s.legal());
  for (const Params& p : s.legal()) s.cost(p);
}

}  // namespace gpubench::strategies_impl
