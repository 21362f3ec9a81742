// LU's OpenCL kernels (kernels/lu/opencl.cpp): thin entry points to kernels/lu/device.h, which
// CUDA shares (the build inlines it here). Built with -DREAL=float|double (and -DLU_FP64).
#ifdef LU_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef REAL real;
#define LU_FN inline
#define LU_G __global
#define LU_L __local
#define LU_SYNC() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define LU_GROUP 256

// The panel leaf's meeting (kernels/lu/device.h's lu_grid_sync), counted as kernels/lu/nvrtc.cu's
// grid_sync: group 0 adds 2^31 - (groups - 1), every other group 1, so each meeting flips the
// word's top bit and leaves its low bits zero again; a group waits for the flip. OpenCL does not
// promise that a launch's work-groups run at once: the host launches the leaf only where a probe
// (leaf_meet) saw them all resident, and a group that waits longer than LU_SPIN_NS by NVIDIA's
// global timer (LU_PTX) or LU_SPINS reads (elsewhere) gives up and sets *failed, after which
// every group returns at its meeting: the host then discards the run and says why. With LU_PTX
// (NVIDIA's OpenCL, compute capability 7.0 or later): inline PTX, the CUDA leaf's release add and
// acquire loads at GPU scope, and warp shuffles for the groups' maxima.
#define LU_SPIN_NS 10000000000UL
#define LU_SPINS (1L << 24)
inline int lu_grid_sync(__global unsigned int* word, __global int* failed, __local int* flag) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    const unsigned int add = get_group_id(0) == 0 ? 0x80000000u - (unsigned int)(get_num_groups(0) - 1) : 1u;
    int met = 1;
#ifdef LU_PTX
    unsigned int before, now;
    ulong t0, t;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(before) : "l"(word), "r"(add) : "memory");
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (uint polls = 1;; ++polls) {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
      if ((before ^ now) & 0x80000000u) break;
      if (polls % 256 == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > LU_SPIN_NS || *(volatile __global int*)failed) {
          met = 0;
          break;
        }
      }
    }
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    const unsigned int before = atomic_add(word, add);
    for (long polls = 1;; ++polls) {
      if ((before ^ atomic_or(word, 0u)) & 0x80000000u) break;
      if (polls % 256 == 0 && (polls > LU_SPINS || atomic_or(failed, 0))) {
        met = 0;
        break;
      }
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
    if (!met) atomic_xchg(failed, 1);
    *flag = met;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  return *flag;
}

#include "backends/opencl/ptx.h"
#ifdef OPENCL_PTX
#define LU_SHUFFLE
#define lu_shfl_int ptx_shfl_xor_int
#define lu_shfl_real ptx_shfl_xor_real
#endif

#include "kernels/lu/device.h"

__kernel void study_factors(__global real* l, __global real* u, __global const real* a, int n, int i) {
  lu_study_factors(l, u, a, n, i, get_global_id(0));
}
__kernel void study_update(__global const real* l, __global const real* u, __global real* a, int n, int i) {
  lu_study_update(l, u, a, n, i, get_global_id(1), get_global_id(0));
}
__kernel void study_factors_optimised(__global const real* column, __global real* f, int n, int i) {
  lu_study_factors_optimised(column, f, n, i, get_global_id(0));
}
__kernel void study_update_optimised(__global const real* a, __global const real* v, __global real* aux, int n) {
  lu_study_update_optimised(a, v, aux, n, get_global_id(1), get_global_id(0));
}

// The panel's partials (kernels/lu/device.h): two sets of LU_GROUP candidates (value, row, and
// the row's LU_LEAF_MAX values); set `in` read, the other written.
__kernel __attribute__((reqd_work_group_size(LU_GROUP, 1, 1)))
void pivot(__global const real* a, int n, int j, int w, __global real* pvalue, __global int* prow,
           __global real* prows) {
  __local real value[LU_GROUP];
  __local int row[LU_GROUP];
  lu_pivot(a, n, j, w, pvalue, prow, prows, value, row, get_local_id(0), get_group_id(0), get_num_groups(0));
}
__kernel __attribute__((reqd_work_group_size(LU_GROUP, 1, 1)))
void column_step(__global real* a, int n, int c, int j, int w, int pgroups, int in, __global real* pvalue,
          __global int* prow, __global real* prows, __global int* ipiv) {
  __local real value[LU_GROUP];
  __local int row[LU_GROUP];
  __local real u[LU_LEAF_MAX];
  const int out = 1 - in;
  lu_step(a, n, c, j, w, pgroups, pvalue + in * LU_GROUP, prow + in * LU_GROUP, prows + in * LU_GROUP * LU_LEAF_MAX,
          pvalue + out * LU_GROUP, prow + out * LU_GROUP, prows + out * LU_GROUP * LU_LEAF_MAX, ipiv, value, row, u,
          get_local_id(0), get_group_id(0), get_num_groups(0));
}
__kernel __attribute__((reqd_work_group_size(LU_GROUP, 1, 1)))
void laswp(__global real* a, int n, __global const int* ipiv, int k0, int k1, int c0, int c1) {
  __local real seg[LU_SWAP_ROWS * LU_SWAP_LD], out[LU_SWAP_ROWS * LU_SWAP_LD];
  __local int piv[LU_SWAP_ROWS], prev[LU_SWAP_ROWS], last[LU_SWAP_ROWS];
  lu_laswp(a, n, ipiv, k0, k1, c0, c1, seg, out, piv, prev, last, get_local_id(0), get_group_id(0));
}
__kernel __attribute__((reqd_work_group_size(LU_GROUP, 1, 1)))
void trtri(__global const real* a, int n, int j, int w, __global real* inv) {
  __local real x[LU_TRTRI_MAX];
  lu_trtri(a, n, j, w, inv, x, get_group_id(0), get_local_id(0));
}
__kernel void copy_block(__global const real* src, int ld, __global real* a, int n, int row0, int col0, int rows,
                         int cols) {
  lu_copy(src, ld, a, n, row0, col0, rows, cols, get_global_id(0), get_global_id(1));
}

// The panel's leaf (kernels/lu/device.h): `slab` rows per work-group in local memory `s`, the
// groups meeting at lu_grid_sync (word zero before the launch, and after it where none gave up).
__kernel __attribute__((reqd_work_group_size(LU_GROUP, 1, 1)))
void leaf(__global real* a, int n, int j, int w, int slab, __global real* pvalue, __global int* prow,
          __global real* prows, __global real* rowc, __global int* ipiv, __global unsigned int* word,
          __global int* failed, __local real* s) {
  __local real value[LU_REDUCE_SLOTS];
  __local int row[LU_REDUCE_SLOTS];
  __local real u[LU_LEAF_MAX];
  __local int winner, flag;
  lu_leaf(a, n, j, w, slab, pvalue, prow, prows, rowc, ipiv, word, failed, s, value, row, u, &winner, &flag,
          get_local_id(0), get_group_id(0), get_num_groups(0));
}
// The host's probe before it uses the leaf: the leaf's number of groups, each holding the most
// local memory a leaf may (`s`), meet once; *failed says whether any gave up waiting.
__kernel __attribute__((reqd_work_group_size(LU_GROUP, 1, 1)))
void leaf_meet(__global unsigned int* word, __global int* failed, __local real* s) {
  __local int flag;
  s[get_local_id(0)] = (real)get_group_id(0);
  lu_grid_sync(word, failed, &flag);
}
