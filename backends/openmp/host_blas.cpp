#include "backends/openmp/host_blas.hpp"

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <sstream>

#ifdef GPUBENCH_HOST_CBLAS
#include <cblas.h>
#endif
#ifdef GPUBENCH_HOST_LAPACKE
#include <lapacke.h>
#endif

#include "common/errors.hpp"
#include "common/host_isa.hpp"
#include "common/host_memory.hpp"
#include "common/test_hooks.hpp"

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

// A loaded library's file with the links resolved (Debian's alternatives: liblapack.so.3 is
// OpenBLAS's or the reference LAPACK).
std::string real_path(const char* file) {
  std::error_code error;
  const auto path = std::filesystem::canonical(file, error);
  return error ? std::string(file) : path.string();
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// HostIsa's levels (common/host_isa.hpp) by name; -1 for none.
int isa_level(const std::string& name) {
  for (std::size_t i = 0; i < host_isa_names.size(); ++i)
    if (lower(name) == lower(host_isa_names[i])) return static_cast<int>(i);
  return -1;
}

// The instruction set of a library's kernels for `core` (OpenBLAS's core names, from its
// dynamic.c; BLIS's configuration names), as HostIsa's level; -1 where unknown (another
// architecture, a new name).
int core_level(const std::string& library, const std::string& core) {
  struct Core {
    const char* name;
    int level;
  };
  static constexpr Core openblas[] = {
      {"katmai", 0},       {"coppermine", 0}, {"northwood", 0},  {"banias", 0},    {"athlon", 0},
      {"opteron", 0},      {"prescott", 1},   {"opteron_sse3", 1}, {"nano", 1},    {"core2", 2},
      {"penryn", 2},       {"dunnington", 2}, {"nehalem", 2},    {"atom", 2},      {"barcelona", 2},
      {"bobcat", 2},       {"sandybridge", 3}, {"bulldozer", 3}, {"piledriver", 3}, {"steamroller", 3},
      {"haswell", 4},      {"excavator", 4},  {"zen", 4},        {"skylakex", 5},  {"cooperlake", 5},
      {"sapphirerapids", 5}};
  static constexpr Core blis[] = {{"generic", 0}, {"penryn", 2},  {"sandybridge", 3}, {"bulldozer", 3},
                                  {"piledriver", 3}, {"steamroller", 3}, {"excavator", 4}, {"haswell", 4},
                                  {"zen", 4},      {"zen2", 4},    {"zen3", 4},        {"zen4", 5},
                                  {"skx", 5},      {"knl", 5}};
  const std::string name = lower(core);
  if (library == "OpenBLAS")
    for (const Core& c : openblas)
      if (name == c.name) return c.level;
  if (library == "BLIS")
    for (const Core& c : blis)
      if (name == c.name) return c.level;
  return -1;
}

// The setting that chooses kernels for an instruction set: OpenBLAS's core, BLIS's configuration.
std::string choose(const std::string& library, int level) {
  static constexpr std::array<const char*, 6> openblas = {"Prescott", "Prescott", "Nehalem", "Sandybridge", "Haswell",
                                                          "SkylakeX"};
  static constexpr std::array<const char*, 6> blis = {"generic", "generic", "penryn", "sandybridge", "haswell", "skx"};
  const auto i = static_cast<std::size_t>(level);
  if (library == "OpenBLAS") return std::string("OPENBLAS_CORETYPE=") + openblas[i];
  if (library == "BLIS") return std::string("BLIS_ARCH_TYPE=") + blis[i];
  return {};
}

// OpenBLAS's own words on itself: `library` a dlopen handle (or RTLD_DEFAULT), `function` one of
// its functions (for the file it was loaded from).
[[maybe_unused]] BlasInfo openblas_info(void* library, void* function) {
  BlasInfo info;
  info.library = "OpenBLAS";
  using Text = char*();
  using Count = int();
  if (auto* config = reinterpret_cast<Text*>(::dlsym(library, "openblas_get_config"))) {
    info.config = config();
    std::istringstream words(info.config);
    std::string name;
    words >> name >> info.version;  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."
  }
  if (auto* core = reinterpret_cast<Text*>(::dlsym(library, "openblas_get_corename"))) info.core = core();
  if (auto* threads = reinterpret_cast<Count*>(::dlsym(library, "openblas_get_num_threads"))) info.threads = threads();
  Dl_info where{};
  if (function && ::dladdr(function, &where) && where.dli_fname) info.file = real_path(where.dli_fname);
  classify(info);
  return info;
}

#ifdef GPUBENCH_HOST_CBLAS
struct Cblas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  BlasInfo info;
};
const Cblas& cblas() {
  static const Cblas c = [] {
    const std::lock_guard<std::mutex> lock(loading);
    size_threads_to_the_limit();
    void* library = open_library({"libopenblas.so.0", "libopenblas.so"}, "BLAS (OpenBLAS)");
    Cblas b;
    b.sgemm = symbol<std::remove_pointer_t<decltype(b.sgemm)>>(library, "cblas_sgemm", "OpenBLAS");
    b.dgemm = symbol<std::remove_pointer_t<decltype(b.dgemm)>>(library, "cblas_dgemm", "OpenBLAS");
    b.info = openblas_info(library, reinterpret_cast<void*>(b.dgemm));
    // Which kernel it runs, said with every run that calls it: a baseline is only as good as that.
    std::cerr << "gpubench: the host BLAS: " << b.info.description() << std::endl;
    if (!b.info.weaker.empty()) std::cerr << "gpubench: warning: " << b.info.weaker << std::endl;
    return b;
  }();
  return c;
}
#endif

