// EP's CUDA kernels, compiled at run time by NVRTC (backends/cuda/rtc.hpp); kernels/ep/ep.hpp
// says what is computed and how the work is dealt, and the loop itself is kernels/ep/pair_math.h,
// which the build inlines here. tally (variant reduce) reduces each block's values in
// shared memory and writes one row per block; tally_partials (variant partials) writes one row
// per thread. Either way `out` is column-major, value v of row r at out[v * rows + r], and
// sum_columns adds each column with one block. No headers: NVRTC has no standard library.
#include "kernels/ep/pair_math.h"

#define ANNULI 10
#define VALUES 12

// Tree sum of `v` over the block in `scratch` (blockDim.x doubles); thread 0 gets the total.
__device__ double block_sum(double v, double* scratch) {
  const unsigned lid = threadIdx.x;
  scratch[lid] = v;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned half = (active + 1) / 2;
    if (lid < active - half) scratch[lid] += scratch[lid + half];
    __syncthreads();
    active = half;
  }
  const double total = scratch[0];
  __syncthreads();
  return total;
}

// Shared memory: EP_COUNT_ROWS x blockDim.x counts, thread t's in column t; then the reduction's
// doubles.
template <bool Partials>
__device__ void tally_batches(ep_u64 batches, ep_u64 items, double* out) {
  extern __shared__ double scratch[];
  ep_u32* mine = (ep_u32*)scratch + threadIdx.x;
  for (unsigned row = 0; row < EP_COUNT_ROWS; ++row) mine[row * blockDim.x] = 0;
  const ep_u64 item = (ep_u64)blockIdx.x * blockDim.x + threadIdx.x;
  double sx = 0, sy = 0;
  if (item < items) {
    const ep_u64 first = item * batches / items, last = (item + 1) * batches / items;
    ep_tally_batches(ep_state_before_pair(first * EP_BATCH_PAIRS), last - first, &sx, &sy, mine, blockDim.x);
  }
  double v[VALUES] = {sx, sy};
#pragma unroll
  for (int k = 0; k < ANNULI; ++k) v[2 + k] = mine[k * blockDim.x];
  if (Partials) {
    const ep_u64 rows = (ep_u64)gridDim.x * blockDim.x;
#pragma unroll
    for (int k = 0; k < VALUES; ++k) out[k * rows + item] = v[k];
  } else {
    __syncthreads();  // every thread has read its counts: the memory becomes the scratch
#pragma unroll
    for (int k = 0; k < VALUES; ++k) {
      const double total = block_sum(v[k], scratch);
      if (threadIdx.x == 0) out[(ep_u64)k * gridDim.x + blockIdx.x] = total;
    }
  }
}

extern "C" __global__ void tally(ep_u64 batches, ep_u64 items, double* out) {
  tally_batches<false>(batches, items, out);
}

extern "C" __global__ void tally_partials(ep_u64 batches, ep_u64 items, double* out) {
  tally_batches<true>(batches, items, out);
}

// Block k adds column k of `in` (rows values) into out[k].
extern "C" __global__ void sum_columns(const double* in, ep_u64 rows, double* out) {
  extern __shared__ double scratch[];
  const ep_u64 column = blockIdx.x;
  double s = 0;
  for (ep_u64 r = threadIdx.x; r < rows; r += blockDim.x) s += in[column * rows + r];
  const double total = block_sum(s, scratch);
  if (threadIdx.x == 0) out[column] = total;
}
