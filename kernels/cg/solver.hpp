// The CG algorithm, written once against the Operations interface: the textbook form (classic),
// Saad's three-term recurrence (form1) and Chronopoulos-Gear (form2). Every API runs this code.
#pragma once

#include <memory>

#include "kernels/cg/npb.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

struct StopRule {
  int iterations = 100;    // fixed count, or the cap when tolerance > 0
  double tolerance = 0;    // relative residual ||r|| / ||b||; 0: run exactly `iterations`
  // With a tolerance, how often the fused forms' residual is read from where their scalars live
  // (Operations::device_scalars: the device's memory): every check_every iterations. The forms
  // whose host computes the coefficients (classic, vendor) know it every iteration and check then.
  int check_every = default_check_every;
  static constexpr int default_check_every = 10;
};

// One variant's state. Slot 0 holds b (uploaded by the caller), the solution starts at x = 0.
class Solver {
 public:
  virtual ~Solver() = default;
  // The slots its recurrence uses, b included (slots 0 .. recurrence_vectors() - 1).
  virtual int recurrence_vectors() const = 0;
  // What a caller allocates: those and one more, scratch_slot(), where solve() computes the true
  // residual b - A x and npb_benchmark() NAS's A z - x.
  int vectors() const { return recurrence_vectors() + 1; }
  Slot scratch_slot() const { return recurrence_vectors(); }
  virtual void start(Operations& ops) = 0;         // x = 0, r = b, and the variant's set-up
  virtual void step(Operations& ops) = 0;          // one CG iteration
  // Residual replacement: `true_residual` holds b - A x of the current iterate and true_sq its
  // squared norm. The recurrence goes on from the current x with that residual in place of the
  // one it carried (its search direction restarted from it), so that a residual that drifted
  // from the true one is corrected. A whole solve cannot be corrected: the default refuses.
  virtual void replace_residual(Operations& ops, Slot true_residual, double true_sq);
  // The fused forms keep their scalars with the operations (Operations::Scalars): sync() reads
  // them (from the device where they live there) and throws VerificationError, naming it, on a
  // breakdown the recurrence recorded. Until then residual_sq() is that of the last sync. The
  // other forms compute their coefficients on the host: residual_sq() is current after every
  // step, and sync() does nothing.
  virtual bool needs_sync() const { return false; }
  virtual void sync(Operations&) {}
  virtual double residual_sq() const = 0;          // ||r||^2 as the recurrence knows it
  virtual double final_residual_sq(Operations& ops) = 0;  // ||r||^2 of the current iterate
  virtual Slot solution() const = 0;

  // A library CG that cannot be stepped (ViennaCL's cg) runs a whole solve in one call:
  // solve() and npb_benchmark() call run_whole() after start() instead of step(). It returns
  // the iterations done; residual_sq() is then its final residual.
  virtual bool whole_solve() const { return false; }
  virtual int run_whole(Operations& ops, const StopRule& rule);
};

std::unique_ptr<Solver> make_solver(Variant v);
// Textbook CG from library calls alone (the vendor variant where a backend has LibraryCalls):
// per iteration one SpMV, two dots, three axpys and a scal (p = beta p; p += r, as a library
// writes p = r + beta p), on whatever Operations it runs on (Operations::library()).
std::unique_ptr<Solver> make_library_cg();

// num / den for a CG coefficient; a zero or non-finite denominator (or numerator) throws
// VerificationError naming `what`: a breakdown is never printed as a number. Every solver, the
// library ones included, uses this one rule.
double checked_ratio(double num, double den, const char* what);

inline constexpr Slot rhs_slot = 0;


struct SolveResult {
  int iterations = 0;
  double seconds = 0;             // device time of the iterations (set-up excluded)
  // The host's time to issue them: from start_timer() to the call of stop_timer(), which waits.
  // A launch waits where its queue is full, so well under `seconds` the host ran ahead of the
  // devices (its calls are not what limits the solve); near it, either they limit or the host
  // waited on full queues.
  double issue_seconds = 0;
  // ||r|| / ||b|| at the end: the true residual's where the solve stopped on the tolerance (it
  // was computed to confirm the stop), else the solver's own.
  double relative_residual = 0;
  bool converged = false;         // reached the tolerance (always true for a fixed count)
  int residual_replacements = 0;  // times the true residual replaced a drifted recursive one
};

// Runs start, then iterations timed with device events. b must be in slot 0; b_norm = ||b||.
// The solver's residual is looked at every iteration, or for a solver that needs_sync() every
// rule.check_every iterations and only with a tolerance (a fixed count reads the scalars once, at
// the end): so a tolerance solve of a fused form may run up to check_every - 1 iterations past
// the one that met it.
// With a tolerance, the solve stops only on the true residual: once the solver's own residual
// meets the tolerance, b - A x is computed (in scratch_slot()); if it too meets the tolerance the
// solve stops, else it replaces the solver's residual (Solver::replace_residual, counted) and the
// iterations go on, up to the cap. A fixed count never replaces.
// per_kernel: keep every iteration kernel's event (set-up kernels excluded) for take_profile().
SolveResult solve(Operations& ops, Solver& solver, const StopRule& rule, double b_norm, bool per_kernel = false);

struct NpbResult {
  double zeta = 0;
  double rnorm = 0;    // ||x - A z|| of the last outer step
  double seconds = 0;  // the timed benchmark: niter outer steps
  int cg_iterations = 0;
};

// The NAS CG benchmark loop (niter outer power-iteration steps of 25 CG iterations each) with
// the given variant as its conj_grad. Needs solver.vectors() slots; slot 0 is NAS's x.
NpbResult npb_benchmark(Operations& ops, Solver& solver, const NpbClass& c);

}  // namespace gpubench::cg
