#include "kernels/cg/solver.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"

namespace gpubench::cg {

// A zero or non-finite denominator is a breakdown: going on would print numbers computed from
// NaN. Negative ones are legitimate: NAS CG's matrix is shifted indefinite, and CG still works.
double checked_ratio(double num, double den, const char* what) {
  if (den == 0 || !std::isfinite(den) || !std::isfinite(num))
    throw VerificationError(std::string("CG breakdown: ") + what + " = " + std::to_string(den) +
                            " (singular or indefinite matrix, or the iteration diverged)");
  return num / den;
}

namespace {

class ClassicCg final : public Solver {
  enum : Slot { b = rhs_slot, x, r, p, ap, count };

 public:
  int recurrence_vectors() const override { return count; }
  void start(Operations& ops) override {
    ops.fill_zero(x);
    ops.copy(b, r);
    ops.copy(r, p);
    rr_ = ops.dot(r, r);
  }
  void step(Operations& ops) override {
    ops.spmv(p, ap);
    const double alpha = checked_ratio(rr_, ops.dot(p, ap), "p.Ap");
    ops.axpy(alpha, p, x);
    ops.axpy(-alpha, ap, r);
    const double rr_new = ops.dot(r, r);
    ops.xpay(r, rr_new / rr_, p);
    rr_ = rr_new;
  }
  void replace_residual(Operations& ops, Slot t, double true_sq) override {
    ops.copy(t, r);
    ops.copy(r, p);
    rr_ = true_sq;
  }
  double residual_sq() const override { return rr_; }
  double final_residual_sq(Operations&) override { return rr_; }
  Slot solution() const override { return x; }

 private:
  double rr_ = 0;
};

// Saad, Iterative Methods for Sparse Linear Systems, 6.7.1: CG as a three-term recurrence.
//   gamma_j = (r_j, r_j) / (A r_j, r_j)
//   rho_j   = 1 / (1 - gamma_j / gamma_{j-1} * (r_j, r_j) / (r_{j-1}, r_{j-1}) / rho_{j-1}), rho_0 = 1
//   x_{j+1} = rho_j (x_j + gamma_j r_j) + (1 - rho_j) x_{j-1}
//   r_{j+1} = rho_j (r_j - gamma_j A r_j) + (1 - rho_j) r_{j-1}
// One SpMV that also reduces r.r and Ar.r (spmv_dot2), one fused update per iteration. The residual
// norm it knows is that of r_j, one iteration behind the iterate it has just made.
class ThreeTermCg final : public Solver {
 public:
  int recurrence_vectors() const override { return 6; }
  void start(Operations& ops) override {
    x_ = 1, x_prev_ = 2, r_ = 3, r_prev_ = 4;
    ops.fill_zero(x_);
    ops.fill_zero(x_prev_);
    ops.copy(rhs_slot, r_);
    ops.fill_zero(r_prev_);
    first_ = true;
    rr_ = ops.dot(r_, r_);
  }
  void step(Operations& ops) override {
    const auto [rr, wr] = ops.spmv_dot2(r_, w_);  // w = A r, with r.r and w.r from the same pass
    // This variant learns the norm of the residual it made one step late: an exact solution
    // shows here as r = 0 (and r.Ar = 0). The iterate is then final; updating would be 0 / 0.
    if (rr == 0) {
      rr_ = 0;
      return;
    }
    const double gamma = checked_ratio(rr, wr, "r.Ar");
    double rho = 1;
    if (!first_) rho = 1 / (1 - gamma / gamma_prev_ * (rr / rr_prev_) / rho_prev_);
    if (!std::isfinite(rho))
      throw VerificationError("CG breakdown: three-term coefficient rho is not finite");
    ops.three_term_update(rho, gamma, x_, x_prev_, r_, r_prev_, w_);
    std::swap(x_, x_prev_);
    std::swap(r_, r_prev_);
    gamma_prev_ = gamma, rr_prev_ = rr, rho_prev_ = rho, rr_ = rr;
    first_ = false;
  }
  // The next step is a first one (rho = 1): x_prev and r_prev are not read.
  void replace_residual(Operations& ops, Slot t, double true_sq) override {
    ops.copy(t, r_);
    first_ = true;
    rr_ = true_sq;
  }
  double residual_sq() const override { return rr_; }
  double final_residual_sq(Operations& ops) override { return ops.dot(r_, r_); }
  Slot solution() const override { return x_; }

