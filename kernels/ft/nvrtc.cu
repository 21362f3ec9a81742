// NAS FT's CUDA kernels, compiled at run time by NVRTC (backends/cuda/rtc.hpp) with -DSUM_BLOCK=
// (checksum's block size), and -DRADIX= for fft_fast: thin entry points to kernels/ft/device.h (shared with OpenCL), which
// the build inlines here; kernels/ft/cuda.cu launches them. No headers: NVRTC has no standard
// library.
#include "kernels/ft/device.h"

extern "C" __global__ void fft_v1(cplx* u, cplx* scratch, const cplx* roots, int n, ft_i64 elem_stride, int count_a,
                                  ft_i64 stride_a, ft_i64 stride_b, int lines, int sign) {
  const int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (g < lines) ft_v1_line(u, scratch, roots, n, elem_stride, count_a, stride_a, stride_b, g, sign);
}

extern "C" __global__ void rotate_axes(const cplx* src, cplx* dst, int nx, int ny, int nz, int axis, int back) {
  const ft_i64 e = (ft_i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < (ft_i64)nx * ny * nz) ft_rotate(src, dst, nx, ny, nz, axis, back, e);
}

extern "C" __global__ void evolve(cplx* u0, cplx* u1, const double* factors, ft_i64 total) {
  const ft_i64 e = (ft_i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < total) ft_evolve(u0, u1, factors, e);
}

extern "C" __global__ void evolve_to(const cplx* u0, cplx* u1, const double* axes, int nx, int ny, ft_i64 total) {
  const ft_i64 e = (ft_i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < total) ft_evolve_to(u0, u1, axes, nx, ny, e);
}

extern "C" __global__ void generate(cplx* u, int n, ft_u64 seed, ft_u64 multiplier) {
  ft_generate_line(u, (int)blockIdx.x, n, (int)threadIdx.x, (int)blockDim.x, seed, multiplier);
}

extern "C" __global__ void checksum(const cplx* u, cplx* sums, int iteration, int nx, int ny, int nz) {
  __shared__ cplx scratch[SUM_BLOCK];
  ft_checksum(u, sums, iteration, nx, ny, nz, scratch, (int)threadIdx.x, (int)blockDim.x);
}

#ifdef RADIX
// fast's batched transform, RADIX = 4, 8 or 16 values per thread (the tunable radix, as
// bench/tunable.hpp's compile_defines writes it).
#define FT_FAST_NAME(v) ft_fast_lines##v
#define FT_FAST(v) FT_FAST_NAME(v)
extern "C" __global__ void fft_fast(const cplx* src, cplx* dst, const cplx* roots, struct ft_lines g, struct ft_first f,
                                    const double* axes, int sign) {
  extern __shared__ cplx tile[];
  FT_FAST(RADIX)(src, dst, tile, roots, g, f, axes, sign, (int)blockIdx.x, (int)threadIdx.x);
}
#endif
