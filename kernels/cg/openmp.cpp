// The CG operations on the host CPU with OpenMP. The CPU is the device: every operation is
// synchronous, so a steady clock around it is its device time. Arrays are first touched by the
// same static schedule that later works on them, so that on a multi-socket host each thread's
// part of the data lives in its own memory.
#ifndef _OPENMP
#error "kernels/cg/openmp.cpp needs OpenMP (-fopenmp)"
#endif

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"

namespace gpubench::cg {

namespace {

// A fixed-size array left uninitialised by its constructor, so that its first touch can be the
// parallel one.
template <typename T>
class HostArray {
 public:
  HostArray() = default;
  explicit HostArray(std::size_t size) : data_(std::make_unique_for_overwrite<T[]>(size)), size_(size) {}
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
};

template <typename T>
class OpenmpOperations final : public Operations {
  using Clock = std::chrono::steady_clock;

 public:
  explicit OpenmpOperations(const CsrMatrix& a)
      : rows_(a.rows),
        cols_(std::max(a.cols, a.rows)),
        row_ptr_(static_cast<std::size_t>(a.rows) + 1),
        col_idx_(static_cast<std::size_t>(a.nnz())),
        values_(static_cast<std::size_t>(a.nnz())) {
    const std::int32_t* src_ptr = a.row_ptr.data();
    const std::int32_t* src_col = a.col_idx.data();
    const double* src_val = a.values.data();
    std::int32_t* ptr = row_ptr_.data();
    std::int32_t* col = col_idx_.data();
    T* val = values_.data();
    const int n = rows_;
    ptr[0] = src_ptr[0];
#pragma omp parallel for schedule(static)
    for (int r = 0; r < n; ++r) {
      ptr[r + 1] = src_ptr[r + 1];
      for (std::int32_t k = src_ptr[r]; k < src_ptr[r + 1]; ++k) {
        col[k] = src_col[k];
        val[k] = static_cast<T>(src_val[k]);
      }
    }
  }

  void allocate_vectors(int count) override {
    vectors_.clear();
    for (int i = 0; i < count; ++i) {
      vectors_.emplace_back(static_cast<std::size_t>(cols_));
      zero(vectors_.back().data());
      std::fill(vectors_.back().data() + rows_, vectors_.back().data() + cols_, T(0));  // the halo
    }
  }

  void upload(Slot v, std::span<const double> values) override {
    check_vector_length(values.size(), rows_, "upload");
    T* y = vec(v);
    const double* x = values.data();
    const int n = rows_;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i) y[i] = static_cast<T>(x[i]);
  }

  void download(Slot v, std::span<double> values) override {
    check_vector_length(values.size(), rows_, "download");
    const T* x = vec(v);
    double* y = values.data();
    const int n = rows_;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i) y[i] = static_cast<double>(x[i]);
  }

