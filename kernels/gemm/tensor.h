// GEMM's FP64 tensor-core kernel (variant tensor), CUDA only: built by NVRTC from
// kernels/gemm/nvrtc.cu with GEMM_KERNEL=4 and the configuration's -D BM BN BK STAGES WM WN UNROLL MINB
// (tensor_shape.h; the build inlines this file there).
// A BM x BN block of C per block of WM x WN warps, each warp a (BM/WM) x (BN/WN) tile of Hopper's
// mma.sync.m16n8k16 f64 (the m8n8k4 shape of Ampere runs at about half of Hopper's FP64 tensor
// rate). Slices of BK along K go through shared memory in a STAGES-deep cp.async pipeline
// (16-byte copies where aligned, else 8-byte ones, zero-filled beyond the matrix, so any M, N, K
// and alignment run). A is kept as it is stored (NN: [m][k]; TN: [k][m]) and B as [k][n], rows
// padded by 4 doubles so that the fragment loads of each half-warp hit 32 distinct banks.
// Split K (the launch's gridDim.z > 1, for shapes with too few blocks of C to fill the GPU): the
// z-th block of a column takes the z-th share of K and adds alpha times its product into C with
// atomics, C having been scaled by beta first (gemv.h's gemm_scale).
// Fragments of m16n8k16 (g = lane / 4, t = lane % 4): a[u] = A(g + 8 (u % 2), t + 4 (u / 2)),
// b[u] = B(t + 4 u, g), c[e] = C(g + 8 (e / 2), 2 t + e % 2).

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(WM) || !defined(WN) || !defined(UNROLL) || !defined(MINB)
#error "the tensor kernel is built with -D BM BN BK STAGES WM WN UNROLL MINB (kernels/gemm/cuda.cu: tensor_defines)"
#endif
constexpr gemm_tc::Shape tc{BM, BN, BK, STAGES, WM, WN, UNROLL, MINB};
static_assert(gemm_tc::legal(tc), "not a configuration of the tensor kernel (tensor_shape.h: legal)");

__device__ __forceinline__ void cp_async8(double* shared, const double* global, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(global), "r"(valid ? 8 : 0));
}
// Two consecutive doubles, as one 16-byte copy where both are inside the matrix and the address
// is 16-byte aligned, else as two 8-byte copies (zero-filled where outside).
__device__ __forceinline__ void cp_async16_or_8(double* shared, const double* global, const double* base, bool first,
                                                bool second) {
  if (first && second && (reinterpret_cast<unsigned long long>(global) & 15) == 0 &&
      (__cvta_generic_to_shared(shared) & 15) == 0) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global));
  } else {
    cp_async8(shared, first ? global : base, first);
    cp_async8(shared + 1, second ? global + 1 : base, second);
  }
}
// One 16-byte copy, both addresses 16-byte aligned and inside the matrix (the whole-block path).
__device__ __forceinline__ void cp_async16(double* shared, const double* global) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// A pair inside the matrix: one 16-byte copy where the addresses are aligned (Aligned), else two
// 8-byte ones (an odd leading dimension: every other row's pairs straddle 16 bytes).
template <bool Aligned>
__device__ __forceinline__ void cp_async_pair(double* shared, const double* global) {
  if constexpr (Aligned) {
    cp_async16(shared, global);
  } else {
    cp_async8(shared, global, true);
    cp_async8(shared + 1, global + 1, true);
  }
}

// A whole slice of `Pairs` pairs, `PerRow` to each stored row, from the matrix `m` (leading
// dimension ld) at stored row `row` and column `col` to `dst` (leading dimension ld_s), every
// address inside the matrix (and, Aligned, 16-byte aligned).
// Where the threads cover whole rows per pass, a thread's copies lie one stride apart: one
// pointer and a constant step (fewer registers than an address per copy).
template <int Pairs, int PerRow, bool Aligned = true>
__device__ __forceinline__ void copy_whole(double* dst, int ld_s, const double* m, int ld, int row, int col, int tid) {
  constexpr int threads = tc.threads();
  if constexpr (threads % PerRow == 0) {
    constexpr int step = threads / PerRow;  // rows per pass
    const int r = tid / PerRow, c = 2 * (tid % PerRow);
    const double* src = m + static_cast<long>(row + r) * ld + col + c;
#pragma unroll
    for (int i = 0; i < Pairs / threads; ++i, src += static_cast<long>(step) * ld)
      cp_async_pair<Aligned>(dst + (r + i * step) * ld_s + c, src);
  } else {
#pragma unroll
    for (int i = 0; i < Pairs / threads; ++i) {
      const int idx = tid + i * threads, r = idx / PerRow, c = 2 * (idx % PerRow);
      cp_async_pair<Aligned>(dst + r * ld_s + c, m + static_cast<long>(row + r) * ld + col + c);
    }
  }
}

