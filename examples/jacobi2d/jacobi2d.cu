// One Jacobi sweep of the 5-point stencil on an m x n grid (rows of n): inside, out = the mean of
// the four neighbours; on the edge, out = in. A block is BX x BY threads; each thread computes TY
// rows of one column, top to bottom, keeping the rows above and below in registers (each element
// of `in` read once by the thread). BX, BY, TY and `real` come as -D defines.
extern "C" __global__ void __launch_bounds__(BX * BY)
jacobi(real* __restrict__ out, const real* __restrict__ in, int n, int m) {
  const long j = (long)blockIdx.x * BX + threadIdx.x;
  const long i0 = ((long)blockIdx.y * BY + threadIdx.y) * TY;
  real up = i0 > 0 ? in[(i0 - 1) * n + j] : (real)0;
  real mid = in[i0 * n + j];
#pragma unroll
  for (int t = 0; t < TY; ++t) {
    const long i = i0 + t;
    const real down = i + 1 < m ? in[(i + 1) * n + j] : (real)0;
    if (i == 0 || i == m - 1 || j == 0 || j == n - 1) out[i * n + j] = mid;
    else out[i * n + j] = (real)0.25 * (up + down + in[i * n + j - 1] + in[i * n + j + 1]);
    up = mid;
    mid = down;
  }
}

// The reference: one element per thread.
extern "C" __global__ void jacobi_naive(real* __restrict__ out, const real* __restrict__ in, int n, int m) {
  const long j = (long)blockIdx.x * blockDim.x + threadIdx.x, i = (long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i == 0 || i == m - 1 || j == 0 || j == n - 1) out[i * n + j] = in[i * n + j];
  else out[i * n + j] = (real)0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
}
