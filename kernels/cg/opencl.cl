// The CG operations in OpenCL C 1.2. One source for both precisions: the host builds it with
// -DREAL=float or -DREAL=double. Indices are uint: n < 2^31 and the grid is < 2^31, so i + stride
// never wraps.
//
// The grid-stride kernels run on any grid; the host sizes it as compute units x work-groups per
// CU x work-group size. The reductions work for any work-group size, not only powers of two.
#ifndef REAL
#error "build with -DREAL=float or -DREAL=double"
#endif

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CG_REAL REAL
#define CG_FN
#define CG_G __global
#include "kernels/cg/recurrence.h"

// Folds across work-items. On NVIDIA's OpenCL (OPENCL_PTX: the host defines it on compute
// capability 7.0 or later) a work-group of whole warps folds a row's lanes and the group's sums by
// warp shuffles, as the CUDA kernels do (kernels/cg/nvrtc.cu); elsewhere, or in a work-group that
// is not whole warps, the folds are trees in local memory, a barrier per step.
#include "backends/opencl/ptx.h"
#define CG_WARP 32u
#ifdef OPENCL_PTX
inline bool warp_folds(const uint lanes) { return get_local_size(0) % CG_WARP == 0 && lanes <= CG_WARP; }
// sum over each aligned run of `lanes` work-items (a power of two, at most a warp), in every one.
inline REAL fold_lanes(REAL sum, const uint lanes) {
  for (uint offset = lanes / 2; offset > 0; offset /= 2) sum += ptx_shfl_xor_real(sum, (int)offset);
  return sum;
}
#else
inline bool warp_folds(const uint lanes) { return false; }
inline REAL fold_lanes(REAL sum, const uint lanes) { return sum; }
#endif

// (A in)_row, CSR.
REAL row_sum(const uint row, __global const int* restrict row_ptr, __global const int* restrict col_idx,
             __global const REAL* restrict values, __global const REAL* restrict in) {
  const int end = row_ptr[row + 1];
  REAL sum = 0;
  for (int k = row_ptr[row]; k < end; ++k) sum += values[k] * in[col_idx[k]];
  return sum;
}

// out = A in on rows [first, end): CSR, one work-item per row (launched over end - first rows
// rounded up to the work-group size).
__kernel void spmv(const uint first, const uint end_row, __global const int* restrict row_ptr,
                   __global const int* restrict col_idx, __global const REAL* restrict values,
                   __global const REAL* restrict in, __global REAL* restrict out) {
  const uint row = first + get_global_id(0);
  if (row >= end_row) return;
  out[row] = row_sum(row, row_ptr, col_idx, values, in);
}

// (A in)_row summed by the `lanes` work-items of a group of lanes (a power of two dividing the
// work-group size): each strides through the row, then they fold their sums by warp shuffles
// (warp_folds) or in local memory (scratch: one entry per work-item). The sum is right in the
// group's first lane; every work-item of the work-group must call it (barriers, shuffles), rows
// past end_row add nothing.
REAL row_sum_lanes(const uint row, const uint end_row, const uint lanes, __global const int* restrict row_ptr,
                   __global const int* restrict col_idx, __global const REAL* restrict values,
                   __global const REAL* restrict in, __local REAL* scratch) {
  const uint lid = get_local_id(0);
  const uint lane = lid & (lanes - 1);
  REAL sum = 0;
  if (row < end_row) {
    const int end = row_ptr[row + 1];
    const int step = (int)lanes;
    int k = row_ptr[row] + (int)lane;
    // Four independent gathers per trip, to keep more loads in flight. (Measured on the H100, NAS
    // CG class C: no change, 0.348 ms either way; the random x gathers bound it there.)
    REAL sum1 = 0;
    for (; k + 3 * step < end; k += 4 * step) {
      const int c0 = col_idx[k], c1 = col_idx[k + step], c2 = col_idx[k + 2 * step], c3 = col_idx[k + 3 * step];
      const REAL v0 = values[k], v1 = values[k + step], v2 = values[k + 2 * step], v3 = values[k + 3 * step];
      sum += v0 * in[c0] + v2 * in[c2];
      sum1 += v1 * in[c1] + v3 * in[c3];
    }
    for (; k < end; k += step) sum += values[k] * in[col_idx[k]];
    sum += sum1;
  }
  if (warp_folds(lanes)) return fold_lanes(sum, lanes);
  scratch[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint half_lanes = lanes / 2; half_lanes > 0; half_lanes /= 2) {
    if (lane < half_lanes) scratch[lid] += scratch[lid + half_lanes];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const REAL result = scratch[lid];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be written again at once
  return result;
}

// out = A in: CSR, `lanes` work-items per row (a power of two dividing the work-group size),
// for rows long enough that one work-item per row would leave the loads uncoalesced and the
// rows' lengths unbalanced (NAS CG: ~240 nonzeros per row). Lanes stride through the row
// together, then fold their sums in local memory.
__kernel void spmv_vector(const uint first, const uint end_row, const uint lanes, __global const int* restrict row_ptr,
                          __global const int* restrict col_idx, __global const REAL* restrict values,
                          __global const REAL* restrict in, __global REAL* restrict out,
                          __local REAL* scratch) {
  const uint row = first + get_global_id(0) / lanes;
  const REAL sum = row_sum_lanes(row, end_row, lanes, row_ptr, col_idx, values, in, scratch);
  if ((get_local_id(0) & (lanes - 1)) == 0 && row < end_row) out[row] = sum;
}

// Sums scratch[0 .. local size) into scratch[0]. Every work-item of the group must call it, after
// writing its own entry. Halving with the odd one out carried keeps it right for any size.
void reduce_local(__local REAL* scratch) {
  const uint lid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint active = get_local_size(0); active > 1;) {
    const uint upper = (active + 1) / 2;  // entries [upper, active) fold onto [0, active - upper)
    if (lid < active - upper) scratch[lid] += scratch[lid + upper];
    barrier(CLK_LOCAL_MEM_FENCE);
    active = upper;
  }
}

