// The host's BLAS and LAPACK (OpenBLAS, and LAPACKE over Debian's alternatives, which resolve to
// OpenBLAS's), loaded with dlopen when a point first calls them, never when gpubench starts:
// OpenBLAS starts its threads as it is loaded (one 128 MiB buffer each), which under an
// address-space limit (ulimit -v) hung every start on a 16-core host, and took cores from work
// that never calls a BLAS. Under such a limit the threads are sized to it (OPENBLAS_NUM_THREADS,
// said on stderr) unless the user chose. Loading says on stderr what was loaded (OpenBLAS's
// configuration, its core, e.g. Prescott, its threads): a baseline is only as honest as that.
#pragma once

#include <string>

namespace gpubench::host_blas {

// Whether this build knows the LAPACKE headers; the library may still be missing at run time (each
// call then throws DeviceError naming it).
bool lapacke_built();

// Row-major C = alpha op(A) B + beta C, op(A) = A or A^T (cblas_?gemm).
void gemm(bool transpose_a, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc);
void gemm(bool transpose_a, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
          double beta, double* c, int ldc);
// Column-major LU with partial pivoting of the n x n `a` (LAPACKE_?getrf_work): LAPACK's info.
int getrf(int n, float* a, int* ipiv);
int getrf(int n, double* a, int* ipiv);
// What was loaded for gemm(): "OpenBLAS 0.3.21 ... DYNAMIC_ARCH ... Prescott MAX_THREADS=64, core
// Prescott, 16 threads" (its configuration, the core it chose, its threads); loads it.
std::string blas_description();
// LAPACK's 1-norm reciprocal condition estimate from getrf's factors (LAPACKE_dgecon); `a_one` is
// the 1-norm of the matrix factored. < 0 when it failed.
double gecon(int n, const double* lu, double a_one);

}  // namespace gpubench::host_blas