// BLIS's CBLAS (the same signatures and enumerations as <cblas.h>, declared here: BLIS is loaded
// at run time, with no header at build time).
enum BlisOrder { blis_row_major = 101 };
enum BlisTranspose { blis_no_trans = 111, blis_trans = 112 };
struct Blis {
  void (*sgemm)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int) =
      nullptr;
  void (*dgemm)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int) =
      nullptr;
  BlasInfo info;
  std::string missing;  // why it cannot be used; empty: it can
};

const Blis& blis() {
  static const Blis b = [] {
    const std::lock_guard<std::mutex> lock(loading);
    Blis f;
    void* library = nullptr;
    std::string errors;
    for (const char* name : {"libblis.so.4", "libblis.so"}) {
      if ((library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND))) break;
      const char* e = ::dlerror();
      errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
    }
    if (!library) {
      f.missing = "BLIS cannot be loaded: " + errors + " (Debian: libblis4-openmp)";
      return f;
    }
    using Text = const char*();
    using Arch = int();
    using ArchName = const char*(int);
    using SetThreads = void(long);
    using Threads = long();
    f.sgemm = reinterpret_cast<decltype(f.sgemm)>(::dlsym(library, "cblas_sgemm"));
    f.dgemm = reinterpret_cast<decltype(f.dgemm)>(::dlsym(library, "cblas_dgemm"));
    auto* init = reinterpret_cast<void (*)()>(::dlsym(library, "bli_init"));
    auto* version = reinterpret_cast<Text*>(::dlsym(library, "bli_info_get_version_str"));
    auto* arch = reinterpret_cast<Arch*>(::dlsym(library, "bli_arch_query_id"));
    auto* arch_name = reinterpret_cast<ArchName*>(::dlsym(library, "bli_arch_string"));
    auto* set_threads = reinterpret_cast<SetThreads*>(::dlsym(library, "bli_thread_set_num_threads"));
    auto* threads = reinterpret_cast<Threads*>(::dlsym(library, "bli_thread_get_num_threads"));
    if (!f.sgemm || !f.dgemm || !init || !version || !arch || !arch_name || !set_threads || !threads) {
      f.missing = "the BLIS loaded has no CBLAS or no bli_* queries (a BLIS built without --enable-cblas?)";
      f.sgemm = nullptr, f.dgemm = nullptr;
      return f;
    }
    init();
    if (!std::getenv("BLIS_NUM_THREADS")) {
      long n = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
      if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp && std::atol(omp) > 0) n = std::atol(omp);
      set_threads(n);
    }
    f.info.library = "BLIS";
    f.info.version = version();
    f.info.core = arch_name(arch());
    f.info.threads = static_cast<int>(threads());
    f.info.config = "BLIS " + f.info.version + ", configuration " + f.info.core;
    Dl_info where{};
    if (::dladdr(reinterpret_cast<void*>(f.dgemm), &where) && where.dli_fname) f.info.file = real_path(where.dli_fname);
    classify(f.info);
    std::cerr << "gpubench: BLIS: " << f.info.description() << std::endl;
    if (!f.info.weaker.empty()) std::cerr << "gpubench: warning: " << f.info.weaker << std::endl;
    return f;
  }();
  return b;
}

