// LU on the host (openmp): the blocked LU's steps with OpenMP threads, the updates through GEMM's
// own host kernels (kernels/gemm/openmp_kernels.hpp: the packed loop, or the study's cache-tiled
// loop, the tunable "update") on blocks of the column-major matrix; LAPACK's getrf through
// LAPACKE (Debian liblapacke-dev), which resolves to OpenBLAS's (libopenblas-dev) as the vendor
// variant. One queue: no look-ahead here; the
// study's forms are OpenCL's and CUDA's. Time: the host clock.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>


#include "backends/openmp/host_blas.hpp"
#include "backends/openmp/huge_pages.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/openmp_kernels.hpp"
#include "kernels/lu/blocks.hpp"
#include "kernels/lu/operations.hpp"

namespace gpubench::lu {

namespace {

using clock = std::chrono::steady_clock;

// L (the w x w unit lower triangle, column-major, ldl apart) packed for lower_solve: for each
// block of 8 rows from r0, the rows' 8 elements of each column k < r0 + 8 one after another, those
// of the block's own columns (k >= r0) zero on and above the diagonal; the blocks one after
// another (lower_offset). A solve then streams L instead of striding by ldl (at a power of two,
// a column's elements fall into one cache set). Rows past w are zero.
inline std::int64_t lower_offset(std::int64_t r0) { return 32 * (r0 / 8) * (r0 / 8 + 1); }
template <typename T>
void pack_lower(std::int64_t w, const T* l, std::int64_t ldl, std::vector<T>& out) {
  const std::int64_t blocks = (w + 7) / 8;
  out.assign(static_cast<std::size_t>(lower_offset(8 * blocks)), T(0));
  for (std::int64_t r0 = 0; r0 < w; r0 += 8) {
    T* block = out.data() + lower_offset(r0);
    const std::int64_t rows = std::min<std::int64_t>(8, w - r0);
    for (std::int64_t k = 0; k < r0 + rows; ++k)
      for (std::int64_t i = std::max<std::int64_t>(0, k - r0 + 1); i < rows; ++i) block[k * 8 + i] = l[r0 + i + k * ldl];
  }
}

// X = L^-1 X for 8 columns of X (w rows each, contiguous, ldx apart, rows padded to a multiple of
// 8 plus 8, the padding zero), L packed by pack_lower: left-looking in blocks of 8 rows, each
// block's 8 columns in vector registers while the rows above it are subtracted (a load of L's 8
// elements and a broadcast of each column's solved element a step), then the block's own
// triangle in the registers (each solved element broadcast from its lane).
template <typename T>
[[gnu::always_inline]] inline void lower_solve_body(std::int64_t w, const T* packed, T* x, std::int64_t ldx) {
  typedef T Vec __attribute__((vector_size(8 * sizeof(T))));
  typedef std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t> Lane;
  typedef Lane Index __attribute__((vector_size(8 * sizeof(T))));
  for (std::int64_t r0 = 0; r0 < w; r0 += 8) {
    const std::int64_t rows = std::min<std::int64_t>(8, w - r0);
    const T* block = packed + lower_offset(r0);
    Vec acc[8];
    for (int c = 0; c < 8; ++c) std::memcpy(&acc[c], x + r0 + c * ldx, sizeof(Vec));
    for (std::int64_t k = 0; k < r0; ++k) {
      Vec lk;
      std::memcpy(&lk, block + k * 8, sizeof(Vec));
      for (int c = 0; c < 8; ++c) acc[c] -= lk * x[k + c * ldx];
    }
    for (int kk = 0; kk < rows; ++kk) {
      Vec lk;
      std::memcpy(&lk, block + (r0 + kk) * 8, sizeof(Vec));
      const Index lane = Index{} + kk;
      for (int c = 0; c < 8; ++c) acc[c] -= lk * __builtin_shuffle(acc[c], lane);
    }
    for (int c = 0; c < 8; ++c) std::memcpy(x + r0 + c * ldx, &acc[c], static_cast<std::size_t>(rows) * sizeof(T));
  }
}
[[gnu::target_clones("avx512f", "avx2,fma", "default"), gnu::optimize("fp-contract=fast")]] void lower_solve_f64(
    std::int64_t w, const double* packed, double* x, std::int64_t ldx) {
  lower_solve_body(w, packed, x, ldx);
}
[[gnu::target_clones("avx512f", "avx2,fma", "default"), gnu::optimize("fp-contract=fast")]] void lower_solve_f32(
    std::int64_t w, const float* packed, float* x, std::int64_t ldx) {
  lower_solve_body(w, packed, x, ldx);
}
inline void lower_solve(std::int64_t w, const double* packed, double* x, std::int64_t ldx) {
  lower_solve_f64(w, packed, x, ldx);
}
inline void lower_solve(std::int64_t w, const float* packed, float* x, std::int64_t ldx) {
  lower_solve_f32(w, packed, x, ldx);
}

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

