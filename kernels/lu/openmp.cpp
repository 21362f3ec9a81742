// LU on the host (openmp): the blocked LU's steps with OpenMP threads, the updates through GEMM's
// own host kernels (kernels/gemm/openmp_kernels.hpp: the packed loop, or the study's cache-tiled
// loop, the tunable "update") on blocks of the column-major matrix; LAPACK's getrf through
// LAPACKE (Debian liblapacke-dev), which resolves to OpenBLAS's (libopenblas-dev) as the vendor
// variant. One queue: no look-ahead here; the
// study's forms are OpenCL's and CUDA's. Time: the host clock.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>


#include "backends/openmp/host_blas.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/openmp_kernels.hpp"
#include "kernels/lu/blocks.hpp"
#include "kernels/lu/operations.hpp"

namespace gpubench::lu {

namespace {

using clock = std::chrono::steady_clock;

template <typename T>
class HostOperations final : public Operations {
 public:
  explicit HostOperations(const DeviceInfo&) {}

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    original_.assign(a.begin(), a.end());
    reset();
  }
  void reset() override {
    a_ = original_;
    ipiv_.assign(static_cast<std::size_t>(n_), 0);
    one_based_ = false;
  }
  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    lu.assign(a_.begin(), a_.end());
    ipiv = ipiv_;
    if (!one_based_)
      for (auto& p : ipiv) ++p;
  }

  void start() override { start_ = clock::now(); }
  double stop() override { return std::chrono::duration<double>(clock::now() - start_).count(); }
  void mark(double* into) override {
    const auto now = clock::now();
    if (into && marked_) *into += std::chrono::duration<double>(now - last_).count();
    last_ = now;
    marked_ = true;
  }
  void collect_marks() override { marked_ = false; }

  void configure(const BlockedConfig& c) override { config_ = c; }

