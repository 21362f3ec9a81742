#include "kernels/gemm/openmp_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "common/host_isa.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GPUBENCH_GEMM_X86 1
#endif

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

// ---------------------------------------------------------------------------------------------
// The packed loop (HostLoop::packed): GotoBLAS's blocking. The micro-kernel adds alpha times an
// MR x NR tile of A B over kc to C, its sums in vector registers across the kc loop: A's packed
// strip gives MR elements per step (each broadcast), B's packed strip NR (whole vectors).
// ap[l MR + r] is A(r, l) of the strip, bp[l NR + j] B(l, j); the tile's first `rows` x `cols`
// (the matrix's edge) are written.
template <typename T>
using Micro = void (*)(std::int64_t kc, const T* ap, const T* bp, T alpha, T* c, std::int64_t ldc, int rows, int cols);

template <typename T>
struct MicroKernel {
  int mr, nr;
  Micro<T> run;
};

// The tile's sums `acc` (MR x NR, row-major) added to C, alpha times, within rows x cols.
template <typename T>
inline void add_edge(const T* acc, int nr, T alpha, T* c, std::int64_t ldc, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j) c[r * ldc + j] += alpha * acc[r * nr + j];
}

// Without vector extensions the compiler knows at build time: plain loops over a 4 x 8 tile.
template <typename T>
void micro_plain(std::int64_t kc, const T* ap, const T* bp, T alpha, T* c, std::int64_t ldc, int rows, int cols) {
  constexpr int MR = 4, NR = 8;
  T acc[MR * NR] = {};
  for (std::int64_t l = 0; l < kc; ++l)
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NR; ++j) acc[r * NR + j] += ap[l * MR + r] * bp[l * NR + j];
  add_edge(acc, NR, alpha, c, ldc, rows, cols);
}

#ifdef GPUBENCH_GEMM_X86
// The vector ISAs' kernels: each compiled for its instruction set (the rest of the binary for
// x86-64's baseline), chosen when first called. Two vectors of B per step; MR rows of A broadcast
// against them: 8 x 2 accumulators with AVX-512 (32 registers), 6 x 2 with AVX2 (16). The FMAs are
// written as such (ISO C++ mode contracts no a * b + c).
#define GPUBENCH_MICRO_KERNEL(NAME, MR, NV, V, T, LANES, ZERO, LOAD, STORE, SET1, FMA)                          \
  void NAME(std::int64_t kc, const T* __restrict ap, const T* __restrict bp, T alpha, T* c, std::int64_t ldc,     \
            int rows, int cols) {                                                                                  \
    constexpr int NR = (NV) * (LANES);                                                                            \
    V acc[MR][NV];                                                                                                \
    _Pragma("GCC unroll 16") for (int r = 0; r < MR; ++r)                                                        \
      _Pragma("GCC unroll 4") for (int v = 0; v < (NV); ++v) acc[r][v] = ZERO();                                \
    for (std::int64_t l = 0; l < kc; ++l) {                                                                       \
      V b[NV];                                                                                                    \
      _Pragma("GCC unroll 4") for (int v = 0; v < (NV); ++v) b[v] = LOAD(bp + l * NR + v * (LANES));           \
      _Pragma("GCC unroll 16") for (int r = 0; r < MR; ++r) {                                                    \
        const V ar = SET1(ap[l * MR + r]);                                                                        \
        _Pragma("GCC unroll 4") for (int v = 0; v < (NV); ++v) acc[r][v] = FMA(ar, b[v], acc[r][v]);            \
      }                                                                                                           \
    }                                                                                                             \
    const V va = SET1(alpha);                                                                                     \
    if (rows == MR && cols == NR) {                                                                               \
      _Pragma("GCC unroll 16") for (int r = 0; r < MR; ++r)                                                      \
        _Pragma("GCC unroll 4") for (int v = 0; v < (NV); ++v)                                                  \
          STORE(c + r * ldc + v * (LANES), FMA(va, acc[r][v], LOAD(c + r * ldc + v * (LANES))));                  \
      return;                                                                                                     \
    }                                                                                                             \
    alignas(64) T sums[MR * NR];                                                                                  \
    for (int r = 0; r < MR; ++r)                                                                                  \
      for (int v = 0; v < (NV); ++v) STORE(sums + r * NR + v * (LANES), acc[r][v]);                               \
    add_edge(sums, NR, alpha, c, ldc, rows, cols);                                                                \
  }

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
GPUBENCH_MICRO_KERNEL(micro_avx512_f64, 8, 3, __m512d, double, 8, _mm512_setzero_pd, _mm512_loadu_pd, _mm512_storeu_pd,
                      _mm512_set1_pd, _mm512_fmadd_pd)
GPUBENCH_MICRO_KERNEL(micro_avx512_f32, 8, 3, __m512, float, 16, _mm512_setzero_ps, _mm512_loadu_ps, _mm512_storeu_ps,
                      _mm512_set1_ps, _mm512_fmadd_ps)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
GPUBENCH_MICRO_KERNEL(micro_avx2_f64, 6, 2, __m256d, double, 4, _mm256_setzero_pd, _mm256_loadu_pd, _mm256_storeu_pd,
                      _mm256_set1_pd, _mm256_fmadd_pd)
GPUBENCH_MICRO_KERNEL(micro_avx2_f32, 6, 2, __m256, float, 8, _mm256_setzero_ps, _mm256_loadu_ps, _mm256_storeu_ps,
                      _mm256_set1_ps, _mm256_fmadd_ps)
#pragma GCC pop_options
#undef GPUBENCH_MICRO_KERNEL
#endif

