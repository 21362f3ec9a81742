// The CG operations on the omp_target backend, as an OpenMP programmer writes them for a GPU:
// each kernel one `target teams distribute parallel for simd` over the rows (GCC's nvptx runs an
// OpenMP thread per warp and a simd lane per CUDA thread, so the loops carry `simd`), with the
// launch's tunables as OpenMP's clauses, per kernel (set_launch): on a GPU num_teams =
// work_groups_per_cu x SMs and thread_limit = work_group_size / 32 (a warp per OpenMP thread); on
// the host one team of its cores (omp_target::num_teams, thread_limit). The SpMV is CSR, one row
// per lane; the fused forms' spmv_dot2 adds r.r and w.r in the same region's reduction. Vectors and the matrix
// live in device memory (omp_target_alloc); every region is synchronous, so the host's clock
// around it is its device time. Each reduction's region also writes whether it ran on the initial
// device, read at its first call: a solve asked of a GPU that ran on the host fails
// (omp_target::check_ran_where_asked).
#include <omp.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/omp_target/omp_target.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

namespace {

// One kernel's OpenMP launch: the clauses' values.
struct Launch {
  int teams = 1, threads = grid::default_group_size;
};

template <typename T>
class OmpTargetOperations final : public Operations {
 public:
  OmpTargetOperations(const DeviceInfo& device, const CsrMatrix& a, const Params& launch)
      : device_(device), number_(omp_target::device_number(device)), rows_(a.rows), cols_(std::max(a.cols, a.rows)),
        row_ptr_(number_, (static_cast<std::size_t>(a.rows) + 1) * sizeof(std::int32_t)),
        col_idx_(number_, static_cast<std::size_t>(a.nnz()) * sizeof(std::int32_t)),
        values_(number_, static_cast<std::size_t>(a.nnz()) * sizeof(T)), where_(number_, sizeof(int) * kernels_checked) {
    row_ptr_.upload(a.row_ptr.data(), row_ptr_.bytes());
    col_idx_.upload(a.col_idx.data(), col_idx_.bytes());
    const std::vector<T> values(a.values.begin(), a.values.end());
    values_.upload(values.data(), values_.bytes());
    for (const std::string& kernel : tunable_kernels()) launches_[kernel] = launch_of(launch);
    if (const std::string g = omp_target::compiler_gap(device); !g.empty()) gap_causes_.push_back(gap_cause("compiler", g));
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (device.type == "gpu")
      gap_causes_.push_back(gap_cause(
          "compiler", "every region is synchronous: libomptarget launches it and waits for its end, where CUDA "
                      "queues its launches (its CUDA plugin's blocking wait cost an empty region 21.8 us on the H100 "
                      "and an axpy over 2^24 doubles 200 us; with CUDA's default scheduling, which this backend "
                      "sets, 9.6 and 168 us, against CUDA's 134 us for the same axpy), and the dot products are "
                      "reduction clauses (a dot over 2^24 doubles 218 us with the clause, 145 to read the same "
                      "without reducing, with the blocking wait): CG poisson2d:4096 f64 on the H100, spmv_dot2 "
                      "0.637 ms against CUDA's 0.459, three_term_update 0.321 against 0.304 (reports/data/"
                      "h100-2026-12-07-issue57; on two H200s, with the blocking wait, 0.77-0.78 against 0.37 and "
                      "0.30-0.31 against 0.22: h200-2026-12-04-late-issue57)"));
#endif
  }

  void allocate_vectors(int count) override {
    vectors_.clear();
    const std::vector<T> zeros(static_cast<std::size_t>(cols_), T(0));
    for (int i = 0; i < count; ++i) {
      vectors_.push_back(std::make_unique<omp_target::Buffer>(number_, zeros.size() * sizeof(T)));
      vectors_.back()->upload(zeros.data(), vectors_.back()->bytes());
    }
  }

  void upload(Slot v, std::span<const double> values) override {
    check_vector_length(values.size(), rows_, "upload");
    const std::vector<T> host(values.begin(), values.end());
    buffer(v).upload(host.data(), host.size() * sizeof(T));
  }

