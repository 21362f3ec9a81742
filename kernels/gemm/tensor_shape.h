// The FP64 tensor-core GEMM kernel's block shape (kernels/gemm/tensor.h), for the kernel and for
// the host that launches it (kernels/gemm/cuda.cu).
#ifndef GPUBENCH_KERNELS_GEMM_TENSOR_SHAPE_H
#define GPUBENCH_KERNELS_GEMM_TENSOR_SHAPE_H
namespace gemm_tc {
constexpr int bm = 128, bn = 128, bk = 32, stages = 3, threads = 256;
constexpr int ld_mk = bk + 4, ld_km = bm + 4, ld_kn = bn + 4;
constexpr int a_stage = bm * ld_mk > bk * ld_km ? bm * ld_mk : bk * ld_km;
constexpr int b_stage = bk * ld_kn;
constexpr int shared_bytes = stages * (a_stage + b_stage) * 8;  // doubles
}  // namespace gemm_tc
#endif
