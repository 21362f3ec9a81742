// FT's device code, written once for OpenCL C (kernels/ft/opencl.cl includes it; the build inlines
// it into the embedded source), CUDA (kernels/ft/nvrtc.cu, likewise) and Clang's OpenMP offload
// (kernels/ft/omp_target_device.cpp, with FT_OPENMP defined: fast's transform). Each API's
// kernels are thin entry points that pass their indices to the functions here. Complex numbers are double2 (x real, y
// imaginary); the field is u[(k ny + j) nx + i], x fastest.
//
// The variants' kernels:
// - v1 (ft_v1_line): the study's form, one work-item per line, a radix-2 Stockham FFT straight on
//   the strided data with a scratch line of its own (natural order, no bit reversal);
// - v2 adds ft_rotate (the field with y or z made contiguous, and back);
// - fast (ft_fast_lines): a work-group transforms a batch of `L` lines in local memory, each
//   work-item holding V values (the radix, 2..16) in registers per pass; one read and one write of
//   the field per axis; the initial conditions are generated in the forward x pass and the evolve
//   factor applied in the inverse z pass, so neither costs a pass of its own;
// - the study's evolve (u0 *= factors, u1 = u0) and fast's and the vendor's (u1 = u0 times the
//   factor of iteration t, from per-axis tables: exp(-4 alpha pi^2 |k|^2 t) is the product of
//   one factor per axis);
// - NAS's checksum: one work-group, a tree sum in local memory.
#ifndef GPUBENCH_KERNELS_FT_DEVICE_H
#define GPUBENCH_KERNELS_FT_DEVICE_H

#if defined(__OPENCL_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define FT_FN inline
#define FT_GLOBAL __global
#define FT_LOCAL __local
#define FT_CONSTANT __constant
#define FT_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#define FT_UNROLL _Pragma("unroll")
typedef double2 cplx;
typedef long ft_i64;
typedef ulong ft_u64;
#define FT_C(re, im) ((double2)((re), (im)))
#elif defined(FT_OPENMP)  // Clang's OpenMP offload (kernels/ft/omp_target_device.cpp): a team per group
// always_inline, as CUDA's __forceinline__: with `inline` alone LLVM 19 kept the passes as calls,
// so each thread's x, y and out arrays lived in its stack (local memory) and the radix-8 kernel
// took 204 registers and 240 bytes of stack where CUDA's takes 94 and none (ptxas's figures for
// sm_90); inlined, it takes 96 registers and no stack.
#define FT_FN inline __attribute__((always_inline))
#define FT_GLOBAL
#define FT_LOCAL
#define FT_CONSTANT constexpr
#define FT_SYNC() _Pragma("omp barrier")
#define FT_UNROLL _Pragma("unroll")
// 16-byte aligned, as CUDA's double2: with the struct's own 8 LLVM 19 loaded and stored every
// value as two 8-byte halves (ld.global.f64), where aligned it takes them whole (ld.global.v2.f64).
struct alignas(16) cplx {
  double x, y;
};
typedef long long ft_i64;
typedef unsigned long long ft_u64;
#define FT_C(re, im) (cplx{(re), (im)})
#else  // CUDA: NVRTC (kernels/ft/nvrtc.cu) and nvcc (kernels/ft/cuda.cu, for the types)
#define FT_FN __device__ __forceinline__
#define FT_GLOBAL
#define FT_LOCAL
#define FT_CONSTANT __constant__
#define FT_SYNC() __syncthreads()
#define FT_UNROLL _Pragma("unroll")
typedef double2 cplx;
typedef long long ft_i64;
typedef unsigned long long ft_u64;
#define FT_C(re, im) make_double2((re), (im))
#endif

