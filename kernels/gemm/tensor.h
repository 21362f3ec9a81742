// GEMM's FP64 tensor-core kernel (variant tensor), CUDA only: built by NVRTC from
// kernels/gemm/nvrtc.cu with GEMM_KERNEL=4 (the build inlines this file there).
// A 128 x 128 block of C per block of 256 threads (8 warps, 2 x 4, a 64 x 32 tile each: 4 x 4
// tiles of Hopper's mma.sync.m16n8k16 f64, 64 accumulators a thread). (The m8n8k4 shape of
// Ampere runs at about half of Hopper's FP64 tensor rate: 23 TFLOP/s at N = 8192 on the H100.)
// Slices of 32 along K go through shared memory in a 3-stage cp.async pipeline (8-byte copies,
// zero-filled beyond the matrix, so any M, N, K and alignment run). A is kept as it is stored
// (NN: [m][k]; TN: [k][m]) and B as [k][n], rows padded by 4 doubles so that the fragment loads
// of each half-warp hit 32 distinct banks.
// Fragments of m16n8k16 (g = lane / 4, t = lane % 4): a[u] = A(g + 8 (u % 2), t + 4 (u / 2)),
// b[u] = B(t + 4 u, g), c[e] = C(g + 8 (e / 2), 2 t + e % 2).


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
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
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
  extern __shared__ double shared[];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
  // Blocks in bands of 8 block rows, column by column within a band, so that the blocks running
  // at once share A's and B's slices in L2.
  const int id = blockIdx.y * gridDim.x + blockIdx.x, band = 8 * gridDim.x, first = (id / band) * 8;
  const int rows_here = min(static_cast<int>(gridDim.y) - first, 8);
  const int row0 = (first + (id % band) % rows_here) * gemm_tc::bm, col0 = ((id % band) / rows_here) * gemm_tc::bn;
  double* as_base = shared;
  double* bs_base = shared + gemm_tc::stages * gemm_tc::a_stage;

  // Pairs of doubles along each stored row: A's (NN: along K; TN: along M) and B's (along N).
  auto load = [&](int stage, int k0) {
    double* as = as_base + stage * gemm_tc::a_stage;
    double* bs = bs_base + stage * gemm_tc::b_stage;
#pragma unroll 4
    for (int i = 0; i < gemm_tc::bm * gemm_tc::bk / (2 * gemm_tc::threads); ++i) {
      const int idx = tid + i * gemm_tc::threads;
      if constexpr (TA) {  // stored K x M
        const int l = idx / (gemm_tc::bm / 2), r = 2 * (idx % (gemm_tc::bm / 2)), gl = k0 + l, gr = row0 + r;
        const double* src = A + static_cast<long>(gl) * lda + gr;
        cp_async16_or_8(as + l * gemm_tc::ld_km + r, src, A, gl < K && gr < M, gl < K && gr + 1 < M);
      } else {
        const int r = idx / (gemm_tc::bk / 2), l = 2 * (idx % (gemm_tc::bk / 2)), gl = k0 + l, gr = row0 + r;
        const double* src = A + static_cast<long>(gr) * lda + gl;
        cp_async16_or_8(as + r * gemm_tc::ld_mk + l, src, A, gr < M && gl < K, gr < M && gl + 1 < K);
      }
    }
#pragma unroll 4
    for (int i = 0; i < gemm_tc::bk * gemm_tc::bn / (2 * gemm_tc::threads); ++i) {
      const int idx = tid + i * gemm_tc::threads;
      const int l = idx / (gemm_tc::bn / 2), c = 2 * (idx % (gemm_tc::bn / 2)), gl = k0 + l, gc = col0 + c;
      const double* src = B + static_cast<long>(gl) * ldb + gc;
      cp_async16_or_8(bs + l * gemm_tc::ld_kn + c, src, B, gl < K && gc < N, gl < K && gc + 1 < N);
    }
  };

  double acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0;

  const int steps = (K + gemm_tc::bk - 1) / gemm_tc::bk;
#pragma unroll
  for (int s = 0; s < gemm_tc::stages - 1; ++s) {
    if (s < steps) load(s, s * gemm_tc::bk);
    cp_async_commit();
  }
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<gemm_tc::stages - 2>();
    __syncthreads();
    // The stage computed one step ago is free (every thread passed this step's barrier).
    const int next = s + gemm_tc::stages - 1;
    if (next < steps) load(next % gemm_tc::stages, next * gemm_tc::bk);
    cp_async_commit();
    const int stage = s % gemm_tc::stages;
    const double* as = as_base + stage * gemm_tc::a_stage;
    const double* bs = bs_base + stage * gemm_tc::b_stage;
#pragma unroll 1
    for (int kk = 0; kk < gemm_tc::bk; kk += 16) {
      double b[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int u = 0; u < 4; ++u) b[j][u] = bs[(kk + t + 4 * u) * gemm_tc::ld_kn + wn + j * 8 + g];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        double a[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          const int r = wm + i * 16 + g + 8 * (u % 2), l = kk + t + 4 * (u / 2);
          a[u] = TA ? as[l * gemm_tc::ld_km + r] : as[r * gemm_tc::ld_mk + l];
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) dmma16(acc[i][j], a, b[j]);
      }
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row0 + wm + i * 16 + g + 8 * h;
      if (r >= M) continue;
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = col0 + wn + j * 8 + 2 * t + e;
          if (c < N) {
            double& out = C[static_cast<long>(r) * ldc + c];
            out = alpha * acc[i][j][2 * h + e] + beta * out;
          }
        }
    }
}

// C = alpha A B + beta C, A stored M x K (nn) or K x M (tn, A transposed).
extern "C" __global__ void __launch_bounds__(gemm_tc::threads)
gemm_tensor_nn(int M, int N, int K, double alpha, const double* __restrict__ A, int lda, const double* __restrict__ B,
               int ldb, double beta, double* __restrict__ C, int ldc) {
  gemm_tensor<false>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
extern "C" __global__ void __launch_bounds__(gemm_tc::threads)
gemm_tensor_tn(int M, int N, int K, double alpha, const double* __restrict__ A, int lda, const double* __restrict__ B,
               int ldb, double beta, double* __restrict__ C, int ldc) {
  gemm_tensor<true>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
