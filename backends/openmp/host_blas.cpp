#include "backends/openmp/host_blas.hpp"

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>

#ifdef GPUBENCH_HOST_CBLAS
#include <cblas.h>
#endif
#ifdef GPUBENCH_HOST_LAPACKE
#include <lapacke.h>
#endif

#include "common/errors.hpp"
#include "common/host_memory.hpp"

namespace gpubench::host_blas {

namespace {

// Opens the first of `names` that loads; DeviceError naming them all otherwise.
void* open_library(std::initializer_list<const char*> names, const std::string& what) {
  std::string errors;
  for (const char* name : names) {
    if (void* handle = ::dlopen(name, RTLD_NOW | RTLD_GLOBAL)) return handle;
    const char* e = ::dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
  }
  throw DeviceError("the host's " + what + " cannot be loaded: " + errors + " (Debian: libopenblas0, liblapacke)");
}

template <class F>
F* symbol(void* library, const char* name, const std::string& what) {
  if (void* s = ::dlsym(library, name)) return reinterpret_cast<F*>(s);
  throw DeviceError("the host's " + what + " has no " + name);
}

// Under an address-space limit, OpenBLAS's threads (a 128 MiB buffer each, mapped at load) are
// sized to what the limit leaves, unless OPENBLAS_NUM_THREADS or OMP_NUM_THREADS says otherwise.
void size_threads_to_the_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  if (std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("OMP_NUM_THREADS")) return;
  const HostMemory memory = available_host_memory();
  const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  // A quarter of the room for the threads' buffers and stacks, 160 MiB each.
  const auto fit = static_cast<long>(memory.available / 4 / (160ull << 20));
  const long threads = std::clamp(fit, 1L, cores);
  if (threads >= cores) return;
  ::setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
  std::cerr << "gpubench: the address-space limit (ulimit -v) leaves room for " << threads << " of " << cores
            << " OpenBLAS threads: OPENBLAS_NUM_THREADS=" << threads << std::endl;
}

std::mutex loading;

#ifdef GPUBENCH_HOST_CBLAS
struct Cblas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  std::string description;
};
const Cblas& cblas() {
  static const Cblas c = [] {
    const std::lock_guard<std::mutex> lock(loading);
    size_threads_to_the_limit();
    void* library = open_library({"libopenblas.so.0", "libopenblas.so"}, "BLAS (OpenBLAS)");
    Cblas b;
    b.sgemm = symbol<std::remove_pointer_t<decltype(b.sgemm)>>(library, "cblas_sgemm", "OpenBLAS");
    b.dgemm = symbol<std::remove_pointer_t<decltype(b.dgemm)>>(library, "cblas_dgemm", "OpenBLAS");
    b.description = "OpenBLAS";
    using Text = char*();
    using Count = int();
    if (auto* config = reinterpret_cast<Text*>(::dlsym(library, "openblas_get_config"))) b.description = config();
    if (auto* core = reinterpret_cast<Text*>(::dlsym(library, "openblas_get_corename")))
      b.description += std::string(", core ") + core();
    if (auto* threads = reinterpret_cast<Count*>(::dlsym(library, "openblas_get_num_threads")))
      b.description += ", " + std::to_string(threads()) + " threads";
    // Which kernel it runs, said with every run that calls it: a baseline is only as good as that.
    std::cerr << "gpubench: the host BLAS: " << b.description << std::endl;
    return b;
  }();
  return c;
}
#endif

#ifdef GPUBENCH_HOST_LAPACKE
struct Lapacke {
  decltype(&LAPACKE_sgetrf_work) sgetrf = nullptr;
  decltype(&LAPACKE_dgetrf_work) dgetrf = nullptr;
  decltype(&LAPACKE_dgecon) dgecon = nullptr;
};
const Lapacke& lapacke() {
  static const Lapacke l = [] {
    const std::lock_guard<std::mutex> lock(loading);
    size_threads_to_the_limit();
    void* library = open_library({"liblapacke.so.3", "liblapacke.so"}, "LAPACKE");
    Lapacke f;
    f.sgetrf = symbol<std::remove_pointer_t<decltype(f.sgetrf)>>(library, "LAPACKE_sgetrf_work", "LAPACKE");
    f.dgetrf = symbol<std::remove_pointer_t<decltype(f.dgetrf)>>(library, "LAPACKE_dgetrf_work", "LAPACKE");
    f.dgecon = symbol<std::remove_pointer_t<decltype(f.dgecon)>>(library, "LAPACKE_dgecon", "LAPACKE");
    Dl_info info{};
    if (void* getrf = ::dlsym(RTLD_DEFAULT, "dgetrf_"); getrf && ::dladdr(getrf, &info) && info.dli_fname)
      std::cerr << "gpubench: LAPACKE's dgetrf_ is " << info.dli_fname << std::endl;
    return f;
  }();
  return l;
}
#endif

[[maybe_unused]] [[noreturn]] void not_built(const char* what) {
  throw DeviceError(std::string(what) + " was not found when gpubench was configured");
}

}  // namespace

bool lapacke_built() {
#ifdef GPUBENCH_HOST_LAPACKE
  return true;
#else
  return false;
#endif
}

void gemm(bool transpose_a, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc) {
#ifdef GPUBENCH_HOST_CBLAS
  cblas().sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
                beta, c, ldc);
#else
  (void)transpose_a, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
  not_built("OpenBLAS (CBLAS)");
#endif
}

void gemm(bool transpose_a, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
          double beta, double* c, int ldc) {
#ifdef GPUBENCH_HOST_CBLAS
  cblas().dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
                beta, c, ldc);
#else
  (void)transpose_a, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
  not_built("OpenBLAS (CBLAS)");
#endif
}

int getrf(int n, float* a, int* ipiv) {
#ifdef GPUBENCH_HOST_LAPACKE
  static_assert(sizeof(lapack_int) == sizeof(int), "LAPACKE with 32-bit integers (LP64)");
  return lapacke().sgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
#else
  (void)n, (void)a, (void)ipiv;
  not_built("LAPACKE");
#endif
}

int getrf(int n, double* a, int* ipiv) {
#ifdef GPUBENCH_HOST_LAPACKE
  return lapacke().dgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
#else
  (void)n, (void)a, (void)ipiv;
  not_built("LAPACKE");
#endif
}

double gecon(int n, const double* lu, double a_one) {
#ifdef GPUBENCH_HOST_LAPACKE
  double rcond = 0;
  try {
    return lapacke().dgecon(LAPACK_COL_MAJOR, '1', n, lu, n, a_one, &rcond) == 0 ? rcond : -1;
  } catch (const DeviceError&) {
    return -1;  // LAPACKE cannot be loaded here: no estimate
  }
#else
  (void)n, (void)lu, (void)a_one;
  return -1;
#endif
}

std::string blas_description() {
#ifdef GPUBENCH_HOST_CBLAS
  return cblas().description;
#else
  not_built("OpenBLAS (CBLAS)");
#endif
}

}  // namespace gpubench::host_blas
