// EP on OpenCL (kernels/ep/ep.hpp says what is computed and how the work is dealt; the loop itself
// is kernels/ep/pair_math.h, which the build inlines where it is included). Built with
// -DPARTIALS=0 (variant reduce: one row per work-group, reduced in local memory) or
// -DPARTIALS=1 (variant partials: one row per work-item). Either way `out` is column-major:
// value v of row r at out[v * rows + r]; sum_columns then adds each column.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define ANNULI 10
#define VALUES 12

#include "backends/opencl/ptx.h"
#include "kernels/ep/pair_math.h"

// Tree sum of `v` over the work-group in `scratch` (one double per work-item; any group size:
// the upper half folds down); every work-item gets the total.
double group_sum(double v, __local double* scratch) {
  const uint lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint active = get_local_size(0); active > 1;) {
    const uint upper = (active + 1) / 2;
    if (lid < active - upper) scratch[lid] += scratch[lid + upper];
    barrier(CLK_LOCAL_MEM_FENCE);
    active = upper;
  }
  const double total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

// `scratch` holds EP_COUNT_ROWS rows of one counter per work-item (its column), then serves the
// reduction (get_local_size doubles fit in it). It is declared double for the alignment that
// needs: NVIDIA's driver faults on doubles in a local buffer passed as uint.
__kernel void tally(ulong batches, ulong items, __global double* out, __local double* scratch) {
  const ulong item = get_global_id(0);
  const uint lid = get_local_id(0), size = get_local_size(0);
  __local uint* mine = (__local uint*)scratch + lid;
  for (uint row = 0; row < EP_COUNT_ROWS; ++row) mine[row * size] = 0;
  double sx = 0, sy = 0;
  if (item < items) {
    const ulong first = item * batches / items, last = (item + 1) * batches / items;
    ep_tally_batches(ep_state_before_pair(first * EP_BATCH_PAIRS), last - first, &sx, &sy, mine, size);
  }
  double v[VALUES] = {sx, sy};
  for (int k = 0; k < ANNULI; ++k) v[2 + k] = mine[k * size];
#if PARTIALS
  const ulong rows = get_global_size(0);
  for (int k = 0; k < VALUES; ++k) out[k * rows + item] = v[k];
#else
  barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read its counts: the memory becomes the scratch
  const ulong rows = get_num_groups(0), row = get_group_id(0);
  for (int k = 0; k < VALUES; ++k) {
    const double total = group_sum(v[k], scratch);
    if (lid == 0) out[k * rows + row] = total;
  }
#endif
}

// Work-group k adds column k of `in` (rows values) into out[k].
__kernel void sum_columns(__global const double* in, ulong rows, __global double* out, __local double* scratch) {
  const uint lid = get_local_id(0), size = get_local_size(0);
  const ulong column = get_group_id(0);
  double s = 0;
  for (ulong r = lid; r < rows; r += size) s += in[column * rows + r];
  const double total = group_sum(s, scratch);
  if (lid == 0) out[column] = total;
}