// The same for two arrays at once (one barrier per step for both).
void reduce_local2(__local REAL* a, __local REAL* b) {
  const uint lid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint active = get_local_size(0); active > 1;) {
    const uint upper = (active + 1) / 2;  // entries [upper, active) fold onto [0, active - upper)
    if (lid < active - upper) {
      a[lid] += a[lid + upper];
      b[lid] += b[lid + upper];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    active = upper;
  }
}

// The work-group's sums of its work-items' (a, b), written as its partials: partials[group] and
// partials[groups + group]. Every work-item of the group must call it. With warp shuffles
// (warp_folds): each warp's sums, one per warp through local memory, folded by the first warp (a
// tree in local memory cost CUDA's fused SpMV 6%, kernels/cg/nvrtc.cu's block_sum2).
void group_partials2(REAL a, REAL b, __local REAL* scratch_a, __local REAL* scratch_b,
                     __global REAL* restrict partials) {
  if (warp_folds(CG_WARP) && get_local_size(0) <= CG_WARP * CG_WARP) {
    a = fold_lanes(a, CG_WARP);
    b = fold_lanes(b, CG_WARP);
    const uint lid = get_local_id(0), warp = lid / CG_WARP, lane = lid % CG_WARP;
    barrier(CLK_LOCAL_MEM_FENCE);  // the caller's last reads of scratch are done
    if (lane == 0) {
      scratch_a[warp] = a;
      scratch_b[warp] = b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp != 0) return;
    const uint warps = get_local_size(0) / CG_WARP;
    a = fold_lanes(lane < warps ? scratch_a[lane] : (REAL)0, CG_WARP);
    b = fold_lanes(lane < warps ? scratch_b[lane] : (REAL)0, CG_WARP);
    if (lane == 0) {
      partials[get_group_id(0)] = a;
      partials[get_num_groups(0) + get_group_id(0)] = b;
    }
    return;
  }
  scratch_a[get_local_id(0)] = a;
  scratch_b[get_local_id(0)] = b;
  reduce_local2(scratch_a, scratch_b);
  if (get_local_id(0) == 0) {
    partials[get_group_id(0)] = scratch_a[0];
    partials[get_num_groups(0) + get_group_id(0)] = scratch_b[0];
  }
}

