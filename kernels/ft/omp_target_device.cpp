// FT's fast transform on Clang's OpenMP offload: kernels/ft/device.h's ft_fast_lines in a target
// region (omp_target_device.h says what it is and why it is an image of its own).
#include "kernels/ft/omp_target_device.h"

#include <omp.h>

#include <string>

#include "backends/omp_target_clang/team_memory.h"
#include "common/errors.hpp"

namespace gpubench::ft::omp_fast {

namespace {

using omp_clang::publish;
#ifdef __NVPTX__
using omp_clang::held;
#endif

#pragma omp declare target
#define FT_OPENMP
#include "kernels/ft/device.h"
#pragma omp end declare target

// A team's group of lines, its tile declared here (TILE values). The region's body is this one
// call, naming none of its clauses' variables (LU's team_leaf says why).
template <int V, int TILE>
__attribute__((always_inline)) inline void team_fast(const cplx* src, cplx* dst, const cplx* roots, ft_lines g,
                                                     ft_first f, const double* axes, int sign, int threads,
                                                     int* status) {
  if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) status[1] = omp_is_initial_device();
#ifdef __NVPTX__
  cplx tile[TILE];
#pragma omp allocate(tile) allocator(omp_pteam_mem_alloc)
  if (omp_get_num_threads() != threads) {  // (every thread of the team sees the same)
    if (omp_get_thread_num() == 0) {
      status[2] = omp_get_num_threads();
      status[3] = omp_get_team_num();
      publish(status, 2);
    }
    return;
  }
  if constexpr (V == 4) ft_fast_lines4(src, dst, held(tile), roots, g, f, axes, sign, omp_get_team_num(), omp_get_thread_num());
  if constexpr (V == 8) ft_fast_lines8(src, dst, held(tile), roots, g, f, axes, sign, omp_get_team_num(), omp_get_thread_num());
  if constexpr (V == 16)
    ft_fast_lines16(src, dst, held(tile), roots, g, f, axes, sign, omp_get_team_num(), omp_get_thread_num());
#else
  (void)src, (void)dst, (void)roots, (void)g, (void)f, (void)axes, (void)sign, (void)threads;
  if (omp_get_thread_num() == 0) publish(status, 2);
#endif
}

template <int V, int TILE>
void run(int dev, const cplx* src, cplx* dst, const cplx* roots, ft_lines g, ft_first f, const double* axes, int sign,
         int groups, int* status) {
  const int teams = groups, width = g.L * (g.n / V), threads = width;
  // The region takes scalars only, each passed in the launch's arguments: a struct it names is
  // mapped tofrom (Clang's implicit map of an aggregate), so that every launch allocated, copied
  // in and copied back g and f. (That was not what cost these regions about 200 us each outside
  // their kernels on four H200s: with scalars only they still took 520 us a call against ncu's
  // 300-320 for the kernel, reports/data/h200-2026-12-04-late-issue57; libomptarget's blocking
  // wait at each region's end is what omp_target.cpp's cuda_default_scheduling addresses.)
  const int n = g.n, lines = g.L, line_fastest = g.line_fastest, count_a = g.count_a, mode = f.mode, nx = f.nx,
            ny = f.ny;
  const ft_i64 elem_stride = g.elem_stride, stride_a = g.stride_a, stride_b = g.stride_b;
  const ft_u64 seed = f.seed, multiplier = f.multiplier;
#pragma omp target teams num_teams(teams) thread_limit(width) device(dev) is_device_ptr(src, dst, roots, axes, status)
#pragma omp parallel num_threads(width)
  team_fast<V, TILE>(src, dst, roots, ft_lines{n, lines, line_fastest, count_a, elem_stride, stride_a, stride_b},
                     ft_first{mode, nx, ny, seed, multiplier}, axes, sign, threads, status);
}

template <int V>
void by_tile(int dev, const cplx* src, cplx* dst, const cplx* roots, ft_lines g, ft_first f, const double* axes,
             int sign, int groups, int* status) {
  const long long values = static_cast<long long>(g.L) * g.n;
  if (values <= 512) return run<V, 512>(dev, src, dst, roots, g, f, axes, sign, groups, status);
  if (values <= 1024) return run<V, 1024>(dev, src, dst, roots, g, f, axes, sign, groups, status);
  if (values <= 2048) return run<V, 2048>(dev, src, dst, roots, g, f, axes, sign, groups, status);
  static_assert(tile_bytes == 2560 * sizeof(cplx));
  if (values <= 2560) return run<V, 2560>(dev, src, dst, roots, g, f, axes, sign, groups, status);
  throw InputError("FT fast on OpenMP offload: " + std::to_string(g.L) + " lines of " + std::to_string(g.n) +
                              " points pass the " + std::to_string(tile_bytes) + " bytes of its largest tile");
}

// NAS's checksum into sums[iteration] by one team of checksum_threads (device.h's ft_checksum, as
// CUDA's kernel: the 1024 points, then a tree in team memory).
__attribute__((always_inline)) inline void team_checksum(const cplx* u, cplx* sums, int iteration, int nx, int ny,
                                                         int nz, int* status) {
  if (omp_get_thread_num() == 0) status[1] = omp_is_initial_device();
#ifdef __NVPTX__
  cplx scratch[checksum_threads];
#pragma omp allocate(scratch) allocator(omp_pteam_mem_alloc)
  ft_checksum(u, sums, iteration, nx, ny, nz, held(scratch), omp_get_thread_num(), omp_get_num_threads());
#else
  (void)u, (void)sums, (void)iteration, (void)nx, (void)ny, (void)nz;
  if (omp_get_thread_num() == 0) publish(status, 2);
#endif
}

}  // namespace

void checksum(int dev, const double* u, double* sums, int iteration, int nx, int ny, int nz, int* status) {
  const auto* in = reinterpret_cast<const cplx*>(u);
  auto* out = reinterpret_cast<cplx*>(sums);
#pragma omp target teams num_teams(1) thread_limit(checksum_threads) device(dev) is_device_ptr(in, out, status)
#pragma omp parallel num_threads(checksum_threads)
  team_checksum(in, out, iteration, nx, ny, nz, status);
}

void fast(int dev, const double* src, double* dst, const double* roots, const Lines& lines, const First& first,
          const double* axes, int sign, int radix, int groups, int* status) {
  const ft_lines g{lines.n, lines.lines, lines.line_fastest, lines.count_a, lines.elem_stride, lines.stride_a,
                   lines.stride_b};
  const ft_first f{first.mode, first.nx, first.ny, first.seed, first.multiplier};
  const auto* in = reinterpret_cast<const cplx*>(src);
  auto* out = reinterpret_cast<cplx*>(dst);
  const auto* w = reinterpret_cast<const cplx*>(roots);
  if (radix == 4) return by_tile<4>(dev, in, out, w, g, f, axes, sign, groups, status);
  if (radix == 8) return by_tile<8>(dev, in, out, w, g, f, axes, sign, groups, status);
  if (radix == 16) return by_tile<16>(dev, in, out, w, g, f, axes, sign, groups, status);
  throw InputError("FT fast on OpenMP offload: radix " + std::to_string(radix) + " is not 4, 8 or 16");
}

}  // namespace gpubench::ft::omp_fast
