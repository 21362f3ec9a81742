// GEMM's degenerate shapes on a GPU (issue 59 item 3): which of kernels/gemm/gemv.h's kernels a
// block with m, n or k equal to 1 runs, on which operands, and its launch. Written once for the
// APIs that run them (cuda.cu, opencl.cpp); the suite (suite.cpp) gives such a shape this space
// of its own in place of the tiled kernels' (gemv_space), so that the tuning database keeps its
// entry under the shape's class and a sweep explores what matters for a memory-bound kernel.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "bench/params.hpp"
#include "bench/tunable.hpp"
#include "kernels/gemm/gemm.hpp"

namespace gpubench::gemm {

// m, n or k equal to 1: a matrix-vector or an outer product.
inline bool degenerate(std::int64_t m, std::int64_t n, std::int64_t k) { return m == 1 || n == 1 || k == 1; }
inline bool degenerate(const Shape& s) { return degenerate(s.m, s.n, s.k); }

// The space of a degenerate shape's kernels: "group", its work-group's items (a power of two, at
// most gemv.h's 512), and "waves", how many times the device's resident threads the launch asks
// for when it splits the reduction into chunks (more chunks, more loads in flight, more partial
// sums to add). The heuristic: 256 items, 4 waves.
TunableSpace gemv_space();
Params gemv_heuristic();
// Whether `params` are gemv_space's (the suite chose the degenerate kernels for the shape).
inline bool is_gemv(const Params& params) { return params.count("waves") != 0; }

struct GemvPlan {
  enum class Kind { outer, rowdot, colsum } kind = Kind::outer;
  // rowdot and colsum: the matrix read (A or B: matrix_is_a), its offset and rows' stride; the
  // vector (the other operand), its offset and stride; `outs` outputs, each a sum of `len` terms,
  // the i-th at C's coff + i incc; the reduction in `splits` chunks of `chunk` terms.
  // outer: A's m elements (aoff, inca) times B's first row's n (boff), C (coff, ldc).
  bool matrix_is_a = true;
  std::int64_t moff = 0, ldm = 0, xoff = 0, incx = 0;
  std::int64_t outs = 0, len = 0, coff = 0, incc = 0;
  int group = 256, splits = 1, chunk = 0;
  std::int64_t rows = 0, cols = 0, aoff = 0, inca = 0, boff = 0, ldc = 0;  // outer
  // The grid in work-groups (x, y) and the partial sums' elements (0 where there is one chunk).
  std::int64_t groups_x = 0, groups_y = 0;
  std::int64_t partials() const { return splits > 1 ? static_cast<std::int64_t>(splits) * outs : 0; }
  const char* kernel() const { return kind == Kind::outer ? "gemm_outer" : kind == Kind::rowdot ? "gemm_rowdot" : "gemm_colsum"; }
};

// The plan of block `b` with gemv_space's `params` on a device of `compute_units` SMs (compute
// units) that keep `resident_threads` items each. A DeviceError where `b` is not degenerate or
// the parameters are not the space's.
GemvPlan plan_gemv(const Block& b, const Params& params, int compute_units, int resident_threads = 2048);

// The tensor kernel's aligned copies (gemv.h's gemm_pad): an operand of block `b` whose rows are
// not 16-byte aligned (an odd leading dimension or offset: an odd size) is copied, rows x cols, into
// scratch whose rows are `pitch` elements apart (a multiple of 16), so that the kernel's whole
// blocks take its 16-byte cp.async path. Not `copy`: the operand is aligned as it is.
struct PaddedOperand {
  bool copy = false;
  std::int64_t rows = 0, cols = 0, pitch = 0;
  static constexpr int group = 256;  // gemm_pad's work-group: one item per column
  std::int64_t elements() const { return copy ? rows * pitch : 0; }
  std::int64_t groups_x() const { return (cols + group - 1) / group; }
  std::int64_t groups_y() const { return std::min<std::int64_t>(rows, 8192); }  // rows strided over them
};
// A's and B's, in that order.
inline std::array<PaddedOperand, 2> plan_padding(const Block& b) {
  const auto one = [](bool odd, std::int64_t rows, std::int64_t cols) {
    return odd ? PaddedOperand{true, rows, cols, (cols + 15) / 16 * 16} : PaddedOperand{};
  };
  return {one(b.lda % 2 != 0 || b.aoff % 2 != 0, b.transpose_a ? b.k : b.m, b.transpose_a ? b.m : b.k),
          one(b.ldb % 2 != 0 || b.boff % 2 != 0, b.k, b.n)};
}

// gemm_scale's launch over C's m x n (gemv.h): C = beta C before a split K (splitk > 1) adds its
// shares into it.
struct ScalePlan {
  static constexpr int group = 256;  // one item per column
  std::int64_t groups_x = 0, groups_y = 0;
};
inline ScalePlan plan_scale(std::int64_t m, std::int64_t n) {
  return {(n + ScalePlan::group - 1) / ScalePlan::group, std::clamp<std::int64_t>(m, 1, 8192)};  // rows strided
}

}  // namespace gpubench::gemm