// out = A in for a matrix stored slab by slab (kernels/cg/slabs.hpp says why and how), and where
// with_dot is set the fused forms' sums from the same pass: partials[group] of in.in and
// partials[groups + group] of out.in over the group's rows (a whole matrix: `in` is also the
// rows' own vector). Each work-group owns rows [first, last); per slab it copies the slice of x
// (where `staged`; else its gathers read x through the cache) and its rows' offsets into local
// memory, its groups of `lanes` work-items sum their rows' entries of the slab (folded by warp
// shuffles or in local memory), and the rows' sums stay in local memory until the end.
__kernel void spmv_slabs(const uint rows, const uint cols, const uint lanes, const uint slab_width, const uint slabs,
                         const uint staged, __global const int* restrict slab_row_ptr, __global const ushort* restrict offsets,
                         __global const REAL* restrict values, __global const REAL* restrict in,
                         __global REAL* restrict out, const uint with_dot, __global REAL* restrict partials,
                         __local REAL* slice, __local REAL* sums, __local int* row_ptr, __local REAL* scratch_a,
                         __local REAL* scratch_b) {
  const uint lid = get_local_id(0), size = get_local_size(0);
  const uint per_step = size / lanes, lane = lid & (lanes - 1);
  const uint per_group = (rows + get_num_groups(0) - 1) / get_num_groups(0);
  const uint first = min(rows, (uint)get_group_id(0) * per_group), count = min(rows, first + per_group) - first;
  for (uint s = 0; s < slabs; ++s) {
    const uint base = s * slab_width;
    const uint width = min(slab_width, cols - base);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous slab's gathers are done
    if (staged)
      for (uint i = lid; i < width; i += size) slice[i] = in[base + i];
    __global const REAL* const x = in + base;
    __global const int* const slab_ptr = slab_row_ptr + (ulong)s * (rows + 1) + first;
    for (uint i = lid; i <= count; i += size) row_ptr[i] = slab_ptr[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    // Every work-item takes the same number of trips (the folds need the whole group). Staged,
    // one sum per work-item: two in flight, as CUDA's kernel has, took NAS CG class C's fused
    // SpMV from 0.308 to 0.327 ms on the H200 (4 lanes, work-groups of 512; 0.385 to 0.393 with 1).
    for (uint r0 = 0; r0 < count; r0 += per_step) {
      const uint row = r0 + lid / lanes;
      REAL sum = 0;
      if (row < count) {
        if (staged)
          for (int k = row_ptr[row] + (int)lane; k < row_ptr[row + 1]; k += (int)lanes) sum += values[k] * slice[offsets[k]];
        else {  // two sums in flight, as CUDA's (0.1995 ms against 0.2034 with one, NAS CG class C on the H200)
          const int end = row_ptr[row + 1], step = (int)lanes;
          int k = row_ptr[row] + (int)lane;
          REAL sum1 = 0;
          for (; k + step < end; k += 2 * step) {
            sum += values[k] * x[offsets[k]];
            sum1 += values[k + step] * x[offsets[k + step]];
          }
          if (k < end) sum += values[k] * x[offsets[k]];
          sum += sum1;
        }
      }
      if (lanes == 1 || warp_folds(lanes)) {  // no fold, or by shuffles: no barrier
        sum = fold_lanes(sum, lanes);
        if (lane == 0 && row < count) sums[row] = s == 0 ? sum : sums[row] + sum;
        continue;
      }
      scratch_a[lid] = sum;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint half_lanes = lanes / 2; half_lanes > 0; half_lanes /= 2) {
        if (lane < half_lanes) scratch_a[lid] += scratch_a[lid + half_lanes];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (lane == 0 && row < count) sums[row] = s == 0 ? scratch_a[lid] : sums[row] + scratch_a[lid];
      barrier(CLK_LOCAL_MEM_FENCE);  // scratch_a is written again at once
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  REAL rr = 0, wr = 0;
  for (uint i = lid; i < count; i += size) {
    const REAL v = sums[i];
    out[first + i] = v;
    if (with_dot) {
      const REAL own = in[first + i];
      rr += own * own;
      wr += v * own;
    }
  }
  if (with_dot) group_partials2(rr, wr, scratch_a, scratch_b, partials);
}

// partials[group] = this group's share of sum a_i b_i. The host adds the partials in double.
// (Not named "dot": that is an OpenCL C built-in, and a kernel may not overload it.)
__kernel void dot_partials(const uint n, __global const REAL* restrict a, __global const REAL* restrict b,
                  __global REAL* restrict partials, __local REAL* scratch) {
  REAL sum = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) sum += a[i] * b[i];
  scratch[get_local_id(0)] = sum;
  reduce_local(scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = scratch[0];
}

// partials[group] = share of r.r, partials[groups + group] = share of w.r.
__kernel void dot2_partials(const uint n, __global const REAL* restrict r, __global const REAL* restrict w,
                   __global REAL* restrict partials, __local REAL* scratch_rr, __local REAL* scratch_wr) {
  REAL rr = 0;
  REAL wr = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    const REAL ri = r[i];
    rr += ri * ri;
    wr += w[i] * ri;
  }
  group_partials2(rr, wr, scratch_rr, scratch_wr, partials);
}

// The fused forms' SpMV: out = A in on rows [first, end) and dot2's sums of those rows from the
// same pass, one pair of partials per work-group: partials[group] of in.in, partials[groups +
// group] of out.in. Each work-group takes `steps` consecutive runs of rows, a row per work-item
// (lanes = 1) or per group of `lanes` (spmv_vector's); the grid covers the rows, so that the
// work-groups sweep the matrix in order, as spmv's do.
__kernel void spmv_dot2(const uint first, const uint end_row, const uint lanes, const uint steps,
                        __global const int* restrict row_ptr, __global const int* restrict col_idx,
                        __global const REAL* restrict values, __global const REAL* restrict in,
                        __global REAL* restrict out, __global REAL* restrict partials,
                        __local REAL* scratch_rr, __local REAL* scratch_wr) {
  const uint per_step = get_local_size(0) / lanes;
  const uint lead = (get_local_id(0) & (lanes - 1)) == 0;
  const uint start = first + get_group_id(0) * per_step * steps;
  REAL rr = 0;
  REAL wr = 0;
  for (uint step = 0; step < steps; ++step) {
    const uint row = start + step * per_step + get_local_id(0) / lanes;
    REAL sum = 0;
    if (lanes == 1) {
      if (row < end_row) sum = row_sum(row, row_ptr, col_idx, values, in);
    } else {
      sum = row_sum_lanes(row, end_row, lanes, row_ptr, col_idx, values, in, scratch_rr);
    }
    if (lead && row < end_row) {
      out[row] = sum;
      const REAL ri = in[row];
      rr += ri * ri;
      wr += sum * ri;
    }
  }
  group_partials2(rr, wr, scratch_rr, scratch_wr, partials);
}

// The fused SpMV's partials (count of each sum) summed on the device, each work-group a
// contiguous share of them: sums[group] and sums[groups + group], which the host reads and adds.
// Four loads of each array in flight per work-item.
__kernel void sum_partials2(const uint count, __global const REAL* restrict partials, __global REAL* restrict sums,
                            __local REAL* scratch_a, __local REAL* scratch_b) {
  const uint share = (count + get_num_groups(0) - 1) / get_num_groups(0);
  const uint begin = min(count, (uint)get_group_id(0) * share), end = min(count, begin + share);
  REAL a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  REAL b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  const uint stride = get_local_size(0);
  uint i = begin + get_local_id(0);
  for (; i + 3 * stride < end; i += 4 * stride) {
    a0 += partials[i];
    a1 += partials[i + stride];
    a2 += partials[i + 2 * stride];
    a3 += partials[i + 3 * stride];
    b0 += partials[count + i];
    b1 += partials[count + i + stride];
    b2 += partials[count + i + 2 * stride];
    b3 += partials[count + i + 3 * stride];
  }
  for (; i < end; i += stride) {
    a0 += partials[i];
    b0 += partials[count + i];
  }
  group_partials2((a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3), scratch_a, scratch_b, sums);
}

// One reduction's pairs of partial sums (count of each: partials[i] and partials[count + i])
// summed in order by one work-group, and a fused form's recurrence advanced by the sums
// (recurrence.h, `rule` a CG_RULE_*): the next update's coefficients, computed and kept on the
// device, where the update kernels read them. The host reads the state only when it asks.
__kernel void advance_scalars(const uint count, __global const REAL* restrict partials, __global REAL* restrict state,
                              const int rule, __local REAL* scratch_a, __local REAL* scratch_b) {
  REAL a = 0, b = 0;
  for (uint i = get_local_id(0); i < count; i += get_local_size(0)) {
    a += partials[i];
    b += partials[count + i];
  }
  scratch_a[get_local_id(0)] = a;
  scratch_b[get_local_id(0)] = b;
  reduce_local2(scratch_a, scratch_b);
  if (get_local_id(0) == 0) cg_advance(state, rule, scratch_a[0], scratch_b[0]);
}

// A band's reduction ended on its device (a solve across devices, kernels/cg/distributed.hpp): the
// pairs of partial sums of its parts (n0, n1, n2 of each; a part's a's, then its b's), added in
// part order by one work-group into kept[0] and kept[1], which the other bands copy.
__kernel void keep_sums(__global const REAL* restrict p0, const uint n0, __global const REAL* restrict p1,
                        const uint n1, __global const REAL* restrict p2, const uint n2, __global REAL* restrict kept,
                        __local REAL* scratch_a, __local REAL* scratch_b) {
  REAL a = 0, b = 0;
  for (uint i = get_local_id(0); i < n0; i += get_local_size(0)) {
    a += p0[i];
    b += p0[n0 + i];
  }
  for (uint i = get_local_id(0); i < n1; i += get_local_size(0)) {
    a += p1[i];
    b += p1[n1 + i];
  }
  for (uint i = get_local_id(0); i < n2; i += get_local_size(0)) {
    a += p2[i];
    b += p2[n2 + i];
  }
  scratch_a[get_local_id(0)] = a;
  scratch_b[get_local_id(0)] = b;
  reduce_local2(scratch_a, scratch_b);
  if (get_local_id(0) == 0) {
    kept[0] = scratch_a[0];
    kept[1] = scratch_b[0];
  }
}

// The bands' kept sums gathered on this device (band k's at pairs[2 k], pairs[2 k + 1]), added in
// band order, advance the state by `rule`: every band computes the same state.
__kernel void advance_gathered(const uint count, __global const REAL* restrict pairs, __global REAL* restrict state,
                               const int rule) {
  if (get_global_id(0) != 0) return;
  REAL a = 0, b = 0;
  for (uint k = 0; k < count; ++k) {
    a += pairs[2 * k];
    b += pairs[2 * k + 1];
  }
  cg_advance(state, rule, a, b);
}

// y = y + alpha x
__kernel void axpy(const uint n, const REAL alpha, __global const REAL* restrict x, __global REAL* restrict y) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) y[i] += alpha * x[i];
}

