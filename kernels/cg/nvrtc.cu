// The CG suite's CUDA kernels, compiled at run time by NVRTC (backends/cuda/rtc.hpp) with -Dreal=
// float or double: those of kernels/cg/opencl.cl written once more in CUDA C++ (kernels/cg/cuda.cu
// says how they are chosen and launched). No headers: NVRTC has no standard library.
//
// Indices are unsigned: n < 2^31 and grid x block < 2^31, so i + stride never wraps.

#define warp_size 32u
#define full_warp 0xffffffffu

#define CG_REAL real
#define CG_FN __device__
#define CG_G
#include "kernels/cg/recurrence.h"

// (A in)_row, CSR.
__device__ real row_sum(unsigned long long row, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                        const real* __restrict__ values, const real* __restrict__ in) {
  const int end = row_ptr[row + 1];
  real sum = 0;
  for (int k = row_ptr[row]; k < end; ++k) sum += values[k] * in[col_idx[k]];
  return sum;
}

// out = A in: CSR, one thread per row (launched over rows rounded up to the block size).
extern "C" __global__ void spmv_row_per_thread(unsigned rows, const int* __restrict__ row_ptr,
                                    const int* __restrict__ col_idx, const real* __restrict__ values,
                                    const real* __restrict__ in, real* __restrict__ out) {
  const unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  out[row] = row_sum(row, row_ptr, col_idx, values, in);
}

// out = A in: CSR, `lanes` threads per row (4, 8, 16 or 32: a power of two dividing the warp, and
// the block size a multiple of 32), for rows long enough that one thread per row would leave the
// loads uncoalesced and the rows' lengths unbalanced (NAS CG: ~240 nonzeros per row). The lanes
// stride through the row together, then fold their sums with shuffles. One row per group of lanes,
// no early exit: every thread of the warp takes part in the shuffles. Indices in 64 bits: rows x
// lanes may exceed 2^32.
// (A in)_row summed by the `lanes` threads of a group of lanes: the sum in every lane. Every
// thread of the warp must call it (shuffles); rows past `rows` add nothing.
__device__ real row_sum_lanes(unsigned long long row, unsigned rows, unsigned lanes, const int* __restrict__ row_ptr,
                              const int* __restrict__ col_idx, const real* __restrict__ values,
                              const real* __restrict__ in) {
  const unsigned lane = threadIdx.x & (lanes - 1);
  real sum = 0;
  if (row < rows) {
    const int end = row_ptr[row + 1];
    const auto step = (int)(lanes);
    int k = row_ptr[row] + (int)(lane);
    // Four independent gathers per trip, to keep more loads in flight. (Measured on the H100, NAS
    // CG class C: no change, 0.348 ms either way; the random x gathers bound it, see spmv_slabs.)
    real sum1 = 0;
    for (; k + 3 * step < end; k += 4 * step) {
      const int c0 = col_idx[k], c1 = col_idx[k + step], c2 = col_idx[k + 2 * step],
                         c3 = col_idx[k + 3 * step];
      const real v0 = values[k], v1 = values[k + step], v2 = values[k + 2 * step], v3 = values[k + 3 * step];
      sum += v0 * in[c0] + v2 * in[c2];
      sum1 += v1 * in[c1] + v3 * in[c3];
    }
    for (; k < end; k += step) sum += values[k] * in[col_idx[k]];
    sum += sum1;
  }
  for (unsigned offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(full_warp, sum, offset);
  return sum;
}

extern "C" __global__ void spmv_vector(unsigned rows, unsigned lanes, const int* __restrict__ row_ptr,
                            const int* __restrict__ col_idx, const real* __restrict__ values,
                            const real* __restrict__ in, real* __restrict__ out) {
  const unsigned long long row = ((unsigned long long)(blockIdx.x) * blockDim.x + threadIdx.x) / lanes;
  const real sum = row_sum_lanes(row, rows, lanes, row_ptr, col_idx, values, in);
  if ((threadIdx.x & (lanes - 1)) == 0 && row < rows) out[row] = sum;
}

// The block's dynamic shared memory, as reals (the launch sizes it).
__device__ real* shared_scratch() {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return (real*)shared_bytes;
}

// Sums scratch[0 .. blockDim.x) into scratch[0]. Every thread of the block must call it, after
// writing its own entry. Halving with the odd one out carried keeps it right for any block size.
__device__ void reduce_block(real* scratch) {
  const unsigned tid = threadIdx.x;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned upper = (active + 1) / 2;  // entries [upper, active) fold onto [0, active - upper)
    if (tid < active - upper) scratch[tid] += scratch[tid + upper];
    __syncthreads();
    active = upper;
  }
}

