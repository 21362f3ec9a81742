// GEMM's tuned kernel body: register-blocked. A work-group of (BN/TN) x (BM/TM) items computes a
// BM x BN block of C; each item a TM x TN tile of it in registers. Per step of BK along K, the
// group stages a BM x BK slice of A (transposed, so that an item's rows are contiguous) and a
// BK x BN slice of B in local memory, loaded from global memory VW elements at a time; the next
// slice is loaded into registers while the current one is multiplied (double buffering: two
// local buffers, one barrier per step). An item's rows and columns are interleaved in groups of
// 16 bytes, so that the items of a warp read contiguous local memory. Slices beyond the matrix
// are filled with zeros and C is written only inside it: any M, N and K run. Vector loads are
// used where the leading dimension keeps them aligned, scalar loads elsewhere. With SPLITK > 1
// (a thin C: too few blocks to fill the device), the grid's z splits K into SPLITK shares of whole
// BK steps; each block adds alpha times its share's product into C with atomics, C having been
// scaled by beta first (gemv.h's gemm_scale). SPLITK 1 (the default) compiles the plain store.
// Included inside a kernel function of a 1-D work-group of (BM/TM)(BN/TN) items and a 2-D grid
// of groups (x along N, y along M); kernels/gemm/device.h.
{
  // Constants (an enum: OpenCL C has no constexpr and no arrays sized by variables).
  enum {
    TX = BN / TN, TY = BM / TM, T = TX * TY,
    GW = sizeof(real) == 4 ? 4 : 2,  // elements in 16 bytes
    GM = TM < GW ? TM : GW, GN = TN < GW ? TN : GW,
    BMP = BM,                        // A's local rows (unpadded: 48 KB then holds bk 16 for f64 at 128 x 64)
    LA = BM * BK / (VW * T), LB = BK * BN / (VW * T)  // vectors each item loads
  };
  GEMM_SHARED(real, As, 2 * BK * BMP);
  GEMM_SHARED(real, Bs, 2 * BK * BN);

  const int tid = GEMM_LID_X;
  const int tx = tid % TX, ty = tid / TX;
  const int row0 = GEMM_GID_Y * BM, col0 = GEMM_GID_X * BN;
  const bool vec_a = lda % VW == 0 && aoff % VW == 0, vec_b = ldb % VW == 0 && boff % VW == 0;
#if SPLITK > 1
  const int share = ((K + SPLITK - 1) / SPLITK + BK - 1) / BK * BK;
  const int kbeg = GEMM_GID_Z * share, kend = K < kbeg + share ? K : kbeg + share;
  if (kbeg >= kend) return;  // an empty share (K small for SPLITK): nothing to add
#else
  const int kbeg = 0, kend = K;
#endif

  real acc[TM * TN];
  GEMM_UNROLL
  for (int i = 0; i < TM * TN; ++i) acc[i] = 0;
  real ra[LA * VW], rb[LB * VW];

  // Global -> registers: the slice of A and of B at K offset k0.
#define GEMM_TUNED_LOAD(k0)                                                                           \
  GEMM_UNROLL                                                                                         \
  for (int v = 0; v < LA; ++v) {                                                                      \
    const int idx = tid + v * T;                                                                      \
    /* NN: vectors along K in a row of A; TN: along M in a stored row */                              \
    const int r = ta ? (idx % (BM / VW)) * VW : idx / (BK / VW);                                      \
    const int l = ta ? idx / (BM / VW) : (idx % (BK / VW)) * VW;                                      \
    const int gr = row0 + r, gl = kbeg + (k0) + l;                                                           \
    const bool whole = ta ? (gl < kend && gr + VW <= M) : (gr < M && gl + VW <= kend);                      \
    if (vec_a && whole) {                                                                             \
      GEMM_LOAD_VEC(&ra[v * VW], A + aoff + (ta ? gl * lda + gr : gr * lda + gl));                               \
    } else {                                                                                          \
      GEMM_UNROLL                                                                                     \
      for (int e = 0; e < VW; ++e) {                                                                  \
        const int er = ta ? gr + e : gr, el = ta ? gl : gl + e;                                       \
        ra[v * VW + e] = (er < M && el < kend) ? A[aoff + (ta ? el * lda + er : er * lda + el)] : (real)0;            \
      }                                                                                               \
    }                                                                                                 \
  }                                                                                                   \
  GEMM_UNROLL                                                                                         \
  for (int v = 0; v < LB; ++v) {                                                                      \
    const int idx = tid + v * T;                                                                      \
    const int l = idx / (BN / VW), c = (idx % (BN / VW)) * VW;                                        \
    const int gl = kbeg + (k0) + l, gc = col0 + c;                                                           \
    if (vec_b && gl < kend && gc + VW <= N) {                                                            \
      GEMM_LOAD_VEC(&rb[v * VW], B + boff + gl * ldb + gc);                                                    \
    } else {                                                                                          \
      GEMM_UNROLL                                                                                     \
      for (int e = 0; e < VW; ++e) rb[v * VW + e] = (gl < kend && gc + e < N) ? B[boff + gl * ldb + gc + e] : (real)0; \
    }                                                                                                 \
  }

  // Registers -> local buffer `buf`: A as As[l][r], B as Bs[l][c].
#define GEMM_TUNED_STORE(buf)                                                                         \
  GEMM_UNROLL                                                                                         \
  for (int v = 0; v < LA; ++v) {                                                                      \
    const int idx = tid + v * T;                                                                      \
    const int r = ta ? (idx % (BM / VW)) * VW : idx / (BK / VW);                                      \
    const int l = ta ? idx / (BM / VW) : (idx % (BK / VW)) * VW;                                      \
    GEMM_UNROLL                                                                                       \
    for (int e = 0; e < VW; ++e)                                                                      \
      As[(buf) * BK * BMP + (ta ? l : l + e) * BMP + (ta ? r + e : r)] = ra[v * VW + e];             \
  }                                                                                                   \
  GEMM_UNROLL                                                                                         \
  for (int v = 0; v < LB; ++v) {                                                                      \
    const int idx = tid + v * T;                                                                      \
    const int l = idx / (BN / VW), c = (idx % (BN / VW)) * VW;                                        \
    GEMM_UNROLL                                                                                       \
    for (int e = 0; e < VW; ++e) Bs[(buf) * BK * BN + l * BN + c + e] = rb[v * VW + e];              \
  }

  const int steps = (kend - kbeg + BK - 1) / BK;
  GEMM_TUNED_LOAD(0)
  GEMM_TUNED_STORE(0)
  GEMM_SYNC();
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    if (s + 1 < steps) {
      GEMM_TUNED_LOAD((s + 1) * BK)
    }
    GEMM_UNROLL
    for (int l = 0; l < BK; ++l) {
      real a[TM], b[TN];
      GEMM_UNROLL
      for (int i = 0; i < TM; ++i) a[i] = As[cur * BK * BMP + l * BMP + (i / GM) * GM * TY + ty * GM + i % GM];
      GEMM_UNROLL
      for (int j = 0; j < TN; ++j) b[j] = Bs[cur * BK * BN + l * BN + (j / GN) * GN * TX + tx * GN + j % GN];
      GEMM_UNROLL
      for (int i = 0; i < TM; ++i) {
        GEMM_UNROLL
        for (int j = 0; j < TN; ++j) acc[i * TN + j] = GEMM_FMA(a[i], b[j], acc[i * TN + j]);
      }
    }
    if (s + 1 < steps) {
      GEMM_TUNED_STORE(cur ^ 1)
    }
    GEMM_SYNC();
  }
#undef GEMM_TUNED_LOAD
#undef GEMM_TUNED_STORE

  GEMM_UNROLL
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + (i / GM) * GM * TY + ty * GM + i % GM;
    if (r < M) {
      GEMM_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int c = col0 + (j / GN) * GN * TX + tx * GN + j % GN;
#if SPLITK > 1
        if (c < N) GEMM_ATOMIC_ADD(&C[coff + r * ldc + c], alpha * acc[i * TN + j]);
#else
        if (c < N) C[coff + r * ldc + c] = alpha * acc[i * TN + j] + beta * C[coff + r * ldc + c];
#endif
      }
    }
  }
}