  void getf2(std::int64_t j, std::int64_t w) override {
    const std::int64_t n = n_;
    T* a = a_.data();
    const auto at = [n](std::int64_t i, std::int64_t k) { return static_cast<std::size_t>(i + k * n); };
    // Rows in chunks per thread; one parallel region for the whole panel.
    T best_value = 0;
    std::int64_t best_row = 0;
#pragma omp parallel
    {
      for (std::int64_t c = j; c < j + w; ++c) {
#pragma omp single
        {
          best_value = -1;
          best_row = n;
        }
        T mine = -1;
        std::int64_t mine_row = n;
#pragma omp for schedule(static) nowait
        for (std::int64_t r = c; r < n; ++r) {
          const T v = std::abs(a[at(r, c)]);
          if (v > mine) {
            mine = v;
            mine_row = r;
          }
        }
#pragma omp critical
        if (mine > best_value || (mine == best_value && mine_row < best_row)) {
          best_value = mine;
          best_row = mine_row;
        }
#pragma omp barrier
#pragma omp single
        {
          const bool swap = best_value > 0 && best_row != c;
          ipiv_[static_cast<std::size_t>(c)] = static_cast<int>(swap ? best_row : c);
          if (swap)
            for (std::int64_t k = j; k < j + w; ++k) std::swap(a[at(c, k)], a[at(best_row, k)]);
        }
        const T pivot = a[at(c, c)];
        if (pivot != T(0)) {
#pragma omp for schedule(static)
          for (std::int64_t r0 = c + 1; r0 < n; r0 += 256) {
            const std::int64_t r1 = std::min(n, r0 + 256);
            for (std::int64_t r = r0; r < r1; ++r) a[at(r, c)] /= pivot;
            for (std::int64_t k = c + 1; k < j + w; ++k) {
              const T u = a[at(c, k)];
              for (std::int64_t r = r0; r < r1; ++r) a[at(r, k)] -= a[at(r, c)] * u;
            }
          }
        }
      }
    }
  }

  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    T* a = a_.data();
    const std::int64_t n = n_;
#pragma omp parallel for schedule(static)
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t p = ipiv_[static_cast<std::size_t>(k)];
        if (p != k) std::swap(a[k + c * n], a[p + c * n]);
      }
  }

  // L X = B, L the unit lower triangle of the w x w block at (j, j), B rows j .. j + w of columns
  // c0 .. c1, solved in place: in halves down to 32 rows, the lower half's rows updated from the
  // upper half's solution through GEMM's host kernel (most of the FLOPs, as in the trailing update).
  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || w <= 0) return;
    if (w <= 32) return solve(j, w, c0, c1);
    const std::int64_t upper = w / 2;
    trsm(j, upper, c0, c1);
    gemm(j + upper, j + w, c0, c1, j, j + upper);
    trsm(j + upper, w - upper, c0, c1);
  }

  // The same by substitution, column by column.
  void solve(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) {
    T* a = a_.data();
    const std::int64_t n = n_;
#pragma omp parallel for schedule(static)
    for (std::int64_t c = c0; c < c1; ++c) {
      T* x = a + j + c * n;
      for (std::int64_t k = 0; k < w; ++k) {
        const T xk = x[k];
        const T* l = a + j + (j + k) * n;
        for (std::int64_t r = k + 1; r < w; ++r) x[r] -= l[r] * xk;
      }
    }
  }

  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    const auto tile = config_.gemm_params.find("tile");
    const auto loop = config_.gemm_variant == "packed" ? gemm::HostLoop::packed : gemm::HostLoop::tiled;
    const auto kc = config_.gemm_params.find("kc");
    gemm::host_gemm<T>(loop, trailing_update(n_, r0, r1, c0, c1, k0, k1),
                       tile == config_.gemm_params.end() ? 32 : tile->second, 0, T(-1), a_.data(), a_.data(), T(1),
                       a_.data(), gemm::Packing{kc == config_.gemm_params.end() ? 0 : static_cast<int>(kc->second), 0, 0});
  }

  void vendor() override {
    std::vector<int> ipiv(static_cast<std::size_t>(n_));
    const int info = ::gpubench::host_blas::getrf(static_cast<int>(n_), a_.data(), ipiv.data());
    if (info < 0) throw DeviceError("LAPACKE getrf: argument " + std::to_string(-info) + " was wrong");
    ipiv_.assign(ipiv.begin(), ipiv.end());
    one_based_ = true;
  }

  nlohmann::json host_blas() const override { return ::gpubench::host_blas::lapack_info().to_json(); }

  StudyRun study(Variant v, StepTimes*, double) override {
    throw DeviceError("the study's form " + to_string(v) + " is an OpenCL and CUDA form: not on openmp");
  }

 private:
  std::int64_t n_ = 0;
  std::vector<T> original_, a_;
  std::vector<int> ipiv_;
  bool one_based_ = false;
  BlockedConfig config_;
  clock::time_point start_, last_;
  bool marked_ = false;
};

// The library the vendor variant calls: LAPACKE's getrf, which calls LAPACK's dgetrf_ (Debian's
// alternatives point it at OpenBLAS's), loaded when first called (host_blas.hpp).
std::string vendor_library() { return ::gpubench::host_blas::lapacke_built() ? "LAPACKE dgetrf/sgetrf" : ""; }

}  // namespace

}  // namespace gpubench::lu

GPUBENCH_REGISTER_LU_OPERATIONS(
    "openmp",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::lu::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::lu::HostOperations<float>>(d);
      return std::make_unique<gpubench::lu::HostOperations<double>>(d);
    },
    gpubench::lu::BackendTraits{gpubench::lu::vendor_library(),
                                {gpubench::lu::Variant::blocked, gpubench::lu::Variant::vendor},
                                true,
                                [](const gpubench::DeviceInfo&, gpubench::Precision) { return std::vector<std::string>{"packed", "tiled"}; },
                                false,
                                "LAPACKE was not found when configured (Debian liblapacke-dev)"});
