// NAS FT on OpenCL (kernels/ft/opencl.cpp). Complex numbers are double2 (x real, y imaginary);
// the field is u[(k ny + j) nx + i].
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// v1, the study's form: one work-item per line, its 1-D FFT straight on the strided data. Line g
// starts at (g % count_a) stride_a + (g / count_a) stride_b, its elements `elem_stride` apart. A
// radix-2 Stockham FFT whose passes alternate between the line and the work-item's own line of
// `scratch` (natural order, no bit reversal); roots[p] = exp(-2 pi i p / n); sign +1 conjugates
// them (the inverse, unnormalised).
__kernel void fft_v1(__global double2* u, __global double2* scratch, __global const double2* roots, int n,
                     long elem_stride, int count_a, long stride_a, long stride_b, int lines, int sign) {
  const int g = get_global_id(0);
  if (g >= lines) return;
  __global double2* line = u + (long)(g % count_a) * stride_a + (long)(g / count_a) * stride_b;
  __global double2* own = scratch + (long)g * n;
  __global double2* a = line;
  __global double2* c = own;
  long sa = elem_stride, sc = 1;
  int s = 1;
  for (int len = n; len > 1; len >>= 1, s <<= 1) {
    const int m = len >> 1;
    for (int p = 0; p < m; ++p) {
      double2 w = roots[p * s];
      if (sign > 0) w.y = -w.y;
      for (int q = 0; q < s; ++q) {
        const double2 x0 = a[(q + s * p) * sa], x1 = a[(q + s * (p + m)) * sa];
        const double2 d = x0 - x1;
        c[(q + s * 2 * p) * sc] = x0 + x1;
        c[(q + s * (2 * p + 1)) * sc] = (double2)(d.x * w.x - d.y * w.y, d.x * w.y + d.y * w.x);
      }
    }
    __global double2* t = a;
    a = c;
    c = t;
    const long ts = sa;
    sa = sc;
    sc = ts;
  }
  if (a != line)
    for (int e = 0; e < n; ++e) line[e * elem_stride] = a[e];
}

// u0 = u0 * factors; u1 = u0.
__kernel void evolve(__global double2* u0, __global double2* u1, __global const double* factors, long total) {
  const long e = get_global_id(0);
  if (e >= total) return;
  const double2 v = u0[e] * factors[e];
  u0[e] = v;
  u1[e] = v;
}

// NAS's checksum into sums[iteration]: one work-group; item l adds the points j = l + 1, l + 1 +
// size, ... up to 1024, then a tree sum in local memory.
__kernel void checksum(__global const double2* u, __global double2* sums, int iteration, int nx, int ny, int nz,
                       __local double2* scratch) {
  const int l = get_local_id(0), size = get_local_size(0);
  double2 s = (double2)(0, 0);
  for (int j = l + 1; j <= 1024; j += size) s += u[((long)((5 * j) % nz) * ny + (3 * j) % ny) * nx + j % nx];
  scratch[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int active = size; active > 1;) {
    const int upper = (active + 1) / 2;
    if (l < active - upper) scratch[l] += scratch[l + upper];
    barrier(CLK_LOCAL_MEM_FENCE);
    active = upper;
  }
  if (l == 0) sums[iteration] = scratch[0] / ((double)nx * ny * nz);
}

// v2's rotation: the field with axis `axis` (1: y, 2: z) made the fastest, or back (`back` 1).
// Rotated layouts: y: (k, i, j), z: (j, i, k).
__kernel void rotate_axes(__global const double2* src, __global double2* dst, int nx, int ny, int nz, int axis, int back) {
  const long e = get_global_id(0);
  const long total = (long)nx * ny * nz;
  if (e >= total) return;
  // e indexes the natural layout: i fastest, then j, then k.
  const long i = e % nx, j = (e / nx) % ny, k = e / ((long)nx * ny);
  const long r = axis == 1 ? (k * nx + i) * ny + j : (j * nx + i) * nz + k;
  if (back) dst[e] = src[r];
  else dst[r] = src[e];
}
