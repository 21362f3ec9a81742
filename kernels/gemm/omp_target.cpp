// GEMM on the omp_target backend, as an OpenMP programmer writes it for a GPU: naive, the rows of C
// in a `target teams distribute parallel for` and each row's elements in a `simd` loop; tiled, C's
// elements visited tile x tile block by block (the tunable "tile") in one `target teams distribute
// parallel for simd`, thread_limit from the tunable work_group_size (omp_target::thread_limit), K
// walked in tile-deep steps. GCC's nvptx runs an OpenMP thread per warp and a simd lane per CUDA
// thread: without `simd` a warp's 31 other lanes idle, and a simd loop collapsed with its outer
// loop (collapse(2)) runs as slowly as none (GEMM 2048 f32 on the H100: 24.6 GFLOP/s collapsed,
// 1173 with the rows in `parallel for` and `simd` over each row). A, B and C stay on the device
// (omp_target_alloc); C is reset from C0 there before each timed region. Each region also says
// whether it ran on the initial device: a point asked of a GPU that ran on the host fails
// (omp_target::check_ran_where_asked). On Clang also tuned, each thread a register block of C
// (kernels/gemm/omp_target_tuned.h), and tensor, f64 on a GPU's FP64 tensor cores through inline
// PTX (kernels/gemm/omp_target_tensor.h).
#include <omp.h>

#include <algorithm>
#include <memory>
#include <type_traits>

#include "backends/omp_target/omp_target.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/omp_target_tuned.h"
#ifdef GPUBENCH_OMP_TARGET_CLANG
#include "kernels/gemm/omp_target_tensor.h"
#endif
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

namespace {

template <typename T>
class OmpTargetOperations final : public Operations {
 public:
  explicit OmpTargetOperations(const DeviceInfo& device) : device_(device), number_(omp_target::device_number(device)) {}

  void upload(const Shape& s, const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& c0) override {
    shape_ = s;
    a_ = put(a);
    b_ = put(b);
    c0_ = put(c0);
    c_ = std::make_unique<omp_target::Buffer>(number_, c0_->bytes());
  }

  double run(Variant v, const Params& params, double alpha, double beta) override {
    if constexpr (tuned_here)
      if (v == Variant::tuned) return run_tuned(params, alpha, beta);
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if constexpr (std::is_same_v<T, double>)
      if (v == Variant::tensor) return run_tensor(params, alpha, beta);
#endif
    if (v != Variant::naive && v != Variant::tiled)
      throw DeviceError(std::string(omp_target::backend_name) + " runs GEMM's naive and tiled variants, not " + to_string(v));
    c_->copy_from(*c0_);
    const auto tile_param = params.find("tile");
    const std::int64_t tile = tile_param == params.end() ? 16 : tile_param->second;
    const auto threads_param = params.find("work_group_size");
    const int threads = omp_target::thread_limit(device_, threads_param == params.end() ? 256 : static_cast<int>(threads_param->second));
    const std::int64_t m = shape_.m, n = shape_.n, k = shape_.k;
    const bool ta = shape_.transpose_a;
    const T* a = static_cast<const T*>(a_->data());
    const T* b = static_cast<const T*>(b_->data());
    T* c = static_cast<T*>(c_->data());
    const T al = static_cast<T>(alpha), be = static_cast<T>(beta);
    const int dev = number_;
    int initial = 0;
    const double start = omp_get_wtime();
    if (v == Variant::naive) {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c) map(tofrom : initial)
      for (std::int64_t i = 0; i < m; ++i) {
        if (i == 0) initial = omp_is_initial_device();
#pragma omp simd
        for (std::int64_t j = 0; j < n; ++j) {
          T acc = 0;
          for (std::int64_t l = 0; l < k; ++l) acc += a[ta ? l * m + i : i * k + l] * b[l * n + j];
          c[i * n + j] = al * acc + be * c[i * n + j];
        }
      }
    } else {
      // C's elements in tile x tile blocks, one block after another: each team's share of the
      // iterations is whole blocks, a block's rows in order and a row's elements on consecutive
      // lanes. (No std::min in a simd loop: a local whose address is taken there stops GCC 12's
      // nvptx compiler with an internal error.)
      const std::int64_t tiles_m = (m + tile - 1) / tile, tiles_n = (n + tile - 1) / tile;
      const std::int64_t per = tile * tile, total = tiles_m * tiles_n * per;
#pragma omp target teams distribute parallel for simd device(dev) thread_limit(threads) is_device_ptr(a, b, c) \
    map(tofrom : initial)
      for (std::int64_t e = 0; e < total; ++e) {
        if (e == 0) initial = omp_is_initial_device();
        const std::int64_t t = e / per, w = e % per;
        const std::int64_t i = t / tiles_n * tile + w / tile, j = t % tiles_n * tile + w % tile;
        if (i >= m || j >= n) continue;
        T acc = 0;
        for (std::int64_t l0 = 0; l0 < k; l0 += tile) {
          const std::int64_t l1 = l0 + tile < k ? l0 + tile : k;  // not std::min: no address taken in a simd loop
          for (std::int64_t l = l0; l < l1; ++l) acc += a[ta ? l * m + i : i * k + l] * b[l * n + j];
        }
        c[i * n + j] = al * acc + be * c[i * n + j];
      }
    }
    const double seconds = omp_get_wtime() - start;
    omp_target::check_ran_where_asked(device_, initial != 0, "GEMM's " + to_string(v) + " region");
    return seconds;
  }

  std::vector<double> result() const override {
    std::vector<T> host(static_cast<std::size_t>(shape_.c_elements()));
    c_->download(host.data(), host.size() * sizeof(T));
    return {host.begin(), host.end()};
  }