  void download(Slot v, std::span<double> values) override {
    check_vector_length(values.size(), rows_, "download");
    std::vector<T> host(values.size());
    buffer(v).download(host.data(), host.size() * sizeof(T));
    std::copy(host.begin(), host.end(), values.begin());
  }

  void upload_halo(Slot v, std::span<const double> values) override {
    check_halo_length(values.size(), rows_, cols_);
    if (values.empty()) return;
    const std::vector<T> host(values.begin(), values.end());
    if (omp_target_memcpy(vec(v), host.data(), host.size() * sizeof(T), static_cast<std::size_t>(rows_) * sizeof(T), 0,
                          number_, omp_get_initial_device()) != 0)
      throw DeviceError("omp_target_memcpy of a halo to " + device_.label() + " failed");
  }

  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    check_entries(rows, values.size(), rows_);
    std::vector<T> host(static_cast<std::size_t>(rows_));
    buffer(v).download(host.data(), host.size() * sizeof(T));
    for (std::size_t i = 0; i < rows.size(); ++i) values[i] = static_cast<double>(host[static_cast<std::size_t>(rows[i])]);
  }

  void fill_zero(Slot v) override {
    T* y = vec(v);
    const int n = rows_, dev = number_;
    const Launch l = launches_["scale"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) is_device_ptr(y)
    for (int i = 0; i < n; ++i) y[i] = 0;
    timed("fill", t0);
  }

  void copy(Slot src, Slot dst) override {
    const T* x = vec(src);
    T* y = vec(dst);
    const int n = rows_, dev = number_;
    const Launch l = launches_["scale"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) is_device_ptr(x, y)
    for (int i = 0; i < n; ++i) y[i] = x[i];
    timed("copy", t0);
  }

  void spmv(Slot in, Slot out) override {
    const T* x = vec(in);
    T* y = vec(out);
    const std::int32_t* ptr = static_cast<const std::int32_t*>(row_ptr_.data());
    const std::int32_t* col = static_cast<const std::int32_t*>(col_idx_.data());
    const T* val = static_cast<const T*>(values_.data());
    const int n = rows_, dev = number_;
    const Launch l = launches_["spmv"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) \
    is_device_ptr(x, y, ptr, col, val)
    for (int r = 0; r < n; ++r) {
      T sum = 0;
      for (std::int32_t k = ptr[r]; k < ptr[r + 1]; ++k) sum += val[k] * x[col[k]];
      y[r] = sum;
    }
    timed("spmv", t0);
  }

  // w = A r and {r.r, w.r} while w_i is in a register.
  std::array<double, 2> spmv_dot2(Slot r, Slot w) override {
    const T* x = vec(r);
    T* y = vec(w);
    const std::int32_t* ptr = static_cast<const std::int32_t*>(row_ptr_.data());
    const std::int32_t* col = static_cast<const std::int32_t*>(col_idx_.data());
    const T* val = static_cast<const T*>(values_.data());
    const int n = rows_, dev = number_;
    const Launch l = launches_["spmv_dot2"];
    int* where = static_cast<int*>(where_.data());
    double rr = 0, wr = 0;
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) \
    is_device_ptr(x, y, ptr, col, val, where) reduction(+ : rr, wr)
    for (int i = 0; i < n; ++i) {
      if (i == 0) where[0] = omp_is_initial_device();
      T sum = 0;
      for (std::int32_t k = ptr[i]; k < ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
      y[i] = sum;
      const auto ri = static_cast<double>(x[i]);
      rr += ri * ri;
      wr += static_cast<double>(sum) * ri;
    }
    timed("spmv_dot2", t0);
    ran(0, "spmv_dot2");
    return {rr, wr};
  }

