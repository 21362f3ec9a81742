// sum = x[0] + ... + x[n-1] in two steps. reduce_partial: each block of GROUP threads sums
// GROUP * ITEMS consecutive elements (thread i reads i, i + GROUP, ...: each read coalesced), then
// halves in shared memory down to one value, partial[block]. reduce_final: one block of FINAL
// threads sums the partials the same way. GROUP, ITEMS, FINAL (powers of two) and `real` come as -D.
extern "C" __global__ void reduce_partial(real* __restrict__ partial, const real* __restrict__ x) {
  __shared__ real sums[GROUP];
  const int lid = threadIdx.x;
  const long base = (long)blockIdx.x * GROUP * ITEMS + lid;
  real s = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) s += x[base + (long)k * GROUP];
  sums[lid] = s;
  __syncthreads();
  for (int h = GROUP / 2; h > 0; h /= 2) {
    if (lid < h) sums[lid] += sums[lid + h];
    __syncthreads();
  }
  if (lid == 0) partial[blockIdx.x] = sums[0];
}

extern "C" __global__ void reduce_final(real* __restrict__ sum, const real* __restrict__ partial, int count) {
  __shared__ real sums[FINAL];
  const int lid = threadIdx.x;
  real s = 0;
  for (int i = lid; i < count; i += FINAL) s += partial[i];
  sums[lid] = s;
  __syncthreads();
  for (int h = FINAL / 2; h > 0; h /= 2) {
    if (lid < h) sums[lid] += sums[lid + h];
    __syncthreads();
  }
  if (lid == 0) sum[0] = sums[0];
}
