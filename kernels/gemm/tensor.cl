// GEMM's FP64 tensor-core kernel on NVIDIA's OpenCL (variant tensor on opencl): the algorithm of
// kernels/gemm/tensor.h (CUDA's, read its comments first) in OpenCL C, the tensor cores reached
// through inline PTX, which NVIDIA's OpenCL compiler passes on to its PTX assembler: mma.sync
// (m16n8k16 f64 on compute capability 9.0; on 8.x the same product as eight m8n8k4), cp.async
// into local memory, red.global.add.f64 for split K. Built only where the host saw an NVIDIA
// device of compute capability 8.0 or later (kernels/gemm/opencl.cpp); anywhere else the variant
// is listed unavailable with that reason and this file is never compiled.
// -D BM BN BK STAGES WM WN UNROLL as tensor_shape.h's Shape (minb has no OpenCL equivalent: 1),
// -D GEMM_MMA_M16 where the device has m16n8k16 (compute capability 9.0 or later).
// NVIDIA's OpenCL gives a work-group 48 KB of local memory (CUDA's kernel opts in to 227 KiB):
// the space on OpenCL holds only configurations whose STAGES buffers fit there, unpadded
// (tensor_shape.h: local_bytes).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(WM) || !defined(WN) || !defined(UNROLL)
#error "the tensor kernel is built with -D BM BN BK STAGES WM WN UNROLL (kernels/gemm/opencl.cpp: tensor_options)"
#endif
#define THREADS (32 * WM * WN)
#define WARP_M (BM / WM)
#define WARP_N (BN / WN)
#define MI (WARP_M / 16)
#define NJ (WARP_N / 8)
// Local memory unpadded (tensor.h pads each row by 4 doubles), each row's columns XOR-swizzled
// by 4 (row % 4) instead: the fragment loads of a half-warp (rows g or t, 0..3, columns 4 apart)
// still hit 16 distinct doubles, 32 banks, and the 48 KiB hold a third stage of 64 x 64 x 16.
// A stored (NN) is [m][k] rows of BK, A transposed (TN) [k][m] rows of BM, B [k][n] rows of BN;
// a pair of doubles (even column) stays together and 16-byte aligned.
#define AT(row, col, ld) ((row) * (ld) + ((col) ^ (((row) & 3) << 2)))
#define A_STAGE (BM * BK)
#define B_STAGE (BK * BN)
#if BM % (16 * WM) != 0 || BN % (8 * WN) != 0 || BK % 16 != 0 || STAGES < 2 || STAGES > 6 || \
    (BM * BK / 2) % THREADS != 0 || (BK * BN / 2) % THREADS != 0 || (BK / 16) % UNROLL != 0
#error "not a configuration of the tensor kernel (tensor_shape.h: legal)"
#endif
// cp.async.wait_group takes an immediate: the pipeline's STAGES - 2 slices may stay in flight.
#if STAGES == 2
#define GEMM_TC_PENDING "0"
#elif STAGES == 3
#define GEMM_TC_PENDING "1"
#elif STAGES == 4
#define GEMM_TC_PENDING "2"
#elif STAGES == 5
#define GEMM_TC_PENDING "3"
#else
#define GEMM_TC_PENDING "4"
#endif

// A __local pointer as PTX's .shared state space addresses it (NVIDIA's OpenCL: 64-bit).
#define GEMM_TC_SHARED(p) ((ulong)(p))

static inline void cp_async8(__local double* s, __global const double* g, int valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"l"(GEMM_TC_SHARED(s)), "l"(g), "r"(valid ? 8 : 0)
               : "memory");
}
static inline void cp_async16(__local double* s, __global const double* g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"l"(GEMM_TC_SHARED(s)), "l"(g) : "memory");
}
// Two consecutive doubles: one 16-byte copy where both are inside the matrix and both addresses
// are 16-byte aligned, else two 8-byte copies (zero-filled where outside).
static inline void cp_async16_or_8(__local double* s, __global const double* g, __global const double* base, int first,
                            int second) {
  if (first && second && (((ulong)g) & 15) == 0 && (GEMM_TC_SHARED(s) & 15) == 0) {
    cp_async16(s, g);
  } else {
    cp_async8(s, first ? g : base, first);
    cp_async8(s + 1, second ? g + 1 : base, second);
  }
}
#define GEMM_TC_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define GEMM_TC_WAIT(pending) asm volatile("cp.async.wait_group " pending ";" ::: "memory")

