// Inline PTX for OpenCL C kernels on NVIDIA's OpenCL, whose compiler takes asm statements: warp
// shuffles (shfl.sync, compute capability 7.0 or later) and the double-precision approximations
// and rounding that CUDA C offers and OpenCL C does not. A suite's host code defines OPENCL_PTX
// where opencl::nvidia_compute_capability says the device has them; elsewhere (PoCL, other
// vendors) nothing here is compiled and the kernels take their portable paths (local memory).
// Included into a suite's .cl file by the build (cmake/embed_kernels.cmake), after the fp64 pragma.
#ifdef OPENCL_PTX
// v of the work-item `o` lanes away in its warp (lane ^ o). Every work-item of the warp must call
// it: the warp is whole (a work-group of a multiple of 32 work-items) and none has returned.
inline int ptx_shfl_xor_int(int v, int o) {
  int r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(o));
  return r;
}
inline float ptx_shfl_xor_float(float v, int o) { return as_float(ptx_shfl_xor_int(as_int(v), o)); }
#ifdef cl_khr_fp64
inline double ptx_shfl_xor_double(double v, int o) {
  const int2 h = as_int2(v);
  return as_double((int2)(ptx_shfl_xor_int(h.x, o), ptx_shfl_xor_int(h.y, o)));
}
// 1/d and 1/sqrt(h) by the hardware's approximations (MUFU.RCP64H, MUFU.RSQ64H: relative error
// about 2^-22), where OpenCL C's only double forms are full precision.
inline double ptx_rcp_approx_f64(double d) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(d));
  return y;
}
inline double ptx_rsqrt_approx_f64(double h) {
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(h));
  return y;
}
// a + b rounded toward zero (CUDA C's __dadd_rz; OpenCL C has no rounding mode for arithmetic).
inline double ptx_add_rz_f64(double a, double b) {
  double y;
  asm("add.rz.f64 %0, %1, %2;" : "=d"(y) : "d"(a), "d"(b));
  return y;
}
#endif
// ptx_shfl_xor_real: the one of REAL's type (a kernel built with -DREAL=float or -DREAL=double).
#define PTX_PASTE2(a, b) a##b
#define PTX_PASTE(a, b) PTX_PASTE2(a, b)
#define ptx_shfl_xor_real PTX_PASTE(ptx_shfl_xor_, REAL)
#endif