FT_FN cplx ft_add(cplx a, cplx b) { return FT_C(a.x + b.x, a.y + b.y); }
FT_FN cplx ft_sub(cplx a, cplx b) { return FT_C(a.x - b.x, a.y - b.y); }
FT_FN cplx ft_mul(cplx a, cplx b) { return FT_C(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
FT_FN cplx ft_scale(cplx a, double s) { return FT_C(a.x * s, a.y * s); }
// w, conjugated for the inverse (sign +1).
FT_FN cplx ft_root(cplx w, int sign) { return FT_C(w.x, sign > 0 ? -w.y : w.y); }

// NAS's generator (common/nas_random.hpp's, for the device): x a mod 2^46, a^n mod 2^46.
#define FT_MASK46 ((((ft_u64)1) << 46) - 1)
FT_FN ft_u64 ft_lcg_power(ft_u64 a, ft_u64 n) {
  ft_u64 result = 1;
  a &= FT_MASK46;
  while (n > 0) {
    if (n & 1) result = (result * a) & FT_MASK46;
    a = (a * a) & FT_MASK46;
    n >>= 1;
  }
  return result;
}
#define FT_TO_UNIT(x) ((double)(x) * (1.0 / (double)(((ft_u64)1) << 46)))

// ---- v1: one line per work-item ------------------------------------------------------------------

// Line g starts at (g % count_a) stride_a + (g / count_a) stride_b, its elements `elem_stride`
// apart; roots[p] = exp(-2 pi i p / n).
FT_FN void ft_v1_line(FT_GLOBAL cplx* u, FT_GLOBAL cplx* scratch, FT_GLOBAL const cplx* roots, int n,
                      ft_i64 elem_stride, int count_a, ft_i64 stride_a, ft_i64 stride_b, int g, int sign) {
  FT_GLOBAL cplx* line = u + (ft_i64)(g % count_a) * stride_a + (ft_i64)(g / count_a) * stride_b;
  FT_GLOBAL cplx* a = line;
  FT_GLOBAL cplx* c = scratch + (ft_i64)g * n;
  ft_i64 sa = elem_stride, sc = 1;
  int s = 1;
  for (int len = n; len > 1; len >>= 1, s <<= 1) {
    const int m = len >> 1;
    for (int p = 0; p < m; ++p) {
      const cplx w = ft_root(roots[p * s], sign);
      for (int q = 0; q < s; ++q) {
        const cplx x0 = a[(q + s * p) * sa], x1 = a[(q + s * (p + m)) * sa];
        c[(q + s * 2 * p) * sc] = ft_add(x0, x1);
        c[(q + s * (2 * p + 1)) * sc] = ft_mul(ft_sub(x0, x1), w);
      }
    }
    FT_GLOBAL cplx* t = a;
    a = c;
    c = t;
    const ft_i64 ts = sa;
    sa = sc;
    sc = ts;
  }
  if (a != line)
    for (int e = 0; e < n; ++e) line[e * elem_stride] = a[e];
}

// ---- v2's rotation -------------------------------------------------------------------------------

// Element e of the natural layout to or from the field with axis `axis` (1: y, 2: z) fastest:
// y: (k, i, j), z: (j, i, k).
FT_FN void ft_rotate(FT_GLOBAL const cplx* src, FT_GLOBAL cplx* dst, int nx, int ny, int nz, int axis, int back,
                     ft_i64 e) {
  const ft_i64 i = e % nx, j = (e / nx) % ny, k = e / ((ft_i64)nx * ny);
  const ft_i64 r = axis == 1 ? (k * nx + i) * ny + j : (j * nx + i) * nz + k;
  if (back) dst[e] = src[r];
  else dst[r] = src[e];
}

// ---- evolve --------------------------------------------------------------------------------------

// The study's (NAS's): u0 = u0 factors; u1 = u0.
FT_FN void ft_evolve(FT_GLOBAL cplx* u0, FT_GLOBAL cplx* u1, FT_GLOBAL const double* factors, ft_i64 e) {
  const cplx v = ft_scale(u0[e], factors[e]);
  u0[e] = v;
  u1[e] = v;
}

// The factor of element (i, j, k) at iteration t from that iteration's per-axis tables
// (axis[0..nx) for x, then ny for y, nz for z).
FT_FN double ft_factor(FT_GLOBAL const double* axes, int nx, int ny, int i, int j, int k) {
  return axes[i] * axes[nx + j] * axes[nx + ny + k];
}

// u1 = u0 times the factor of iteration t (u0 stays the forward transform).
FT_FN void ft_evolve_to(FT_GLOBAL const cplx* u0, FT_GLOBAL cplx* u1, FT_GLOBAL const double* axes, int nx, int ny,
                        ft_i64 e) {
  const int i = (int)(e % nx), j = (int)((e / nx) % ny), k = (int)(e / ((ft_i64)nx * ny));
  u1[e] = ft_scale(u0[e], ft_factor(axes, nx, ny, i, j, k));
}

// ---- initial conditions --------------------------------------------------------------------------

// Element e (linear, x fastest) takes NAS's numbers 2e + 1 and 2e + 2 of the stream from `seed`.
FT_FN cplx ft_initial(ft_u64 seed_times_power, ft_u64 multiplier) {
  const ft_u64 re = (seed_times_power * multiplier) & FT_MASK46;
  const ft_u64 im = (re * multiplier) & FT_MASK46;
  return FT_C(FT_TO_UNIT(re), FT_TO_UNIT(im));
}

// NAS's initial conditions into x line `line` of n points (the field's elements line n .. line n +
// n - 1), by `items` work-items of which this is `t`: item t writes elements t, t + items, ...
FT_FN void ft_generate_line(FT_GLOBAL cplx* u, int line, int n, int t, int items, ft_u64 seed, ft_u64 multiplier) {
  ft_u64 state = (seed * ft_lcg_power(multiplier, 2 * ((ft_u64)line * n + t))) & FT_MASK46;
  const ft_u64 step = ft_lcg_power(multiplier, 2 * (ft_u64)items);
  for (int e = t; e < n; e += items) {
    u[(ft_i64)line * n + e] = ft_initial(state, multiplier);
    state = (state * step) & FT_MASK46;
  }
}

// ---- checksum ------------------------------------------------------------------------------------

// NAS's checksum into sums[iteration], by one work-group of `size` items (item l adds the points
// j = l + 1, l + 1 + size, ... up to 1024, then a tree sum in `scratch`).
FT_FN void ft_checksum(FT_GLOBAL const cplx* u, FT_GLOBAL cplx* sums, int iteration, int nx, int ny, int nz,
                       FT_LOCAL cplx* scratch, int l, int size) {
  cplx s = FT_C(0.0, 0.0);
  for (int j = l + 1; j <= 1024; j += size)
    s = ft_add(s, u[((ft_i64)((5 * j) % nz) * ny + (3 * j) % ny) * nx + j % nx]);
  scratch[l] = s;
  FT_SYNC();
  for (int active = size; active > 1;) {
    const int upper = (active + 1) / 2;
    if (l < active - upper) scratch[l] = ft_add(scratch[l], scratch[l + upper]);
    FT_SYNC();
    active = upper;
  }
  if (l == 0) sums[iteration] = ft_scale(scratch[0], 1.0 / ((double)nx * ny * nz));
}

// ---- fast: batches of lines in local memory ------------------------------------------------------

// An in-register DFT of R = 2, 4, 8 or 16 values, x[0..R): radix-2 decimation in frequency, the
// result in bit-reversed order (ft_bitrev undoes it on the way out), written as one stage and two
// half-length DFTs so that every index is a constant without relying on the compiler to unroll
// nested loops (it did not, for 16). Twiddles within the DFT are the 16th roots of unity.
FT_CONSTANT double ft_cos16[16] = {1.0,
                                   0.92387953251128674,
                                   0.70710678118654752,
                                   0.38268343236508977,
                                   0.0,
                                   -0.38268343236508977,
                                   -0.70710678118654752,
                                   -0.92387953251128674,
                                   -1.0,
                                   -0.92387953251128674,
                                   -0.70710678118654752,
                                   -0.38268343236508977,
                                   0.0,
                                   0.38268343236508977,
                                   0.70710678118654752,
                                   0.92387953251128674};

FT_FN cplx ft_root16(int m, int sign) {  // exp(sign 2 pi i m / 16)
  return FT_C(ft_cos16[m & 15], sign * ft_cos16[(m + 12) & 15]);
}

// r's lowest `bits` (<= 4) bits reversed; an expression, so that a constant r folds.
FT_FN int ft_bitrev(int r, int bits) {
  return (((r & 1) << 3) | ((r & 2) << 1) | ((r & 4) >> 1) | ((r & 8) >> 3)) >> (4 - bits);
}

// The first stage of a length-L DFT (DIF): x[m] + x[m + L/2], and their difference times
// exp(sign 2 pi i m / L); the two halves are then transformed on their own.
#define FT_DEFINE_DFT(R, HALF)                                                                      \
  FT_FN void ft_dft##R(cplx* x, int sign) {                                                         \
    FT_UNROLL for (int m = 0; m < R / 2; ++m) {                                                     \
      const cplx a = x[m], b = x[m + R / 2];                                                        \
      x[m] = ft_add(a, b);                                                                          \
      const cplx d = ft_sub(a, b);                                                                  \
      x[m + R / 2] = m == 0 ? d : ft_mul(d, ft_root16(m * (16 / R), sign));                         \
    }                                                                                               \
    ft_dft##HALF(x, sign);                                                                          \
    ft_dft##HALF(x + R / 2, sign);                                                                  \
  }
FT_FN void ft_dft1(cplx* x, int sign) {
  (void)x;
  (void)sign;
}
FT_DEFINE_DFT(2, 1)
FT_DEFINE_DFT(4, 2)
FT_DEFINE_DFT(8, 4)
FT_DEFINE_DFT(16, 8)

// One Stockham pass of radix R over a line of n: the work-item holds V = B R values, x[q] the
// element t + q T of the pass's input (T = n / V items per line); its butterflies are j = t + b T
// (b < B), whose input r is element j + r n / R = t + (b + r B) T, i.e. x[b + r B]. Ns is the
// length of the sub-transforms done so far (2^log_ns). Output r of butterfly j goes to element
// (j / Ns) Ns R + j % Ns + r Ns: y[b R + r], its element in out[b R + r].
#define FT_DEFINE_PASS(R, BITS, B)                                                                       \
  FT_FN void ft_pass##R##_##B(const cplx* x, cplx* y, int* out, int t, int T, int Ns, int log_ns, int n, \
                        FT_GLOBAL const cplx* roots, int sign) {                                     \
    FT_UNROLL for (int b = 0; b < B; ++b) {                                                           \
      const int j = t + b * T, k = j & (Ns - 1);                                                      \
      cplx v[R];                                                                                      \
      FT_UNROLL for (int r = 0; r < R; ++r) v[r] = x[b + r * B];                                     \
      if (Ns > 1) {                                                                                   \
        const int step = (n >> log_ns) / R; /* n / (Ns R) */                                          \
        FT_UNROLL for (int r = 1; r < R; ++r) v[r] = ft_mul(v[r], ft_root(roots[k * r * step], sign)); \
      }                                                                                               \
      ft_dft##R(v, sign);                                                                             \
      const int base = ((j >> log_ns) << log_ns) * R + k;                                             \
      FT_UNROLL for (int r = 0; r < R; ++r) {                                                         \
        y[b * R + r] = v[ft_bitrev(r, BITS)];                                                         \
        out[b * R + r] = base + r * Ns;                                                               \
      }                                                                                               \
    }                                                                                                 \
  }
