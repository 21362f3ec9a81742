// The CG operations on ViennaCL, the reference library: each operation is ViennaCL's own primitive
// (compressed_matrix SpMV, inner_prod, its fused multi inner product, vector expressions), in
// ViennaCL's OpenCL memory domain on one of our OpenCL devices ("viennacl") or in its host memory
// domain with OpenMP ("viennacl_host"). The vendor variant is ViennaCL's own CG, run whole.
//
// ViennaCL exposes no events: a time is the host clock around a region that begins and ends with
// the device idle (the queue finished), so it includes ViennaCL's host work and launch gaps.
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/context.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/linalg/inner_prod.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/ocl/backend.hpp>
#include <viennacl/vector.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/opencl/opencl.hpp"
#include "backends/viennacl/domain.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/solver.hpp"

namespace gpubench::cg {

namespace {

// ViennaCL reads row pointers and column indices as unsigned int (cl_uint in its OpenCL domain);
// our CSR's are non-negative int32, the same bits, so they go to ViennaCL without a copy.
static_assert(sizeof(std::int32_t) == sizeof(unsigned int) && sizeof(std::int32_t) == sizeof(cl_uint));

// The profile name of ViennaCL's whole CG solve (the vendor variant), which cannot be split up.
constexpr const char* library_cg_kernel = "cg";

using viennacl_backend::Domain;

struct LibraryCgResult {
  int iterations = 0;
  double relative_residual = 0;  // ViennaCL's estimate ||r|| / ||b|| from its recurrence
};

// Stops ViennaCL's CG where ours stops (solver.cpp): at an exactly zero residual, where there is
// nothing left to do and the next coefficient would be 0/0, and at a non-finite one, a breakdown
// that running on to the iteration cap would only fill with NaN.
template <typename T>
bool stop_library_cg(const viennacl::vector<T>&, T relative_residual, void*) {
  return relative_residual == 0 || !std::isfinite(relative_residual);
}

template <typename T>
class ViennaclOperations final : public Operations {
  using Clock = std::chrono::steady_clock;
  using Vector = viennacl::vector<T>;

 public:
  ViennaclOperations(Domain domain, const CsrMatrix& a)
      : domain_(std::move(domain)), rows_(a.rows), staging_(static_cast<std::size_t>(a.rows)) {
    guarded("upload of the CSR matrix (compressed_matrix::set)", [&] {
      domain_.activate();
      matrix_ = std::make_unique<viennacl::compressed_matrix<T>>(domain_.context());
      const auto rows = static_cast<viennacl::vcl_size_t>(a.rows);
      const auto cols = static_cast<viennacl::vcl_size_t>(a.cols);
      const auto nnz = static_cast<viennacl::vcl_size_t>(a.nnz());
      if constexpr (std::is_same_v<T, double>) {
        matrix_->set(a.row_ptr.data(), a.col_idx.data(), a.values.data(), rows, cols, nnz);
      } else {
        std::vector<T> values(a.values.size());
        std::transform(a.values.begin(), a.values.end(), values.begin(), [](double v) { return static_cast<T>(v); });
        matrix_->set(a.row_ptr.data(), a.col_idx.data(), values.data(), rows, cols, nnz);
      }
      dot2_result_ = std::make_unique<Vector>(2, domain_.context());
      domain_.finish();
    });
  }

  void allocate_vectors(int count) override {
    guarded("allocation of " + std::to_string(count) + " vectors", [&] {
      domain_.activate();
      vectors_.clear();
      for (int i = 0; i < count; ++i)  // zero-filled by ViennaCL
        vectors_.push_back(std::make_unique<Vector>(static_cast<viennacl::vcl_size_t>(rows_), domain_.context()));
      domain_.finish();
    });
  }

  void upload(Slot v, std::span<const double> values) override {
    check_vector_length(values.size(), rows_, "upload");
    Vector& y = vec(v);
    guarded("upload (fast_copy)", [&] {
      domain_.activate();
      // fast_copy copies bytes: the values must already be in the vector's precision.
      if constexpr (std::is_same_v<T, double>) {
        viennacl::fast_copy(values.data(), values.data() + values.size(), y.begin());
      } else {
        std::transform(values.begin(), values.end(), staging_.begin(), [](double x) { return static_cast<T>(x); });
        viennacl::fast_copy(staging_, y);
      }
    });
  }