// d (4) += a (8) b (4), fragments of m16n8k16 as tensor.h lays them out.
#ifdef GEMM_MMA_M16
#define GEMM_TC_MMA(d, a, b)                                                                                       \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "                            \
               "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"                      \
               : "+d"((d)[0]), "+d"((d)[1]), "+d"((d)[2]), "+d"((d)[3])                                          \
               : "d"((a)[0]), "d"((a)[1]), "d"((a)[2]), "d"((a)[3]), "d"((a)[4]), "d"((a)[5]), "d"((a)[6]),     \
                 "d"((a)[7]), "d"((b)[0]), "d"((b)[1]), "d"((b)[2]), "d"((b)[3]))
#else
// Compute capability 8.x: m16n8k16 is four k-quarters of two m8n8k4 (rows g and g + 8), whose
// fragments are m16n8k16's: a[2q] = A(g, t + 4q), a[2q + 1] = A(g + 8, t + 4q), b[q] = B(t + 4q, g),
// and C(g, 2t + e) in d[e], C(g + 8, 2t + e) in d[2 + e].
#define GEMM_TC_MMA8(d0, d1, a, b)                                                                                 \
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"                 \
               : "+d"(d0), "+d"(d1)                                                                              \
               : "d"(a), "d"(b))
#define GEMM_TC_MMA(d, a, b)                                                                                       \
  do {                                                                                                           \
    _Pragma("unroll") for (int q_ = 0; q_ < 4; ++q_) {                                                           \
      GEMM_TC_MMA8((d)[0], (d)[1], (a)[2 * q_], (b)[q_]);                                                        \
      GEMM_TC_MMA8((d)[2], (d)[3], (a)[2 * q_ + 1], (b)[q_]);                                                    \
    }                                                                                                            \
  } while (0)
#endif

// `pairs` 16-byte pairs of a whole slice, `per_row` to each stored row, from matrix m (leading
// dimension ld) at stored row `row`, column `col`, to dst (rows of ld_s, swizzled: AT); every
// address aligned and inside the matrix. Where the threads cover whole rows per pass, a thread's
// copies lie one stride apart.
static inline void copy_whole(const int pairs, const int per_row, __local double* dst, const int ld_s,
                       __global const double* m, int ld, int row, int col, int tid) {
  if (THREADS % per_row == 0) {
    const int step = THREADS / per_row, r = tid / per_row, c = 2 * (tid % per_row);
    __global const double* src = m + (long)(row + r) * ld + col + c;
#pragma unroll
    for (int i = 0; i < pairs / THREADS; ++i, src += (long)step * ld) cp_async16(dst + AT(r + i * step, c, ld_s), src);
  } else {
#pragma unroll
    for (int i = 0; i < pairs / THREADS; ++i) {
      const int idx = tid + i * THREADS, r = idx / per_row, c = 2 * (idx % per_row);
      cp_async16(dst + AT(r, c, ld_s), m + (long)(row + r) * ld + col + c);
    }
  }
}

// One slice of A and B (k0 .. k0 + BK) into a stage's buffers: 16-byte copies without tests
// where the block is whole, else each pair tested and zero-filled beyond the matrix.
static inline void load_slice(const int ta, const int whole, __local double* as, __local double* bs, int k0, int k_end,
                       int row0, int col0, int M, int N, __global const double* A, int lda, __global const double* B,
                       int ldb, int tid) {
  if (whole && k0 + BK <= k_end) {
    if (ta)  // stored K x M
      copy_whole(BM * BK / 2, BM / 2, as, BM, A, lda, k0, row0, tid);
    else
      copy_whole(BM * BK / 2, BK / 2, as, BK, A, lda, row0, k0, tid);
    copy_whole(BK * BN / 2, BN / 2, bs, BN, B, ldb, k0, col0, tid);
    return;
  }
#pragma unroll 4
  for (int i = 0; i < BM * BK / (2 * THREADS); ++i) {
    const int idx = tid + i * THREADS;
    if (ta) {
      const int l = idx / (BM / 2), r = 2 * (idx % (BM / 2)), gl = k0 + l, gr = row0 + r;
      cp_async16_or_8(as + AT(l, r, BM), A + (long)gl * lda + gr, A, gl < k_end && gr < M,
                      gl < k_end && gr + 1 < M);
    } else {
      const int r = idx / (BK / 2), l = 2 * (idx % (BK / 2)), gl = k0 + l, gr = row0 + r;
      cp_async16_or_8(as + AT(r, l, BK), A + (long)gr * lda + gl, A, gr < M && gl < k_end,
                      gr < M && gl + 1 < k_end);
    }
  }
#pragma unroll 4
  for (int i = 0; i < BK * BN / (2 * THREADS); ++i) {
    const int idx = tid + i * THREADS;
    const int l = idx / (BN / 2), c = 2 * (idx % (BN / 2)), gl = k0 + l, gc = col0 + c;
    cp_async16_or_8(bs + AT(l, c, BN), B + (long)gl * ldb + gc, B, gl < k_end && gc < N, gl < k_end && gc + 1 < N);
  }
}

