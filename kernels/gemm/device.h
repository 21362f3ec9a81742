// What GEMM's device kernels need from their API, written once for OpenCL C (kernels/gemm/
// opencl.cl includes this; the build inlines it into the embedded source) and CUDA
// (kernels/gemm/cuda.cu). The kernel bodies (naive_body.h, tiled_body.h, tuned_body.h) are
// written against these names only, and are included inside each API's kernel function, whose
// signature declares `real` (the element type), M, N, K, ta (A stored transposed), alpha, A, B,
// beta and C, and where each matrix starts in its buffer and its rows' stride (aoff, lda; boff,
// ldb; coff, ldc; in elements), so that a block of a larger matrix (LU's trailing update) is a
// GEMM too. Their compile-time constants (TILE; BM, BN, BK, TM, TN, VW) are template
// parameters in CUDA and -D options in OpenCL.
#ifndef GPUBENCH_KERNELS_GEMM_DEVICE_H
#define GPUBENCH_KERNELS_GEMM_DEVICE_H

#ifdef __OPENCL_VERSION__
#define GEMM_GLOBAL __global
#define GEMM_SHARED(type, name, size) __local type name[size] __attribute__((aligned(16)))
#define GEMM_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#define GEMM_LID_X ((int)get_local_id(0))
#define GEMM_LID_Y ((int)get_local_id(1))
#define GEMM_GID_X ((int)get_group_id(0))
#define GEMM_GID_Y ((int)get_group_id(1))
#define GEMM_GID_Z ((int)get_group_id(2))
#define GEMM_LOCAL_X ((int)get_local_size(0))
#define GEMM_LOCAL_Y ((int)get_local_size(1))
#define GEMM_FMA(a, b, c) fma(a, b, c)
#define GEMM_UNROLL _Pragma("unroll")
// VW elements from a global address that is a multiple of VW elements, into registers.
#if VW == 1
#define GEMM_LOAD_VEC(dst, src) ((dst)[0] = (src)[0])
#elif VW == 2
#define GEMM_LOAD_VEC(dst, src)                                  \
  do {                                                           \
    const GEMM_VEC2 v_ = *(const __global GEMM_VEC2*)(src);      \
    (dst)[0] = v_.x;                                             \
    (dst)[1] = v_.y;                                             \
  } while (0)
#elif VW == 4
#define GEMM_LOAD_VEC(dst, src)                                  \
  do {                                                           \
    const GEMM_VEC4 v_ = *(const __global GEMM_VEC4*)(src);      \
    (dst)[0] = v_.x;                                             \
    (dst)[1] = v_.y;                                             \
    (dst)[2] = v_.z;                                             \
    (dst)[3] = v_.w;                                             \
  } while (0)
#endif
// *p += v for elements of `real`, atomically (a split K's shares meeting in C): on NVIDIA's OpenCL
// (GEMM_PTX, set by the host) PTX's red.global.add, elsewhere a compare-and-swap loop on the
// element's bits (64-bit ones need cl_khr_int64_base_atomics). Only a split K's build has it.
#if defined(SPLITK) && SPLITK > 1
#ifdef GEMM_PTX
#ifdef GEMM_FP64
#define GEMM_ATOMIC_ADD(p, v) asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory")
#else
#define GEMM_ATOMIC_ADD(p, v) asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory")
#endif
#else
#if defined(GEMM_FP64) && !defined(cl_khr_int64_base_atomics)
#error "a split K (splitk > 1) in f64 needs cl_khr_int64_base_atomics, which this device lacks"
#elif defined(GEMM_FP64)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define GEMM_BITS ulong
#define GEMM_AS_BITS as_ulong
#define GEMM_AS_REAL as_double
#define GEMM_CMPXCHG atom_cmpxchg
#else
#define GEMM_BITS uint
#define GEMM_AS_BITS as_uint
#define GEMM_AS_REAL as_float
#define GEMM_CMPXCHG atomic_cmpxchg
#endif
inline void gemm_atomic_add(volatile __global real* p, real v) {
  GEMM_BITS seen = GEMM_AS_BITS(*p), old;
  do {
    old = seen;
    seen = GEMM_CMPXCHG((volatile __global GEMM_BITS*)p, old, GEMM_AS_BITS(GEMM_AS_REAL(old) + v));
  } while (seen != old);
}
#define GEMM_ATOMIC_ADD(p, v) gemm_atomic_add(p, v)
#endif
#endif
#else  // CUDA
#define GEMM_GLOBAL
#define GEMM_SHARED(type, name, size) __shared__ __align__(16) type name[size]
#define GEMM_SYNC() __syncthreads()
#define GEMM_LID_X static_cast<int>(threadIdx.x)
#define GEMM_LID_Y static_cast<int>(threadIdx.y)
#define GEMM_GID_X static_cast<int>(blockIdx.x)
#define GEMM_GID_Y static_cast<int>(blockIdx.y)
#define GEMM_GID_Z static_cast<int>(blockIdx.z)
#define GEMM_LOCAL_X static_cast<int>(blockDim.x)
#define GEMM_LOCAL_Y static_cast<int>(blockDim.y)
#define GEMM_FMA(a, b, c) fma(a, b, c)
#define GEMM_UNROLL _Pragma("unroll")
#define GEMM_LOAD_VEC(dst, src) gemm_load_vec<VW>(dst, src)
#define GEMM_ATOMIC_ADD(p, v) atomicAdd(p, v)
template <int W, typename T>
__device__ __forceinline__ void gemm_load_vec(T* dst, const T* src) {
  if constexpr (W == 1) {
    dst[0] = src[0];
  } else if constexpr (W == 2 && sizeof(T) == 4) {
    const float2 v = *reinterpret_cast<const float2*>(src);
    dst[0] = v.x;
    dst[1] = v.y;
  } else if constexpr (W == 4 && sizeof(T) == 4) {
    const float4 v = *reinterpret_cast<const float4*>(src);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
  } else if constexpr (W == 2 && sizeof(T) == 8) {
    const double2 v = *reinterpret_cast<const double2*>(src);
    dst[0] = v.x;
    dst[1] = v.y;
  } else {
    static_assert(W == 1, "a vector load is 16 bytes at most");
  }
}
#endif

#endif