  // Columns [j, j + w) over rows [j, n), a column at a time: each thread keeps one range of the
  // rows for the whole panel (in its cache), finds its largest element of the column there, and
  // after one barrier every thread picks the same pivot from the ranges' (the first row of the
  // largest, as LAPACK's idamax); thread 0 swaps the two rows, and after a second barrier each
  // thread scales and updates its own rows. Two barriers a column (there were four and a lock).
  void getf2(std::int64_t j, std::int64_t w) override {
    const std::int64_t n = n_;
    T* a = a_.data();
    const auto at = [n](std::int64_t i, std::int64_t k) { return static_cast<std::size_t>(i + k * n); };
    struct alignas(64) Slot {
      T value;
      std::int64_t row;
    };
    std::vector<Slot> slots(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
    {
      const std::int64_t t = omp_get_thread_num(), team = omp_get_num_threads(), rows = n - j;
      const std::int64_t lo = j + rows * t / team, hi = j + rows * (t + 1) / team;
      for (std::int64_t c = j; c < j + w; ++c) {
        T mine = -1;
        std::int64_t mine_row = n;
        for (std::int64_t r = std::max(lo, c); r < hi; ++r) {
          const T v = std::abs(a[at(r, c)]);
          if (v > mine) {
            mine = v;
            mine_row = r;
          }
        }
        slots[static_cast<std::size_t>(t)] = {mine, mine_row};
#pragma omp barrier
        T best = -1;
        std::int64_t best_row = n;
        for (std::int64_t s = 0; s < team; ++s) {
          const Slot& o = slots[static_cast<std::size_t>(s)];
          if (o.value > best || (o.value == best && o.row < best_row)) {
            best = o.value;
            best_row = o.row;
          }
        }
        if (t == 0) {
          const bool swap = best > 0 && best_row != c;
          ipiv_[static_cast<std::size_t>(c)] = static_cast<int>(swap ? best_row : c);
          if (swap)
            for (std::int64_t k = j; k < j + w; ++k) std::swap(a[at(c, k)], a[at(best_row, k)]);
        }
#pragma omp barrier
        const T pivot = a[at(c, c)];
        const std::int64_t r0 = std::max(lo, c + 1);
        if (pivot == T(0) || r0 >= hi) continue;
        for (std::int64_t r = r0; r < hi; ++r) a[at(r, c)] /= pivot;
        for (std::int64_t k = c + 1; k < j + w; ++k) {
          const T u = a[at(c, k)];
          for (std::int64_t r = r0; r < hi; ++r) a[at(r, k)] -= a[at(r, c)] * u;
        }
      }
    }
  }

  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    T* a = a_.data();
    const std::int64_t n = n_;
    // Eight columns at a time, each swap done on all eight before the next: the swaps of a column
    // are in order (a later one may move a row an earlier one moved), but the eight columns'
    // loads of a far row (each its own cache line, n elements apart) are independent and in
    // flight together (LU 4096 on two cores: 41 ms a column at a time).
    const std::int64_t groups = (c1 - c0 + 7) / 8;
    const int* ipiv = ipiv_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t from = c0 + 8 * g, to = std::min(c1, from + 8);
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t p = ipiv[k];
        if (p == k) continue;
        for (std::int64_t c = from; c < to; ++c) std::swap(a[k + c * n], a[p + c * n]);
      }
    }
  }

  // L X = B, L the unit lower triangle of the w x w block at (j, j), B rows j .. j + w of columns
  // c0 .. c1, solved in place: L packed once (pack_lower), then the threads share the columns in
  // groups of eight, each group copied out to contiguous columns (X's own are n apart), solved
  // left-looking in registers (lower_solve) and copied back (LU 4096 on two cores: 45 ms). LAPACK's recursion through GEMM ran the solves of
  // LU 4096 at 33 GFLOP/s on two cores, its 32-row leaves a column at a time.
  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || w <= 0) return;
    T* a = a_.data();
    const std::int64_t n = n_, groups = (c1 - c0 + 7) / 8, ldx = (w + 7) / 8 * 8 + 8;  // off the power of two
    pack_lower(w, a + j + j * n, n, lower_);
#pragma omp parallel
    {
      std::vector<T> x(static_cast<std::size_t>(8 * ldx));
#pragma omp for schedule(static)
      for (std::int64_t g = 0; g < groups; ++g) {
        const std::int64_t c = c0 + 8 * g;
        const int cols = static_cast<int>(std::min<std::int64_t>(8, c1 - c));
        for (int k = 0; k < cols; ++k) std::memcpy(&x[k * ldx], a + j + (c + k) * n, static_cast<std::size_t>(w) * sizeof(T));
        if (cols < 8) std::fill(x.begin() + cols * ldx, x.end(), T(0));  // the last group's spare columns
        lower_solve(w, lower_.data(), x.data(), ldx);
        for (int k = 0; k < cols; ++k) std::memcpy(a + j + (c + k) * n, &x[k * ldx], static_cast<std::size_t>(w) * sizeof(T));
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
  host_memory::Vector<T> original_, a_;  // in huge pages: the row swaps touch every column
  std::vector<T> lower_;  // trsm's L, packed
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
