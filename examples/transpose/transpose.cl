// out = transpose(in): in is n rows of m, out m rows of n. A work-group of TILE x ROWS items moves
// a TILE x TILE tile through local memory (rows padded by PAD to spread the banks): it reads rows
// of `in` and writes rows of `out`, both contiguous. TILE, ROWS, PAD and `real` come as -D defines.
__kernel void transpose(__global real* restrict out, __global const real* restrict in, int n, int m) {
  __local real tile[TILE][TILE + PAD];
  const int x = get_local_id(0), y = get_local_id(1);
  const long col0 = (long)get_group_id(0) * TILE, row0 = (long)get_group_id(1) * TILE;
  for (int r = y; r < TILE; r += ROWS) tile[r][x] = in[(row0 + r) * m + col0 + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = y; r < TILE; r += ROWS) out[(col0 + r) * n + row0 + x] = tile[x][r];
}

// The reference: one element per item, no local memory.
__kernel void transpose_naive(__global real* restrict out, __global const real* restrict in, int n, int m) {
  const long j = get_global_id(0), i = get_global_id(1);
  out[j * n + i] = in[i * m + j];
}