// The same for two arrays at once (one barrier per step for both).
__device__ void reduce_block2(real* a, real* b) {
  const unsigned tid = threadIdx.x;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned upper = (active + 1) / 2;
    if (tid < active - upper) {
      a[tid] += a[tid + upper];
      b[tid] += b[tid + upper];
    }
    __syncthreads();
    active = upper;
  }
}

// partials[block] = this block's share of sum a_i b_i. The host adds the partials in double.
extern "C" __global__ void dot_partials(unsigned n, const real* __restrict__ a, const real* __restrict__ b, real* __restrict__ partials) {
  real* scratch = shared_scratch();
  real sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += a[i] * b[i];
  scratch[threadIdx.x] = sum;
  reduce_block(scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = scratch[0];
}

// partials[block] = share of r.r, partials[blocks + block] = share of w.r.
extern "C" __global__ void dot2_partials(unsigned n, const real* __restrict__ r, const real* __restrict__ w, real* __restrict__ partials) {
  real* scratch_rr = shared_scratch();
  real* scratch_wr = scratch_rr + blockDim.x;
  real rr = 0;
  real wr = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const real ri = r[i];
    rr += ri * ri;
    wr += w[i] * ri;
  }
  scratch_rr[threadIdx.x] = rr;
  scratch_wr[threadIdx.x] = wr;
  reduce_block2(scratch_rr, scratch_wr);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = scratch_rr[0];
    partials[gridDim.x + blockIdx.x] = scratch_wr[0];
  }
}

// The block's sums of its threads' (a, b), left in thread 0's a and b: warp shuffles, then one
// value per warp through shared memory (a tree in shared memory costs the fused SpMV below 6% on
// the H100, this about 1%). blockDim.x a multiple of 32, at most 1024; every thread of the block
// calls it, once per kernel.
__device__ void block_sum2(real& a, real& b) {
  __shared__ real warp_a[32], warp_b[32];
  for (unsigned offset = warp_size / 2; offset > 0; offset /= 2) {
    a += __shfl_xor_sync(full_warp, a, offset);
    b += __shfl_xor_sync(full_warp, b, offset);
  }
  const unsigned warp = threadIdx.x / warp_size, lane = threadIdx.x % warp_size;
  if (lane == 0) {
    warp_a[warp] = a;
    warp_b[warp] = b;
  }
  __syncthreads();
  if (warp != 0) return;
  const unsigned warps = blockDim.x / warp_size;
  a = lane < warps ? warp_a[lane] : real(0);
  b = lane < warps ? warp_b[lane] : real(0);
  for (unsigned offset = warp_size / 2; offset > 0; offset /= 2) {
    a += __shfl_xor_sync(full_warp, a, offset);
    b += __shfl_xor_sync(full_warp, b, offset);
  }
}

// The block's sums of its threads' (a, b), written as its partials: partials[block] and
// partials[blocks + block] (block_sum2's conditions).
__device__ void block_partials2(real a, real b, real* __restrict__ partials, unsigned blocks) {
  block_sum2(a, b);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = a;
    partials[blocks + blockIdx.x] = b;
  }
}

// A row's sum over one slab for spmv_slabs: its lanes' shares, two in flight; `x` the slab's first
// entry, in shared or global memory (inlined, so that each call's loads keep their memory space).
__device__ __forceinline__ real slab_row_sum(unsigned row, unsigned count, unsigned lane, unsigned lanes,
                                             const int* row_ptr, const unsigned short* __restrict__ offsets,
                                             const real* __restrict__ values, const real* __restrict__ x) {
  real sum = 0, sum1 = 0;
  if (row < count) {
    const int end = row_ptr[row + 1];
    const auto step = (int)(lanes);
    int k = row_ptr[row] + (int)(lane);
    for (; k + step < end; k += 2 * step) {
      sum += values[k] * x[offsets[k]];
      sum1 += values[k + step] * x[offsets[k + step]];
    }
    if (k < end) sum += values[k] * x[offsets[k]];
  }
  return sum + sum1;
}