__device__ __forceinline__ void dmma16(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  (void)d, (void)a, (void)b;
  __trap();  // built for an older arch too: the host refuses to launch there (compute capability)
#else
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
      "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#endif
}

template <bool TA>
__device__ __forceinline__ void gemm_tensor(int M, int N, int K, double alpha, const double* __restrict__ A, int lda,
                                            const double* __restrict__ B, int ldb, double beta, double* __restrict__ C,
                                            int ldc) {
  constexpr int MI = tc.warp_m() / 16, NJ = tc.warp_n() / 8, threads = tc.threads();
  constexpr int kk_unroll = UNROLL;  // #pragma unroll takes no macro
  constexpr int ld_mk = tc.ld_mk(), ld_km = tc.ld_km(), ld_kn = tc.ld_kn();
  extern __shared__ double shared[];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = (warp / WN) * tc.warp_m(), wn = (warp % WN) * tc.warp_n();
  // Blocks in bands of 8 block rows, column by column within a band, so that the blocks running
  // at once share A's and B's slices in L2.
  const int id = blockIdx.y * gridDim.x + blockIdx.x, band = 8 * gridDim.x, first = (id / band) * 8;
  const int rows_here = min(static_cast<int>(gridDim.y) - first, 8);
  const int row0 = (first + (id % band) % rows_here) * BM, col0 = ((id % band) / rows_here) * BN;
  // This block's share of K: whole slices, the last share shorter (or empty).
  const int splits = gridDim.z;
  const int share = ((K + splits - 1) / splits + BK - 1) / BK * BK;
  const int k_begin = min(K, static_cast<int>(blockIdx.z) * share), k_end = min(K, k_begin + share);
  double* as_base = shared;
  double* bs_base = shared + STAGES * tc.a_stage();

  // Pairs of doubles along each stored row: A's (NN: along K; TN: along M) and B's (along N).
  auto load = [&](int stage, int k0) {
    double* as = as_base + stage * tc.a_stage();
    double* bs = bs_base + stage * tc.b_stage();
#pragma unroll 4
    for (int i = 0; i < BM * BK / (2 * threads); ++i) {
      const int idx = tid + i * threads;
      if constexpr (TA) {  // stored K x M
        const int l = idx / (BM / 2), r = 2 * (idx % (BM / 2)), gl = k0 + l, gr = row0 + r;
        const double* src = A + static_cast<long>(gl) * lda + gr;
        cp_async16_or_8(as + l * ld_km + r, src, A, gl < k_end && gr < M, gl < k_end && gr + 1 < M);
      } else {
        const int r = idx / (BK / 2), l = 2 * (idx % (BK / 2)), gl = k0 + l, gr = row0 + r;
        const double* src = A + static_cast<long>(gr) * lda + gl;
        cp_async16_or_8(as + r * ld_mk + l, src, A, gr < M && gl < k_end, gr < M && gl + 1 < k_end);
      }
    }
#pragma unroll 4
    for (int i = 0; i < BK * BN / (2 * threads); ++i) {
      const int idx = tid + i * threads;
      const int l = idx / (BN / 2), c = 2 * (idx % (BN / 2)), gl = k0 + l, gc = col0 + c;
      const double* src = B + static_cast<long>(gl) * ldb + gc;
      cp_async16_or_8(bs + l * ld_kn + c, src, B, gl < k_end && gc < N, gl < k_end && gc + 1 < N);
    }
  };

  // Blocks wholly inside C copy every slice but a last partial one without bounds or alignment
  // tests: the copies' addresses are the loop's invariants plus the slice's offset, and most of
  // the integer work per slice goes. With A's and B's rows 16-byte aligned as 16-byte pairs; with
  // an odd leading dimension (an odd size) as 8-byte halves, so that only the edge blocks take the
  // tested copies (issue 59: at 8191 every block did, 30.6 TFLOP/s against 52.6 at 8192).
  const bool whole = row0 + BM <= M && col0 + BN <= N;
  const bool aligned = lda % 2 == 0 && ldb % 2 == 0 && (reinterpret_cast<unsigned long long>(A) & 15) == 0 &&
                       (reinterpret_cast<unsigned long long>(B) & 15) == 0 && (__cvta_generic_to_shared(shared) & 15) == 0;
  auto load_whole = [&](int stage, int k0) {
    double* as = as_base + stage * tc.a_stage();
    double* bs = bs_base + stage * tc.b_stage();
    if (aligned) {
      if constexpr (TA)  // stored K x M
        copy_whole<BM * BK / 2, BM / 2>(as, ld_km, A, lda, k0, row0, tid);
      else
        copy_whole<BM * BK / 2, BK / 2>(as, ld_mk, A, lda, row0, k0, tid);
      copy_whole<BK * BN / 2, BN / 2>(bs, ld_kn, B, ldb, k0, col0, tid);
    } else {
      if constexpr (TA)
        copy_whole<BM * BK / 2, BM / 2, false>(as, ld_km, A, lda, k0, row0, tid);
      else
        copy_whole<BM * BK / 2, BK / 2, false>(as, ld_mk, A, lda, row0, k0, tid);
      copy_whole<BK * BN / 2, BN / 2, false>(bs, ld_kn, B, ldb, k0, col0, tid);
    }
  };
  auto load_slice = [&](int stage, int k0) {
    if (whole && k0 + BK <= k_end)
      load_whole(stage, k0);
    else
      load(stage, k0);
  };

  double acc[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0;

  const int steps = (k_end - k_begin + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) load_slice(s, k_begin + s * BK);
    cp_async_commit();
  }
  // A warp's fragments of one 16-deep step of a stage: A's MI m16 x k16 tiles, B's NJ k16 x n8.
  auto fragments = [&](double (&fa)[MI][8], double (&fb)[NJ][4], int stage, int kk) {
    const double* as = as_base + stage * tc.a_stage();
    const double* bs = bs_base + stage * tc.b_stage();
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int u = 0; u < 4; ++u) fb[j][u] = bs[(kk + t + 4 * u) * ld_kn + wn + j * 8 + g];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int r = wm + i * 16 + g + 8 * (u % 2), l = kk + t + 4 * (u / 2);
        fa[i][u] = TA ? as[l * ld_km + r] : as[r * ld_mk + l];
      }
  };
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    // The stage computed one step ago is free (every thread passed this step's barrier).
    const int next = s + STAGES - 1;
    if (next < steps) load_slice(next % STAGES, k_begin + next * BK);
    cp_async_commit();
