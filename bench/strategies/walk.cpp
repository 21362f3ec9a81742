// The walk of the OpenCL CG thesis the project descends from: for each setting of the other
// parameters, the walked parameter (the last declared: CG's and EP's work-groups per compute
// unit) goes up from its first value one step at a time, and stops once `patience` steps have
// not improved on the best of this walk by more than its measurement noise. A setting whose
// first step fails to launch is left at once. Values the user listed (--param) are all visited.
#include <cmath>
#include <limits>
#include <vector>

#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

void walk(Search& s) {
  const TunableSpace& space = s.space();
  if (space.params.empty()) return;
  const Tunable& walked = space.params.back();
  TunableSpace others = space;
  others.constraints.clear();
  others.params.pop_back();
  const std::vector<Params> settings = others.params.empty() ? std::vector<Params>{Params{}} : others.enumerate();
  const bool all = s.listed(walked.name);
  for (const Params& setting : settings) {
    double best = std::numeric_limits<double>::infinity(), noise = 0.01;
    int since = 0;
    bool first = true;
    for (int v : walked.values) {
      Params p = setting;
      p[walked.name] = v;
      if (!space.legal(p)) continue;
      const double t = s.cost(p);
      const Measured& m = *s.known(p);
      if (first && m.not_launched) break;  // these parameters do not launch at all
      first = false;
      if (m.ok && t < best * (1 - noise)) {
        best = t;
        noise = m.noise;
        since = 0;
      } else if (++since >= s.patience && !all) {
        break;
      }
    }
  }
}

}  // namespace gpubench::strategies_impl
