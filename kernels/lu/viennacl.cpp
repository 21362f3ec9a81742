// LU on the ViennaCL backends: ViennaCL's lu_factorize (in place, without pivoting: diagonally
// dominant matrices only) as the vendor variant, in its OpenCL domain (viennacl) or its host
// domain with OpenMP (viennacl_host). Timed on the host clock around the call, the device
// finished before and after (ViennaCL gives no events).
#include <viennacl/linalg/lu.hpp>
#include <viennacl/matrix.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backends/viennacl/domain.hpp"
#include "common/errors.hpp"
#include "kernels/lu/operations.hpp"

namespace gpubench::lu {

namespace {

using viennacl_backend::Domain;
using clock = std::chrono::steady_clock;

template <typename T>
class ViennaclOperations final : public Operations {
 public:
  explicit ViennaclOperations(Domain domain) : domain_(std::move(domain)) {}

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    domain_.activate();
    original_ = std::make_unique<Matrix>(static_cast<std::size_t>(n), static_cast<std::size_t>(n), domain_.context());
    const std::uint64_t bytes = static_cast<std::uint64_t>(original_->internal_size()) * sizeof(T);
    if (bytes > domain_.device().max_alloc_bytes)
      throw DeviceError("LU's matrix needs " + std::to_string(bytes) + " bytes in ViennaCL's layout; " +
                        domain_.device().label() + " takes buffers of at most " +
                        std::to_string(domain_.device().max_alloc_bytes) + " bytes here");
    std::vector<T> padded(original_->internal_size(), T(0));
    const std::size_t stride = original_->internal_size2();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        padded[static_cast<std::size_t>(i) * stride + static_cast<std::size_t>(j)] =
            static_cast<T>(a[static_cast<std::size_t>(i + j * n)]);
    viennacl::fast_copy(padded.data(), padded.data() + padded.size(), *original_);
    a_ = std::make_unique<Matrix>(static_cast<std::size_t>(n), static_cast<std::size_t>(n), domain_.context());
    reset();
  }
  void reset() override {
    domain_.activate();
    *a_ = *original_;
    domain_.finish();
  }
  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    std::vector<T> padded(a_->internal_size());
    viennacl::fast_copy(*a_, padded.data());
    const std::size_t stride = a_->internal_size2();
    lu.assign(static_cast<std::size_t>(n_ * n_), 0.0);
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < n_; ++j)
        lu[static_cast<std::size_t>(i + j * n_)] = padded[static_cast<std::size_t>(i) * stride + static_cast<std::size_t>(j)];
    ipiv.resize(static_cast<std::size_t>(n_));
    for (std::int64_t i = 0; i < n_; ++i) ipiv[static_cast<std::size_t>(i)] = static_cast<int>(i + 1);
  }

  void start() override {
    domain_.finish();
    start_ = clock::now();
  }
  double stop() override {
    domain_.finish();
    return std::chrono::duration<double>(clock::now() - start_).count();
  }
  void mark(double*) override {}
  void collect_marks() override {}

  void configure(const BlockedConfig&) override { refuse("blocked"); }
  void getf2(std::int64_t, std::int64_t) override { refuse("blocked"); }
  void laswp(std::int64_t, std::int64_t, std::int64_t, std::int64_t) override { refuse("blocked"); }
  void trsm(std::int64_t, std::int64_t, std::int64_t, std::int64_t) override { refuse("blocked"); }
  void gemm(std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t) override {
    refuse("blocked");
  }
  [[noreturn]] StudyRun study(Variant v, StepTimes*, double) override { refuse(to_string(v)); }

  void vendor() override {
    domain_.activate();
    viennacl::linalg::lu_factorize(*a_);
  }

 private:
  using Matrix = viennacl::matrix<T, viennacl::row_major>;
  [[noreturn]] void refuse(const std::string& what) const {
    throw DeviceError("LU variant " + what + " does not run on " + domain_.device().backend + " (vendor only)");
  }

  Domain domain_;
  std::int64_t n_ = 0;
  std::unique_ptr<Matrix> original_, a_;
  clock::time_point start_;
};

std::unique_ptr<Operations> make(Domain domain, Precision p) {
  if (p == Precision::f32) return std::make_unique<ViennaclOperations<float>>(std::move(domain));
  if (!domain.device().fp64) throw DeviceError("device " + domain.device().label() + " has no fp64 support: no f64 LU there");
  return std::make_unique<ViennaclOperations<double>>(std::move(domain));
}

}  // namespace

}  // namespace gpubench::lu

GPUBENCH_REGISTER_LU_OPERATIONS(
    "viennacl",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) {
      return gpubench::lu::make(gpubench::viennacl_backend::Domain::opencl(d), p);
    },
    gpubench::lu::BackendTraits{"ViennaCL 1.7 lu_factorize", {gpubench::lu::Variant::vendor}, false, nullptr});
GPUBENCH_REGISTER_LU_OPERATIONS(
    "viennacl_host",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) {
      return gpubench::lu::make(gpubench::viennacl_backend::Domain::host(d), p);
    },
    gpubench::lu::BackendTraits{"ViennaCL 1.7 lu_factorize", {gpubench::lu::Variant::vendor}, false, nullptr});
