// EP on OpenCL (kernels/ep/ep.hpp says what is computed and how the work is dealt). Built with
// -DPARTIALS=0 (variant reduce: one row per work-group, reduced in local memory) or
// -DPARTIALS=1 (variant partials: one row per work-item). Either way `out` is column-major:
// value v of row r at out[v * rows + r]; sum_columns then adds each column.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define ANNULI 10
#define VALUES 12
#define BATCH_LOG2 10
#define MASK 0x3FFFFFFFFFFFUL
#define MULTIPLIER 1220703125UL
#define SEED 271828183UL
// 2 (x 2^-46) - 1 without an integer-to-double conversion (two per pair, and slow on GPUs):
// the 46 bits of x as the top of a mantissa give v = 1 + x 2^-46 in [1, 2), and 2 v - 3 is
// exactly the same double (every step is exact).
#define ONE_BITS 0x3FF0000000000000UL

// a^n mod 2^46: the low 46 bits of a 64-bit product are exact even where it wraps.
ulong lcg_power(ulong a, ulong n) {
  ulong r = 1;
  while (n > 0) {
    if (n & 1) r = (r * a) & MASK;
    a = (a * a) & MASK;
    n >>= 1;
  }
  return r;
}

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

__kernel void tally(ulong batches, ulong items, __global double* out, __local double* scratch) {
  const ulong item = get_global_id(0);
  double sx = 0, sy = 0;
  uint q0 = 0, q1 = 0, q2 = 0, q3 = 0, q4 = 0, q5 = 0, q6 = 0, q7 = 0, q8 = 0, q9 = 0;
  if (item < items) {
    const ulong first = item * batches / items, last = (item + 1) * batches / items;
    ulong x = (SEED * lcg_power(MULTIPLIER, (first << BATCH_LOG2) * 2)) & MASK;
    for (ulong p = (last - first) << BATCH_LOG2; p > 0; --p) {
      x = (x * MULTIPLIER) & MASK;
      const double x1 = 2.0 * as_double(ONE_BITS | (x << 6)) - 3.0;
      x = (x * MULTIPLIER) & MASK;
      const double x2 = 2.0 * as_double(ONE_BITS | (x << 6)) - 3.0;
      const double r = x1 * x1 + x2 * x2;
      if (r <= 1.0) {
        const double f = sqrt(-2.0 * log(r) / r);
        const double g1 = x1 * f, g2 = x2 * f;
        const int l = (int)fmax(fabs(g1), fabs(g2));
        q0 += l == 0; q1 += l == 1; q2 += l == 2; q3 += l == 3; q4 += l == 4;
        q5 += l == 5; q6 += l == 6; q7 += l == 7; q8 += l == 8; q9 += l == 9;
        sx += g1;
        sy += g2;
      }
    }
  }
  double v[VALUES] = {sx, sy, q0, q1, q2, q3, q4, q5, q6, q7, q8, q9};
#if PARTIALS
  const ulong rows = get_global_size(0);
  for (int k = 0; k < VALUES; ++k) out[k * rows + item] = v[k];
#else
  const ulong rows = get_num_groups(0), row = get_group_id(0);
  for (int k = 0; k < VALUES; ++k) {
    const double total = group_sum(v[k], scratch);
    if (get_local_id(0) == 0) out[k * rows + row] = total;
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
