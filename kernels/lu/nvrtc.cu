// LU's CUDA kernels, compiled at run time by NVRTC (backends/cuda/rtc.hpp) with -Dreal=float or
// double and -DLU_GROUP= (the block size of the reductions): thin entry points to
// kernels/lu/device.h (shared with OpenCL), which the build inlines here, and the panel's
// cooperative leaf. kernels/lu/cuda.cu launches them. No headers: NVRTC has no standard library
// (nor cooperative_groups, which needs the toolkit's headers: grid_sync below is its barrier).
#define LU_FN __device__ __forceinline__
#define LU_G
#define LU_L
#define LU_SYNC() __syncthreads()
#include "kernels/lu/device.h"

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

// The largest |value| of a block and its row (the smaller row on ties, as LAPACK's idamax), for
// the leaf: within each warp by shuffles, then across the warps through `value` and `row` (one
// entry per warp); every thread gets the result. One barrier: callers separate two calls by
// another (the leaf's grid_sync and its column step's barriers do).
__device__ __forceinline__ void block_max(real* value, int* row, int tid, real v, int r, real* best, int* best_row) {
  for (int o = 16; o > 0; o >>= 1) {  // a butterfly: every lane ends with its warp's result
    const real ov = __shfl_xor_sync(0xffffffffu, v, o);
    const int orow = __shfl_xor_sync(0xffffffffu, r, o);
    if (ov > v || (ov == v && orow < r)) {
      v = ov;
      r = orow;
    }
  }
  if (tid % 32 == 0) {
    value[tid / 32] = v;
    row[tid / 32] = r;
  }
  __syncthreads();
  v = value[0];
  r = row[0];
  for (int w = 1; w < LU_GROUP / 32; ++w) {
    const real ov = value[w];
    const int orow = row[w];
    if (ov > v || (ov == v && orow < r)) {
      v = ov;
      r = orow;
    }
  }
  *best = v;
  *best_row = r;
}

// The panel's leaf, columns [j, j + w) over rows [j, n), in one cooperative launch: each block
// holds `slab` consecutive rows in shared memory (column-major, ld slab) from the first column to
// the last, and the blocks meet once per column (grid_sync) instead of once per launch. Per
// column c: each block's candidate (the largest |A(r, c)|, r >= c, the smaller row on ties, as
// LAPACK's idamax) with its row's values, and row c's values from the block that holds it, go to
// the partials of c's parity; after the sync every block takes the pivot p from them, the
// holders of rows c and p swap those rows, and every block eliminates its rows below c: each row
// by `split` threads (as many as the block has for its rows), the multiplier and then its share
// of the row's columns right of c. A zero column keeps its row and is left as it is (as
// LAPACK's dgetf2). ipiv[c]: 0-based, as getf2's. Five barriers and one grid sync per column.
extern "C" __global__ void __launch_bounds__(LU_GROUP)
leaf(real* a, int n, int j, int w, int slab, real* pvalue, int* prow, real* prows, real* rowc, int* ipiv,
     unsigned* barrier) {
  extern __shared__ __align__(16) unsigned char shared[];
  real* s = reinterpret_cast<real*>(shared);
  __shared__ real value[LU_GROUP / 32];
  __shared__ int row[LU_GROUP / 32];
  __shared__ real u[LU_LEAF_MAX];
  __shared__ int winner;
  const int tid = threadIdx.x, b = blockIdx.x, groups = gridDim.x;
  const int r0 = j + b * slab, rows = max(0, min(slab, n - r0));
  for (int e = tid; e < rows * w; e += LU_GROUP) s[e % rows + e / rows * slab] = a[r0 + e % rows + (long)(j + e / rows) * n];
  __syncthreads();
  for (int k = 0; k < w; ++k) {
    const int c = j + k, in = k & 1;
    real* cv = pvalue + in * LU_GROUP;
    int* cr = prow + in * LU_GROUP;
    real* crows = prows + in * LU_GROUP * LU_LEAF_MAX;
    real* rc = rowc + in * LU_LEAF_MAX;
    real best = (real)-1;
    int best_row = n;
    for (int i = max(0, c - r0) + tid; i < rows; i += LU_GROUP) {
      const real v = fabs(s[i + k * slab]);
      if (v > best) {
        best = v;
        best_row = r0 + i;
      }
    }
    real g;
    int p;
    block_max(value, row, tid, best, best_row, &g, &p);
    if (tid == 0) {
      cv[b] = g;
      cr[b] = p;
    }
    if (p < n)
      for (int t = tid; t < w; t += LU_GROUP) crows[b * LU_LEAF_MAX + t] = s[p - r0 + t * slab];
    if (c >= r0 && c < r0 + rows)
      for (int t = tid; t < w; t += LU_GROUP) rc[t] = s[c - r0 + t * slab];
    grid_sync(barrier);
    block_max(value, row, tid, tid < groups ? cv[tid] : (real)-1, tid < groups ? cr[tid] : n, &g, &p);
    const bool swap = g > 0 && p != c && p < n;
    if (swap && tid < groups && cr[tid] == p) winner = tid;
    __syncthreads();
    for (int t = tid; t < w; t += LU_GROUP) u[t] = swap ? crows[winner * LU_LEAF_MAX + t] : rc[t];
    if (b == 0 && tid == 0) ipiv[c] = swap ? p : c;
    if (swap) {
      if (c >= r0 && c < r0 + rows)
        for (int t = tid; t < w; t += LU_GROUP) s[c - r0 + t * slab] = crows[winner * LU_LEAF_MAX + t];
      if (p >= r0 && p < r0 + rows)
        for (int t = tid; t < w; t += LU_GROUP) s[p - r0 + t * slab] = rc[t];
    }
    __syncthreads();
    const real pivot = u[k];
    const int first = max(0, c + 1 - r0), below = rows - first;
    // `split` threads per row where the rows are fewer than the threads: thread tid takes row
    // first + tid % per_pass and the columns k + 1 + part, + split, ...
    const int split = below > 0 ? max(1, min(LU_GROUP / below, w - k - 1)) : 1, per_pass = LU_GROUP / split;
    const int part = tid / per_pass;
    real kept = 0;
    int kept_row = -1;
    if (pivot != (real)0 && part < split)
      for (int i = first + tid % per_pass; i < rows; i += per_pass) {
        const real m = s[i + k * slab] / pivot;
        for (int t = k + 1 + part; t < w; t += split) s[i + t * slab] -= m * u[t];
        if (split == 1)
          s[i + k * slab] = m;
        else if (part == 0) {  // one pass (per_pass >= below): written once every part has read it
          kept = m;
          kept_row = i;
        }
      }
    __syncthreads();
    if (kept_row >= 0) s[kept_row + k * slab] = kept;
  }
  __syncthreads();
  for (int e = tid; e < rows * w; e += LU_GROUP) a[r0 + e % rows + (long)(j + e / rows) * n] = s[e % rows + e / rows * slab];
}