const Blis& loaded_blis() {
  const Blis& b = blis();
  if (!b.missing.empty()) throw DeviceError(b.missing);
  return b;
}

#ifdef GPUBENCH_HOST_LAPACKE
struct Lapacke {
  decltype(&LAPACKE_sgetrf_work) sgetrf = nullptr;
  decltype(&LAPACKE_dgetrf_work) dgetrf = nullptr;
  decltype(&LAPACKE_dgecon) dgecon = nullptr;
  BlasInfo info;  // what its getrf runs in
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
    // LAPACK's getrf_ and the BLAS it calls: OpenBLAS's where Debian's alternatives resolve
    // liblapack.so.3 to it (its functions are then in the global namespace), else named by file.
    void* getrf = ::dlsym(RTLD_DEFAULT, "dgetrf_");
    if (::dlsym(RTLD_DEFAULT, "openblas_get_corename")) {
      f.info = openblas_info(RTLD_DEFAULT, getrf);
    } else {
      Dl_info where{};
      f.info.library = "LAPACK";
      if (getrf && ::dladdr(getrf, &where) && where.dli_fname) f.info.file = real_path(where.dli_fname);
      classify(f.info);
    }
    std::cerr << "gpubench: LAPACKE's getrf: " << f.info.description() << std::endl;
    if (!f.info.weaker.empty()) std::cerr << "gpubench: warning: " << f.info.weaker << std::endl;
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

const BlasInfo& blas_info() {
#ifdef GPUBENCH_HOST_CBLAS
  return cblas().info;
#else
  not_built("OpenBLAS (CBLAS)");
#endif
}

std::string blis_missing() { return blis().missing; }

void blis_gemm(bool transpose_a, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc) {
  loaded_blis().sgemm(blis_row_major, transpose_a ? blis_trans : blis_no_trans, blis_no_trans, m, n, k, alpha, a, lda,
                      b, ldb, beta, c, ldc);
}

void blis_gemm(bool transpose_a, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
               double beta, double* c, int ldc) {
  loaded_blis().dgemm(blis_row_major, transpose_a ? blis_trans : blis_no_trans, blis_no_trans, m, n, k, alpha, a, lda,
                      b, ldb, beta, c, ldc);
}

const BlasInfo& blis_info() { return loaded_blis().info; }

const BlasInfo& lapack_info() {
#ifdef GPUBENCH_HOST_LAPACKE
  return lapacke().info;
#else
  not_built("LAPACKE");
#endif
}

void classify(BlasInfo& info, const std::string& host_isa) {
  if (const char* planted = test_hook("GPUBENCH_BLAS_CORE")) {
    info.core = planted;
    info.planted = true;
  }
  const int core = core_level(info.library, info.core);
  const int host = host_isa.empty() ? static_cast<int>(::gpubench::host_isa()) : isa_level(host_isa);
  info.core_isa = core >= 0 ? host_isa_names[static_cast<std::size_t>(core)] : "";
  info.host_isa = host >= 0 ? host_isa_names[static_cast<std::size_t>(host)] : "";
  info.weaker.clear();
  if (core >= 0 && host > core)
    info.weaker = info.library + " runs its " + info.core + " kernels (" + info.core_isa + ") on a host with " +
                  info.host_isa + ": a baseline narrower than the host; " + choose(info.library, host) +
                  " chooses kernels for it";
}

std::string BlasInfo::description() const {
  std::string text = library + (version.empty() ? "" : " " + version);
  if (!core.empty()) text += ", core " + core + (planted ? " (planted by GPUBENCH_BLAS_CORE)" : "");
  if (!core_isa.empty()) text += " (" + core_isa + ")";
  if (threads > 0) text += ", " + std::to_string(threads) + " threads";
  if (!file.empty()) text += ", " + file;
  return text;
}

nlohmann::json BlasInfo::to_json() const {
  nlohmann::json j = {{"library", library}, {"version", version}, {"core", core},   {"core_isa", core_isa},
                      {"host_isa", host_isa}, {"threads", threads}, {"config", config}, {"file", file}};
  if (planted) j["planted"] = true;
  if (!weaker.empty()) j["weaker_than_host"] = weaker;
  return j;
}

}  // namespace gpubench::host_blas
