// GEMM on OpenCL: the kernels of kernels/gemm/*_body.h (written once for OpenCL and CUDA), built
// per precision and configuration with -DREAL=float|double, -DGEMM_VEC2/-DGEMM_VEC4 (its vector
// types), -DTILE (tiled) and -DBM -DBN -DBK -DTM -DTN -DVW (tuned). Row-major; A is K x M when
// `ta` is set (TN), else M x K; each matrix from its offset, its rows lda (ldb, ldc) apart.
#ifdef GEMM_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef REAL real;

#include "kernels/gemm/device.h"

__kernel void gemm_naive(int M, int N, int K, int ta, real alpha, __global const real* restrict A, int aoff, int lda,
                         __global const real* restrict B, int boff, int ldb, real beta, __global real* restrict C,
                         int coff, int ldc)
#include "kernels/gemm/naive_body.h"

#ifdef TILE
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void gemm_tiled(int M, int N, int K, int ta, real alpha, __global const real* restrict A, int aoff, int lda,
                __global const real* restrict B, int boff, int ldb, real beta, __global real* restrict C, int coff,
                int ldc)
#include "kernels/gemm/tiled_body.h"
#endif

#ifdef BM
__kernel __attribute__((reqd_work_group_size((BM / TM) * (BN / TN), 1, 1)))
void gemm_tuned(int M, int N, int K, int ta, real alpha, __global const real* restrict A, int aoff, int lda,
                __global const real* restrict B, int boff, int ldb, real beta, __global real* restrict C, int coff,
                int ldc)
#include "kernels/gemm/tuned_body.h"
#endif

// The degenerate shapes' kernels (m, n or k equal to 1): gemm_outer, gemm_rowdot, gemm_colsum,
// gemm_finish, in a program of their own (-DGEMM_GEMV).
#ifdef GEMM_GEMV
#include "kernels/gemm/gemv.h"
#endif