 private:
  static constexpr Slot w_ = 5;
  Slot x_ = 1, x_prev_ = 2, r_ = 3, r_prev_ = 4;
  bool first_ = true;
  double rr_ = 0, gamma_prev_ = 0, rr_prev_ = 0, rho_prev_ = 1;
};

// Chronopoulos & Gear (1989): s = Ap is carried by recurrence, so an iteration has one SpMV
// (w = Ar) and one reduction point (r.r and w.r together, from the SpMV's pass: spmv_dot2).
//   p = r + beta p;  s = w + beta s;  x += alpha p;  r -= alpha s;  w = A r
//   gamma' = (r, r);  delta = (w, r);  beta = gamma' / gamma;  alpha = gamma' / (delta - beta gamma' / alpha)
class ChronopoulosGearCg final : public Solver {
  enum : Slot { b = rhs_slot, x, r, w, p, s, count };

 public:
  int recurrence_vectors() const override { return count; }
  void start(Operations& ops) override {
    ops.fill_zero(x);
    ops.copy(b, r);
    restart(ops);
  }
  void replace_residual(Operations& ops, Slot t, double) override {
    ops.copy(t, r);
    restart(ops);
  }
  void step(Operations& ops) override {
    ops.cg_update(alpha_, beta_, r, w, p, s, x);
    const auto [gamma, delta] = ops.spmv_dot2(r, w);
    if (gamma == 0) {  // an exact solution: no next direction, and alpha would be 0 / 0
      gamma_ = 0;
      return;
    }
    beta_ = gamma / gamma_;
    alpha_ = checked_ratio(gamma, delta - beta_ * gamma / alpha_, "delta - beta gamma / alpha");
    gamma_ = gamma;
  }
  double residual_sq() const override { return gamma_; }
  double final_residual_sq(Operations&) override { return gamma_; }
  Slot solution() const override { return x; }

 private:
  // The recurrence from the current x and r: p = s = 0, w = A r, and its first coefficients.
  void restart(Operations& ops) {
    ops.fill_zero(p);
    ops.fill_zero(s);
    const auto [gamma, delta] = ops.spmv_dot2(r, w);
    gamma_ = gamma;
    alpha_ = gamma == 0 ? 0 : checked_ratio(gamma, delta, "r.Ar");
    beta_ = 0;
  }

  double gamma_ = 0, alpha_ = 0, beta_ = 0;
};

// Textbook CG from library calls alone (vendor variant): slot 0 b, then x, r, p, Ap.
class LibraryCg final : public Solver {
  enum : Slot { b = rhs_slot, x, r, p, ap, count };

 public:
  int recurrence_vectors() const override { return count; }
  void start(Operations& ops) override {
    LibraryCalls& lib = calls(ops);
    lib.prepare_spmv(p, ap);
    ops.fill_zero(x);
    ops.copy(b, r);
    ops.copy(r, p);
    rr_ = lib.dot(r, r);
  }
  void step(Operations& ops) override {
    LibraryCalls& lib = calls(ops);
    lib.spmv(p, ap);
    const double alpha = checked_ratio(rr_, lib.dot(p, ap), "p.Ap");
    lib.axpy(alpha, p, x);
    lib.axpy(-alpha, ap, r);
    const double rr_new = lib.dot(r, r);
    const double beta = rr_new / rr_;
    lib.scal(beta, p);  // p = r + beta p, as a library writes it: p = beta p; p += r
    lib.axpy(1.0, r, p);
    rr_ = rr_new;
  }
  void replace_residual(Operations& ops, Slot t, double true_sq) override {
    ops.copy(t, r);
    ops.copy(r, p);
    rr_ = true_sq;
  }
  double residual_sq() const override { return rr_; }
  double final_residual_sq(Operations&) override { return rr_; }
  Slot solution() const override { return x; }

 private:
  static LibraryCalls& calls(Operations& ops) {
    LibraryCalls* lib = ops.library();
    if (!lib) throw Error(ExitCode::internal, "the library CG on operations without library calls");
    return *lib;
  }