  void start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count) override {
    check_row_range(first, count, rows_);
    if (first != 0 || count != rows_) throw Error(ExitCode::internal, "omp_target runs no bands: spmv_dot2 takes whole rows");
    add_to_reduction(spmv_dot2(r, w));
  }

  double dot(Slot a, Slot b) override {
    const T* x = vec(a);
    const T* y = vec(b);
    const int n = rows_, dev = number_;
    const Launch l = launches_["dot"];
    int* where = static_cast<int*>(where_.data());
    double sum = 0;
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) \
    is_device_ptr(x, y, where) reduction(+ : sum)
    for (int i = 0; i < n; ++i) {
      if (i == 0) where[1] = omp_is_initial_device();
      sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
    }
    timed("dot", t0);
    ran(1, "dot");
    return sum;
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    const T* rv = vec(r);
    const T* wv = vec(w);
    const int n = rows_, dev = number_;
    const Launch l = launches_["dot2"];
    int* where = static_cast<int*>(where_.data());
    double rr = 0, wr = 0;
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) \
    is_device_ptr(rv, wv, where) reduction(+ : rr, wr)
    for (int i = 0; i < n; ++i) {
      if (i == 0) where[2] = omp_is_initial_device();
      const auto ri = static_cast<double>(rv[i]);
      rr += ri * ri;
      wr += static_cast<double>(wv[i]) * ri;
    }
    timed("dot2", t0);
    ran(2, "dot2");
    return {rr, wr};
  }

  void axpy(double alpha, Slot x, Slot y) override {
    const T a = static_cast<T>(alpha);
    const T* xv = vec(x);
    T* yv = vec(y);
    const int n = rows_, dev = number_;
    const Launch l = launches_["axpy"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) is_device_ptr(xv, yv)
    for (int i = 0; i < n; ++i) yv[i] += a * xv[i];
    timed("axpy", t0);
  }

  void xpay(Slot x, double beta, Slot y) override {
    const T b = static_cast<T>(beta);
    const T* xv = vec(x);
    T* yv = vec(y);
    const int n = rows_, dev = number_;
    const Launch l = launches_["xpay"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) is_device_ptr(xv, yv)
    for (int i = 0; i < n; ++i) yv[i] = xv[i] + b * yv[i];
    timed("xpay", t0);
  }

  void scale(double alpha, Slot x, Slot y) override {
    const T a = static_cast<T>(alpha);
    const T* xv = vec(x);
    T* yv = vec(y);
    const int n = rows_, dev = number_;
    const Launch l = launches_["scale"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) is_device_ptr(xv, yv)
    for (int i = 0; i < n; ++i) yv[i] = a * xv[i];
    timed("scale", t0);
  }

  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    const T rh = static_cast<T>(rho), g = static_cast<T>(gamma), keep = static_cast<T>(1 - rho);
    const T* xv = vec(x);
    T* xp = vec(x_prev);
    const T* rv = vec(r);
    T* rp = vec(r_prev);
    const T* wv = vec(w);
    const int n = rows_, dev = number_;
    const Launch l = launches_["three_term_update"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) \
    is_device_ptr(xv, xp, rv, rp, wv)
    for (int i = 0; i < n; ++i) {
      const T ri = rv[i];
      xp[i] = rh * (xv[i] + g * ri) + keep * xp[i];
      rp[i] = rh * (ri - g * wv[i]) + keep * rp[i];
    }
    timed("three_term_update", t0);
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    T* rv = vec(r);
    const T* wv = vec(w);
    T* pv = vec(p);
    T* sv = vec(s);
    T* xv = vec(x);
    const int n = rows_, dev = number_;
    const Launch l = launches_["cg_update"];
    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(l.teams) thread_limit(l.threads) \
    is_device_ptr(rv, wv, pv, sv, xv)
    for (int i = 0; i < n; ++i) {
      const T pi = rv[i] + b * pv[i];
      const T si = wv[i] + b * sv[i];
      pv[i] = pi;
      sv[i] = si;
      xv[i] += a * pi;
      rv[i] -= a * si;
    }
    timed("cg_update", t0);
  }

  void set_launch(const std::string& kernel, const Params& launch) override {
    check_set_launch(kernel, launch, std::max<std::size_t>(device_.max_work_group_size, 1), device_);
    launches_[kernel] = launch_of(launch);
  }

  void start_timer() override {
    timing_ = true;
    timer_started_ = false;
  }

  double stop_timer() override {
    timing_ = false;
    if (!timer_started_) return 0;
    timer_started_ = false;
    return timer_end_ - timer_start_;
  }

  void set_profiling(bool on) override { profiling_ = on; }
  void finish() override {}  // every region is synchronous
  std::vector<KernelProfile> take_profile() override { return profile_.take(); }

  int rows() const override { return rows_; }
  int cols() const override { return cols_; }

 private:
  // The clauses of a launch (omp_target::num_teams and thread_limit: on a GPU teams per SM times
  // the SMs and warps of work_group_size work-items; on the host one team of its cores).
  Launch launch_of(const Params& p) const {
    return {omp_target::num_teams(device_, grid::groups_per_cu_of(p)), omp_target::thread_limit(device_, grid::group_size_of(p))};
  }

  omp_target::Buffer& buffer(Slot v) {
    check_slot(v, vectors_.size());
    return *vectors_[static_cast<std::size_t>(v)];
  }
  T* vec(Slot v) { return static_cast<T*>(buffer(v).data()); }

  // Where a reduction region ran, from the flag its first iteration wrote into device memory, read
  // at the first call of each (slot): a mapped flag (map(tofrom)) cost every call about 30 us on
  // the H200 (a dot over 2^24 doubles 239 us with it, 205 without: reports/data/
  // h200-2026-12-04-late-issue57), and a fallback to the host is the runtime's choice for the whole
  // device image, never for one call.
  void ran(int slot, const char* kernel) {
    if (checked_[static_cast<std::size_t>(slot)]) return;
    std::array<int, kernels_checked> flags{};
    where_.download(flags.data(), sizeof flags);
    checked_[static_cast<std::size_t>(slot)] = true;
    omp_target::check_ran_where_asked(device_, flags[static_cast<std::size_t>(slot)] != 0,
                                      std::string("CG's ") + kernel + " region");
  }

  // A region of `kernel` that began at `start` (omp_get_wtime()) has ended. (No lambdas around the
  // regions: a variable a lambda captures by reference is not the host's variable in a target
  // region's reduction.)
  void timed(const char* kernel, double start) {
    const double end = omp_get_wtime();
    if (timing_) {
      if (!timer_started_) {
        timer_start_ = start;
        timer_started_ = true;
      }
      timer_end_ = end;
    }
    if (profiling_) profile_.add(kernel, end - start);
  }

  DeviceInfo device_;
  int number_;
  int rows_, cols_;
  static constexpr int kernels_checked = 3;  // spmv_dot2, dot, dot2: the regions that say where they ran
  omp_target::Buffer row_ptr_, col_idx_, values_, where_;
  std::array<bool, kernels_checked> checked_{};
  std::vector<std::unique_ptr<omp_target::Buffer>> vectors_;
  std::map<std::string, Launch> launches_;

  bool timing_ = false, timer_started_ = false;
  double timer_start_ = 0, timer_end_ = 0;
  bool profiling_ = false;
  ProfileRecorder profile_;
};

std::unique_ptr<Operations> make_omp_target_operations(const DeviceInfo& device, const CsrMatrix& a, Precision precision,
                                                       const Params& launch) {
  check_can_make(device, a, precision, launch);
  if (precision == Precision::f64) return std::make_unique<OmpTargetOperations<double>>(device, a, launch);
  return std::make_unique<OmpTargetOperations<float>>(device, a, launch);
}

}  // namespace

}  // namespace gpubench::cg

// No vendor CG; the launch tunables are OpenMP's clauses; no bands (one device per solve); one SpMV
// (row_runs and slabs are CUDA's and OpenCL's forms: not swept here).
GPUBENCH_REGISTER_CG_OPERATIONS(gpubench::omp_target::backend_name, gpubench::cg::make_omp_target_operations,
                                gpubench::cg::BackendTraits{"", true, false, false});