FT_DEFINE_PASS(2, 1, 2)
FT_DEFINE_PASS(2, 1, 4)
FT_DEFINE_PASS(2, 1, 8)
FT_DEFINE_PASS(4, 2, 1)
FT_DEFINE_PASS(4, 2, 2)
FT_DEFINE_PASS(4, 2, 4)
FT_DEFINE_PASS(8, 3, 1)
FT_DEFINE_PASS(8, 3, 2)
FT_DEFINE_PASS(16, 4, 1)

// The lines of a group: line g (= group L + l) starts at (g % count_a) stride_a + (g / count_a)
// stride_b, its elements `elem_stride` apart. `line_fastest`: the work-items of one element of the
// L lines are adjacent (the strided axes, whose L lines are adjacent in memory: L consecutive x),
// and the tile holds element e of line l at e L + l; otherwise (x) the items of one line are
// adjacent, the tile holding line l at l n + e.
struct ft_lines {
  int n, L, line_fastest, count_a;
  ft_i64 elem_stride, stride_a, stride_b;
};

// What the first pass reads: 0 the field `src`; 1 NAS's initial conditions (the x lines, in the
// forward transform; `seed` the generator's state, `multiplier` 5^13); 2 src times the factor of
// the iteration whose per-axis tables are `axes` (the z lines, in the inverse: (i, j) from the
// line, k from the element).
struct ft_first {
  int mode, nx, ny;
  ft_u64 seed, multiplier;
};