// out = A in for a matrix stored slab by slab (kernels/cg/slabs.hpp says why and how), and where
// `partials` is not null the fused forms' sums from the same pass: partials[block] of in.in and
// partials[blocks + block] of out.in over the block's rows (a whole matrix: `in` is also the rows'
// own vector). Each block owns rows [first, first + count); per slab it copies the slice of x (where
// `staged`; else its gathers read x through the cache) and its rows' offsets into shared memory
// (one dynamic buffer: the slice, then `sums_at` bytes in the rows' sums, then at `ptr_at` their
// offsets), its groups of `lanes` threads sum their rows' entries of the slab (folded by
// shuffles), and the rows' sums stay in shared memory until the end.
extern "C" __global__ void spmv_slabs(unsigned rows, unsigned cols, unsigned lanes, unsigned slab_width, unsigned slabs,
                                      unsigned staged, const int* __restrict__ slab_row_ptr, const unsigned short* __restrict__ offsets,
                                      const real* __restrict__ values, const real* __restrict__ in,
                                      real* __restrict__ out, real* __restrict__ partials, unsigned sums_at,
                                      unsigned ptr_at) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  real* const slice = (real*)shared_bytes;
  real* const sums = (real*)(shared_bytes + sums_at);
  int* const row_ptr = (int*)(shared_bytes + ptr_at);
  const unsigned per_step = blockDim.x / lanes, lane = threadIdx.x & (lanes - 1);
  const unsigned per_block = (rows + gridDim.x - 1) / gridDim.x;
  const unsigned first = min(rows, blockIdx.x * per_block), count = min(rows, first + per_block) - first;
  for (unsigned s = 0; s < slabs; ++s) {
    const unsigned base = s * slab_width;
    const unsigned width = min(slab_width, cols - base);
    __syncthreads();  // the previous slab's gathers are done
    if (staged)
      for (unsigned i = threadIdx.x; i < width; i += blockDim.x) slice[i] = in[base + i];
    const int* const slab_ptr = slab_row_ptr + (unsigned long long)(s) * (rows + 1) + first;
    for (unsigned i = threadIdx.x; i <= count; i += blockDim.x) row_ptr[i] = slab_ptr[i];
    __syncthreads();
    // Every thread of a warp takes the same number of trips (the shuffles need the whole warp).
    for (unsigned r0 = 0; r0 < count; r0 += per_step) {
      const unsigned row = r0 + threadIdx.x / lanes;
      real sum = staged ? slab_row_sum(row, count, lane, lanes, row_ptr, offsets, values, slice)
                        : slab_row_sum(row, count, lane, lanes, row_ptr, offsets, values, in + base);
      for (unsigned offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(full_warp, sum, offset);
      if (lane == 0 && row < count) sums[row] = s == 0 ? sum : sums[row] + sum;
    }
  }
  __syncthreads();
  real rr = 0, wr = 0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
    const real v = sums[i];
    out[first + i] = v;
    if (partials) {
      const real own = in[first + i];
      rr += own * own;
      wr += v * own;
    }
  }
  if (partials) block_partials2(rr, wr, partials, gridDim.x);
}

