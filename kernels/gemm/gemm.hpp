// The GEMM suite's problem, work model, inputs and verification (issue 13): C = alpha A B + beta C,
// row-major, A m x k (stored k x m when transposed, "TN"), B k x n, C m x n.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/precision.hpp"

namespace gpubench::gemm {

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;  // "TN": A is stored k x m, row-major (its transpose is used)
  std::string name;          // as given, normalised: "4096", "1000x2000x300:TN"

  std::int64_t a_elements() const { return m * k; }
  std::int64_t b_elements() const { return k * n; }
  std::int64_t c_elements() const { return m * n; }
  // A's element (i, l) of the product, wherever its layout keeps it.
  std::int64_t a_index(std::int64_t i, std::int64_t l) const { return transpose_a ? l * m + i : i * k + l; }
};

// A GEMM on blocks of larger row-major matrices: C (m x n) = alpha op(A) B + beta C, each matrix
// from its offset in its buffer (in elements), its rows lda (ldb, ldc) apart. The GEMM suite's
// kernels run on these, so that other suites (LU's trailing update) call the same kernels.
struct Block {
  std::int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;  // A stored k x m
  std::int64_t aoff = 0, lda = 0, boff = 0, ldb = 0, coff = 0, ldc = 0;
};
// The whole matrices of `s`, contiguous.
inline Block whole(const Shape& s) {
  return {s.m, s.n, s.k, s.transpose_a, 0, s.transpose_a ? s.m : s.k, 0, s.n, 0, s.n};
}

// "N" (square), "MxNxK", either with ":NN" (the default) or ":TN" (A transposed). Throws
// InputError naming what is wrong: not a size, zero, or a matrix beyond 2^31 - 1 elements (the
// kernels index with 32-bit integers).
Shape parse_shape(const std::string& spec);

// The work model: 2 m n k FLOPs (a multiply and an add per term; alpha and beta's 3 m n are not
// counted, as BLAS benchmarks do not), and the fewest bytes: A and B read once, C read (for beta)
// and written once.
double flops(const Shape& s);
double min_bytes(const Shape& s, Precision p);

// Inputs from a fixed seed: uniform in [-1, 1) (`exact` false), or small integers in {-2..2}
// whose products and sums every precision holds exactly, so that a result can be compared
// bit for bit.
std::vector<double> make_input(std::int64_t elements, std::uint64_t seed, bool exact);

// C = alpha A B + beta C on the host, summed in long double: the reference for sizes where
// m n k is cheap.
void reference_gemm(const Shape& s, double alpha, const std::vector<double>& a, const std::vector<double>& b,
                    double beta, std::vector<double>& c);

struct Verdict {
  bool passed = false;
  std::string detail;  // what was checked, and the worst element against its bound
};

// A device's C against the reference: each element within the rounding bound of any order of
// summation in `p`, |c - ref| <= gamma(k + 2) (|alpha| |A||B| + |beta| |C0|) + tiny, with
// gamma(n) = n u / (1 - n u) and u the unit roundoff of `p`.
Verdict check_against_reference(const Shape& s, Precision p, double alpha, const std::vector<double>& a,
                                const std::vector<double>& b, double beta, const std::vector<double>& c0,
                                const std::vector<double>& c);

// Freivalds' check for sizes where the reference costs too much: for `trials` random vectors x
// (entries +-[0.5, 1.5), from `seed`), C x against alpha A (B x) + beta C0 x, each row within the
// same rounding bound applied to |x|: O(m n + n k + m k) work instead of O(m n k). A wrong
// element larger than its bound is missed only if other errors in its row cancel it for every x.
Verdict freivalds(const Shape& s, Precision p, double alpha, const std::vector<double>& a,
                  const std::vector<double>& b, double beta, const std::vector<double>& c0,
                  const std::vector<double>& c, int trials = 3, std::uint64_t seed = 20261123);

// Freivalds' row bound adds up a whole row's rounding budget, so an error in one element smaller
// than that sum can hide in it. Elements of C recomputed one by one (k multiply-adds each) are
// held to their own bound: the first and last two rows and columns (where tile edges go wrong)
// and `random` others from `seed`.
Verdict check_sampled_elements(const Shape& s, Precision p, double alpha, const std::vector<double>& a,
                               const std::vector<double>& b, double beta, const std::vector<double>& c0,
                               const std::vector<double>& c, std::int64_t random = 4096,
                               std::uint64_t seed = 20261124);

// The check of a point: the whole reference where m n k is at most `reference_limit` (cheap),
// else Freivalds' check and the sampled elements.
Verdict verify(const Shape& s, Precision p, double alpha, const std::vector<double>& a, const std::vector<double>& b,
               double beta, const std::vector<double>& c0, const std::vector<double>& c,
               double reference_limit = 1e9);

}  // namespace gpubench::gemm
