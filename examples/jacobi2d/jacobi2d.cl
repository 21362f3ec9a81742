// One Jacobi sweep of the 5-point stencil on an m x n grid (rows of n): inside, out = the mean of
// the four neighbours; on the edge, out = in. A work-group is BX x BY items; each item computes TY
// rows of one column, top to bottom, keeping the rows above and below in registers (each element
// of `in` read once by the item). BX, BY, TY and `real` come as -D defines.
__kernel void jacobi(__global real* restrict out, __global const real* restrict in, int n, int m) {
  const long j = get_global_id(0);
  const long i0 = (long)get_global_id(1) * TY;
  real up = i0 > 0 ? in[(i0 - 1) * n + j] : (real)0;
  real mid = in[i0 * n + j];
  for (int t = 0; t < TY; ++t) {
    const long i = i0 + t;
    const real down = i + 1 < m ? in[(i + 1) * n + j] : (real)0;
    if (i == 0 || i == m - 1 || j == 0 || j == n - 1) out[i * n + j] = mid;
    else out[i * n + j] = (real)0.25 * (up + down + in[i * n + j - 1] + in[i * n + j + 1]);
    up = mid;
    mid = down;
  }
}

// The reference: one element per item.
__kernel void jacobi_naive(__global real* restrict out, __global const real* restrict in, int n, int m) {
  const long j = get_global_id(0), i = get_global_id(1);
  if (i == 0 || i == m - 1 || j == 0 || j == n - 1) out[i * n + j] = in[i * n + j];
  else out[i * n + j] = (real)0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
}
