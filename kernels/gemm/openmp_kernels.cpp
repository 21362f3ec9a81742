#include "kernels/gemm/openmp_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <omp.h>

namespace gpubench::gemm {

namespace {

// One row of C per iteration: c_ij = alpha sum_l a_il b_lj + beta c_ij, A and B read from memory
// for every term (the study's naive kernel, on the host).
// A(i, l) of the block, wherever its layout keeps it.
inline std::int64_t a_index(const Block& s, std::int64_t i, std::int64_t l) {
  return s.transpose_a ? l * s.lda + i : i * s.lda + l;
}

template <typename T>
void naive(const Block& s, int threads, T alpha, const T* a, const T* b, T beta, T* c) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      T sum = 0;
      for (std::int64_t l = 0; l < s.k; ++l) sum += a[a_index(s, i, l)] * b[l * s.ldb + j];
      c[i * s.ldc + j] = alpha * sum + beta * c[i * s.ldc + j];
    }
}

// One l-tile's contribution to a 4 x 8 block of the scratch tile, the block's sums held in
// registers across the l loop (each B element loaded once for 4 rows, each A element once for 8
// columns): fixed sizes the compiler vectorises.
template <typename T>
[[gnu::always_inline]] inline void block_4x8(std::int64_t l0, std::int64_t l1, const T* const* a_rows,
                                             std::int64_t a_step, const T* b, std::int64_t ldb, T* sum,
                                             std::int64_t lds) {
  // Eight elements as one vector (GCC's vector extension: one AVX-512 register, two AVX2, four
  // SSE2, as the clone's target allows).
  typedef T Vec __attribute__((vector_size(8 * sizeof(T))));
  Vec acc[4];
  for (int r = 0; r < 4; ++r) std::memcpy(&acc[r], &sum[r * lds], sizeof(Vec));
  for (std::int64_t l = l0; l < l1; ++l) {
    Vec bl;
    std::memcpy(&bl, b + l * ldb, sizeof(Vec));
    for (int r = 0; r < 4; ++r) acc[r] += a_rows[r][l * a_step] * bl;
  }
  for (int r = 0; r < 4; ++r) std::memcpy(&sum[r * lds], &acc[r], sizeof(Vec));
}

// Compiled for AVX-512, AVX2 and the baseline, chosen when the program starts (the binary stays
// portable: it runs on whatever x86-64 host it is taken to).
[[gnu::target_clones("avx512f", "avx2,fma", "default")]] void block_4x8_f64(std::int64_t l0, std::int64_t l1,
                                                                            const double* const* a_rows,
                                                                            std::int64_t a_step, const double* b,
                                                                            std::int64_t ldb, double* sum,
                                                                            std::int64_t lds) {
  block_4x8(l0, l1, a_rows, a_step, b, ldb, sum, lds);
}
[[gnu::target_clones("avx512f", "avx2,fma", "default")]] void block_4x8_f32(std::int64_t l0, std::int64_t l1,
                                                                            const float* const* a_rows,
                                                                            std::int64_t a_step, const float* b,
                                                                            std::int64_t ldb, float* sum,
                                                                            std::int64_t lds) {
  block_4x8(l0, l1, a_rows, a_step, b, ldb, sum, lds);
}
inline void block(std::int64_t l0, std::int64_t l1, const double* const* a, std::int64_t step, const double* b,
                  std::int64_t ldb, double* sum, std::int64_t lds) {
  block_4x8_f64(l0, l1, a, step, b, ldb, sum, lds);
}
inline void block(std::int64_t l0, std::int64_t l1, const float* const* a, std::int64_t step, const float* b,
                  std::int64_t ldb, float* sum, std::int64_t lds) {
  block_4x8_f32(l0, l1, a, step, b, ldb, sum, lds);
}

