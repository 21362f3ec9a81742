// The roofline ceiling probes' kernels (backends/opencl/ceilings.cpp; the values they use are
// explained in backends/ceilings_common.hpp). Built with -DREAL=double or -DREAL=float: the
// bandwidth kernels stream REAL arrays, one work-item per element; fma_chains runs REAL FMAs.
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void stream_init(__global REAL* restrict a, __global REAL* restrict b, __global REAL* restrict c,
                          ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  a[i] = (REAL)1 + (REAL)(i & 1023) * (REAL)0.5;
  b[i] = (REAL)-1;
  c[i] = (REAL)(i & 7) * (REAL)0.25;
}

__kernel void stream_copy(const __global REAL* restrict a, __global REAL* restrict b, ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) b[i] = a[i];
}

__kernel void stream_triad(__global REAL* restrict a, const __global REAL* restrict b,
                           const __global REAL* restrict c, REAL scalar, ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) a[i] = b[i] + scalar * c[i];
}

// Eight independent dependent chains x = fma(x, a, b), `iterations` steps each; the sum goes to
// out so that none of it can be left out. a and one_minus_a are arguments, not constants, so the
// compiler cannot fold the recurrence. Each work-item runs WIDTH lanes (-DWIDTH=1, 2, 4, 8 or 16;
// 1 if not given) as REAL vectors: a CPU device needs them to fill its vector registers, where a
// GPU's work-items are its lanes. Lane l of work-item g is item g WIDTH + l of the host reference.
#ifndef WIDTH
#define WIDTH 1
#endif
#if WIDTH == 1
#define VREAL REAL
#define LANE_IDS ((REAL)0)
#else
#define CONCAT2(a, b) a##b
#define CONCAT(a, b) CONCAT2(a, b)
#define VREAL CONCAT(REAL, WIDTH)
#if WIDTH == 2
#define LANE_IDS ((VREAL)(0, 1))
#elif WIDTH == 4
#define LANE_IDS ((VREAL)(0, 1, 2, 3))
#elif WIDTH == 8
#define LANE_IDS ((VREAL)(0, 1, 2, 3, 4, 5, 6, 7))
#elif WIDTH == 16
#define LANE_IDS ((VREAL)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#else
#error "WIDTH must be 1, 2, 4, 8 or 16"
#endif
#endif

__kernel void fma_chains(uint iterations, REAL a, REAL one_minus_a, __global REAL* out) {
  const size_t group_item = get_global_id(0);
  // (g WIDTH + l) mod 256 = (g WIDTH mod 256) + l, WIDTH dividing 256.
  const VREAL p = (REAL)1 + ((REAL)((group_item * WIDTH) & 255) + LANE_IDS) / (REAL)256;
  const VREAL b = one_minus_a * p;
  VREAL x0 = p + (REAL)0.125, x1 = p + (REAL)0.25, x2 = p + (REAL)0.375, x3 = p + (REAL)0.5;
  VREAL x4 = p + (REAL)0.625, x5 = p + (REAL)0.75, x6 = p + (REAL)0.875, x7 = p + (REAL)1;
  const VREAL av = a;
  for (uint k = 0; k < iterations; ++k) {
    x0 = fma(x0, av, b);
    x1 = fma(x1, av, b);
    x2 = fma(x2, av, b);
    x3 = fma(x3, av, b);
    x4 = fma(x4, av, b);
    x5 = fma(x5, av, b);
    x6 = fma(x6, av, b);
    x7 = fma(x7, av, b);
  }
  const VREAL sum = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
#if WIDTH == 1
  out[group_item] = sum;
#else
  CONCAT(vstore, WIDTH)(sum, group_item, out);
#endif
}

// The working-set sweeps' reader (backends/ceilings_common.hpp, measure_cache_levels): in pass p,
// work-group g adds up slice (g + p rotate) mod slices; work-groups of 256.
__kernel void cache_read(__global const float4* a, uint slice, uint slices, uint rotate, uint passes,
                         __global float* out) {
  float4 acc = (float4)(0.0f);
  uint s = (uint)get_group_id(0) % slices;
  for (uint p = 0; p < passes; ++p) {
    __global const float4* part = a + (size_t)s * slice;
    s += rotate;
    if (s >= slices) s -= slices;
#pragma unroll 4
    for (uint i = (uint)get_local_id(0); i < slice; i += (uint)get_local_size(0)) acc += part[i];
  }
  out[get_global_id(0)] = (acc.x + acc.y) + (acc.z + acc.w);
}

__kernel void fill_ones(__global float* a, ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) a[i] = 1.0f;
}
