// GEMM on the openmp backend: the host kernels of openmp_kernels.cpp on the host's threads.
#include <chrono>

#include "kernels/gemm/openmp_kernels.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

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
    host_gemm<T>(v == Variant::tiled ? HostLoop::tiled : HostLoop::naive, shape_, tile == params.end() ? 32 : tile->second,
                 v == Variant::serial ? 1 : 0, static_cast<T>(alpha), a_.data(), b_.data(), static_cast<T>(beta),
                 c_.data());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::vector<double> result() const override { return {c_.begin(), c_.end()}; }

 private:
  Shape shape_;
  std::vector<T> a_, b_, c0_, c_;
};

}  // namespace

}  // namespace gpubench::gemm

GPUBENCH_REGISTER_GEMM_OPERATIONS("openmp", [](const gpubench::DeviceInfo&, gpubench::Precision p)
                                                -> std::unique_ptr<gpubench::gemm::Operations> {
  if (p == gpubench::Precision::f32) return std::make_unique<gpubench::gemm::OpenmpOperations<float>>();
  return std::make_unique<gpubench::gemm::OpenmpOperations<double>>();
});
