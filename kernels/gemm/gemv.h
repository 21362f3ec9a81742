// GEMM's degenerate shapes (issue 59 item 3): one of m, n, k equal to 1, where C = alpha op(A) B +
// beta C is a matrix-vector product or an outer product, memory-bound, and a tiled kernel's blocks
// are 1/bm full. Written once for OpenCL C (kernels/gemm/opencl.cl) and CUDA (kernels/gemm/nvrtc.cu,
// GEMM_KERNEL 5) against kernels/gemm/device.h's names, which the includer has included; `real`
// is the element type. What each shape maps to, and the launch, is kernels/gemm/gemv.hpp's plan:
//   gemm_outer   k = 1: C(i, j) = alpha a_i b_j + beta C(i, j), one item per column, rows strided
//                over the groups of the grid's y.
//   gemm_rowdot  y_o = sum_l M(o, l) x_l over rows of M that are contiguous (n = 1, A as stored):
//                one work-group per output, its items along the row, a tree in local memory.
//   gemm_colsum  y_o = sum_r M(r, o) x_r over columns of M (m = 1: M is B; n = 1 with A transposed):
//                one item per output, consecutive items on consecutive columns (coalesced).
// Each of the two sums covers one `chunk` of the reduction per group row (the grid's y): with one
// chunk it writes C = alpha y + beta C itself; with more, its partial sums go to P (splits x outs)
// and gemm_finish adds them up into C.
// Beside them, gemm_pad: the copy of an operand whose rows are not 16-byte aligned (an odd leading
// dimension) into rows that are, which the tensor kernel's 16-byte cp.async path needs (its calls
// in kernels/gemm/cuda.cu and opencl.cpp say when), and gemm_scale: C = beta C before a split K's
// shares add into it (the tuned and tensor kernels' splitk > 1).
#ifndef GPUBENCH_KERNELS_GEMM_GEMV_H
#define GPUBENCH_KERNELS_GEMM_GEMV_H

#ifdef __OPENCL_VERSION__
#define GEMV_KERNEL __kernel void
#define GEMV_RESTRICT restrict
#define GEMV_NGROUPS_Y ((int)get_num_groups(1))
#else
#define GEMV_KERNEL extern "C" __global__ void
#define GEMV_RESTRICT __restrict__
#define GEMV_NGROUPS_Y static_cast<int>(gridDim.y)
#endif
// The largest work-group gemm_rowdot's tree takes (gemv.hpp keeps the plan's groups within it).
#define GEMV_MAX_GROUP 512

GEMV_KERNEL gemm_outer(int M, int N, real alpha, GEMM_GLOBAL const real* GEMV_RESTRICT A, int aoff, int inca,
                       GEMM_GLOBAL const real* GEMV_RESTRICT B, int boff, real beta, GEMM_GLOBAL real* GEMV_RESTRICT C,
                       int coff, int ldc) {
  const int col = GEMM_GID_X * GEMM_LOCAL_X + GEMM_LID_X;
  if (col >= N) return;
  const real b = alpha * B[boff + col];
  const int step = GEMV_NGROUPS_Y;
  int row = GEMM_GID_Y;
  // Four rows a step, their loads of C issued before the stores: an item's 4-byte loads in flight
  // one at a time cannot keep the memory busy in f32 (Little's law: bytes in flight per SM).
  for (; row + 3 * step < M; row += 4 * step) {
    const long at0 = coff + (long)row * ldc + col, at1 = at0 + (long)step * ldc, at2 = at1 + (long)step * ldc,
               at3 = at2 + (long)step * ldc;
    const real c0 = C[at0], c1 = C[at1], c2 = C[at2], c3 = C[at3];
    const real a0 = A[aoff + (long)row * inca], a1 = A[aoff + (long)(row + step) * inca],
               a2 = A[aoff + (long)(row + 2 * step) * inca], a3 = A[aoff + (long)(row + 3 * step) * inca];
    C[at0] = GEMM_FMA(a0, b, beta * c0);
    C[at1] = GEMM_FMA(a1, b, beta * c1);
    C[at2] = GEMM_FMA(a2, b, beta * c2);
    C[at3] = GEMM_FMA(a3, b, beta * c3);
  }
  for (; row < M; row += step) {
    const long at = coff + (long)row * ldc + col;
    C[at] = GEMM_FMA(A[aoff + (long)row * inca], b, beta * C[at]);
  }
}

// One chunk's sum of an output, into C (one chunk) or its row of P.
#define GEMV_STORE(sum, o, outs)                                   \
  do {                                                             \
    if (GEMV_NGROUPS_Y == 1) {                                     \
      const long at_ = coff + (long)(o) * incc;                    \
      C[at_] = alpha * (sum) + beta * C[at_];                      \
    } else {                                                       \
      P[(long)GEMM_GID_Y * (outs) + (o)] = (sum);                  \
    }                                                              \
  } while (0)