  void download(Slot v, std::span<double> values) override {
    check_vector_length(values.size(), rows_, "download");
    const Vector& x = vec(v);
    guarded("download (fast_copy)", [&] {
      domain_.activate();
      if constexpr (std::is_same_v<T, double>) {
        viennacl::fast_copy(x.begin(), x.end(), values.data());
      } else {
        viennacl::fast_copy(x, staging_);
        std::transform(staging_.begin(), staging_.end(), values.begin(), [](T y) { return static_cast<double>(y); });
      }
    });
  }

  // A whole matrix (check_problem): no halo, and own entries are read through a whole download.
  void upload_halo(Slot, std::span<const double> values) override { check_halo_length(values.size(), rows_, rows_); }

  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    check_entries(rows, values.size(), rows_);
    std::vector<double> whole(static_cast<std::size_t>(rows_));
    download(v, whole);
    for (std::size_t i = 0; i < rows.size(); ++i) values[i] = whole[static_cast<std::size_t>(rows[i])];
  }

  void fill_zero(Slot v) override {
    Vector& y = vec(v);
    timed("fill", [&] { y.clear(); });
  }

  void copy(Slot src, Slot dst) override {
    const Vector& x = vec(src);
    Vector& y = vec(dst);
    timed("copy", [&] { y = x; });
  }

  void spmv(Slot in, Slot out) override {
    const Vector& x = vec(in);
    Vector& y = vec(out);
    timed("spmv", [&] { y = viennacl::linalg::prod(*matrix_, x); });
  }

  double dot(Slot a, Slot b) override {
    const Vector& x = vec(a);
    const Vector& y = vec(b);
    T result = 0;
    timed("dot", [&] { result = viennacl::linalg::inner_prod(x, y); });
    return static_cast<double>(result);
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    const Vector& rv = vec(r);
    const Vector& wv = vec(w);
    std::array<T, 2> result{};
    timed("dot2", [&] {
      // ViennaCL's multi inner product: r.r and r.w in one pass over r, into a device vector.
      *dot2_result_ = viennacl::linalg::inner_prod(rv, viennacl::tie(rv, wv));
      viennacl::fast_copy(dot2_result_->begin(), dot2_result_->end(), result.begin());
    });
    return {static_cast<double>(result[0]), static_cast<double>(result[1])};
  }

  void axpy(double alpha, Slot x, Slot y) override {
    const T a = static_cast<T>(alpha);
    const Vector& xv = vec(x);
    Vector& yv = vec(y);
    timed("axpy", [&] { yv += a * xv; });
  }

  void xpay(Slot x, double beta, Slot y) override {
    const T b = static_cast<T>(beta);
    const Vector& xv = vec(x);
    Vector& yv = vec(y);
    timed("xpay", [&] { yv = xv + b * yv; });
  }

  void scale(double alpha, Slot x, Slot y) override {
    const T a = static_cast<T>(alpha);
    const Vector& xv = vec(x);
    Vector& yv = vec(y);
    timed("scale", [&] { yv = a * xv; });
  }

  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    const T rh = static_cast<T>(rho);
    const T rg = static_cast<T>(rho * gamma);
    const T keep = static_cast<T>(1 - rho);
    const Vector& xv = vec(x);
    Vector& xp = vec(x_prev);
    const Vector& rv = vec(r);
    Vector& rp = vec(r_prev);
    const Vector& wv = vec(w);
    // ViennaCL fuses at most two scaled vectors into one kernel (its avbv), so each of the two
    // three-term updates is two ViennaCL kernels.
    timed("three_term_update", [&] {
      xp = keep * xp + rh * xv;
      xp += rg * rv;
      rp = keep * rp + rh * rv;
      rp -= rg * wv;
    });
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    const T a = static_cast<T>(alpha);
    const T b = static_cast<T>(beta);
    Vector& rv = vec(r);
    const Vector& wv = vec(w);
    Vector& pv = vec(p);
    Vector& sv = vec(s);
    Vector& xv = vec(x);
    timed("cg_update", [&] {  // four ViennaCL kernels, one per update
      pv = rv + b * pv;
      sv = wv + b * sv;
      xv += a * pv;
      rv -= a * sv;
    });
  }

