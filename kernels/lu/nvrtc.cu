// LU's CUDA kernels, compiled at run time by NVRTC (backends/cuda/rtc.hpp) with -Dreal=float or
// double and -DLU_GROUP= (the block size of the reductions): thin entry points to
// kernels/lu/device.h (shared with OpenCL), which the build inlines here, and the panel's
// cooperative leaf. kernels/lu/cuda.cu launches them. No headers: NVRTC has no standard library
// (nor cooperative_groups, which needs the toolkit's headers: grid_sync below is its barrier).
#define LU_FN __device__ __forceinline__
#define LU_G
#define LU_L
#define LU_SYNC() __syncthreads()

// Every block of a cooperative launch (all resident at once) meets here; what each wrote to
// global memory before it is visible to all after it. `barrier` is one word, zero before the
// first launch: block 0 adds 2^31 - (blocks - 1), every other block 1, so each meeting flips
// its top bit and leaves its low bits as they were (zero again for the next launch); a block
// waits for the flip. The add releases the block's writes (bar.sync made them thread 0's) and
// the load that sees the flip acquires everyone's, at GPU scope: cooperative_groups' grid sync
// works the same way. (Full __threadfence()s and a volatile spin instead cost the H100 about
// 0.5 ms per LU 2048 panel sequence: 9.91 ms against 9.39.)
__device__ __forceinline__ void grid_sync(unsigned* barrier) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
    unsigned before, now;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(before) : "l"(barrier), "r"(add) : "memory");
    do {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(barrier) : "memory");
    } while (((before ^ now) & 0x80000000u) == 0);
  }
  __syncthreads();
}

// The leaf's (kernels/lu/device.h): a cooperative launch never waits in vain.
__device__ __forceinline__ int lu_grid_sync(unsigned* barrier, int*, int*) {
  grid_sync(barrier);
  return 1;
}
#define LU_SHUFFLE
__device__ __forceinline__ real lu_shfl_real(real v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ int lu_shfl_int(int v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
#include "kernels/lu/device.h"

__device__ __forceinline__ int gid_x() { return (int)(blockIdx.x * blockDim.x + threadIdx.x); }
__device__ __forceinline__ int gid_y() { return (int)(blockIdx.y * blockDim.y + threadIdx.y); }

extern "C" __global__ void study_factors(real* l, real* u, const real* a, int n, int i) {
  lu_study_factors(l, u, a, n, i, gid_x());
}
extern "C" __global__ void study_update(const real* l, const real* u, real* a, int n, int i) {
  lu_study_update(l, u, a, n, i, gid_y(), gid_x());
}
extern "C" __global__ void study_factors_optimised(const real* column, real* f, int n, int i) {
  lu_study_factors_optimised(column, f, n, i, gid_x());
}
extern "C" __global__ void study_update_optimised(const real* a, const real* v, real* aux, int n) {
  lu_study_update_optimised(a, v, aux, n, gid_y(), gid_x());
}
// The panel's partials (kernels/lu/device.h): two sets of LU_GROUP candidates (value, row, and
// the row's LU_LEAF_MAX values); set `in` read, the other written.
extern "C" __global__ void __launch_bounds__(LU_GROUP)
pivot(const real* a, int n, int j, int w, real* pvalue, int* prow, real* prows) {
  __shared__ real value[LU_GROUP];
  __shared__ int row[LU_GROUP];
  lu_pivot(a, n, j, w, pvalue, prow, prows, value, row, threadIdx.x, blockIdx.x, gridDim.x);
}
extern "C" __global__ void __launch_bounds__(LU_GROUP)
column_step(real* a, int n, int c, int j, int w, int pgroups, int in, real* pvalue, int* prow, real* prows, int* ipiv) {
  __shared__ real value[LU_GROUP];
  __shared__ int row[LU_GROUP];
  __shared__ real u[LU_LEAF_MAX];
  const int out = 1 - in;
  lu_step(a, n, c, j, w, pgroups, pvalue + in * LU_GROUP, prow + in * LU_GROUP,
                    prows + in * LU_GROUP * LU_LEAF_MAX, pvalue + out * LU_GROUP, prow + out * LU_GROUP,
                    prows + out * LU_GROUP * LU_LEAF_MAX, ipiv, value, row, u, threadIdx.x, blockIdx.x, gridDim.x);
}
extern "C" __global__ void __launch_bounds__(LU_GROUP) laswp(real* a, int n, const int* ipiv, int k0, int k1, int c0, int c1) {
  __shared__ real seg[LU_SWAP_ROWS * LU_SWAP_LD], out[LU_SWAP_ROWS * LU_SWAP_LD];
  __shared__ int piv[LU_SWAP_ROWS], prev[LU_SWAP_ROWS], last[LU_SWAP_ROWS];
  lu_laswp(a, n, ipiv, k0, k1, c0, c1, seg, out, piv, prev, last, threadIdx.x, blockIdx.x);
}
extern "C" __global__ void __launch_bounds__(LU_GROUP) trtri(const real* a, int n, int j, int w, real* inv) {
  __shared__ real x[LU_TRTRI_MAX];
  lu_trtri(a, n, j, w, inv, x, blockIdx.x, threadIdx.x);
}
extern "C" __global__ void copy_block(const real* src, int ld, real* a, int n, int row0, int col0, int rows, int cols) {
  lu_copy(src, ld, a, n, row0, col0, rows, cols, gid_x(), gid_y());
}

// The panel's leaf (kernels/lu/device.h), in one cooperative launch: `slab` rows per block in
// shared memory (the launch's dynamic shared memory), the blocks meeting at grid_sync.
extern "C" __global__ void __launch_bounds__(LU_GROUP)
leaf(real* a, int n, int j, int w, int slab, real* pvalue, int* prow, real* prows, real* rowc, int* ipiv,
     unsigned* barrier) {
  extern __shared__ __align__(16) unsigned char shared[];
  __shared__ real value[LU_REDUCE_SLOTS];
  __shared__ int row[LU_REDUCE_SLOTS];
  __shared__ real u[LU_LEAF_MAX];
  __shared__ int winner, flag;
  lu_leaf(a, n, j, w, slab, pvalue, prow, prows, rowc, ipiv, barrier, nullptr, reinterpret_cast<real*>(shared), value,
          row, u, &winner, &flag, threadIdx.x, blockIdx.x, gridDim.x);
}