  void upload_halo(Slot v, std::span<const double> values) override {
    check_halo_length(values.size(), rows_, cols_);
    std::transform(values.begin(), values.end(), vec(v) + rows_, [](double x) { return static_cast<T>(x); });
  }

  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    check_entries(rows, values.size(), rows_);
    const T* x = vec(v);
    for (std::size_t i = 0; i < rows.size(); ++i) values[i] = static_cast<double>(x[rows[i]]);
  }

  void fill_zero(Slot v) override {
    T* y = vec(v);
    timed("fill", [&] { zero(y); });
  }

  void copy(Slot src, Slot dst) override {
    const T* x = vec(src);
    T* y = vec(dst);
    const int n = rows_;
    timed("copy", [&] {
#pragma omp parallel for simd schedule(static)
      for (int i = 0; i < n; ++i) y[i] = x[i];
    });
  }

  void spmv(Slot in, Slot out) override { spmv_rows(in, out, 0, rows_); }

  void spmv_rows(Slot in, Slot out, std::int32_t first, std::int32_t count) override {
    check_row_range(first, count, rows_);
    const T* x = vec(in);
    T* y = vec(out);
    const int last = first + count;
    timed("spmv", [&] {
#pragma omp parallel for schedule(static)
      for (int r = first; r < last; ++r) y[r] = row_sum(r, x);
    });
  }

  // Each thread's rows: w_i = (A r)_i, then r_i r_i and w_i r_i while w_i is in a register.
  void start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count) override {
    check_row_range(first, count, rows_);
    const T* x = vec(r);
    T* y = vec(w);
    const int last = first + count;
    double rr = 0, wr = 0;
    timed("spmv_dot2", [&] {
#pragma omp parallel for schedule(static) reduction(+ : rr, wr)
      for (int i = first; i < last; ++i) {
        const T sum = row_sum(i, x);
        y[i] = sum;
        const auto ri = static_cast<double>(x[i]);
        rr += ri * ri;
        wr += static_cast<double>(sum) * ri;
      }
    });
    add_to_reduction({rr, wr});
  }

  double dot(Slot a, Slot b) override {
    const T* x = vec(a);
    const T* y = vec(b);
    const int n = rows_;
    double sum = 0;
    timed("dot", [&] {
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
      for (int i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
    });
    return sum;
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    const T* rv = vec(r);
    const T* wv = vec(w);
    const int n = rows_;
    double rr = 0;
    double wr = 0;
    timed("dot2", [&] {
#pragma omp parallel for simd schedule(static) reduction(+ : rr, wr)
      for (int i = 0; i < n; ++i) {
        const auto ri = static_cast<double>(rv[i]);
        rr += ri * ri;
        wr += static_cast<double>(wv[i]) * ri;
      }
    });
    return {rr, wr};
  }

  void axpy(double alpha, Slot x, Slot y) override {
    const T a = static_cast<T>(alpha);
    const T* xv = vec(x);
    T* yv = vec(y);
    const int n = rows_;
    timed("axpy", [&] {
#pragma omp parallel for simd schedule(static)
      for (int i = 0; i < n; ++i) yv[i] += a * xv[i];
    });
  }

  void xpay(Slot x, double beta, Slot y) override {
    const T b = static_cast<T>(beta);
    const T* xv = vec(x);
    T* yv = vec(y);
    const int n = rows_;
    timed("xpay", [&] {
#pragma omp parallel for simd schedule(static)
      for (int i = 0; i < n; ++i) yv[i] = xv[i] + b * yv[i];
    });
  }

  void scale(double alpha, Slot x, Slot y) override {
    const T a = static_cast<T>(alpha);
    const T* xv = vec(x);
    T* yv = vec(y);
    const int n = rows_;
    timed("scale", [&] {
#pragma omp parallel for simd schedule(static)
      for (int i = 0; i < n; ++i) yv[i] = a * xv[i];
    });
  }

  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    const T rh = static_cast<T>(rho);
    const T g = static_cast<T>(gamma);
    const T keep = static_cast<T>(1 - rho);
    const T* xv = vec(x);
    T* xp = vec(x_prev);
    const T* rv = vec(r);
    T* rp = vec(r_prev);
    const T* wv = vec(w);
    const int n = rows_;
    timed("three_term_update", [&] {
      backwards(n, [&](int lo, int hi) {
#pragma omp simd
        for (int i = hi - 1; i >= lo; --i) {
          const T ri = rv[i];
          xp[i] = rh * (xv[i] + g * ri) + keep * xp[i];
          rp[i] = rh * (ri - g * wv[i]) + keep * rp[i];
        }
      });
    });
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    const T a = static_cast<T>(alpha);
    const T b = static_cast<T>(beta);
    T* rv = vec(r);
    const T* wv = vec(w);
    T* pv = vec(p);
    T* sv = vec(s);
    T* xv = vec(x);
    const int n = rows_;
    timed("cg_update", [&] {
      backwards(n, [&](int lo, int hi) {
#pragma omp simd
        for (int i = hi - 1; i >= lo; --i) {
          const T pi = rv[i] + b * pv[i];
          const T si = wv[i] + b * sv[i];
          pv[i] = pi;
          sv[i] = si;
          xv[i] += a * pi;
          rv[i] -= a * si;
        }
      });
    });
  }

  void start_timer() override {
    timing_ = true;
    timer_started_ = false;
  }

  double stop_timer() override {
    timing_ = false;
    if (!timer_started_) return 0;
    timer_started_ = false;
    return std::chrono::duration<double>(timer_end_ - timer_start_).count();
  }

  void set_profiling(bool on) override { profiling_ = on; }
  void finish() override {}  // the host's kernels return when done

  std::vector<KernelProfile> take_profile() override { return profile_.take(); }

  int rows() const override { return rows_; }
  int cols() const override { return cols_; }

 private:
  T* vec(Slot v) {
    check_slot(v, vectors_.size());
    return vectors_[static_cast<std::size_t>(v)].data();
  }

  // The fused updates sweep their vectors from the end, as on the GPUs (kernels/cg/nvrtc.cu): what
  // the fused SpMV touched last is still in the cache. Each thread takes the rows a static
  // schedule gives it (GCC's: the first n % threads one more), those it touched first, from the
  // last: body(lo, hi) runs [lo, hi) backwards.
  template <typename Body>
  static void backwards(int n, Body&& body) {
#pragma omp parallel
    {
      const int threads = omp_get_num_threads(), t = omp_get_thread_num();
      const int q = n / threads, r = n % threads;
      const int lo = t * q + std::min(t, r);
      body(lo, lo + q + (t < r ? 1 : 0));
    }
  }

  void zero(T* y) const {
    const int n = rows_;
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i) y[i] = 0;
  }

  template <typename Body>
  void timed(const char* kernel, Body&& body) {
    const auto start = Clock::now();
    body();
    const auto end = Clock::now();
    if (timing_) {
      if (!timer_started_) {
        timer_start_ = start;
        timer_started_ = true;
      }
      timer_end_ = end;
    }
    if (profiling_) profile_.add(kernel, std::chrono::duration<double>(end - start).count());
  }

  // (A x)_row.
  T row_sum(int row, const T* x) const {
    const std::int32_t* ptr = row_ptr_.data();
    const std::int32_t* col = col_idx_.data();
    const T* val = values_.data();
    T sum = 0;
    const std::int32_t end = ptr[row + 1];
#pragma omp simd reduction(+ : sum)
    for (std::int32_t k = ptr[row]; k < end; ++k) sum += val[k] * x[col[k]];
    return sum;
  }

  int rows_;
  int cols_;  // a band's vectors hold its halo after its rows
  HostArray<std::int32_t> row_ptr_;
  HostArray<std::int32_t> col_idx_;
  HostArray<T> values_;
  std::vector<HostArray<T>> vectors_;

  bool timing_ = false;
  bool timer_started_ = false;
  Clock::time_point timer_start_, timer_end_;
  bool profiling_ = false;
  ProfileRecorder profile_;
};

std::unique_ptr<Operations> make_openmp_operations(const DeviceInfo& device, const CsrMatrix& a, Precision precision,
                                                   const Params& launch) {
  check_can_make(device, a, precision, launch);
  if (precision == Precision::f64) return std::make_unique<OpenmpOperations<double>>(a);
  return std::make_unique<OpenmpOperations<float>>(a);
}

}  // namespace

}  // namespace gpubench::cg

GPUBENCH_REGISTER_CG_OPERATIONS("openmp", gpubench::cg::make_openmp_operations);
