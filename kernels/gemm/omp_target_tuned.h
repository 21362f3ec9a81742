// GEMM's tuned kernel on Clang's OpenMP offload, one place for GEMM's suite and LU's trailing
// updates (kernels/gemm/omp_target.cpp, kernels/lu/omp_target.cpp): C = alpha A B + beta C,
// column-major, each OpenMP thread (a CUDA thread on Clang) holding a tm x tn block of C in
// registers, its tm rows 32 apart so that a warp's loads of A are contiguous and its tn columns
// the same across the warp, whose loads of B are then one address (a broadcast). A team of
// work_group_size threads covers warps_m warps down C's rows and the rest across its columns, so
// that its warps read the same rows of A and columns of B through the SM's L1 (OpenMP has no
// shared memory of its own, so this is the reuse the code can ask for). Per k step a thread loads
// tm + tn values for tm tn FMAs (the FMA chain loop of the naive and tiled kernels loads 2 per 1).
// The loop order is the one Clang's SPMD mode gives consecutive threads consecutive iterations
// (and a team work_group_size consecutive ones); another mapping still computes every block once,
// only with less reuse. GCC's nvptx runs an OpenMP thread per warp and no simd lanes here, so only
// the Clang build lists the kernel (GCC's OpenMP GEMM stays the naive and tiled loops). On the
// H200, DGEMM 4096: 23.3 ms (5.9 TFLOP/s, swept: tm 4, tn 4, 128 threads in 2 x 2 warps) against
// the tiled loop's 94.6 and CUDA's shared-memory tuned kernel's 7.4
// (reports/data/h200-2026-12-02-evening-issue57).
#pragma once

#include <omp.h>

#include <cstdint>
#include <string>

#include "common/errors.hpp"

