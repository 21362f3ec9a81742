// GPUBENCH_HOST_DEVICE: marks a small inline function that CUDA kernels call too, so that the
// host and the device compute it from one definition (nvcc compiles it for both; other
// compilers see a plain function).
#pragma once

#ifdef __CUDACC__
#define GPUBENCH_HOST_DEVICE __host__ __device__
#else
#define GPUBENCH_HOST_DEVICE
#endif