// y = x + beta y
__kernel void xpay(const uint n, __global const REAL* restrict x, const REAL beta, __global REAL* restrict y) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = x[i] + beta * y[i];
}

// y = alpha x
__kernel void scale(const uint n, const REAL alpha, __global const REAL* restrict x, __global REAL* restrict y) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = alpha * x[i];
}

// Saad's three-term update:
//   x_prev = rho (x + gamma r) + (1 - rho) x_prev
//   r_prev = rho (r - gamma w) + (1 - rho) r_prev
// with rho and gamma the arguments, or the state's (recurrence.h) where from_state is set.
// The fused updates sweep the vectors from the end: the fused SpMV before them swept its r and w
// from the start, so the last of those it touched are still in the cache when the update begins,
// and the update's last writes (the start of r) are there when the next SpMV begins. The sweep
// starts at n rounded up to whole groups of 32 entries (the entries past n idle), so that 32
// neighbouring work-items (a warp on NVIDIA's devices) read one aligned group whatever n is, as
// nvrtc.cu's do.
__kernel void three_term_update(const uint n, REAL rho, REAL gamma, const uint from_state,
                                __global const REAL* restrict state, __global const REAL* restrict x,
                                __global REAL* restrict x_prev, __global const REAL* restrict r,
                                __global REAL* restrict r_prev, __global const REAL* restrict w) {
  if (from_state) {
    rho = state[CG_A];
    gamma = state[CG_B];
  }
  const REAL keep = (REAL)1 - rho;
  const uint end = (n + 31u) / 32u * 32u;  // see the comment above
  for (uint k = get_global_id(0); k < end; k += get_global_size(0)) {
    const uint i = end - 1 - k;  // backwards: see the comment above
    if (i >= n) continue;
    const REAL ri = r[i];
    x_prev[i] = rho * (x[i] + gamma * ri) + keep * x_prev[i];
    r_prev[i] = rho * (ri - gamma * w[i]) + keep * r_prev[i];
  }
}

// Chronopoulos-Gear update: p = r + beta p; s = w + beta s; x = x + alpha p; r = r - alpha s,
// with alpha and beta the arguments, or the state's (recurrence.h) where from_state is set.
__kernel void cg_update(const uint n, REAL alpha, REAL beta, const uint from_state, __global const REAL* restrict state,
                        __global REAL* restrict r, __global const REAL* restrict w, __global REAL* restrict p,
                        __global REAL* restrict s, __global REAL* restrict x) {
  if (from_state) {
    alpha = state[CG_A];
    beta = state[CG_B];
  }
  const uint end = (n + 31u) / 32u * 32u;  // aligned groups, as three_term_update
  for (uint k = get_global_id(0); k < end; k += get_global_size(0)) {
    const uint i = end - 1 - k;  // backwards, as three_term_update
    if (i >= n) continue;
    const REAL pi = r[i] + beta * p[i];
    const REAL si = w[i] + beta * s[i];
    p[i] = pi;
    s[i] = si;
    x[i] += alpha * pi;
    r[i] -= alpha * si;
  }
}
