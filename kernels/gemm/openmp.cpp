// GEMM on the openmp backend: the host kernels of openmp_kernels.cpp on the host's threads.
#include <chrono>

#ifdef GPUBENCH_GEMM_OPENBLAS
#include <cblas.h>  // OPENBLAS_VERSION only: the library is loaded when first called (host_blas.hpp)
#endif

#include "kernels/gemm/openmp_kernels.hpp"
#include "kernels/gemm/operations.hpp"

#include <type_traits>

#include "backends/openmp/host_blas.hpp"
#include "backends/openmp/huge_pages.hpp"
#include "common/errors.hpp"

namespace gpubench::gemm {

#ifdef GPUBENCH_GEMM_OPENBLAS
constexpr const char* vendor_library = OPENBLAS_VERSION;  // " OpenBLAS 0.3.21 "
#else
constexpr const char* vendor_library = "";
#endif

namespace {

template <typename T>
class OpenmpOperations final : public Operations {
 public:
  void upload(const Shape& s, const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& c0) override {
    shape_ = s;
    a_.assign(a.begin(), a.end());
    b_.assign(b.begin(), b.end());
    c0_.assign(c0.begin(), c0.end());
    c_ = c0_;
  }

  double run(Variant v, const Params& params, double alpha, double beta) override {
    c_ = c0_;
    const auto tile = params.find("tile");
    const auto start = std::chrono::steady_clock::now();
    if (v == Variant::vendor || v == Variant::blis) {
      vendor(v, alpha, beta);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const HostLoop loop = v == Variant::tiled ? HostLoop::tiled : v == Variant::packed ? HostLoop::packed : HostLoop::naive;
    const auto kc = params.find("kc");
    host_gemm<T>(loop, whole(shape_), tile == params.end() ? 32 : tile->second,
                 v == Variant::serial ? 1 : 0, static_cast<T>(alpha), a_.data(), b_.data(), static_cast<T>(beta),
                 c_.data(), Packing{kc == params.end() ? 0 : static_cast<int>(kc->second), 0, 0});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The records' library_mode and host_blas of the vendor and blis variants: the library that ran,
  // its kernels and threads (Debian's OpenBLAS picks its generic Prescott kernels on some hosts: a
  // baseline is only as good as that).
  std::string mode(Variant v) const override {
    const auto* info = library(v);
    return info ? info->description() : "";
  }
  nlohmann::json host_blas(Variant v) const override {
    const auto* info = library(v);
    return info ? info->to_json() : nlohmann::json();
  }

  std::vector<double> result() const override { return {c_.begin(), c_.end()}; }

 private:
  // The host BLAS `v` calls: OpenBLAS (vendor), BLIS (blis); nullptr for the own kernels.
  static const ::gpubench::host_blas::BlasInfo* library(Variant v) {
    if (v == Variant::vendor) return &::gpubench::host_blas::blas_info();
    if (v == Variant::blis) return &::gpubench::host_blas::blis_info();
    return nullptr;
  }

  // The library's GEMM (OpenBLAS for vendor, BLIS for blis), row-major, A transposed for TN.
  void vendor(Variant v, double alpha, double beta) {
    const int m = static_cast<int>(shape_.m), n = static_cast<int>(shape_.n), k = static_cast<int>(shape_.k);
    const int lda = shape_.transpose_a ? m : k;
    if (v == Variant::blis)
      ::gpubench::host_blas::blis_gemm(shape_.transpose_a, m, n, k, static_cast<T>(alpha), a_.data(), lda, b_.data(),
                                       n, static_cast<T>(beta), c_.data(), n);
    else
      ::gpubench::host_blas::gemm(shape_.transpose_a, m, n, k, static_cast<T>(alpha), a_.data(), lda, b_.data(), n,
                                  static_cast<T>(beta), c_.data(), n);
  }

  Shape shape_;
  host_memory::Vector<T> a_, b_, c0_, c_;  // in huge pages, for every host variant alike
};

}  // namespace

}  // namespace gpubench::gemm

GPUBENCH_REGISTER_GEMM_OPERATIONS(
    "openmp",
    [](const gpubench::DeviceInfo&, gpubench::Precision p) -> std::unique_ptr<gpubench::gemm::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::gemm::OpenmpOperations<float>>();
      return std::make_unique<gpubench::gemm::OpenmpOperations<double>>();
    },
    gpubench::gemm::BackendTraits{
        gpubench::gemm::vendor_library,
        {gpubench::gemm::Variant::naive, gpubench::gemm::Variant::tiled, gpubench::gemm::Variant::serial,
         gpubench::gemm::Variant::packed, gpubench::gemm::Variant::vendor, gpubench::gemm::Variant::blis},
        // BLIS is looked for when a run asks for it (loaded at run time; no build-time trace).
        [](const gpubench::DeviceInfo&, gpubench::gemm::Variant v, gpubench::Precision) {
          return v == gpubench::gemm::Variant::blis ? gpubench::host_blas::blis_missing() : std::string();
        },
        "no BLAS library was found when configured (Debian libopenblas-dev)"});
