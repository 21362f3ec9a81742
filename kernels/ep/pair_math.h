// EP's device loop, written once for CUDA (kernels/ep/nvrtc.cu includes it), OpenCL C
// (kernels/ep/opencl.cl includes it; the build inlines it into the embedded source) and the host
// (tests/kernels/ep/test_ep.cpp checks it against the reference, kernels/ep/ep.cpp's host_tally).
// Each API supplies four primitives: bit casts, a reciprocal and a reciprocal square root seed
// (any relative error up to 2^-12 and 2^-18; Newton steps below take them to full precision),
// and a truncation to unsigned.
//
// Why not log(), sqrt() and "/": NAS's f = sqrt(-2 ln r / r) from the math library costs about
// 110 instructions per accepted pair on an H100 (log's special cases, an IEEE division and
// square root, each with a slow-path check), and EP is bound by instruction issue. Here -2 ln r
// is the atanh series on r's reduced mantissa (r is a normal double in (0, 1]: no special cases),
// and f = w rsqrt(w r) with w = -2 ln r needs no division. Both are within 2 ulp (the test checks
// 4); NAS's verification allows a relative error of 1e-8 on the sums.
#ifndef GPUBENCH_KERNELS_EP_PAIR_MATH_H
#define GPUBENCH_KERNELS_EP_PAIR_MATH_H

#if defined(__OPENCL_VERSION__)
#define EP_FN inline
#define EP_LOCAL __local
typedef ulong ep_u64;
typedef uint ep_u32;
#define EP_BITS(d) as_ulong(d)
#define EP_DOUBLE(u) as_double(u)
#ifdef OPENCL_PTX
// NVIDIA's OpenCL (backends/opencl/ptx.h, included before this): CUDA's seeds and truncation
// below, by inline PTX. (OpenCL C's own took EP class D 1.11x CUDA's time on the H200.)
#define EP_RCP_SEED(d) ptx_rcp_approx_f64(d)
#define EP_RSQRT_SEED(h) ptx_rsqrt_approx_f64(h)
#define EP_TRUNC(v) (as_uint2(ptx_add_rz_f64((v), 0x1p52)).x)
#else
// Seeds in single precision: OpenCL bounds float division by 2.5 ulp and rsqrt by 2 ulp.
#define EP_RCP_SEED(d) ((double)(1.0f / (float)(d)))
#define EP_RSQRT_SEED(h) ((double)rsqrt((float)(h)))
#define EP_TRUNC(x) convert_uint_rtz(x)
#endif

#elif defined(__CUDACC__)  // NVRTC (kernels/ep/nvrtc.cu: no standard headers) and nvcc
#define EP_FN __device__ __forceinline__
#define EP_LOCAL
typedef unsigned long long ep_u64;
typedef unsigned int ep_u32;
#define EP_BITS(d) static_cast<ep_u64>(__double_as_longlong(d))
#define EP_DOUBLE(u) __longlong_as_double(static_cast<long long>(u))
// The hardware's approximations (MUFU.RCP64H, MUFU.RSQ64H on NVIDIA GPUs).
__device__ __forceinline__ double ep_rcp_seed(double d) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(d));
  return y;
}
__device__ __forceinline__ double ep_rsqrt_seed(double h) {
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(h));
  return y;
}
#define EP_RCP_SEED(d) ep_rcp_seed(d)
#define EP_RSQRT_SEED(h) ep_rsqrt_seed(h)
// x + 2^52 rounded toward zero holds floor(x) in its low word (0 <= x < 2^32): one add, where a
// conversion instruction runs at a quarter of the rate.
#define EP_TRUNC(x) static_cast<ep_u32>(__double2loint(__dadd_rz((x), 0x1p52)))

#else  // the host, for the tests
#include <math.h>  // fma, fabs, fmax in the global namespace, as the device code calls them