#pragma unroll kk_unroll
    for (int kk = 0; kk < BK; kk += 16) {
      double fa[MI][8], fb[NJ][4];
      fragments(fa, fb, s % STAGES, kk);
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) dmma16(acc[i][j], fa[i], fb[j]);
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row0 + wm + i * 16 + g + 8 * h;
      if (r >= M) continue;
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = col0 + wn + j * 8 + 2 * t + e;
          if (c < N) {
            double& out = C[static_cast<long>(r) * ldc + c];
            if (splits > 1)
              atomicAdd(&out, alpha * acc[i][j][2 * h + e]);
            else
              out = alpha * acc[i][j][2 * h + e] + beta * out;
          }
        }
    }
}

// C = alpha A B + beta C, A stored M x K (nn) or K x M (tn, A transposed).
extern "C" __global__ void __launch_bounds__(WM * WN * 32, MINB)
gemm_tensor_nn(int M, int N, int K, double alpha, const double* __restrict__ A, int lda, const double* __restrict__ B,
               int ldb, double beta, double* __restrict__ C, int ldc) {
  gemm_tensor<false>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void __launch_bounds__(WM * WN * 32, MINB)
gemm_tensor_tn(int M, int N, int K, double alpha, const double* __restrict__ A, int lda, const double* __restrict__ B,
               int ldb, double beta, double* __restrict__ C, int ldc) {
  gemm_tensor<true>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