template <typename T>
MicroKernel<T> micro_kernel() {
#ifdef GPUBENCH_GEMM_X86
  const HostIsa isa = host_isa();
  if (isa >= HostIsa::avx512) {
    if constexpr (std::is_same_v<T, double>) return {8, 24, micro_avx512_f64};
    else return {8, 48, micro_avx512_f32};
  }
  if (isa >= HostIsa::avx2) {
    if constexpr (std::is_same_v<T, double>) return {6, 8, micro_avx2_f64};
    else return {6, 16, micro_avx2_f32};
  }
#endif
  return {4, 8, micro_plain<T>};
}

std::int64_t round_up(std::int64_t x, std::int64_t to) { return (x + to - 1) / to * to; }

// C = beta C once, then alpha A B added block by block: for each nc-column panel of B and each
// kc-deep slice, the threads pack B's slice into NR-column strips together, then each packs its
// mc-row blocks of A into MR-row strips and runs the micro-kernel over them, B's strip (kc x NR)
// kept in L1 across A's strips, A's block (mc x kc) in L2. The padding of the last strips is zero.
template <typename T>
void packed(const Block& s, int threads, T alpha, const T* a, const T* b, T beta, T* c, const Packing& pk) {
  static const MicroKernel<T> mk = micro_kernel<T>();
  const std::int64_t mr = mk.mr, nr = mk.nr;
  if (beta != T(1)) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) c[i * s.ldc + j] = beta == T(0) ? T(0) : beta * c[i * s.ldc + j];
  }
  if (s.k == 0 || alpha == T(0) || s.m == 0 || s.n == 0) return;
  const std::int64_t kc = std::min<std::int64_t>(pk.kc > 0 ? pk.kc : 256, s.k);
  const std::int64_t nc = round_up(pk.nc > 0 ? pk.nc : 4096, nr);
  // A's blocks shared evenly by the threads: at most 384 rows each, as many per thread.
  const std::int64_t blocks = pk.mc > 0 ? (s.m + pk.mc - 1) / pk.mc
                                        : threads * ((s.m + threads * std::int64_t{384} - 1) / (threads * std::int64_t{384}));
  const std::int64_t mc = round_up((s.m + blocks - 1) / blocks, mr);
  // Not value-initialised: every element is packed before it is read (the padding with zeros).
  const std::unique_ptr<T[]> bpack(new T[static_cast<std::size_t>(std::min(nc, round_up(s.n, nr)) * kc)]);
#pragma omp parallel num_threads(threads)
  {
    const std::unique_ptr<T[]> apack(new T[static_cast<std::size_t>(mc * kc)]);
    for (std::int64_t jc = 0; jc < s.n; jc += nc) {
      const std::int64_t nb = std::min(nc, s.n - jc), strips = (nb + nr - 1) / nr;
      for (std::int64_t pc = 0; pc < s.k; pc += kc) {
        const std::int64_t kb = std::min(kc, s.k - pc);
#pragma omp for schedule(static)
        for (std::int64_t st = 0; st < strips; ++st) {
          T* out = bpack.get() + st * kb * nr;
          const std::int64_t j0 = jc + st * nr, cols = std::min(nr, s.n - j0);
          for (std::int64_t l = 0; l < kb; ++l) {
            const T* row = b + (pc + l) * s.ldb + j0;
            std::int64_t j = 0;
            for (; j < cols; ++j) out[l * nr + j] = row[j];
            for (; j < nr; ++j) out[l * nr + j] = T(0);
          }
        }  // the threads wait here for the whole slice
#pragma omp for schedule(static)
        for (std::int64_t ic = 0; ic < s.m; ic += mc) {
          const std::int64_t mb = std::min(mc, s.m - ic), astrips = (mb + mr - 1) / mr;
          for (std::int64_t st = 0; st < astrips; ++st) {
            T* out = apack.get() + st * kb * mr;
            const std::int64_t i0 = ic + st * mr, rows = std::min(mr, s.m - i0);
            for (std::int64_t l = 0; l < kb; ++l) {
              std::int64_t r = 0;
              for (; r < rows; ++r) out[l * mr + r] = a[a_index(s, i0 + r, pc + l)];
              for (; r < mr; ++r) out[l * mr + r] = T(0);
            }
          }
          for (std::int64_t jr = 0; jr < strips; ++jr) {
            const std::int64_t j0 = jc + jr * nr;
            const int cols = static_cast<int>(std::min(nr, s.n - j0));
            for (std::int64_t ir = 0; ir < astrips; ++ir) {
              const std::int64_t i0 = ic + ir * mr;
              mk.run(kb, apack.get() + ir * kb * mr, bpack.get() + jr * kb * nr, alpha, c + i0 * s.ldc + j0, s.ldc,
                     static_cast<int>(std::min(mr, s.m - i0)), cols);
            }
          }
        }  // and here, before the next slice overwrites B's
      }
    }
  }
}

}  // namespace

template <typename T>
void host_gemm(HostLoop loop, const Block& s, int tile, int threads, T alpha, const T* a, const T* b, T beta, T* c,
               const Packing& packing) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  a += s.aoff;
  b += s.boff;
  c += s.coff;
  if (loop == HostLoop::naive) naive(s, team, alpha, a, b, beta, c);
  else if (loop == HostLoop::packed) packed(s, team, alpha, a, b, beta, c, packing);
  else tiled(s, std::max(tile, 1), team, alpha, a, b, beta, c);
}

template void host_gemm<float>(HostLoop, const Block&, int, int, float, const float*, const float*, float, float*,
                               const Packing&);
template void host_gemm<double>(HostLoop, const Block&, int, int, double, const double*, const double*, double,
                                double*, const Packing&);

}  // namespace gpubench::gemm