#include <cstdint>
#include <cstring>
#define EP_FN inline
#define EP_LOCAL
typedef std::uint64_t ep_u64;
typedef std::uint32_t ep_u32;
inline ep_u64 ep_bits(double d) {
  ep_u64 u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
inline double ep_double(ep_u64 u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
#define EP_BITS(d) ep_bits(d)
#define EP_DOUBLE(u) ep_double(u)
#define EP_RCP_SEED(d) static_cast<double>(1.0f / static_cast<float>(d))  // as OpenCL's
#define EP_RSQRT_SEED(h) static_cast<double>(1.0f / sqrtf(static_cast<float>(h)))
#define EP_TRUNC(x) static_cast<ep_u32>(x)
#endif

#define EP_MULTIPLIER 1220703125u  // 5^13, NAS's a
#define EP_SEED 271828183UL        // NAS EP's initial state
#define EP_MASK46 0x3FFFFFFFFFFFUL  // states are taken mod 2^46
#define EP_BATCH_PAIRS 1024u       // pairs per batch: 2^batch_log2 (kernels/ep/ep.hpp)
// Rows of annulus counts: q[0..9], and row 10 for max(|g1|, |g2|) >= 10 (which NAS does not
// count either; |g| <= sqrt(2 ln 2^90) = 11.2 bounds it, and it has never been seen).
#define EP_COUNT_ROWS 11u

// The generator's state just before pair `pair` (x_{2 pair}, as kernels/ep/ep.hpp's
// state_before_pair): seed a^(2 pair) mod 2^46, the power by squaring (the low 46 bits of a 64-bit
// product are exact even where it wraps).
EP_FN ep_u64 ep_state_before_pair(ep_u64 pair) {
  ep_u64 r = 1, a = EP_MULTIPLIER;
  for (ep_u64 n = 2 * pair; n > 0; n >>= 1) {
    if (n & 1) r = (r * a) & EP_MASK46;
    a = (a * a) & EP_MASK46;
  }
  return (EP_SEED * r) & EP_MASK46;
}

// 1/d to full precision: one cubic and one quadratic Newton step from the seed.
EP_FN double ep_rcp(double d) {
  double y = EP_RCP_SEED(d);
  double e = fma(-d, y, 1.0);
  y = fma(y, fma(e, e, e), y);
  e = fma(-d, y, 1.0);
  return fma(y, e, y);
}

// 1/sqrt(h) to full precision: one cubic Newton step from the seed.
EP_FN double ep_rsqrt(double h) {
  const double y = EP_RSQRT_SEED(h);
  const double e = fma(-(h * y), y, 1.0);
  return fma(y * e, fma(e, 0.375, 0.5), y);
}

// -2 ln r for a normal r > 0: r = 2^k m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.1716, and 2 atanh(s) = 2 s (1 + s^2/3 + ... + s^18/19): the
// next term is below 2^-56 of the sum. ln 2 in two parts keeps k ln 2 exact.
EP_FN double ep_minus_two_log(double r) {
  const ep_u64 bits = EP_BITS(r);
  int k = (int)(bits >> 52) - 1023;
  ep_u64 mantissa = (bits & 0x000FFFFFFFFFFFFFul) | 0x3FF0000000000000ul;
  if ((ep_u32)(mantissa >> 32) >= 0x3FF6A09Eu) {  // m >= sqrt(2): halve it
    mantissa -= 0x0010000000000000ul;
    k += 1;
  }
  const double m = EP_DOUBLE(mantissa);
  const double s = (m - 1.0) * ep_rcp(m + 1.0);
  const double t = s * s;
  double p = 1.0 / 19;
  p = fma(p, t, 1.0 / 17);
  p = fma(p, t, 1.0 / 15);
  p = fma(p, t, 1.0 / 13);
  p = fma(p, t, 1.0 / 11);
  p = fma(p, t, 1.0 / 9);
  p = fma(p, t, 1.0 / 7);
  p = fma(p, t, 1.0 / 5);
  p = fma(p, t, 1.0 / 3);
  const double half_log_m = fma(s * t, p, s);
  const double dk = (double)k;
  const double minus_two_ln2_hi = -2 * 0x1.62e42fee00000p-1, minus_two_ln2_lo = -2 * 0x1.a39ef35793c76p-33;
  return fma(dk, minus_two_ln2_hi, fma(half_log_m, -4.0, dk * minus_two_ln2_lo));
}

// Marsaglia's factor sqrt(-2 ln r / r) = w / sqrt(w r), w = -2 ln r. For r in (0, 1), w r >= 2^-84;
// the floor 2^-100 only makes r = 1 (w = 0) give 0, not 0 x infinity.
EP_FN double ep_gauss_factor(double r) {
  const double w = ep_minus_two_log(r);
  return w * ep_rsqrt(fmax(w * r, 0x1p-100));
}

// The annulus row of a Gaussian pair: floor(max(|g1|, |g2|)), at most EP_COUNT_ROWS - 1.
EP_FN ep_u32 ep_annulus(double g1, double g2) {
  const ep_u32 a = EP_TRUNC(fabs(g1)), b = EP_TRUNC(fabs(g2));
  const ep_u32 l = a > b ? a : b;
  return l < EP_COUNT_ROWS - 1 ? l : EP_COUNT_ROWS - 1;
}

// The next uniform deviate of NAS's generator as 2 u - 1, u = x 2^-46, with the state x = hi 2^32 + lo
// (hi < 2^14) stepped first: x <- a x mod 2^46 in 32-bit halves (a < 2^32). x's 46 bits as
// the top of a mantissa make 1 + u in [1, 2) without a conversion; 2 (1 + u) - 3 is exact.
EP_FN double ep_next_deviate(ep_u32* lo, ep_u32* hi) {
  const ep_u64 p = (ep_u64)(*lo) * EP_MULTIPLIER;
  *hi = (*hi * EP_MULTIPLIER + (ep_u32)(p >> 32)) & 0x3FFFu;
  *lo = (ep_u32)p;
  const ep_u32 top = 0x3FF00000u | (*hi << 6) | (*lo >> 26);
  return 2.0 * EP_DOUBLE(((ep_u64)top << 32) | (ep_u64)(*lo << 6)) - 3.0;
}

// `batches` whole batches of pairs from generator state x (the state just before the first
// pair) into *sx, *sy and the annulus counts counts[row * stride].
EP_FN void ep_tally_batches(ep_u64 x, ep_u64 batches, double* sx, double* sy, EP_LOCAL ep_u32* counts,
                            ep_u32 stride) {
  ep_u32 lo = (ep_u32)x, hi = (ep_u32)(x >> 32);
  for (ep_u64 b = batches; b > 0; --b) {
    for (ep_u32 p = 0; p < EP_BATCH_PAIRS; ++p) {
      const double x1 = ep_next_deviate(&lo, &hi);
      const double x2 = ep_next_deviate(&lo, &hi);
      const double r = x1 * x1 + x2 * x2;
      if (r <= 1.0) {
        const double f = ep_gauss_factor(r);
        const double g1 = x1 * f, g2 = x2 * f;
        counts[ep_annulus(g1, g2) * stride] += 1;
        *sx += g1;
        *sy += g2;
      }
    }
  }
}

#endif
