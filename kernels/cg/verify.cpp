#include "kernels/cg/verify.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace gpubench::cg {

namespace {
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}
double epsilon(Precision p) {
  return p == Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}
}  // namespace

Verdict verify_solve(const CsrMatrix& a, std::span<const double> b, std::span<const double> x,
                     Precision p, const SolveResult& solve, const StopRule& rule, HostReference& ref) {
  Verdict v;
  v.solver_residual = solve.relative_residual;
  for (double xi : x) {
    if (!std::isfinite(xi)) {
      v.detail = "the solution has non-finite entries";
      return v;
    }
  }
  v.true_residual = true_relative_residual(a, b, x);
  v.reference_residual = ref.relative_residual(solve.iterations);
  v.attainable = 100 * epsilon(p) * norm_inf(a) * std::sqrt(host_dot(x, x)) / ref.b_norm();

  const std::string numbers = "true residual " + sci(v.true_residual) + ", solver's " + sci(v.solver_residual) +
                              ", host reference " + sci(v.reference_residual) + " after " +
                              std::to_string(solve.iterations) + " iterations (attainable " + sci(v.attainable) + ")";
  if (!std::isfinite(v.solver_residual) ||
      std::abs(v.true_residual - v.solver_residual) > 0.5 * v.true_residual + v.attainable) {
    v.detail = "the solver's residual disagrees with the true residual: " + numbers;
    return v;
  }
  if (rule.tolerance <= 0 && v.true_residual > 10 * v.reference_residual + v.attainable) {
    v.detail = "worse than the host double reference: " + numbers;
    return v;
  }
  if (rule.tolerance > 0) {
    if (!solve.converged) {
      v.detail = "did not reach tolerance " + sci(rule.tolerance) + " in " + std::to_string(rule.iterations) +
                 " iterations: " + numbers;
      return v;
    }
    if (v.true_residual > rule.tolerance + v.attainable) {
      v.detail = "converged by its own residual but not truly: " + numbers;
      return v;
    }
  }
  v.passed = true;
  v.detail = numbers;
  return v;
}

Verdict verify_npb(const NpbClass& c, Precision p, double zeta) {
  Verdict v;
  const double limit = p == Precision::f64 ? npb_verify_epsilon : 1e-4;
  const double err = std::abs(zeta - c.zeta_verify) / c.zeta_verify;
  char buf[160];
  std::snprintf(buf, sizeof buf, "zeta %.13f vs official %.13f (class %c): relative error %.3e, limit %.0e",
                zeta, c.zeta_verify, c.name, err, limit);
  v.detail = buf;
  v.passed = std::isfinite(zeta) && err <= limit;
  return v;
}

}  // namespace gpubench::cg
