// out = transpose(in): in is n rows of m, out m rows of n. A block of TILE x ROWS threads moves a
// TILE x TILE tile through shared memory (rows padded by PAD to spread the banks): it reads rows of
// `in` and writes rows of `out`, both contiguous. TILE, ROWS, PAD and `real` come as -D defines.
extern "C" __global__ void transpose(real* __restrict__ out, const real* __restrict__ in, int n, int m) {
  __shared__ real tile[TILE][TILE + PAD];
  const int x = threadIdx.x, y = threadIdx.y;
  const long col0 = (long)blockIdx.x * TILE, row0 = (long)blockIdx.y * TILE;
  for (int r = y; r < TILE; r += ROWS) tile[r][x] = in[(row0 + r) * m + col0 + x];
  __syncthreads();
  for (int r = y; r < TILE; r += ROWS) out[(col0 + r) * n + row0 + x] = tile[x][r];
}

// The reference: one element per thread, no shared memory.
extern "C" __global__ void transpose_naive(real* __restrict__ out, const real* __restrict__ in, int n, int m) {
  const long j = (long)blockIdx.x * blockDim.x + threadIdx.x, i = (long)blockIdx.y * blockDim.y + threadIdx.y;
  out[j * n + i] = in[i * m + j];
}