// Tiles of C, tile x tile, each summed over the k dimension in tiles of the same edge: the
// A and B tiles stay in cache while a C tile is built (the study's loop). Within a tile, 4 x 8
// blocks of sums stay in registers over the l-tile (block_4x8); rows and columns beyond whole
// blocks (edges, tile 8's last rows) take the plain loop. The sums go to a scratch tile, so that
// beta scales C once.
template <typename T>
void tiled(const Block& s, int tile, int threads, T alpha, const T* a, const T* b, T beta, T* c) {
  const std::int64_t t = tile, row_tiles = (s.m + t - 1) / t, col_tiles = (s.n + t - 1) / t;
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> sum(static_cast<std::size_t>(t * t)), packed(static_cast<std::size_t>(t * t));
#pragma omp for schedule(static) collapse(2)
    for (std::int64_t ti = 0; ti < row_tiles; ++ti)
      for (std::int64_t tj = 0; tj < col_tiles; ++tj) {
        const std::int64_t i0 = ti * t, i1 = std::min(s.m, i0 + t), j0 = tj * t, j1 = std::min(s.n, j0 + t);
        std::fill(sum.begin(), sum.end(), T(0));
        for (std::int64_t l0 = 0; l0 < s.k; l0 += t) {
          const std::int64_t l1 = std::min(s.k, l0 + t);
          // A(i, l) is at a_rows[r][l * a_step]: NN rows are contiguous, TN rows strided by m.
          const std::int64_t a_step = s.transpose_a ? s.lda : 1;
          const std::int64_t i_blocks = i0 + (i1 - i0) / 4 * 4, j_blocks = j0 + (j1 - j0) / 8 * 8;
          // B's tile copied to contiguous rows: B's own rows are n elements apart, and at a
          // power-of-two n they all fall into the same few cache sets.
          for (std::int64_t l = l0; l < l1; ++l)
            std::copy(&b[l * s.ldb + j0], &b[l * s.ldb + j1], &packed[static_cast<std::size_t>((l - l0) * t)]);
          const T* bp = packed.data();  // bp[(l - l0) t + (j - j0)] is B(l, j)
          for (std::int64_t i = i0; i < i_blocks; i += 4) {
            const T* a_rows[4];
            for (int r = 0; r < 4; ++r) a_rows[r] = &a[a_index(s, i + r, l0)];
            for (std::int64_t j = j0; j < j_blocks; j += 8)
              block(0, l1 - l0, a_rows, a_step, bp + (j - j0), t,
                    &sum[static_cast<std::size_t>((i - i0) * t + (j - j0))], t);
          }
          // What the blocks left: the columns past them, and all of the rows past them.
          for (std::int64_t i = j_blocks < j1 ? i0 : i_blocks; i < i1; ++i) {
            const std::int64_t from = i < i_blocks ? j_blocks : j0;
            T* row = &sum[static_cast<std::size_t>((i - i0) * t)];
            for (std::int64_t l = l0; l < l1; ++l) {
              const T ail = a[a_index(s, i, l)];
              const T* bl = bp + (l - l0) * t;
              for (std::int64_t j = from; j < j1; ++j) row[j - j0] += ail * bl[j - j0];
            }
          }
        }
        for (std::int64_t i = i0; i < i1; ++i)
          for (std::int64_t j = j0; j < j1; ++j)
            c[i * s.ldc + j] = alpha * sum[static_cast<std::size_t>((i - i0) * t + (j - j0))] + beta * c[i * s.ldc + j];
      }
  }
}

}  // namespace

template <typename T>
void host_gemm(HostLoop loop, const Block& s, int tile, int threads, T alpha, const T* a, const T* b, T beta, T* c) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  a += s.aoff;
  b += s.boff;
  c += s.coff;
  if (loop == HostLoop::naive) naive(s, team, alpha, a, b, beta, c);
  else tiled(s, std::max(tile, 1), team, alpha, a, b, beta, c);
}

template void host_gemm<float>(HostLoop, const Block&, int, int, float, const float*, const float*, float, float*);
template void host_gemm<double>(HostLoop, const Block&, int, int, double, const double*, const double*, double,
                                double*);

}  // namespace gpubench::gemm
