// GEMM's own CUDA kernels (cuda.cu: naive, tiled, tuned, tensor) on blocks of any device arrays,
// for the GEMM suite and for other suites that update a block of a larger matrix with them (LU).
#pragma once

#include <cuda_runtime.h>

#include "bench/params.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

// Builds (NVRTC, or loads from the kernel cache) what cuda_gemm needs for `v` and `params`, so
// that a caller can do so before its timed region. Throws DeviceError when it does not compile.
template <typename T>
void cuda_gemm_build(Variant v, const Params& params);

// One call of `v` (naive; tiled with "tile"; tuned with TunedConfig's parameters, compiled on
// first use; tensor, f64 on compute capability 9.0 or later) on the block, launched on
// `stream`, not waited for. `A`, `B` and `C` are the arrays the block's offsets count from. A
// configuration the device cannot run is a DeviceError naming it.
template <typename T>
void cuda_gemm(cudaStream_t stream, Variant v, const Params& params, const Block& b, T alpha, const T* A, const T* B,
               T beta, T* C);

}  // namespace gpubench::gemm
