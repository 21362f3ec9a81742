// GEMM on the ViennaCL backends: ViennaCL's prod (viennacl::linalg::prod_impl, C = alpha op(A) B
// + beta C) as the vendor variant, in its OpenCL domain (viennacl) or its host domain with OpenMP
// (viennacl_host). Timed on the host clock around the call, the device finished before and after
// (ViennaCL gives no events), as CG's ViennaCL solve is.
#include <viennacl/linalg/prod.hpp>
#include <viennacl/matrix.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/viennacl/domain.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

namespace {

using viennacl_backend::Domain;

template <typename T>
using Matrix = viennacl::matrix<T, viennacl::row_major>;

template <typename T>
class ViennaclOperations final : public Operations {
 public:
  explicit ViennaclOperations(Domain domain) : domain_(std::move(domain)) {}

  void upload(const Shape& s, const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& c0) override {
    shape_ = s;
    domain_.activate();
    a_ = put(a, s.transpose_a ? s.k : s.m, s.transpose_a ? s.m : s.k, "A");
    b_ = put(b, s.k, s.n, "B");
    c0_ = put(c0, s.m, s.n, "C");
    c_ = std::make_unique<Matrix<T>>(static_cast<std::size_t>(s.m), static_cast<std::size_t>(s.n), domain_.context());
  }

  double run(Variant v, const Params&, double alpha, double beta) override {
    if (v != Variant::vendor) throw DeviceError("GEMM variant " + to_string(v) + " does not run on " + domain_.device().backend);
    domain_.activate();
    *c_ = *c0_;
    domain_.finish();
    const auto start = std::chrono::steady_clock::now();
    if (shape_.transpose_a)
      viennacl::linalg::prod_impl(viennacl::trans(*a_), *b_, *c_, static_cast<T>(alpha), static_cast<T>(beta));
    else
      viennacl::linalg::prod_impl(*a_, *b_, *c_, static_cast<T>(alpha), static_cast<T>(beta));
    domain_.finish();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::vector<double> result() const override {
    std::vector<T> padded(c_->internal_size());
    viennacl::fast_copy(*c_, padded.data());
    std::vector<double> c(static_cast<std::size_t>(shape_.c_elements()));
    const std::size_t stride = c_->internal_size2(), n = static_cast<std::size_t>(shape_.n);
    for (std::size_t i = 0; i < static_cast<std::size_t>(shape_.m); ++i)
      std::copy(padded.begin() + static_cast<std::ptrdiff_t>(i * stride),
                padded.begin() + static_cast<std::ptrdiff_t>(i * stride + n), c.begin() + static_cast<std::ptrdiff_t>(i * n));
    return c;
  }

 private:
  // A rows x cols matrix in ViennaCL's padded row-major layout, from `v` (rows x cols, row-major).
  std::unique_ptr<Matrix<T>> put(const std::vector<double>& v, std::int64_t rows, std::int64_t cols, const char* what) {
    auto m = std::make_unique<Matrix<T>>(static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), domain_.context());
    const std::uint64_t bytes = static_cast<std::uint64_t>(m->internal_size()) * sizeof(T);
    if (bytes > domain_.device().max_alloc_bytes)
      throw DeviceError("GEMM's " + std::string(what) + " needs " + std::to_string(bytes) + " bytes in ViennaCL's layout; " +
                        domain_.device().label() + " takes buffers of at most " +
                        std::to_string(domain_.device().max_alloc_bytes) + " bytes here");
    std::vector<T> padded(m->internal_size(), T(0));
    const std::size_t stride = m->internal_size2(), c = static_cast<std::size_t>(cols);
    for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i)
      for (std::size_t j = 0; j < c; ++j) padded[i * stride + j] = static_cast<T>(v[i * c + j]);
    viennacl::fast_copy(padded.data(), padded.data() + padded.size(), *m);
    return m;
  }

  Domain domain_;
  Shape shape_;
  std::unique_ptr<Matrix<T>> a_, b_, c0_, c_;
};

std::unique_ptr<Operations> make(Domain domain, Precision p) {
  if (p == Precision::f32) return std::make_unique<ViennaclOperations<float>>(std::move(domain));
  if (!domain.device().fp64) throw DeviceError("device " + domain.device().label() + " has no fp64 support: no f64 GEMM there");
  return std::make_unique<ViennaclOperations<double>>(std::move(domain));
}

}  // namespace

}  // namespace gpubench::gemm

GPUBENCH_REGISTER_GEMM_OPERATIONS(
    "viennacl",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) {
      return gpubench::gemm::make(gpubench::viennacl_backend::Domain::opencl(d), p);
    },
    gpubench::gemm::BackendTraits{"ViennaCL 1.7 prod", {gpubench::gemm::Variant::vendor}, nullptr});
GPUBENCH_REGISTER_GEMM_OPERATIONS(
    "viennacl_host",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) {
      return gpubench::gemm::make(gpubench::viennacl_backend::Domain::host(d), p);
    },
    gpubench::gemm::BackendTraits{"ViennaCL 1.7 prod", {gpubench::gemm::Variant::vendor}, nullptr});