// The fused forms' SpMV: out = A in on `rows` rows (row_ptr and out from the first of them, `own`
// in's entries of those rows) and dot2's sums of those rows from the same pass, one pair of
// partials per block (block_partials2): of own.own and of out.own. Each block takes `steps`
// consecutive runs of rows, a row per thread (lanes = 1) or per group of `lanes` threads
// (spmv_vector's); the grid covers the rows, so that the blocks sweep the matrix in order, as
// spmv's do (a grid-stride loop here was 10-15% slower on the H100).
extern "C" __global__ void spmv_dot2(unsigned rows, unsigned lanes, unsigned steps, const int* __restrict__ row_ptr,
                                     const int* __restrict__ col_idx, const real* __restrict__ values,
                                     const real* __restrict__ in, const real* __restrict__ own,
                                     real* __restrict__ out, real* __restrict__ partials) {
  const unsigned per_step = blockDim.x / lanes;
  const unsigned long long first = (unsigned long long)(blockIdx.x) * per_step * steps;
  real rr = 0;
  real wr = 0;
  for (unsigned step = 0; step < steps; ++step) {
    const unsigned long long row = first + (unsigned long long)(step) * per_step + threadIdx.x / lanes;
    if (lanes == 1) {
      if (row < rows) {
        const real sum = row_sum(row, row_ptr, col_idx, values, in);
        out[row] = sum;
        const real ri = own[row];
        rr += ri * ri;
        wr += sum * ri;
      }
    } else {
      const real sum = row_sum_lanes(row, rows, lanes, row_ptr, col_idx, values, in);
      if ((threadIdx.x & (lanes - 1)) == 0 && row < rows) {
        out[row] = sum;
        const real ri = own[row];
        rr += ri * ri;
        wr += sum * ri;
      }
    }
  }
  block_partials2(rr, wr, partials, gridDim.x);
}

// The fused SpMV's partials (count of each sum) summed on the device, each block a contiguous
// share of them: sums[block] and sums[blocks + block] (block_partials2), which the host reads and
// adds. Many blocks: one block pulling a megabyte of partials through one SM took 18 us on the
// H100. Four loads of each array in flight per thread.
extern "C" __global__ void sum_partials2(unsigned count, const real* __restrict__ partials, real* __restrict__ sums) {
  const unsigned share = (count + gridDim.x - 1) / gridDim.x;
  const unsigned begin = min(count, blockIdx.x * share), end = min(count, begin + share);
  real a[4] = {0, 0, 0, 0};
  real b[4] = {0, 0, 0, 0};
  const unsigned stride = blockDim.x;
  unsigned i = begin + threadIdx.x;
  for (; i + 3 * stride < end; i += 4 * stride)
    for (unsigned k = 0; k < 4; ++k) {
      a[k] += partials[i + k * stride];
      b[k] += partials[count + i + k * stride];
    }
  for (; i < end; i += stride) {
    a[0] += partials[i];
    b[0] += partials[count + i];
  }
  block_partials2((a[0] + a[1]) + (a[2] + a[3]), (b[0] + b[1]) + (b[2] + b[3]), sums, gridDim.x);
}

// One reduction's pairs of partial sums (count of each: partials[i] and partials[count + i])
// summed in order by one block, and a fused form's recurrence advanced by the sums
// (recurrence.h, `rule` a CG_RULE_*): the next update's coefficients, computed and kept on the
// device, where the update kernels read them. The host reads the state only when it asks.
extern "C" __global__ void advance_scalars(unsigned count, const real* __restrict__ partials, real* __restrict__ state,
                                           int rule) {
  real a = 0, b = 0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
    a += partials[i];
    b += partials[count + i];
  }
  block_sum2(a, b);
  if (threadIdx.x == 0) cg_advance(state, rule, a, b);
}

// A band's reduction ended on its device (a solve across devices, kernels/cg/distributed.hpp): the
// pairs of partial sums of its parts (n0, n1, n2 of each; a part's a's, then its b's), added in
// part order by one block into kept[0] and kept[1], which the other bands copy.
extern "C" __global__ void keep_sums(const real* __restrict__ p0, unsigned n0, const real* __restrict__ p1,
                                     unsigned n1, const real* __restrict__ p2, unsigned n2, real* __restrict__ kept) {
  real a = 0, b = 0;
  for (unsigned i = threadIdx.x; i < n0; i += blockDim.x) {
    a += p0[i];
    b += p0[n0 + i];
  }
  for (unsigned i = threadIdx.x; i < n1; i += blockDim.x) {
    a += p1[i];
    b += p1[n1 + i];
  }
  for (unsigned i = threadIdx.x; i < n2; i += blockDim.x) {
    a += p2[i];
    b += p2[n2 + i];
  }
  block_sum2(a, b);
  if (threadIdx.x == 0) {
    kept[0] = a;
    kept[1] = b;
  }
}

