// The LU suite's problem, work model and verification (issue 15): P A = L U of a dense n x n
// matrix, column-major as LAPACK keeps it, ipiv as LAPACK writes it (1-based: row i was swapped
// with row ipiv[i]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/precision.hpp"

namespace gpubench::lu {

enum class Kind { random, dominant, file };

struct Problem {
  Kind kind = Kind::random;
  std::int64_t n = 0;
  std::string path;  // file
  std::string name;  // as given, normalised: "1000", "1000:dd", "mtx:PATH"
};

// "N" (random, uniform in [0, 1) from a fixed seed, as the study's), "N:dd" (the same with each
// diagonal element raised to the sum of its row's magnitudes plus one: diagonally dominant by
// rows and by columns' weight, so no pivoting is needed), "mtx:PATH" (a Matrix Market file,
// coordinate or array, general or symmetric, read as a dense matrix). InputError naming what is
// wrong: not a size, zero, beyond 46340 (n^2 elements must fit the kernels' 32-bit indices).
Problem parse_problem(const std::string& spec);
constexpr std::int64_t max_order = 46340;

// The matrix, column-major (a[i + j n]), in double. A file's order is read from its header
// (refused before allocating when the host lacks the memory).
std::vector<double> make_matrix(Problem& p);

// Why the study's forms, which do not pivot, cannot factor `a`: empty when every diagonal element
// is at least the sum of the other magnitudes in its row (or in its column), else the first row
// where it is not, and what its diagonal is.
std::string why_pivoting_is_needed(const std::vector<double>& a, std::int64_t n);

// The work model: LAPACK's count for getrf of a square matrix, 2/3 n^3 - 1/2 n^2 + 5/6 n FLOPs;
// the fewest bytes, the matrix read and written once.
double flops(std::int64_t n);
double min_bytes(std::int64_t n, Precision p);

struct Verdict {
  bool passed = false;
  std::string detail;
  double residual = 0;       // HPL's scaled residual
  std::int64_t singular = 0;  // 1-based column where the factorisation broke down (0: none)
  // LAPACK's estimate of 1 / cond_1(A) from the factors (dgecon, in double); < 0 where LAPACKE is
  // not in this build. Below the precision's unit roundoff, the matrix is singular to working
  // precision: the factors still pass (they are backward stable), but a solve may have no
  // correct digit, and `warning` says so.
  double rcond = -1;
  std::string warning;
};

// HPL's check: x from the factors (L U x = P b, b uniform in [-0.5, 0.5) from a fixed seed), then
// ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n) < 16, eps the unit roundoff of `p`.
// A zero or non-finite pivot U(j, j) fails before any residual, naming the column ("the
// factorisation broke down at column j: pivot U(j,j) = ..."). With LAPACKE, also the reciprocal
// condition estimate (Verdict::rcond).
Verdict verify(const std::vector<double>& a, std::int64_t n, const std::vector<double>& lu,
               const std::vector<int>& ipiv, Precision p);

// The host's unblocked getrf with partial pivoting, in double (LAPACK's dgetf2): the reference
// the tests compare devices against. Returns LAPACK's info (0, or the 1-based singular column).
std::int64_t reference_getrf(std::vector<double>& a, std::int64_t n, std::vector<int>& ipiv);

}  // namespace gpubench::lu
