#include "kernels/ep/ep.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "common/errors.hpp"

namespace gpubench::ep {

const std::vector<EpClass>& ep_classes() {
  // NAS Parallel Benchmarks 3.x, ep.c: M and the verification values of sx and sy.
  static const std::vector<EpClass> classes = {
      {'S', 24, -3.247834652034740e+3, -6.958407078382297e+3},
      {'W', 25, -2.863319731645753e+3, -6.320053679109499e+3},
      {'A', 28, -4.295875165629892e+3, -1.580732573678431e+4},
      {'B', 30, 4.033815542441498e+4, -2.660669192809235e+4},
      {'C', 32, 4.764367927995374e+4, -8.084072988043731e+4},
      {'D', 36, 1.982481200946593e+5, -1.020596636361769e+5},
      {'E', 40, -5.319717441530e+5, -3.688834557731e+5},
  };
  return classes;
}

const EpClass& ep_class(const std::string& name) {
  for (const EpClass& c : ep_classes())
    if (name.size() == 1 && std::toupper(static_cast<unsigned char>(name[0])) == c.name) return c;
  throw InputError("unknown EP class '" + name + "' (valid: S, W, A, B, C, D, E)");
}

double Tally::pairs_accepted() const {
  double n = 0;
  for (double c : q) n += c;
  return n;
}

Tally Tally::from_values(const double* values) {
  Tally t;
  t.sx = values[0];
  t.sy = values[1];
  std::copy(values + 2, values + 2 + annuli, t.q.begin());
  return t;
}

Tally host_tally(std::uint64_t first, std::uint64_t count) {
  Tally t;
  std::uint64_t x = state_before_pair(first);
  for (std::uint64_t p = 0; p < count; ++p) {
    x = (x * multiplier) & modulus_mask;
    const double x1 = 2.0 * (static_cast<double>(x) * two_to_minus_46) - 1.0;
    x = (x * multiplier) & modulus_mask;
    const double x2 = 2.0 * (static_cast<double>(x) * two_to_minus_46) - 1.0;
    const double r = x1 * x1 + x2 * x2;
    if (r <= 1.0) {
      const double f = std::sqrt(-2.0 * std::log(r) / r);
      const double g1 = x1 * f, g2 = x2 * f;
      const int l = static_cast<int>(std::max(std::abs(g1), std::abs(g2)));
      if (l < annuli) t.q[static_cast<std::size_t>(l)] += 1;  // |g| >= 10: 1e-23 likely, never seen
      t.sx += g1;
      t.sy += g2;
    }
  }
  return t;
}

Verdict verify(const EpClass& c, const Tally& t) {
  const double ex = std::abs((t.sx - c.sx_verify) / c.sx_verify);
  const double ey = std::abs((t.sy - c.sy_verify) / c.sy_verify);
  Verdict v;
  v.passed = ex <= verify_tolerance && ey <= verify_tolerance;  // false for NaN
  char text[200];
  std::snprintf(text, sizeof text, "sx %.15e (rel err %.1e), sy %.15e (rel err %.1e), NAS tolerance %.0e", t.sx, ex,
                t.sy, ey, verify_tolerance);
  v.detail = text;
  return v;
}

}  // namespace gpubench::ep