GEMV_KERNEL gemm_colsum(int R, int outs, int chunk, GEMM_GLOBAL const real* GEMV_RESTRICT Mat, int moff, int ldm,
                        GEMM_GLOBAL const real* GEMV_RESTRICT X, int xoff, int incx, GEMM_GLOBAL real* GEMV_RESTRICT P,
                        real alpha, real beta, GEMM_GLOBAL real* GEMV_RESTRICT C, int coff, int incc) {
  const int o = GEMM_GID_X * GEMM_LOCAL_X + GEMM_LID_X;
  if (o >= outs) return;
  const int r0 = GEMM_GID_Y * chunk;
  const int r1 = R - r0 < chunk ? R : r0 + chunk;
  real s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // four rows in flight a step
  GEMM_GLOBAL const real* m = Mat + moff + o;
  int r = r0;
  for (; r + 3 < r1; r += 4) {
    s0 = GEMM_FMA(m[(long)r * ldm], X[xoff + (long)r * incx], s0);
    s1 = GEMM_FMA(m[(long)(r + 1) * ldm], X[xoff + (long)(r + 1) * incx], s1);
    s2 = GEMM_FMA(m[(long)(r + 2) * ldm], X[xoff + (long)(r + 2) * incx], s2);
    s3 = GEMM_FMA(m[(long)(r + 3) * ldm], X[xoff + (long)(r + 3) * incx], s3);
  }
  for (; r < r1; ++r) s0 = GEMM_FMA(m[(long)r * ldm], X[xoff + (long)r * incx], s0);
  GEMV_STORE((s0 + s1) + (s2 + s3), o, outs);
}

GEMV_KERNEL gemm_rowdot(int outs, int L, int chunk, GEMM_GLOBAL const real* GEMV_RESTRICT Mat, int moff, int ldm,
                        GEMM_GLOBAL const real* GEMV_RESTRICT X, int xoff, int incx, GEMM_GLOBAL real* GEMV_RESTRICT P,
                        real alpha, real beta, GEMM_GLOBAL real* GEMV_RESTRICT C, int coff, int incc) {
  GEMM_SHARED(real, part, GEMV_MAX_GROUP);
  const int o = GEMM_GID_X, lid = GEMM_LID_X, g = GEMM_LOCAL_X;
  const int l0 = GEMM_GID_Y * chunk;
  const int l1 = L - l0 < chunk ? L : l0 + chunk;
  GEMM_GLOBAL const real* row = Mat + moff + (long)o * ldm;
  real s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // four elements in flight an item
  int l = l0 + lid;
  for (; l + 3 * g < l1; l += 4 * g) {
    s0 = GEMM_FMA(row[l], X[xoff + (long)l * incx], s0);
    s1 = GEMM_FMA(row[l + g], X[xoff + (long)(l + g) * incx], s1);
    s2 = GEMM_FMA(row[l + 2 * g], X[xoff + (long)(l + 2 * g) * incx], s2);
    s3 = GEMM_FMA(row[l + 3 * g], X[xoff + (long)(l + 3 * g) * incx], s3);
  }
  for (; l < l1; l += g) s0 = GEMM_FMA(row[l], X[xoff + (long)l * incx], s0);
  part[lid] = (s0 + s1) + (s2 + s3);
  GEMM_SYNC();
  for (int w = g / 2; w > 0; w /= 2) {  // g is a power of two
    if (lid < w) part[lid] += part[lid + w];
    GEMM_SYNC();
  }
  if (lid == 0) GEMV_STORE(part[0], o, outs);
}

GEMV_KERNEL gemm_finish(int outs, int splits, GEMM_GLOBAL const real* GEMV_RESTRICT P, real alpha, real beta,
                        GEMM_GLOBAL real* GEMV_RESTRICT C, int coff, int incc) {
  const int o = GEMM_GID_X * GEMM_LOCAL_X + GEMM_LID_X;
  if (o >= outs) return;
  real sum = 0;
  for (int s = 0; s < splits; ++s) sum += P[(long)s * outs + o];
  const long at = coff + (long)o * incc;
  C[at] = alpha * sum + beta * C[at];
}

// Rows x cols of S (from soff, its rows lds apart) into D (from 0, rows ldd apart): one item per
// column, rows strided over the grid's y, four rows a step in flight.
GEMV_KERNEL gemm_pad(int rows, int cols, GEMM_GLOBAL const real* GEMV_RESTRICT S, long soff, int lds,
                     GEMM_GLOBAL real* GEMV_RESTRICT D, int ldd) {
  const int col = GEMM_GID_X * GEMM_LOCAL_X + GEMM_LID_X;
  if (col >= cols) return;
  const int step = GEMV_NGROUPS_Y;
  int row = GEMM_GID_Y;
  for (; row + 3 * step < rows; row += 4 * step) {
    const real v0 = S[soff + (long)row * lds + col], v1 = S[soff + (long)(row + step) * lds + col];
    const real v2 = S[soff + (long)(row + 2 * step) * lds + col], v3 = S[soff + (long)(row + 3 * step) * lds + col];
    D[(long)row * ldd + col] = v0;
    D[(long)(row + step) * ldd + col] = v1;
    D[(long)(row + 2 * step) * ldd + col] = v2;
    D[(long)(row + 3 * step) * ldd + col] = v3;
  }
  for (; row < rows; row += step) D[(long)row * ldd + col] = S[soff + (long)row * lds + col];
}

// C = beta C (beta 0 writes zeros, as BLAS does: C's NaNs are not kept): one item per column,
// rows strided over the grid's y (ScalePlan in gemv.hpp).
GEMV_KERNEL gemm_scale(int M, int N, real beta, GEMM_GLOBAL real* GEMV_RESTRICT C, long coff, int ldc) {
  const int col = GEMM_GID_X * GEMM_LOCAL_X + GEMM_LID_X;
  if (col >= N) return;
  for (int row = GEMM_GID_Y; row < M; row += GEMV_NGROUPS_Y) {
    const long at = coff + (long)row * ldc + col;
    C[at] = beta == 0 ? (real)0 : beta * C[at];
  }
}

#endif
