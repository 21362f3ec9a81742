// The host's BLAS and LAPACK (OpenBLAS, and LAPACKE over Debian's alternatives, which resolve to
// OpenBLAS's), loaded with dlopen when a point first calls them, never when gpubench starts:
// OpenBLAS starts its threads as it is loaded (one 128 MiB buffer each), which under an
// address-space limit (ulimit -v) hung every start on a 16-core host, and took cores from work
// that never calls a BLAS. Under such a limit the threads are sized to it (OPENBLAS_NUM_THREADS,
// said on stderr) unless the user chose. Loading says on stderr what was loaded (OpenBLAS's
// configuration, its core, e.g. Prescott, its threads): a baseline is only as honest as that.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpubench::host_blas {

// What a host BLAS is and which of its kernels runs: a baseline is only as honest as that.
// Debian's OpenBLAS 0.3.21 does not know a Sapphire Rapids host and runs its generic SSE3 kernels
// (core Prescott) there, at a third of what its AVX-512 kernels reach.
struct BlasInfo {
  std::string library;   // "OpenBLAS", "BLIS"
  std::string version;   // "0.3.21"
  std::string core;      // the kernels it chose for this CPU: OpenBLAS's core, BLIS's configuration
  std::string core_isa;  // the instruction set those kernels use ("SSE3", "AVX-512"); empty if unknown
  std::string host_isa;  // the widest this host has, named the same way
  int threads = 0;
  std::string config;    // the library's own words (openblas_get_config)
  std::string file;      // the shared object it was loaded from
  bool planted = false;  // `core` stands in from the test hook GPUBENCH_BLAS_CORE
  // Where the kernels use a narrower instruction set than the host has: what runs, and the setting
  // that chooses the host's (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE). Empty otherwise.
  std::string weaker;
  std::string description() const;  // one line
  nlohmann::json to_json() const;
};

// Fills core_isa, host_isa and weaker from library and core (GPUBENCH_BLAS_CORE, where set, stands
// in for the core the library chose). The host's instruction set from this CPU unless `host_isa`
// is given ("SSE3", "AVX2", "AVX-512", ...).
void classify(BlasInfo& info, const std::string& host_isa = {});

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
// What gemm() runs (OpenBLAS); loads it.
const BlasInfo& blas_info();

// BLIS (Debian libblis4-openmp), the second host vendor: loaded with RTLD_LOCAL | RTLD_DEEPBIND,
// since it exports the same BLAS symbols as OpenBLAS (dgemm_), so that each calls its own. Its
// threads: BLIS_NUM_THREADS where set, else OMP_NUM_THREADS, else one per core (BLIS alone
// would take one). blis_missing() loads it and says why it cannot be used here (empty: it can).
std::string blis_missing();
void blis_gemm(bool transpose_a, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc);
void blis_gemm(bool transpose_a, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
               double beta, double* c, int ldc);
const BlasInfo& blis_info();
// What getrf() runs: LAPACKE's getrf_ and the BLAS beneath it (OpenBLAS's, where Debian's
// alternatives resolve LAPACK to it); loads LAPACKE.
const BlasInfo& lapack_info();
// LAPACK's 1-norm reciprocal condition estimate from getrf's factors (LAPACKE_dgecon); `a_one` is
// the 1-norm of the matrix factored. < 0 when it failed.
double gecon(int n, const double* lu, double a_one);

}  // namespace gpubench::host_blas
