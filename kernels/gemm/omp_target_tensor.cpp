// GEMM's tensor kernel on Clang's OpenMP offload (omp_target_tensor.h says what it is and why it is
// an image of its own): the configurations' regions and their dispatch.
#include "kernels/gemm/omp_target_tensor.h"

#include <omp.h>

#include <string>

#include "common/errors.hpp"

namespace gpubench::gemm::omp_tensor {

namespace {

constexpr int bk = 16;

// A configuration's layout: A's slice as [l][i], B's as [j][l] (BT: [l][j]), rows padded by 4.
template <int BM, int BN, int WM, int WN, int STAGES, bool BT>
struct Tile {
  static constexpr int threads = 32 * WM * WN, MI = BM / WM / 16, NJ = BN / WN / 8;
  static constexpr int lda_s = BM + 4;                 // A's (l, i) at l lda_s + i
  static constexpr int ldb_s = BT ? BN + 4 : bk + 4;   // B's (l, j) at l ldb_s + j (BT) or j ldb_s + l
  static constexpr int a_size = bk * lda_s, b_size = BT ? bk * ldb_s : BN * ldb_s;
  static constexpr int a_per = BM * bk / threads, b_per = BN * bk / threads;
  // Rows of a slice a pass of the team's threads copies: A's (l), B's (BT: l; NN: columns j).
  static constexpr int a_step = threads / BM, b_step = BT ? threads / BN : threads / bk;
  static constexpr int shared_bytes = STAGES * (a_size + b_size) * 8;
  static constexpr int b_at(int l, int j) { return BT ? l * ldb_s + j : j * ldb_s + l; }
  static_assert(BM % (16 * WM) == 0 && BN % (8 * WN) == 0 && (BM * bk) % threads == 0 && (BN * bk) % threads == 0 &&
                threads % BM == 0 && (BT ? threads % BN == 0 : threads % bk == 0));
};

#pragma omp declare target
#ifdef __NVPTX__
inline unsigned shared_address(const void* p) {
  unsigned long long s;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(s) : "l"(p));
  return static_cast<unsigned>(s);
}
inline void cp_async8(unsigned dst, const double* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 8 : 0));
}
inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
inline void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
inline void dmma16(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
      "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
}
#endif
#pragma omp end declare target