  void start_timer() override {
    guarded("clock start (finish)", [&] { domain_.finish(); });
    timer_start_ = Clock::now();
    timing_ = true;
    launched_ = false;
  }

  double stop_timer() override {
    if (!timing_) return 0;
    guarded("clock stop (finish)", [&] { domain_.finish(); });
    const auto end = Clock::now();
    timing_ = false;
    return launched_ ? std::chrono::duration<double>(end - timer_start_).count() : 0.0;
  }

  void set_profiling(bool on) override { profiling_ = on; }
  void finish() override {
    guarded("finish", [&] { domain_.finish(); });
  }

  std::vector<KernelProfile> take_profile() override { return profile_.take(); }

  int rows() const override { return rows_; }
  int cols() const override { return rows_; }

  std::unique_ptr<Solver> make_vendor_solver() override;

  // ViennaCL's CG (viennacl::linalg::cg_solver, the object behind viennacl::linalg::solve with a
  // cg_tag) on A x = b from x = 0, its result in slot x. Tolerance 0 runs exactly rule.iterations:
  // ViennaCL stops only when ||r||^2 / ||b||^2 < tolerance^2 (strictly) or at the cap.
  LibraryCgResult library_cg(Slot b, Slot x, const StopRule& rule) {
    const Vector& rhs = vec(b);
    Vector& solution = vec(x);
    const viennacl::linalg::cg_tag tag(std::max(rule.tolerance, 0.0),
                                       static_cast<unsigned int>(std::max(rule.iterations, 0)));
    viennacl::linalg::cg_solver<Vector> cg(tag);
    cg.set_monitor(stop_library_cg<T>, nullptr);
    // ViennaCL leaves both unset when it returns before its loop (b = 0).
    cg.tag().iters(0);
    cg.tag().error(0);
    timed(library_cg_kernel, [&] {
      Vector result = cg(*matrix_, rhs);
      solution.fast_swap(result);  // the same size and domain: swaps the buffers, no copy
    });
    const auto iterations = static_cast<int>(cg.tag().iters());
    const double error = cg.tag().error();
    if (!std::isfinite(error))
      throw VerificationError("CG breakdown: ViennaCL's cg residual estimate is " + std::to_string(error) +
                              " after " + std::to_string(iterations) +
                              " iterations (singular or indefinite matrix, or the iteration diverged)");
    return {iterations, error};
  }

 private:
  Vector& vec(Slot v) {
    check_slot(v, vectors_.size());
    return *vectors_[static_cast<std::size_t>(v)];
  }

  // Runs `body`, turning what ViennaCL throws (its OpenCL errors, failed program builds, host
  // allocation failures) into a DeviceError naming the operation and the device.
  template <typename Body>
  void guarded(std::string_view what, Body&& body) const {
    try {
      body();
    } catch (const Error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw OutOfMemoryError("host", "in ViennaCL " + std::string(what) + " on " + domain_.device().label());
    } catch (const std::exception& e) {
      throw DeviceError("ViennaCL " + std::string(what) + " failed on " + domain_.device().label() + ": " + e.what());
    }
  }

  // One operation: marks the timer's interval as used and, while profiling, times the operation
  // alone between two waits for the device.
  template <typename Body>
  void timed(const char* kernel, Body&& body) {
    launched_ = true;
    if (!profiling_) {
      guarded(kernel, [&] {
        domain_.activate();
        body();
      });
      return;
    }
    Clock::time_point start, end;
    guarded(kernel, [&] {
      domain_.activate();
      domain_.finish();
      start = Clock::now();
      body();
      domain_.finish();
      end = Clock::now();
    });
    profile_.add(kernel, std::chrono::duration<double>(end - start).count());
  }