// The bands' kept sums (band k's pair at kept[k]: read from its device over the peer link, or a
// copy of it on this one), added in band order, advance the state by `rule`: every band computes
// the same state.
extern "C" __global__ void advance_gathered(unsigned count, const real* const* __restrict__ kept,
                                            real* __restrict__ state, int rule) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  real a = 0, b = 0;
  for (unsigned k = 0; k < count; ++k) {
    const volatile real* pair = kept[k];  // another device's memory: not through a stale cache line
    a += pair[0];
    b += pair[1];
  }
  cg_advance(state, rule, a, b);
}

// out[i] = x[index[i]]: a band's scattered halo entries packed for one device-to-device copy.
extern "C" __global__ void gather(unsigned n, const int* __restrict__ index, const real* __restrict__ x, real* __restrict__ out) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = x[index[i]];
}

// y = y + alpha x
extern "C" __global__ void axpy(unsigned n, real alpha, const real* __restrict__ x, real* __restrict__ y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += alpha * x[i];
}

// y = x + beta y
extern "C" __global__ void xpay(unsigned n, const real* __restrict__ x, real beta, real* __restrict__ y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[i] + beta * y[i];
}

// y = alpha x
extern "C" __global__ void scale(unsigned n, real alpha, const real* __restrict__ x, real* __restrict__ y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = alpha * x[i];
}

// Saad's three-term update:
//   x_prev = rho (x + gamma r) + (1 - rho) x_prev
//   r_prev = rho (r - gamma w) + (1 - rho) r_prev
// with rho and gamma the arguments, or, where `state` is not null, the state's (recurrence.h).
// The fused updates sweep the vectors from the end: the fused SpMV before them swept its r and w
// from the start, so the last of those it touched are still in L2 when the update begins, and the
// update's last writes (the start of r) are in L2 when the next SpMV begins. The sweep starts at n
// rounded up to whole groups of 32 entries (the entries past n idle), so that each warp's 32 reads
// of a vector are one aligned group whatever n is: from n - 1 they straddle two groups unless 32
// divides n (measured on the H100: three_term_update at 2.74 TB/s against 3.09 with the bands of
// poisson2d:8192 on four GPUs, whose row counts the partition sets).
extern "C" __global__ void three_term_update(unsigned n, real rho, real gamma, const real* __restrict__ state,
                                             const real* __restrict__ x, real* __restrict__ x_prev,
                                             const real* __restrict__ r, real* __restrict__ r_prev,
                                             const real* __restrict__ w) {
  if (state) {
    rho = state[CG_A];
    gamma = state[CG_B];
  }
  const real keep = real(1) - rho;
  const unsigned end = (n + 31u) / 32u * 32u;  // see the comment above
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < end; k += gridDim.x * blockDim.x) {
    const unsigned i = end - 1 - k;  // backwards: see the comment above
    if (i >= n) continue;
    const real ri = r[i];
    x_prev[i] = rho * (x[i] + gamma * ri) + keep * x_prev[i];
    r_prev[i] = rho * (ri - gamma * w[i]) + keep * r_prev[i];
  }
}

// Chronopoulos-Gear update: p = r + beta p; s = w + beta s; x = x + alpha p; r = r - alpha s,
// with alpha and beta the arguments, or, where `state` is not null, the state's (recurrence.h).
extern "C" __global__ void cg_update(unsigned n, real alpha, real beta, const real* __restrict__ state,
                                     real* __restrict__ r, const real* __restrict__ w, real* __restrict__ p,
                                     real* __restrict__ s, real* __restrict__ x) {
  if (state) {
    alpha = state[CG_A];
    beta = state[CG_B];
  }
  const unsigned end = (n + 31u) / 32u * 32u;  // aligned groups, as three_term_update
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < end; k += gridDim.x * blockDim.x) {
    const unsigned i = end - 1 - k;  // backwards, as three_term_update
    if (i >= n) continue;
    const real pi = r[i] + beta * p[i];
    const real si = w[i] + beta * s[i];
    p[i] = pi;
    s[i] = si;
    x[i] += alpha * pi;
    r[i] -= alpha * si;
  }
}
