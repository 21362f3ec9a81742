// LU on the omp_target backend: the blocked LU's steps (kernels/lu/operations.cpp's algorithm, one
// queue, no look-ahead) as OpenMP target regions on the column-major matrix in device memory.
// getf2 factors a panel of at most leaf_max columns in one region of one team (GCC's default of 8
// OpenMP threads, warps: 32 were slower on the H100, 3.25 s against 2.46 s of panels at 8192): its
// threads find each column's pivot by a max then a min reduction, swap, scale and update the
// panel's columns, the team's barriers between the steps (one region per panel: a region costs
// GCC's runtime about 0.4 ms, and several per column would cost more than the panel's work); laswp,
// trsm's substitution and the trailing GEMM are `target teams distribute parallel for simd`
// regions (GCC's nvptx runs an OpenMP thread per warp, a simd lane per CUDA thread), the GEMM
// over tile x tile blocks of the update, GEMM's tiled kernel's tunable "tile", tuned for GEMM.
// The pivots stay on the device until the factors are read. Every region is synchronous: the
// host's clock around them is the device time. A factorization asked of a GPU whose panel ran on
// the host fails (omp_target::check_ran_where_asked).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "backends/omp_target/omp_target.hpp"
#include "common/errors.hpp"
#include "kernels/lu/operations.hpp"

namespace gpubench::lu {

namespace {

template <typename T>
class OmpTargetOperations final : public Operations {
 public:
  explicit OmpTargetOperations(const DeviceInfo& device) : device_(device), number_(omp_target::device_number(device)) {}

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    const std::vector<T> host(a.begin(), a.end());
    const std::size_t bytes = host.size() * sizeof(T);
    original_ = std::make_unique<omp_target::Buffer>(number_, bytes);
    original_->upload(host.data(), bytes);
    a_ = std::make_unique<omp_target::Buffer>(number_, bytes);
    ipiv_ = std::make_unique<omp_target::Buffer>(number_, static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * sizeof(int));
    reset();
  }

  void reset() override {
    a_->copy_from(*original_);
    one_based_ = false;
    checked_ = false;
  }

  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    std::vector<T> host(static_cast<std::size_t>(n_ * n_));
    a_->download(host.data(), host.size() * sizeof(T));
    lu.assign(host.begin(), host.end());
    ipiv.assign(static_cast<std::size_t>(n_), 0);
    ipiv_->download(ipiv.data(), ipiv.size() * sizeof(int));
    if (!one_based_)
      for (auto& p : ipiv) ++p;
  }

  void start() override { start_ = omp_get_wtime(); }
  double stop() override { return omp_get_wtime() - start_; }
  void mark(double* into) override {
    const double now = omp_get_wtime();
    if (into && marked_) *into += now - last_;
    last_ = now;
    marked_ = true;
  }
  void collect_marks() override { marked_ = false; }

  void configure(const BlockedConfig& c) override {
    config_ = c;
    const auto tile = c.gemm_params.find("tile");
    tile_ = tile == c.gemm_params.end() ? 32 : std::max<std::int64_t>(1, tile->second);
  }

