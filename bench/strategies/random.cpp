// Legal configurations drawn without repetition, uniformly: the baseline every other strategy
// must beat.
#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

void random(Search& s) {
  while (const auto p = s.random_unmeasured()) s.cost(*p);
}

}  // namespace gpubench::strategies_impl