// A team's share of C's blocks, run by each of its threads (in a parallel region of a team of
// 32 wm wn threads); *status (a device pointer, where given) = 2 if the team has fewer threads, 1
// on the host.
template <int BM, int BN, int WM, int WN, int STAGES, bool BT>
__attribute__((always_inline)) inline void blocks_of_team(std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a, std::int64_t lda,
                    const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc, int* status) {
  using S = Tile<BM, BN, WM, WN, STAGES, BT>;
  [[maybe_unused]] constexpr int threads = S::threads;
  const std::int64_t blocks_m = (m + BM - 1) / BM, blocks = blocks_m * ((n + BN - 1) / BN);
#ifdef __NVPTX__
  double as[STAGES * S::a_size];
#pragma omp allocate(as) allocator(omp_pteam_mem_alloc)
  double bs[STAGES * S::b_size];
#pragma omp allocate(bs) allocator(omp_pteam_mem_alloc)
  if (omp_get_num_threads() != threads) {
    if (status && omp_get_thread_num() == 0) *status = 2;
  } else {
    const int tid = omp_get_thread_num(), lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
    const int wm0 = (warp % WM) * (BM / WM), wn0 = (warp / WM) * (BN / WN);
    const int steps = static_cast<int>((k + bk - 1) / bk);
    const unsigned as_s = shared_address(as), bs_s = shared_address(bs);
    const int a_i = tid % BM, a_l = tid / BM;                                   // A: (i, l0)
    const int b_l = BT ? tid / BN : tid % bk, b_j = BT ? tid % BN : tid / bk;  // B: (l0, j) or (l, j0)
    for (std::int64_t block = omp_get_team_num(); block < blocks; block += omp_get_num_teams()) {
      const std::int64_t row0 = block % blocks_m * BM, col0 = block / blocks_m * BN;
      // A thread's copies of a slice lie a fixed stride apart: A's column i of rows l0, l0 + a_step,
      // ..; B's (NN) element l of columns j0, j0 + b_step, .. (BT: element j of rows l0, ..).
      const bool rows_in = row0 + a_i < m, cols_in = col0 + b_j < n;
      const bool whole_mn = row0 + BM <= m && col0 + BN <= n;
      const double* a_src = a + (rows_in ? row0 + a_i : 0) + a_l * lda;
      const double* b_src = BT ? b + (cols_in ? col0 + b_j : 0) + b_l * ldb : b + b_l + (cols_in ? col0 + b_j : 0) * ldb;
      auto load = [&](int stage, std::int64_t k0) __attribute__((always_inline)) {
        const unsigned a_dst = as_s + 8u * unsigned(stage * S::a_size + a_l * S::lda_s + a_i);
        const unsigned b_dst = bs_s + 8u * unsigned(stage * S::b_size + S::b_at(b_l, b_j));
        const double* ap = a_src + k0 * lda;
        const double* bp = BT ? b_src + k0 * ldb : b_src + k0;
        if (whole_mn && k0 + bk <= k) {
#pragma unroll
          for (int p = 0; p < S::a_per; ++p) cp_async8(a_dst + 8u * unsigned(p * S::a_step * S::lda_s), ap + p * S::a_step * lda, true);
#pragma unroll
          for (int p = 0; p < S::b_per; ++p)
            cp_async8(b_dst + 8u * unsigned(p * S::b_step * S::ldb_s), bp + p * S::b_step * ldb, true);
        } else {
#pragma unroll
          for (int p = 0; p < S::a_per; ++p) {
            const bool ok = rows_in && k0 + a_l + p * S::a_step < k;
            cp_async8(a_dst + 8u * unsigned(p * S::a_step * S::lda_s), ok ? ap + p * S::a_step * lda : a, ok);
          }
#pragma unroll
          for (int p = 0; p < S::b_per; ++p) {
            const bool ok = BT ? cols_in && k0 + b_l + p * S::b_step < k : col0 + b_j + p * S::b_step < n && k0 + b_l < k;
            cp_async8(b_dst + 8u * unsigned(p * S::b_step * S::ldb_s), ok ? bp + p * S::b_step * ldb : b, ok);
          }
        }
      };
      double acc[S::MI][S::NJ][4];
#pragma unroll
      for (int i = 0; i < S::MI; ++i)
#pragma unroll
        for (int j = 0; j < S::NJ; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j][e] = 0;
#pragma unroll
      for (int s = 0; s < STAGES - 1; ++s) {
        if (s < steps) load(s, std::int64_t(s) * bk);
        cp_async_commit();
      }
#pragma nounroll
      for (int s = 0; s < steps; ++s) {
        cp_async_wait<STAGES - 2>();
#pragma omp barrier
        const int next = s + STAGES - 1;
        if (next < steps) load(next % STAGES, std::int64_t(next) * bk);
        cp_async_commit();
        const double* sa = as + (s % STAGES) * S::a_size;
        const double* sb = bs + (s % STAGES) * S::b_size;
        double fb[S::NJ][4];
#pragma unroll
        for (int j = 0; j < S::NJ; ++j)
#pragma unroll
          for (int u = 0; u < 4; ++u) fb[j][u] = sb[S::b_at(t + 4 * u, wn0 + j * 8 + g)];
#pragma unroll
        for (int i = 0; i < S::MI; ++i) {
          double fa[8];
#pragma unroll
          for (int u = 0; u < 8; ++u) fa[u] = sa[(t + 4 * (u / 2)) * S::lda_s + wm0 + i * 16 + g + 8 * (u % 2)];
#pragma unroll
          for (int j = 0; j < S::NJ; ++j) dmma16(acc[i][j], fa, fb[j]);
        }
      }
      cp_async_wait<0>();
#pragma unroll
      for (int i = 0; i < S::MI; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const std::int64_t r = row0 + wm0 + i * 16 + g + 8 * h;
#pragma unroll
          for (int j = 0; j < S::NJ; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const std::int64_t col = col0 + wn0 + j * 8 + 2 * t + e;
              if (r < m && col < n) {
                double& out = c[r + col * ldc];
                out = alpha * acc[i][j][2 * h + e] + beta * out;
              }
            }
        }
#pragma omp barrier
    }
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
  (void)blocks_m, (void)blocks;
  if (status && omp_get_team_num() == 0 && omp_get_thread_num() == 0) *status = 1;  // the host: no tensor cores
#endif
}

// One configuration; `status`, a device pointer or null, as blocks_of_team says.
template <int BM, int BN, int WM, int WN, int STAGES, bool BT>
void run(int dev, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a, std::int64_t lda,
         const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc, int* status) {
  if (m <= 0 || n <= 0) return;
  constexpr int threads = Tile<BM, BN, WM, WN, STAGES, BT>::threads;
  const std::int64_t blocks = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  const int teams = static_cast<int>(blocks < (1 << 30) ? blocks : (1 << 30));
  // One region (a kernel) per configuration: nvlink refuses a team-memory variable that two kernels
  // share if their sum passes 48 KB.
#pragma omp target teams num_teams(teams) thread_limit(threads) device(dev) is_device_ptr(a, b, c, status)
#pragma omp parallel
  blocks_of_team<BM, BN, WM, WN, STAGES, BT>(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, status);
}

}  // namespace

// The configurations built (the space's values): 64 x 64 blocks of 4 or 8 warps in two stages,
// 32 x 64 and 64 x 32 ones of 4 warps in three. status: null, or a device pointer to an int that
// is left as it is where the region ran on the GPU with its threads, else set to 1 (it ran on the
// host) or 2 (with fewer threads than its warps need).
void dispatch(int dev, const Shape& s, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
              std::int64_t lda, const double* b, std::int64_t ldb, bool bt, double beta, double* c, std::int64_t ldc,
              int* status) {
#define GPUBENCH_OMP_TENSOR_CASE(BM, BN, WM, WN, ST)                                                   \
  if (s.bm == BM && s.bn == BN && s.wm == WM && s.wn == WN && s.stages == ST)                          \
    return bt ? run<BM, BN, WM, WN, ST, true>(dev, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, status) \
              : run<BM, BN, WM, WN, ST, false>(dev, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, status);
  GPUBENCH_OMP_TENSOR_CASE(64, 64, 2, 2, 2) GPUBENCH_OMP_TENSOR_CASE(64, 64, 2, 4, 2)
  GPUBENCH_OMP_TENSOR_CASE(32, 64, 2, 2, 3) GPUBENCH_OMP_TENSOR_CASE(64, 32, 2, 2, 3)
#undef GPUBENCH_OMP_TENSOR_CASE
  throw InputError("GEMM tensor on OpenMP offload: bm " + std::to_string(s.bm) + " bn " + std::to_string(s.bn) + " wm " +
                   std::to_string(s.wm) + " wn " + std::to_string(s.wn) + " stages " + std::to_string(s.stages) +
                   " is not one of its configurations (64 x 64 of 2 x 2 or 2 x 4 warps in 2 stages; 32 x 64 and 64 x 32 "
                   "of 2 x 2 in 3)");
}

}  // namespace gpubench::gemm::omp_tensor
