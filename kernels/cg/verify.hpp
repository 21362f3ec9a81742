// Verification of every CG run. A point passes only if every check here holds.
#pragma once

#include <span>
#include <string>

#include "common/precision.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"

namespace gpubench::cg {

struct Verdict {
  bool passed = false;
  std::string detail;             // what was checked and, on failure, which check failed
  double true_residual = 0;       // ||b - A x|| / ||b|| from the device's x, in double
  double solver_residual = 0;     // the device recurrence's ||r|| / ||b||
  double reference_residual = 0;  // the host double reference after the same iterations
  double attainable = 0;          // residual floor of the precision for this problem
};

// Checks a solve against what it must agree with (attainable = 100 eps ||A||_inf ||x|| / ||b||,
// the residual floor of the precision):
//  1. x is finite and its true residual agrees with the solver's own (|true - solver| <=
//     0.5 true + attainable): the recurrence did not drift away from the iterate (a tolerance
//     solve reports the true residual it stopped on, solve() in solver.hpp);
//  2. a fixed count: the true residual is no worse than 10 x the host reference's after as many
//     iterations, plus attainable (the same work made the same progress);
//  3. a tolerance: the solve converged and its true residual, computed here in double from the
//     device's x, is <= tolerance + attainable (the answer is right, however many iterations and
//     residual replacements it took).
Verdict verify_solve(const CsrMatrix& a, std::span<const double> b, std::span<const double> x,
                     Precision p, const SolveResult& solve, const StopRule& rule, HostReference& ref);

// NAS CG: |zeta - zeta_verify| / zeta_verify <= 1e-10 in f64 (NPB's own rule); in f32, where NPB
// defines no rule, <= 1e-4.
Verdict verify_npb(const NpbClass& c, Precision p, double zeta);

}  // namespace gpubench::cg
