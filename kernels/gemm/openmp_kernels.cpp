#include "kernels/gemm/openmp_kernels.hpp"

#include <algorithm>
#include <vector>

#include <omp.h>

namespace gpubench::gemm {

namespace {

// One row of C per iteration: c_ij = alpha sum_l a_il b_lj + beta c_ij, A and B read from memory
// for every term (the study's naive kernel, on the host).
template <typename T>
void naive(const Shape& s, int threads, T alpha, const T* a, const T* b, T beta, T* c) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      T sum = 0;
      for (std::int64_t l = 0; l < s.k; ++l) sum += a[s.a_index(i, l)] * b[l * s.n + j];
      c[i * s.n + j] = alpha * sum + beta * c[i * s.n + j];
    }
}

// Tiles of C, tile x tile, each summed over the k dimension in tiles of the same edge: the
// A and B tiles stay in cache while a C tile is built. The sums go to a scratch tile, so that
// beta scales C once.
template <typename T>
void tiled(const Shape& s, int tile, int threads, T alpha, const T* a, const T* b, T beta, T* c) {
  const std::int64_t t = tile, row_tiles = (s.m + t - 1) / t, col_tiles = (s.n + t - 1) / t;
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> sum(static_cast<std::size_t>(t * t));
#pragma omp for schedule(static) collapse(2)
    for (std::int64_t ti = 0; ti < row_tiles; ++ti)
      for (std::int64_t tj = 0; tj < col_tiles; ++tj) {
        const std::int64_t i0 = ti * t, i1 = std::min(s.m, i0 + t), j0 = tj * t, j1 = std::min(s.n, j0 + t);
        std::fill(sum.begin(), sum.end(), T(0));
        for (std::int64_t l0 = 0; l0 < s.k; l0 += t) {
          const std::int64_t l1 = std::min(s.k, l0 + t);
          for (std::int64_t i = i0; i < i1; ++i)
            for (std::int64_t l = l0; l < l1; ++l) {
              const T ail = a[s.a_index(i, l)];
              T* row = &sum[static_cast<std::size_t>((i - i0) * t)];
              const T* bl = &b[l * s.n];
              for (std::int64_t j = j0; j < j1; ++j) row[j - j0] += ail * bl[j];
            }
        }
        for (std::int64_t i = i0; i < i1; ++i)
          for (std::int64_t j = j0; j < j1; ++j)
            c[i * s.n + j] = alpha * sum[static_cast<std::size_t>((i - i0) * t + (j - j0))] + beta * c[i * s.n + j];
      }
  }
}

}  // namespace

template <typename T>
void host_gemm(HostLoop loop, const Shape& s, int tile, int threads, T alpha, const T* a, const T* b, T beta, T* c) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  if (loop == HostLoop::naive) naive(s, team, alpha, a, b, beta, c);
  else tiled(s, std::max(tile, 1), team, alpha, a, b, beta, c);
}

template void host_gemm<float>(HostLoop, const Shape&, int, int, float, const float*, const float*, float, float*);
template void host_gemm<double>(HostLoop, const Shape&, int, int, double, const double*, const double*, double,
                                double*);

}  // namespace gpubench::gemm
