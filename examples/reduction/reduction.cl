// sum = x[0] + ... + x[n-1] in two steps. reduce_partial: each work-group of GROUP items sums
// GROUP * ITEMS consecutive elements (item i reads i, i + GROUP, ...: each read coalesced), then
// halves in local memory down to one value, partial[group]. reduce_final: one work-group of FINAL
// items sums the partials the same way. GROUP, ITEMS, FINAL (powers of two) and `real` come as -D.
__kernel void reduce_partial(__global real* restrict partial, __global const real* restrict x) {
  __local real sums[GROUP];
  const int lid = get_local_id(0);
  const long base = (long)get_group_id(0) * GROUP * ITEMS + lid;
  real s = 0;
  for (int k = 0; k < ITEMS; ++k) s += x[base + (long)k * GROUP];
  sums[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = GROUP / 2; h > 0; h /= 2) {
    if (lid < h) sums[lid] += sums[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = sums[0];
}

__kernel void reduce_final(__global real* restrict sum, __global const real* restrict partial, int count) {
  __local real sums[FINAL];
  const int lid = get_local_id(0);
  real s = 0;
  for (int i = lid; i < count; i += FINAL) s += partial[i];
  sums[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = FINAL / 2; h > 0; h /= 2) {
    if (lid < h) sums[lid] += sums[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) sum[0] = sums[0];
}