  std::string mode(Variant) const override { return device_.platform; }
  // Clang's tensor variant (omp_target_tensor.h) issues FP64 mma.sync on a GPU.
  std::string compute_unit(Variant v) const override {
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (v == Variant::tensor && device_.type == "gpu") return "f64 tensor";
#endif
    (void)v;
    return {};
  }

  nlohmann::json gap_causes(Variant v) const override {
    nlohmann::json causes = nlohmann::json::array();
    if (device_.type != "gpu") return causes;
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (v == Variant::tensor) {
      causes.push_back(gap_cause("compiler", omp_tensor::team_memory_gap));
      causes.push_back(gap_cause("gpubench", omp_tensor::own_gap));
    } else {
      causes.push_back(gap_cause("gpubench", "the FMA units: Clang's tensor-core path is the tensor variant"));
    }
#else
    (void)v;
    causes.push_back(gap_cause("compiler", omp_tuned::no_tensor_path));
#endif
    if (const std::string g = omp_target::compiler_gap(device_); !g.empty()) causes.push_back(gap_cause("compiler", g));
    return causes;
  }

 private:
#ifdef GPUBENCH_OMP_TARGET_CLANG
  static constexpr bool tuned_here = true;
#else
  static constexpr bool tuned_here = false;
#endif

  // Row-major C = alpha A B + beta C is column-major C^T = alpha B^T A^T + beta C^T: the kernel's A
  // is B (n x k, leading dimension n), its B is A^T, whose (l, i) is a[i k + l] (A transposed in
  // memory: a[l m + i]).
  double run_tuned(const Params& params, double alpha, double beta) {
    const omp_tuned::Shape s = omp_tuned::shape_of(params);
    c_->copy_from(*c0_);
    const std::int64_t m = shape_.m, n = shape_.n, k = shape_.k;
    const bool ta = shape_.transpose_a;
    int initial = 0;
    const double start = omp_get_wtime();
    omp_tuned::dispatch<T>(number_, s, n, m, k, static_cast<T>(alpha), static_cast<const T*>(b_->data()), n,
                           static_cast<const T*>(a_->data()), ta ? m : k, ta, static_cast<T>(beta),
                           static_cast<T*>(c_->data()), n, &initial);
    const double seconds = omp_get_wtime() - start;
    omp_target::check_ran_where_asked(device_, initial != 0, "GEMM's tuned region");
    return seconds;
  }

#ifdef GPUBENCH_OMP_TARGET_CLANG
  // The same transposition as run_tuned's. The region leaves the status where it ran on the GPU
  // with its warps (status_, set to 0 before), else says why not: read after the timed region.
  double run_tensor(const Params& params, double alpha, double beta) {
    const omp_tensor::Shape s = omp_tensor::shape_of(params);
    c_->copy_from(*c0_);
    if (!status_) status_ = std::make_unique<omp_target::Buffer>(number_, sizeof(int));
    const int zero = 0;
    status_->upload(&zero, sizeof zero);
    const std::int64_t m = shape_.m, n = shape_.n, k = shape_.k;
    const bool ta = shape_.transpose_a;
    const double start = omp_get_wtime();
    omp_tensor::dispatch(number_, s, n, m, k, alpha, static_cast<const double*>(b_->data()), n,
                         static_cast<const double*>(a_->data()), ta ? m : k, ta, beta, static_cast<double*>(c_->data()), n,
                         static_cast<int*>(status_->data()));
    const double seconds = omp_get_wtime() - start;
    int status = 0;
    status_->download(&status, sizeof status);
    omp_target::check_ran_where_asked(device_, status == 1, "GEMM's tensor region");
    if (status == 2)
      throw DeviceError("GEMM's tensor region on " + device_.name + " ran with fewer threads than its " +
                        std::to_string(32 * s.wm * s.wn) + " (the warps its block of C needs)");
    return seconds;
  }
#endif

  std::unique_ptr<omp_target::Buffer> put(const std::vector<double>& values) const {
    std::vector<T> host(values.begin(), values.end());
    auto buffer = std::make_unique<omp_target::Buffer>(number_, host.size() * sizeof(T));
    buffer->upload(host.data(), buffer->bytes());
    return buffer;
  }

  DeviceInfo device_;
  int number_;
  Shape shape_;
  std::unique_ptr<omp_target::Buffer> a_, b_, c0_, c_, status_;
};

}  // namespace

}  // namespace gpubench::gemm

GPUBENCH_REGISTER_GEMM_OPERATIONS(
    gpubench::omp_target::backend_name,
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::gemm::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::gemm::OmpTargetOperations<float>>(d);
      return std::make_unique<gpubench::gemm::OmpTargetOperations<double>>(d);
    },
    gpubench::gemm::BackendTraits{"",
#ifdef GPUBENCH_OMP_TARGET_CLANG
                                  {gpubench::gemm::Variant::naive, gpubench::gemm::Variant::tiled, gpubench::gemm::Variant::tuned,
                                   gpubench::gemm::Variant::tensor},
                                  [](const gpubench::DeviceInfo& d, gpubench::gemm::Variant v, gpubench::Precision p) -> std::string {
                                    if (v != gpubench::gemm::Variant::tensor) return {};
                                    if (p == gpubench::Precision::f32) return "tensor runs f64 only (FP64 tensor cores)";
                                    if (d.type != "gpu") return "tensor runs on an NVIDIA GPU's FP64 tensor cores, which the initial device (the host) lacks";
                                    return {};
                                  },
#else
                                  {gpubench::gemm::Variant::naive, gpubench::gemm::Variant::tiled},
                                  nullptr,
#endif
                                  "OpenMP target offload has no BLAS of its own"});
