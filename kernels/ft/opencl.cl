// NAS FT's OpenCL kernels (kernels/ft/opencl.cpp): thin entry points to kernels/ft/device.h, which
// CUDA shares (the build inlines it here). fft_fast is built with -DRADIX=<radix> per shape: the
// tunable radix, as bench/tunable.hpp's compile_options writes it.
#include "kernels/ft/device.h"

__kernel void fft_v1(__global double2* u, __global double2* scratch, __global const double2* roots, int n,
                     long elem_stride, int count_a, long stride_a, long stride_b, int lines, int sign) {
  const int g = get_global_id(0);
  if (g < lines) ft_v1_line(u, scratch, roots, n, elem_stride, count_a, stride_a, stride_b, g, sign);
}

__kernel void rotate_axes(__global const double2* src, __global double2* dst, int nx, int ny, int nz, int axis,
                          int back) {
  const long e = get_global_id(0);
  if (e < (long)nx * ny * nz) ft_rotate(src, dst, nx, ny, nz, axis, back, e);
}

__kernel void evolve(__global double2* u0, __global double2* u1, __global const double* factors, long total) {
  const long e = get_global_id(0);
  if (e < total) ft_evolve(u0, u1, factors, e);
}

__kernel void evolve_to(__global const double2* u0, __global double2* u1, __global const double* axes, long axes_at,
                        int nx, int ny, long total) {
  const long e = get_global_id(0);
  if (e < total) ft_evolve_to(u0, u1, axes + axes_at, nx, ny, e);
}

// One work-group per x line.
__kernel void generate(__global double2* u, int n, ulong seed, ulong multiplier) {
  ft_generate_line(u, get_group_id(0), n, get_local_id(0), get_local_size(0), seed, multiplier);
}

__kernel void checksum(__global const double2* u, __global double2* sums, int iteration, int nx, int ny, int nz,
                       __local double2* scratch) {
  ft_checksum(u, sums, iteration, nx, ny, nz, scratch, get_local_id(0), get_local_size(0));
}

#ifdef RADIX
#define FT_FAST_NAME(v) ft_fast_lines##v
#define FT_FAST(v) FT_FAST_NAME(v)
__kernel void fft_fast(__global const double2* src, __global double2* dst, __local double2* tile,
                       __global const double2* roots, int n, int lines, int line_fastest, int count_a,
                       long elem_stride, long stride_a, long stride_b, int mode, int nx, int ny, ulong seed,
                       ulong multiplier, __global const double* axes, long axes_at, int sign) {
  struct ft_lines g = {n, lines, line_fastest, count_a, elem_stride, stride_a, stride_b};
  struct ft_first f = {mode, nx, ny, seed, multiplier};
  FT_FAST(RADIX)(src, dst, tile, roots, g, f, axes + axes_at, sign, get_group_id(0), get_local_id(0));
}
#endif