  double rr_ = 0;
};

}  // namespace

std::unique_ptr<Solver> make_library_cg() { return std::make_unique<LibraryCg>(); }

void Solver::replace_residual(Operations&, Slot, double) {
  throw Error(ExitCode::internal, "replace_residual() called on a solver that runs whole");
}

int Solver::run_whole(Operations&, const StopRule&) {
  throw Error(ExitCode::internal, "run_whole() called on a solver that steps");
}

std::unique_ptr<Solver> make_solver(Variant v) {
  switch (v) {
    case Variant::classic: return std::make_unique<ClassicCg>();
    case Variant::form1: return std::make_unique<ThreeTermCg>();
    case Variant::form2: return std::make_unique<ChronopoulosGearCg>();
    case Variant::vendor: break;  // the backend's own: Operations::make_vendor_solver()
  }
  throw Error(ExitCode::internal, "make_solver: unknown variant");
}

SolveResult solve(Operations& ops, Solver& solver, const StopRule& rule, double b_norm, bool per_kernel) {
  if (b_norm == 0) throw InputError("the right-hand side b is zero: nothing to solve");
  const double stop_sq = rule.tolerance * rule.tolerance * b_norm * b_norm;
  SolveResult result;
  solver.start(ops);
  if (per_kernel) ops.set_profiling(true);
  ops.start_timer();
  if (solver.whole_solve()) result.iterations = solver.run_whole(ops, rule);
  double true_sq = -1;  // the true residual's squared norm where the loop stopped on it
  // An exactly zero residual has nothing left to do (and would divide by zero).
  while (!solver.whole_solve() && result.iterations < rule.iterations && solver.residual_sq() > 0) {
    // The residual a variant knows may lag its iterate (form1): confirm on the current one, then
    // on the true residual, which the recursive one may have drifted from.
    if (rule.tolerance > 0 && solver.residual_sq() <= stop_sq && solver.final_residual_sq(ops) <= stop_sq) {
      const Slot t = solver.scratch_slot();
      ops.spmv(solver.solution(), t);
      ops.xpay(rhs_slot, -1.0, t);  // t = b - A x
      true_sq = ops.dot(t, t);
      if (true_sq <= stop_sq) break;
      solver.replace_residual(ops, t, true_sq);
      ++result.residual_replacements;
      true_sq = -1;
      continue;  // its residual is now above the tolerance: the next pass steps
    }
    solver.step(ops);
    ++result.iterations;
  }
  result.seconds = result.iterations > 0 ? ops.stop_timer() : 0.0;
  if (per_kernel) ops.set_profiling(false);
  const double rr = true_sq >= 0 ? true_sq : solver.final_residual_sq(ops);
  result.relative_residual = std::sqrt(rr) / b_norm;
  result.converged = rule.tolerance <= 0 || rr <= stop_sq;
  return result;
}

NpbResult npb_benchmark(Operations& ops, Solver& solver, const NpbClass& c) {
  const Slot x = rhs_slot;                 // NAS's x: the right-hand side of each solve
  const Slot scratch = solver.scratch_slot();  // for the explicit residual A z - x
  NpbResult result;
  ops.start_timer();
  for (int it = 0; it < c.niter; ++it) {
    // conj_grad: 25 iterations solving A z = x from z = 0, then ||x - A z||.
    solver.start(ops);
    if (solver.whole_solve())
      solver.run_whole(ops, StopRule{npb_cg_iterations, 0});
    else
      for (int k = 0; k < npb_cg_iterations; ++k) solver.step(ops);
    const Slot z = solver.solution();
    ops.spmv(z, scratch);
    ops.axpy(-1.0, x, scratch);
    result.rnorm = std::sqrt(ops.dot(scratch, scratch));
    // zeta = shift + 1 / (x.z); x = z / ||z||
    const double xz = ops.dot(x, z);
    const double zz = ops.dot(z, z);
    if (!(zz > 0) || !std::isfinite(xz))
      throw VerificationError("NAS CG: power iteration produced z.z = " + std::to_string(zz));
    result.zeta = c.shift + 1.0 / xz;
    ops.scale(1.0 / std::sqrt(zz), z, x);
    result.cg_iterations += npb_cg_iterations;
  }
  result.seconds = ops.stop_timer();
  return result;
}

}  // namespace gpubench::cg