namespace gpubench::gemm::omp_tuned {

// Why GCC's OpenMP offload's GEMM is on the FMA units where CUDA's and OpenCL's tensor variant is
// not, for the records' gap causes (GEMM's and LU's). Clang's build has a tensor variant.
inline const char* no_tensor_path =
    "no tensor-core path on GCC's OpenMP offload: OpenMP has no construct for the FP64 tensor cores, and mma.sync "
    "needs each lane of a warp to hold its own fragment where GCC's nvptx runs an OpenMP thread per warp and "
    "places its simd lanes itself, so no inline PTX can name a lane's registers (Clang's build has the tensor "
    "variant); the FMA units only";

struct Shape {
  int tm = 4, tn = 4, threads = 256, warps_m = 2;
};

// The shape a launch's parameters name (tm, tn, work_group_size, warps_m), the defaults for those
// it lacks (GEMM's heuristic, kernels/gemm/suite.cpp's omp_tuned_heuristic).
template <typename Params>
Shape shape_of(const Params& params) {
  const auto get = [&](const char* name, int fallback) {
    const auto it = params.find(name);
    return it == params.end() ? fallback : static_cast<int>(it->second);
  };
  return {get("tm", 4), get("tn", 4), get("work_group_size", 256), get("warps_m", 2)};
}

// The tm x tn elements of C of thread `t` of block `block` (blocks_m blocks down C's rows).
#pragma omp declare target
template <typename T, int TM, int TN>
inline void elements(std::int64_t block, int t, int warps_m, int warps_n, std::int64_t blocks_m, std::int64_t m,
                     std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b,
                     std::int64_t ldb, bool b_transposed, T beta, T* c, std::int64_t ldc) {
  const int warp = t / 32, lane = t % 32;
  const std::int64_t row0 = block % blocks_m * (std::int64_t(warps_m) * 32 * TM) + std::int64_t(warp % warps_m) * 32 * TM + lane;
  const std::int64_t col0 = block / blocks_m * (std::int64_t(warps_n) * TN) + std::int64_t(warp / warps_m) * TN;
  // Rows and columns past C's edge load C's last ones (always in bounds) and store nothing.
  std::int64_t rows[TM], cols[TN];
  for (int i = 0; i < TM; ++i) rows[i] = row0 + 32 * i < m ? row0 + 32 * i : m - 1;
  for (int j = 0; j < TN; ++j) cols[j] = col0 + j < n ? col0 + j : n - 1;
  T acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = 0;
  for (std::int64_t l = 0; l < k; ++l) {
    T av[TM], bv[TN];
    for (int i = 0; i < TM; ++i) av[i] = a[rows[i] + l * lda];
    for (int j = 0; j < TN; ++j) bv[j] = b_transposed ? b[cols[j] + l * ldb] : b[l + cols[j] * ldb];
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      if (row0 + 32 * i < m && col0 + j < n) {
        T& out = c[rows[i] + cols[j] * ldc];
        out = alpha * acc[i][j] + beta * out;
      }
}
#pragma omp end declare target

// B(l, j) at b[l + j ldb], or at b[j + l ldb] when b_transposed. Check: the region says in
// *initial whether it ran on the initial device (the host); LU's many updates do not ask (the map
// would cost each a copy each way).
template <typename T, int TM, int TN, bool Check>
void run(int dev, const Shape& s, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
         std::int64_t lda, const T* b, std::int64_t ldb, bool b_transposed, T beta, T* c, std::int64_t ldc,
         int* initial) {
  if (m <= 0 || n <= 0) return;
  const int threads = s.threads, warps_m = s.warps_m, warps_n = threads / 32 / warps_m;
  const std::int64_t blocks_m = (m + std::int64_t(warps_m) * 32 * TM - 1) / (std::int64_t(warps_m) * 32 * TM);
  const std::int64_t blocks_n = (n + std::int64_t(warps_n) * TN - 1) / (std::int64_t(warps_n) * TN);
  const std::int64_t total = blocks_m * blocks_n * threads;
  if constexpr (Check) {
    int on_host = 0;
#pragma omp target teams distribute parallel for device(dev) thread_limit(threads) is_device_ptr(a, b, c) \
    map(tofrom : on_host)
    for (std::int64_t e = 0; e < total; ++e) {
      if (e == 0) on_host = omp_is_initial_device();
      elements<T, TM, TN>(e / threads, static_cast<int>(e % threads), warps_m, warps_n, blocks_m, m, n, k, alpha, a,
                          lda, b, ldb, b_transposed, beta, c, ldc);
    }
    *initial = on_host;
  } else {
#pragma omp target teams distribute parallel for device(dev) thread_limit(threads) is_device_ptr(a, b, c)
    for (std::int64_t e = 0; e < total; ++e)
      elements<T, TM, TN>(e / threads, static_cast<int>(e % threads), warps_m, warps_n, blocks_m, m, n, k, alpha, a,
                          lda, b, ldb, b_transposed, beta, c, ldc);
  }
}

// The shape's template: tm and tn each 2, 4 or 8, tm tn <= 32; threads a multiple of 32 times warps_m.
template <typename T>
void dispatch(int dev, const Shape& s, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
              std::int64_t lda, const T* b, std::int64_t ldb, bool b_transposed, T beta, T* c, std::int64_t ldc,
              int* initial = nullptr) {
  if (s.threads < 32 || s.threads % 32 != 0 || s.warps_m < 1 || (s.threads / 32) % s.warps_m != 0)
    throw InputError("GEMM tuned on OpenMP offload: work_group_size " + std::to_string(s.threads) +
                     " is not a multiple of 32 warps_m = " + std::to_string(s.warps_m) + " threads");
#define GPUBENCH_OMP_TUNED_CASE(TM, TN)                                                        \
  if (s.tm == TM && s.tn == TN)                                                                \
    return initial ? run<T, TM, TN, true>(dev, s, m, n, k, alpha, a, lda, b, ldb, b_transposed, beta, c, ldc, initial) \
                   : run<T, TM, TN, false>(dev, s, m, n, k, alpha, a, lda, b, ldb, b_transposed, beta, c, ldc, nullptr);
  GPUBENCH_OMP_TUNED_CASE(2, 2) GPUBENCH_OMP_TUNED_CASE(2, 4) GPUBENCH_OMP_TUNED_CASE(2, 8)
  GPUBENCH_OMP_TUNED_CASE(4, 2) GPUBENCH_OMP_TUNED_CASE(4, 4) GPUBENCH_OMP_TUNED_CASE(4, 8)
  GPUBENCH_OMP_TUNED_CASE(8, 2) GPUBENCH_OMP_TUNED_CASE(8, 4)
#undef GPUBENCH_OMP_TUNED_CASE
  throw InputError("GEMM tuned on OpenMP offload: tm " + std::to_string(s.tm) + " x tn " + std::to_string(s.tn) +
                   " is not one of its shapes (each 2, 4 or 8, at most 32 accumulators: 8 x 8 spills to the stack)");
}

}  // namespace gpubench::gemm::omp_tuned
