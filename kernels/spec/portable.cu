// The CUDA side of a spec's portable body (docs/spec.md): the GB_* macros, put before
// the user's text, which NVRTC then compiles; `#line 1` keeps NVRTC's line numbers the body's own.
// OpenCL's are in kernels/spec/opencl.cpp.
#define GB_KERNEL extern "C" __global__
#define GB_GLOBAL
#define GB_LOCAL __shared__
#define GB_RESTRICT __restrict__
#define GB_BARRIER() __syncthreads()
__device__ inline unsigned gb_pick(int d, unsigned x, unsigned y, unsigned z) { return d == 0 ? x : d == 1 ? y : z; }
#define GB_LOCAL_ID(d) ((int)gb_pick(d, threadIdx.x, threadIdx.y, threadIdx.z))
#define GB_GROUP_ID(d) ((int)gb_pick(d, blockIdx.x, blockIdx.y, blockIdx.z))
#define GB_LOCAL_SIZE(d) ((int)gb_pick(d, blockDim.x, blockDim.y, blockDim.z))
#define GB_NUM_GROUPS(d) ((int)gb_pick(d, gridDim.x, gridDim.y, gridDim.z))
#define GB_GLOBAL_ID(d) ((long)GB_GROUP_ID(d) * GB_LOCAL_SIZE(d) + GB_LOCAL_ID(d))
#line 1
