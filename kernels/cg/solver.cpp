#include "kernels/cg/solver.hpp"

#include <algorithm>
#include <chrono>
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

// Throws the breakdown the fused forms' recurrence recorded in its state (recurrence.h), in
// checked_ratio's words.
void check_state(const Operations::Scalars& s) {
  const auto status = static_cast<int>(s[CG_STATUS]);
  const char* what = status == CG_BREAKDOWN_RAR   ? "r.Ar"
                     : status == CG_BREAKDOWN_DEN ? "delta - beta gamma / alpha"
                                                  : nullptr;
  if (what)
    throw VerificationError(std::string("CG breakdown: ") + what + " = " + std::to_string(s[CG_BAD]) +
                            " (singular or indefinite matrix, or the iteration diverged)");
  if (status == CG_BREAKDOWN_RHO)
    throw VerificationError("CG breakdown: three-term coefficient rho is not finite (" + std::to_string(s[CG_BAD]) +
                            ")");
}

// The fused forms: their coefficients come from recurrence.h, advanced where the operations keep
// the scalars (Operations::spmv_dot2_advance), read by the update kernels there; the host sees
// them at sync().
class FusedCg : public Solver {
 public:
  bool needs_sync() const override { return true; }
  void sync(Operations& ops) override {
    state_ = ops.get_scalars();
    check_state(state_);
  }
  double residual_sq() const override { return state_[CG_RR]; }

 protected:
  Operations::Scalars state_{};
};

// Saad, Iterative Methods for Sparse Linear Systems, 6.7.1: CG as a three-term recurrence
// (recurrence.h has its coefficients):
//   x_{j+1} = rho_j (x_j + gamma_j r_j) + (1 - rho_j) x_{j-1}
//   r_{j+1} = rho_j (r_j - gamma_j A r_j) + (1 - rho_j) r_{j-1}
// One SpMV that also reduces r.r and Ar.r (spmv_dot2), one fused update per iteration. The residual
// norm it knows is that of r_j, one iteration behind the iterate it has just made.
class ThreeTermCg final : public FusedCg {
 public:
  int recurrence_vectors() const override { return 6; }
  void start(Operations& ops) override {
    x_ = 1, x_prev_ = 2, r_ = 3, r_prev_ = 4;
    ops.fill_zero(x_);
    ops.fill_zero(x_prev_);
    ops.copy(rhs_slot, r_);
    ops.fill_zero(r_prev_);
    state_ = {};
    state_[CG_RR] = ops.dot(r_, r_);
    state_[CG_A] = 1;
    state_[CG_RHO_PREV] = 1;
    state_[CG_FIRST] = 1;
    ops.set_scalars(state_);
  }
  // w = A r with r.r and w.r from the same pass, the coefficients from them; then the update. An
  // exact solution (r = 0) or a breakdown leaves x as it is (recurrence.h).
  void step(Operations& ops) override {
    ops.spmv_dot2_advance(r_, w_, CG_RULE_THREE_TERM);
    ops.three_term_update_scalars(x_, x_prev_, r_, r_prev_, w_);
    std::swap(x_, x_prev_);
    std::swap(r_, r_prev_);
  }
  // The next step is a first one (rho = 1): x_prev and r_prev are not read. Called after a sync.
  void replace_residual(Operations& ops, Slot t, double true_sq) override {
    ops.copy(t, r_);
    state_[CG_FIRST] = 1;
    state_[CG_RR] = true_sq;
    ops.set_scalars(state_);
  }
  double final_residual_sq(Operations& ops) override { return ops.dot(r_, r_); }
  Slot solution() const override { return x_; }

 private:
  static constexpr Slot w_ = 5;
  Slot x_ = 1, x_prev_ = 2, r_ = 3, r_prev_ = 4;
};

// Chronopoulos & Gear (1989): s = Ap is carried by recurrence, so an iteration has one SpMV
// (w = Ar) and one reduction point (r.r and w.r together, from the SpMV's pass: spmv_dot2);
// recurrence.h has its coefficients.
//   p = r + beta p;  s = w + beta s;  x += alpha p;  r -= alpha s;  w = A r
class ChronopoulosGearCg final : public FusedCg {
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
    ops.cg_update_scalars(r, w, p, s, x);
    ops.spmv_dot2_advance(r, w, CG_RULE_CG);
  }
  double final_residual_sq(Operations&) override { return state_[CG_RR]; }
  Slot solution() const override { return x; }

 private:
  // The recurrence from the current x and r: p = s = 0, w = A r, and its first coefficients.
  static void restart(Operations& ops) {
    ops.fill_zero(p);
    ops.fill_zero(s);
    ops.spmv_dot2_advance(r, w, CG_RULE_CG_RESTART);
  }
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
  solver.sync(ops);
  if (per_kernel) ops.set_profiling(true);
  ops.start_timer();
  const auto issue_start = std::chrono::steady_clock::now();
  if (solver.whole_solve()) result.iterations = solver.run_whole(ops, rule);
  const int every = solver.needs_sync() ? std::max(rule.check_every, 1) : 1;
  double true_sq = -1;  // the true residual's squared norm where the loop stopped on it
  while (!solver.whole_solve() && result.iterations < rule.iterations) {
    if (!solver.needs_sync() || (rule.tolerance > 0 && result.iterations % every == 0)) {
      solver.sync(ops);
      // An exactly zero residual has nothing left to do (and would divide by zero).
      if (solver.residual_sq() == 0) break;
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
    }
    solver.step(ops);
    ++result.iterations;
  }
  result.issue_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - issue_start).count();
  result.seconds = result.iterations > 0 ? ops.stop_timer() : 0.0;
  if (per_kernel) ops.set_profiling(false);
  solver.sync(ops);  // a breakdown since the last look throws here
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
    solver.sync(ops);  // a breakdown in the 25 iterations throws here
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