  void getf2(std::int64_t j, std::int64_t w) override {
    check_leaf(w);
    const std::int64_t n = n_;
    T* a = matrix();
    int* piv = pivots();
    const int dev = number_;
    int initial = 0;
#pragma omp target teams num_teams(1) device(dev) is_device_ptr(a, piv) map(tofrom : initial)
    {
      T best = 0;
      std::int64_t best_row = 0;
#pragma omp parallel
      for (std::int64_t c = j; c < j + w; ++c) {
        if (c == j && omp_get_thread_num() == 0) initial = omp_is_initial_device();
        // The pivot: the largest |a(r, c)|, the first row that has it.
#pragma omp single
        {
          best = 0;
          best_row = n;
        }
#pragma omp for simd reduction(max : best)
        for (std::int64_t r = c; r < n; ++r) {
          const T v = std::abs(a[r + c * n]);
          best = v > best ? v : best;  // (no std::max: no address taken in a simd loop)
        }
#pragma omp for simd reduction(min : best_row)
        for (std::int64_t r = c; r < n; ++r)
          if (std::abs(a[r + c * n]) == best && r < best_row) best_row = r;
#pragma omp single
        {
          const bool swap = best > T(0) && best_row != c;
          piv[c] = static_cast<int>(swap ? best_row : c);
          if (swap)
            for (std::int64_t k = j; k < j + w; ++k) std::swap(a[c + k * n], a[best_row + k * n]);
        }
        const T pivot = a[c + c * n];
        if (pivot != T(0)) {
#pragma omp for simd
          for (std::int64_t r = c + 1; r < n; ++r) {
            const T l = a[r + c * n] / pivot;
            a[r + c * n] = l;
            for (std::int64_t k = c + 1; k < j + w; ++k) a[r + k * n] -= l * a[c + k * n];
          }
        }
      }
    }
    if (!checked_) {
      omp_target::check_ran_where_asked(device_, initial != 0, "LU's panel region");
      checked_ = true;
    }
  }

  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || k0 >= k1) return;
    T* a = matrix();
    const int* piv = pivots();
    const std::int64_t n = n_;
    const int dev = number_;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a, piv)
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t p = piv[k];
        if (p != k) {
          const T t = a[k + c * n];
          a[k + c * n] = a[p + c * n];
          a[p + c * n] = t;
        }
      }
  }

  // L X = B (L the unit lower w x w block at (j, j), B rows j .. j + w of columns c0 .. c1) in
  // halves down to 32 rows, the lower half's rows updated from the upper's solution by the GEMM.
  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || w <= 0) return;
    if (w <= 32) return solve(j, w, c0, c1);
    const std::int64_t upper = w / 2;
    trsm(j, upper, c0, c1);
    gemm(j + upper, j + w, c0, c1, j, j + upper);
    trsm(j + upper, w - upper, c0, c1);
  }

  // A[r0:r1, c0:c1] -= A[r0:r1, k0:k1] A[k0:k1, c0:c1]: teams over tile x tile blocks, a block's
  // threads over its columns and their simd lanes over a column's rows (the column-major matrix's
  // contiguous direction; a collapsed simd loop runs lane by lane on GCC's nvptx).
  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    T* a = matrix();
    const std::int64_t n = n_, tile = tile_;
    const std::int64_t tiles_r = (r1 - r0 + tile - 1) / tile, tiles_c = (c1 - c0 + tile - 1) / tile;
    const int dev = number_;
#pragma omp target teams distribute collapse(2) device(dev) is_device_ptr(a)
    for (std::int64_t tc = 0; tc < tiles_c; ++tc)
      for (std::int64_t tr = 0; tr < tiles_r; ++tr) {
        const std::int64_t cs = c0 + tc * tile, rs = r0 + tr * tile;
        const std::int64_t ce = std::min(cs + tile, c1), re = std::min(rs + tile, r1);
#pragma omp parallel for
        for (std::int64_t c = cs; c < ce; ++c)
#pragma omp simd
          for (std::int64_t r = rs; r < re; ++r) {
            T acc = 0;
            for (std::int64_t k = k0; k < k1; ++k) acc += a[r + k * n] * a[k + c * n];
            a[r + c * n] -= acc;
          }
      }
  }

  void vendor() override { throw DeviceError("OpenMP target offload has no LU library of its own"); }

  StudyRun study(Variant v, StepTimes*, double) override {
    throw DeviceError("the study's form " + to_string(v) + " is an OpenCL and CUDA form: not on omp_target");
  }

 private:
  // Forward substitution, one column of B per lane.
  void solve(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) {
    T* a = matrix();
    const std::int64_t n = n_;
    const int dev = number_;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a)
    for (std::int64_t c = c0; c < c1; ++c) {
      T* x = a + j + c * n;
      for (std::int64_t k = 0; k < w; ++k) {
        const T xk = x[k];
        const T* l = a + j + (j + k) * n;
        for (std::int64_t r = k + 1; r < w; ++r) x[r] -= l[r] * xk;
      }
    }
  }

  T* matrix() { return static_cast<T*>(a_->data()); }
  int* pivots() { return static_cast<int*>(ipiv_->data()); }

  DeviceInfo device_;
  int number_;
  std::int64_t n_ = 0;
  std::unique_ptr<omp_target::Buffer> original_, a_, ipiv_;
  bool one_based_ = false;
  bool checked_ = false;  // whether this factorization's first panel said where it ran
  BlockedConfig config_;
  std::int64_t tile_ = 32;
  double start_ = 0, last_ = 0;
  bool marked_ = false;
};

}  // namespace

}  // namespace gpubench::lu

GPUBENCH_REGISTER_LU_OPERATIONS(
    gpubench::omp_target::backend_name,
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::lu::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::lu::OmpTargetOperations<float>>(d);
      return std::make_unique<gpubench::lu::OmpTargetOperations<double>>(d);
    },
    gpubench::lu::BackendTraits{"",
                                {gpubench::lu::Variant::blocked},
                                true,
                                [](const gpubench::DeviceInfo&, gpubench::Precision) { return std::vector<std::string>{"tiled"}; },
                                false,
                                "OpenMP target offload has no LU library of its own"});
