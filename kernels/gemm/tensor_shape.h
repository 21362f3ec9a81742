// The FP64 tensor-core GEMM kernel's configuration (kernels/gemm/tensor.h), for the kernel (built
// with -D BM BN BK STAGES WM WN UNROLL MINB) and for the host that declares its space and launches it
// (kernels/gemm/cuda.cu, suite.cpp). Plain constexpr C++: NVRTC and the host compiler read it alike.
#ifndef GPUBENCH_KERNELS_GEMM_TENSOR_SHAPE_H
#define GPUBENCH_KERNELS_GEMM_TENSOR_SHAPE_H
#ifdef __CUDACC__
#define GEMM_TC_HD __host__ __device__
#else
#define GEMM_TC_HD
#endif
namespace gemm_tc {
// A bm x bn block of C per block of wm x wn warps, each warp a (bm/wm) x (bn/wn) tile of
// m16n8k16 tiles; slices of bk along K in a pipeline of `stages` shared-memory buffers. Rows in
// shared memory are padded by 4 doubles, so the fragment loads of a half-warp hit 32 banks.
struct Shape {
  int bm, bn, bk, stages, wm, wn;
  int unroll = 1;  // 16-deep steps of a slice unrolled together
  int minb = 1;    // blocks an SM should hold at once (__launch_bounds__' second argument: caps registers)
  GEMM_TC_HD constexpr int threads() const { return 32 * wm * wn; }
  GEMM_TC_HD constexpr int warp_m() const { return bm / wm; }
  GEMM_TC_HD constexpr int warp_n() const { return bn / wn; }
  GEMM_TC_HD constexpr int tiles() const { return (warp_m() / 16) * (warp_n() / 8); }  // m16n8 tiles a warp holds
  GEMM_TC_HD constexpr int ld_mk() const { return bk + 4; }  // A as stored (NN): [m][k]
  GEMM_TC_HD constexpr int ld_km() const { return bm + 4; }  // A transposed (TN): [k][m]
  GEMM_TC_HD constexpr int ld_kn() const { return bn + 4; }  // B: [k][n]
  GEMM_TC_HD constexpr int a_stage() const { return bm * ld_mk() > bk * ld_km() ? bm * ld_mk() : bk * ld_km(); }
  GEMM_TC_HD constexpr int b_stage() const { return bk * ld_kn(); }
  GEMM_TC_HD constexpr int shared_bytes() const { return stages * (a_stage() + b_stage()) * 8; }
  // OpenCL's kernel (tensor.cl) keeps its rows unpadded, swizzled instead.
  GEMM_TC_HD constexpr int local_bytes() const { return stages * (bm * bk + bk * bn) * 8; }
};
// Dynamic shared memory a block may take on compute capability 9.0 (227 KiB, opted in), and an
// SM holds for all its blocks (228 KiB, 1 KiB of it reserved per block).
constexpr int max_shared = 232448, sm_shared = 233472;
// What the kernel's loops assume (a configuration outside it does not compile).
GEMM_TC_HD constexpr bool legal(const Shape& s) {
  return s.bm > 0 && s.bn > 0 && s.wm > 0 && s.wn > 0 && s.bm % (16 * s.wm) == 0 && s.bn % (8 * s.wn) == 0 &&
         s.bk % 16 == 0 && s.stages >= 2 && s.threads() <= 1024 && (s.bm * s.bk / 2) % s.threads() == 0 &&
         (s.bk * s.bn / 2) % s.threads() == 0 && s.unroll >= 1 && (s.bk / 16) % s.unroll == 0 &&
         s.minb >= 1 && s.minb * s.threads() <= 2048;
}
// The configuration of the first tensor kernel (before it was tunable): 8 warps of 64 x 32.
constexpr Shape preferred{128, 128, 32, 3, 2, 4, 1, 1};
// Within the 48 KiB of local memory a work-group has on NVIDIA's OpenCL (local_bytes, unpadded):
// 128 x 64 blocks of 4 warps in two stages of 16-deep slices, 48 KiB (the H200's best at 8192,
// reports/data/h200-2026-11-28-issue56), and 64 x 64 ones, 32 KiB, for shapes with few blocks.
constexpr Shape preferred_local{128, 64, 16, 2, 2, 2, 1, 1};
constexpr Shape small_local{64, 64, 16, 2, 2, 2, 1, 1};
}  // namespace gemm_tc
#endif