// The transform of one group's L lines of n from `src` to `dst` (which may be the same: every
// line is read whole before any is written), V values per work-item (T = n / V items per line,
// L T in the group, n >= V), the tile L n values of local memory. V is the radix of every pass but
// a last shorter one (n = V^p r). Forward (sign -1) or inverse unnormalised (+1).
// The last, shorter pass of radix R < V: V / R butterflies per work-item.
#define FT_REMAINDER_4(R) ft_pass2_2(x, y, out, t, T, Ns, log_ns, n, roots, sign);
#define FT_REMAINDER_8(R)                                             \
  if (R == 4) ft_pass4_2(x, y, out, t, T, Ns, log_ns, n, roots, sign); \
  else ft_pass2_4(x, y, out, t, T, Ns, log_ns, n, roots, sign);
#define FT_REMAINDER_16(R)                                            \
  if (R == 8) ft_pass8_2(x, y, out, t, T, Ns, log_ns, n, roots, sign); \
  else if (R == 4) ft_pass4_4(x, y, out, t, T, Ns, log_ns, n, roots, sign); \
  else ft_pass2_8(x, y, out, t, T, Ns, log_ns, n, roots, sign);

#define FT_DEFINE_FAST(V)                                                                                    \
  FT_FN void ft_fast_lines##V(FT_GLOBAL const cplx* src, FT_GLOBAL cplx* dst, FT_LOCAL cplx* tile,           \
                              FT_GLOBAL const cplx* roots, struct ft_lines g, struct ft_first first,         \
                              FT_GLOBAL const double* axes, int sign, int group, int tid) {                 \
    const int n = g.n, T = n / V;                                                                            \
    const int l = g.line_fastest ? tid % g.L : tid / T, t = g.line_fastest ? tid / g.L : tid % T;            \
    const int line = group * g.L + l;                                                                        \
    const ft_i64 start = (ft_i64)(line % g.count_a) * g.stride_a + (ft_i64)(line / g.count_a) * g.stride_b;  \
    cplx x[V], y[V];                                                                                         \
    int out[V];                                                                                              \
    if (first.mode == 1) {                                                                                   \
      /* Element e of x line `line` takes the numbers 2 (line n + e) + 1 and + 2. */                       \
      ft_u64 state = (first.seed * ft_lcg_power(first.multiplier, 2 * ((ft_u64)line * n + t))) & FT_MASK46; \
      const ft_u64 step = ft_lcg_power(first.multiplier, 2 * (ft_u64)T);                                     \
      FT_UNROLL for (int q = 0; q < V; ++q) {                                                                \
        x[q] = ft_initial(state, first.multiplier);                                                          \
        state = (state * step) & FT_MASK46;                                                                  \
      }                                                                                                      \
    } else {                                                                                                 \
      FT_UNROLL for (int q = 0; q < V; ++q) x[q] = src[start + (ft_i64)(t + q * T) * g.elem_stride];         \
      if (first.mode == 2) {                                                                                 \
        const double fij = axes[line % first.nx] * axes[first.nx + line / first.nx];                         \
        FT_UNROLL for (int q = 0; q < V; ++q)                                                                \
          x[q] = ft_scale(x[q], fij * axes[first.nx + first.ny + t + q * T]);                                \
      }                                                                                                      \
    }                                                                                                        \
    int Ns = 1, log_ns = 0;                                                                                  \
    for (;;) {                                                                                               \
      const int R = n / Ns < V ? n / Ns : V;                                                                 \
      if (R == V) ft_pass##V##_1(x, y, out, t, T, Ns, log_ns, n, roots, sign);                              \
      else FT_REMAINDER_##V(R)                                                                               \
      Ns *= R;                                                                                               \
      log_ns += R == 16 ? 4 : R == 8 ? 3 : R == 4 ? 2 : 1;                                                   \
      if (Ns >= n) break;                                                                                    \
      /* Through the tile: the next pass reads x[q] = element t + q T. */                                  \
      FT_UNROLL for (int q = 0; q < V; ++q) tile[g.line_fastest ? out[q] * g.L + l : l * n + out[q]] = y[q];  \
      FT_SYNC();                                                                                             \
      FT_UNROLL for (int q = 0; q < V; ++q) {                                                                \
        const int e = t + q * T;                                                                             \
        x[q] = tile[g.line_fastest ? e * g.L + l : l * n + e];                                               \
      }                                                                                                      \
      FT_SYNC();                                                                                             \
    }                                                                                                        \
    FT_UNROLL for (int q = 0; q < V; ++q) dst[start + (ft_i64)out[q] * g.elem_stride] = y[q];                \
  }
FT_DEFINE_FAST(4)
FT_DEFINE_FAST(8)
FT_DEFINE_FAST(16)

#endif
