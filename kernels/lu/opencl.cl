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
