// GEMM's own CUDA kernels as NVRTC compiles them at run time (backends/cuda/rtc.hpp): the bodies
// written once for CUDA and OpenCL (device.h), one kernel per build, chosen and configured by
// -D defines: `real` (float or double) and GEMM_KERNEL, 1 naive, 2 tiled (TILE), 3 tuned (BM, BN,
// BK, TM, TN, VW), 4 the FP64 tensor-core kernels (tensor.h), 5 the degenerate shapes' (gemv.h). The build embeds this file with its
// #includes inlined (cmake/embed_kernels.cmake).
#include "kernels/gemm/device.h"

#if GEMM_KERNEL == 1
extern "C" __global__ void gemm_naive(int M, int N, int K, int ta, real alpha, const real* __restrict__ A, int aoff,
                                      int lda, const real* __restrict__ B, int boff, int ldb, real beta,
                                      real* __restrict__ C, int coff, int ldc)
#include "kernels/gemm/naive_body.h"
#elif GEMM_KERNEL == 2
extern "C" __global__ void __launch_bounds__(TILE * TILE)
gemm_tiled(int M, int N, int K, int ta, real alpha, const real* __restrict__ A, int aoff, int lda,
           const real* __restrict__ B, int boff, int ldb, real beta, real* __restrict__ C, int coff, int ldc)
#include "kernels/gemm/tiled_body.h"
#elif GEMM_KERNEL == 3
extern "C" __global__ void __launch_bounds__((BM / TM) * (BN / TN))
gemm_tuned(int M, int N, int K, int ta, real alpha, const real* __restrict__ A, int aoff, int lda,
           const real* __restrict__ B, int boff, int ldb, real beta, real* __restrict__ C, int coff, int ldc)
#include "kernels/gemm/tuned_body.h"
#elif GEMM_KERNEL == 4
#include "kernels/gemm/tensor_shape.h"
#include "kernels/gemm/tensor.h"
#elif GEMM_KERNEL == 5
#include "kernels/gemm/gemv.h"
#else
#error "GEMM_KERNEL must be 1 (naive), 2 (tiled), 3 (tuned), 4 (tensor: gemm_tensor_nn, gemm_tensor_tn; f64) or 5 (gemv.h's degenerate shapes)"
#endif
