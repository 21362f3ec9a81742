// Blocks of LU's column-major matrices as GEMM's row-major blocks (kernels/gemm/gemm.hpp): a
// column-major X (rows x cols, columns ld apart) is, read row-major, X^T with rows ld apart, so
// C = alpha A B + beta C is C^T = alpha B^T A^T + beta C^T: GEMM with A and B exchanged.
#pragma once

#include <cstdint>

#include "kernels/gemm/gemm.hpp"

namespace gpubench::lu {

// C (m x n) = alpha A (m x k) B (k x n) + beta C, all column-major with their offsets and
// leading dimensions; the GEMM call takes B's buffer as its A and A's as its B.
inline gemm::Block colmajor_gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t aoff, std::int64_t lda,
                                 std::int64_t boff, std::int64_t ldb, std::int64_t coff, std::int64_t ldc) {
  return {n, m, k, false, boff, ldb, aoff, lda, coff, ldc};
}

// The trailing update A[r0:r1, c0:c1] -= A[r0:r1, k0:k1] A[k0:k1, c0:c1] of the n x n matrix.
inline gemm::Block trailing_update(std::int64_t n, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
                                   std::int64_t k0, std::int64_t k1) {
  return colmajor_gemm(r1 - r0, c1 - c0, k1 - k0, r0 + k0 * n, n, k0 + c0 * n, n, r0 + c0 * n, n);
}

}  // namespace gpubench::lu