  Domain domain_;
  int rows_;
  std::unique_ptr<viennacl::compressed_matrix<T>> matrix_;
  std::vector<std::unique_ptr<Vector>> vectors_;  // pointers: ViennaCL's vectors copy, never move
  std::unique_ptr<Vector> dot2_result_;
  std::vector<T> staging_;  // f32 transfers: the values converted to or from double

  bool timing_ = false;
  bool launched_ = false;
  Clock::time_point timer_start_;
  bool profiling_ = false;
  ProfileRecorder profile_;
};

// ViennaCL's CG as the vendor variant. It cannot be stepped: solve() and npb_benchmark() run it
// whole, from x = 0, with run_whole().
template <typename T>
class ViennaclCg final : public Solver {
  enum : Slot { b = rhs_slot, x, count };

 public:
  int recurrence_vectors() const override { return count; }

  void start(Operations& ops) override {
    ops.fill_zero(x);
    b_norm_ = std::sqrt(ops.dot(b, b));
    residual_sq_ = b_norm_ * b_norm_;
  }

  void step(Operations&) override {
    throw Error(ExitCode::internal, "ViennaCL's CG runs whole: step() is not available (use run_whole)");
  }

  bool whole_solve() const override { return true; }

  int run_whole(Operations& ops, const StopRule& rule) override {
    auto* viennacl_ops = dynamic_cast<ViennaclOperations<T>*>(&ops);
    if (!viennacl_ops) throw Error(ExitCode::internal, "ViennaCL's CG run on another backend's operations");
    const LibraryCgResult result = viennacl_ops->library_cg(b, x, rule);
    // ViennaCL reports ||r|| / ||b||; the interface wants ||r||^2.
    residual_sq_ = std::pow(result.relative_residual * b_norm_, 2);
    return result.iterations;
  }

  double residual_sq() const override { return residual_sq_; }
  double final_residual_sq(Operations&) override { return residual_sq_; }
  Slot solution() const override { return x; }

 private:
  double b_norm_ = 0;
  double residual_sq_ = 0;
};

template <typename T>
std::unique_ptr<Solver> ViennaclOperations<T>::make_vendor_solver() {
  return std::make_unique<ViennaclCg<T>>();
}

template <typename T>
std::unique_ptr<Operations> make_in(Domain domain, const CsrMatrix& a) {
  return std::make_unique<ViennaclOperations<T>>(std::move(domain), a);
}

void check_problem(const CsrMatrix& a) {
  if (a.nnz() < 1) throw InputError("the CG matrix has no nonzero entries (ViennaCL's compressed_matrix needs one)");
  if (a.cols != a.rows)  // a band of a partitioned matrix (partition.hpp)
    throw DeviceError("ViennaCL's CG runs a whole matrix on one device, not a band of " + std::to_string(a.rows) +
                      " rows across several");
}

std::unique_ptr<Operations> make_viennacl_operations(const DeviceInfo& device, const CsrMatrix& a,
                                                     Precision precision, const Params& launch) {
  check_can_make(device, a, precision, launch);
  check_problem(a);
  Domain domain = Domain::opencl(device);
  if (precision == Precision::f64) return make_in<double>(std::move(domain), a);
  return make_in<float>(std::move(domain), a);
}

std::unique_ptr<Operations> make_viennacl_host_operations(const DeviceInfo& device, const CsrMatrix& a,
                                                          Precision precision, const Params& launch) {
  check_can_make(device, a, precision, launch);
  check_problem(a);
  if (precision == Precision::f64) return make_in<double>(Domain::host(device), a);
  return make_in<float>(Domain::host(device), a);
}

}  // namespace

}  // namespace gpubench::cg

// ViennaCL's CG runs a whole matrix on one device: no bands.
GPUBENCH_REGISTER_CG_OPERATIONS("viennacl", gpubench::cg::make_viennacl_operations, "viennacl::linalg::cg", false, false);
GPUBENCH_REGISTER_CG_OPERATIONS("viennacl_host", gpubench::cg::make_viennacl_host_operations, "viennacl::linalg::cg",
                                false, false);