static inline void gemm_tensor(const int ta, int M, int N, int K, double alpha, __global const double* restrict A, int lda,
                        __global const double* restrict B, int ldb, double beta, __global double* restrict C,
                        int ldc, __local double* shared) {
  const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = (warp / WN) * WARP_M, wn = (warp % WN) * WARP_N;
  // Blocks in bands of 8 block rows, column by column within a band (L2 reuse).
  const int gx = (int)get_num_groups(0), gy = (int)get_num_groups(1);
  const int id = (int)get_group_id(1) * gx + (int)get_group_id(0), band = 8 * gx, first = (id / band) * 8;
  const int rows_here = min(gy - first, 8);
  const int row0 = (first + (id % band) % rows_here) * BM, col0 = ((id % band) / rows_here) * BN;
  // This group's share of K (split K: the launch's third dimension).
  const int splits = (int)get_num_groups(2);
  const int share = ((K + splits - 1) / splits + BK - 1) / BK * BK;
  const int k_begin = min(K, (int)get_group_id(2) * share), k_end = min(K, k_begin + share);
  __local double* as_base = shared;
  __local double* bs_base = shared + STAGES * A_STAGE;
  const int whole = row0 + BM <= M && col0 + BN <= N && lda % 2 == 0 && ldb % 2 == 0 && (((ulong)A) & 15) == 0 &&
                    (((ulong)B) & 15) == 0 && (GEMM_TC_SHARED(shared) & 15) == 0;

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
    if (s < steps)
      load_slice(ta, whole, as_base + s * A_STAGE, bs_base + s * B_STAGE, k_begin + s * BK, k_end, row0, col0, M, N,
                 A, lda, B, ldb, tid);
    GEMM_TC_COMMIT();
  }
  for (int s = 0; s < steps; ++s) {
    GEMM_TC_WAIT(GEMM_TC_PENDING);
    barrier(CLK_LOCAL_MEM_FENCE);
    // The stage computed one step ago is free (every work-item passed this step's barrier).
    const int next = s + STAGES - 1;
    if (next < steps)
      load_slice(ta, whole, as_base + (next % STAGES) * A_STAGE, bs_base + (next % STAGES) * B_STAGE,
                 k_begin + next * BK, k_end, row0, col0, M, N, A, lda, B, ldb, tid);
    GEMM_TC_COMMIT();
    __local const double* as = as_base + (s % STAGES) * A_STAGE;
    __local const double* bs = bs_base + (s % STAGES) * B_STAGE;
#pragma unroll UNROLL
    for (int kk = 0; kk < BK; kk += 16) {
      double fa[MI][8], fb[NJ][4];
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int u = 0; u < 4; ++u) fb[j][u] = bs[AT(kk + t + 4 * u, wn + j * 8 + g, BN)];
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          const int r = wm + i * 16 + g + 8 * (u % 2), l = kk + t + 4 * (u / 2);
          fa[i][u] = ta ? as[AT(l, r, BM)] : as[AT(r, l, BK)];
        }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) GEMM_TC_MMA(acc[i][j], fa[i], fb[j]);
    }
  }
  GEMM_TC_WAIT("0");

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
            __global double* out = C + (long)r * ldc + c;
            if (splits > 1)
              asm volatile("red.global.add.f64 [%0], %1;" ::"l"(out), "d"(alpha * acc[i][j][2 * h + e]) : "memory");
            else
              *out = alpha * acc[i][j][2 * h + e] + beta * *out;
          }
        }
    }
}

// C = alpha A B + beta C on a block of C: A from aoff, stored M x K (nn) or K x M (tn); B from
// boff, K x N; C from coff; rows lda, ldb, ldc apart.
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void gemm_tensor_nn(int M, int N, int K, double alpha, __global const double* restrict A, int aoff, int lda,
                    __global const double* restrict B, int boff, int ldb, double beta, __global double* restrict C,
                    int coff, int ldc) {
  __local double shared[STAGES * (A_STAGE + B_STAGE)] __attribute__((aligned(16)));
  gemm_tensor(0, M, N, K, alpha, A + aoff, lda, B + boff, ldb, beta, C + coff, ldc, shared);
}
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void gemm_tensor_tn(int M, int N, int K, double alpha, __global const double* restrict A, int aoff, int lda,
                    __global const double* restrict B, int boff, int ldb, double beta, __global double* restrict C,
                    int coff, int ldc) {
  __local double shared[STAGES * (A_STAGE + B_STAGE)] __attribute__((aligned(16)));
  gemm_tensor(1, M, N, K, alpha, A + aoff, lda, B + boff, ldb, beta, C + coff, ldc, shared);
}
