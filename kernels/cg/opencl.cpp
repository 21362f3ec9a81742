// The CG operations on OpenCL: kernels in kernels/cg/opencl.cl, built once per precision
// (-DREAL=float / -DREAL=double). Dot products end on the host: each work-group writes one
// partial sum, the host reads them back and adds them in double.
#include "backends/opencl/opencl.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

namespace {

template <typename T>
class OpenclOperations final : public Operations {
 public:
  OpenclOperations(const DeviceInfo& device, const CsrMatrix& a, const Params& launch)
      : context_(device.index), rows_(a.rows), cols_(std::max(a.cols, a.rows)) {
    if (std::is_same_v<T, double> && !context_.info().fp64)
      throw DeviceError("device " + context_.info().label() + " has no fp64 support: use --precision f32");
    const auto& program =
        context_.program("cg/opencl.cl", std::is_same_v<T, double> ? "-DREAL=double" : "-DREAL=float");
    spmv_ = program.kernel("spmv");
    spmv_vector_ = program.kernel("spmv_vector");
    dot_ = program.kernel("dot_partials");
    dot2_ = program.kernel("dot2_partials");
    axpy_ = program.kernel("axpy");
    xpay_ = program.kernel("xpay");
    scale_ = program.kernel("scale");
    three_term_ = program.kernel("three_term_update");
    cg_update_ = program.kernel("cg_update");

    // Work-group sizes up to the device's maximum and dot2's local scratch. Not within each
    // kernel's CL_KERNEL_WORK_GROUP_SIZE: NVIDIA's driver answers 256 for every kernel here on an
    // H100 yet runs them right at 1024, and a sweep must be able to reach the sizes the hardware
    // takes. A size a kernel truly cannot run fails at launch with a DeviceError naming it.
    largest_group_ = context_.info().max_work_group_size;
    largest_group_ = std::min<std::size_t>(largest_group_, context_.info().local_mem_bytes / (2 * sizeof(T)));
    largest_group_ = std::max<std::size_t>(largest_group_, 1);
    Params defaults = launch;
    if (static_cast<std::size_t>(grid::group_size_of(defaults)) > largest_group_) {
      std::cerr << "gpubench: note: work_group_size " << grid::group_size_of(defaults) << " exceeds the largest "
                << context_.info().label() << " runs the CG kernels with (" << largest_group_ << "); using "
                << largest_group_ << "\n";
      defaults["work_group_size"] = static_cast<int>(largest_group_);
    }
    per_row_ = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0;
    for (const auto& kernel : tunable_kernels()) set_launch(kernel, defaults);

    row_ptr_ = upload_array(std::span<const std::int32_t>(a.row_ptr));
    col_idx_ = upload_array(std::span<const std::int32_t>(a.col_idx));
    std::vector<T> values(a.values.size());
    std::transform(a.values.begin(), a.values.end(), values.begin(), [](double v) { return static_cast<T>(v); });
    values_ = upload_array(std::span<const T>(values));
    staging_.resize(static_cast<std::size_t>(rows_));
  }

  void allocate_vectors(int count) override {
    vectors_.clear();
    for (int i = 0; i < count; ++i) {
      vectors_.push_back(context_.create_buffer(static_cast<std::size_t>(cols_) * sizeof(T)));
      const T zero = 0;
      context_.fill(vectors_.back(), &zero, sizeof zero, static_cast<std::size_t>(cols_) * sizeof(T));
    }
    context_.finish();
  }

  void upload(Slot v, std::span<const double> values) override {
    check_vector_length(values.size(), rows_, "upload");
    std::transform(values.begin(), values.end(), staging_.begin(), [](double x) { return static_cast<T>(x); });
    context_.write(vector(v), staging_.data(), vector_bytes());
  }

  void download(Slot v, std::span<double> values) override {
    check_vector_length(values.size(), rows_, "download");
    context_.read(vector(v), staging_.data(), vector_bytes());
    std::transform(staging_.begin(), staging_.end(), values.begin(), [](T x) { return static_cast<double>(x); });
  }

  void upload_halo(Slot v, std::span<const double> values) override {
    check_halo_length(values.size(), rows_, cols_);
    if (values.empty()) return;
    halo_staging_.resize(values.size());
    std::transform(values.begin(), values.end(), halo_staging_.begin(), [](double x) { return static_cast<T>(x); });
    context_.write(vector(v), halo_staging_.data(), values.size() * sizeof(T), vector_bytes());
  }

  // Reads the span of own rows from the lowest entry to the highest (one transfer: a band's sends
  // to a neighbour are near its edge) and picks the entries from it.
  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    check_entries(rows, values.size(), rows_);
    if (rows.empty()) return;
    const auto [lo, hi] = std::minmax_element(rows.begin(), rows.end());
    const auto first = static_cast<std::size_t>(*lo), count = static_cast<std::size_t>(*hi - *lo) + 1;
    context_.read(vector(v), staging_.data(), count * sizeof(T), first * sizeof(T));
    for (std::size_t i = 0; i < rows.size(); ++i)
      values[i] = static_cast<double>(staging_[static_cast<std::size_t>(rows[i]) - first]);
  }

  void fill_zero(Slot v) override {
    const T zero = 0;
    times_.record("fill", context_.fill(vector(v), &zero, sizeof zero, vector_bytes()));
  }

  void copy(Slot src, Slot dst) override { times_.record("copy", context_.copy(vector(src), vector(dst), vector_bytes())); }

  void spmv(Slot in, Slot out) override { spmv_rows(in, out, 0, rows_); }

  void spmv_rows(Slot in, Slot out, std::int32_t first, std::int32_t count) override {
    check_row_range(first, count, rows_);
    if (count == 0) return;
    const std::size_t local = launches_.spmv.local;
    const std::size_t lanes = spmv_lanes(per_row_, local);
    const std::size_t items = static_cast<std::size_t>(count) * lanes;
    const std::size_t global = (items + local - 1) / local * local;
    const auto from = static_cast<cl_uint>(first), to = static_cast<cl_uint>(first + count);
    if (lanes == 1) {
      spmv_.set_args(from, to, row_ptr_, col_idx_, values_, vector(in), vector(out));
      times_.record("spmv", context_.launch(spmv_, global, local));
      return;
    }
    spmv_vector_.set_args(from, to, static_cast<cl_uint>(lanes), row_ptr_, col_idx_, values_, vector(in), vector(out),
                          opencl::LocalMemory{local * sizeof(T)});
    times_.record("spmv", context_.launch(spmv_vector_, global, local));
  }

  // One device: the partials read back blocking, straight after the kernel, as before issue 35. A
  // non-blocking read waited for with clFinish (bc9cb6f) cost NVIDIA's OpenCL about 0.02 ms per
  // reduction on the H100: 5% of CG form1's iteration at poisson2d:4096, 13% of NAS CG class C's.
  double dot(Slot a, Slot b) override {
    launch_dot(a, b);
    read_partials(true);
    return sum_partials()[0];
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    launch_dot2(r, w);
    read_partials(true);
    return sum_partials();
  }

  // Several bands: each band's read-back is started before any is waited for.
  void start_dot(Slot a, Slot b) override {
    launch_dot(a, b);
    read_partials(false);
  }

  void start_dot2(Slot r, Slot w) override {
    launch_dot2(r, w);
    read_partials(false);
  }

  // Waits for the read-back alone (the queue is in order: the kernel is done before it).
  std::array<double, 2> finish_reduction() override {
    reading_.wait();
    return sum_partials();
  }

  void axpy(double alpha, Slot x, Slot y) override {
    run("axpy", launches_.axpy, axpy_, n(), real(alpha), vector(x), vector(y));
  }

  void xpay(Slot x, double beta, Slot y) override {
    run("xpay", launches_.xpay, xpay_, n(), vector(x), real(beta), vector(y));
  }

  void scale(double alpha, Slot x, Slot y) override {
    run("scale", launches_.scale, scale_, n(), real(alpha), vector(x), vector(y));
  }

  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    run("three_term_update", launches_.three_term_update, three_term_, n(), real(rho), real(gamma), vector(x), vector(x_prev), vector(r),
        vector(r_prev), vector(w));
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    run("cg_update", launches_.cg_update, cg_update_, n(), real(alpha), real(beta), vector(r), vector(w), vector(p), vector(s), vector(x));
  }

  void start_timer() override { times_.start(); }

  void finish() override { context_.finish(); }

  double stop_timer() override {
    context_.finish();
    return times_.stop();
  }

  void set_profiling(bool on) override { times_.profile(on); }

  std::vector<KernelProfile> take_profile() override {
    context_.finish();
    ProfileRecorder profile;
    for (const auto& [kernel, seconds] : times_.take_profile()) profile.add(kernel, seconds);
    return profile.take();
  }

  int rows() const override { return rows_; }
  int cols() const override { return cols_; }

  void set_launch(const std::string& kernel, const Params& launch) override {
    check_set_launch(kernel, launch, largest_group_, context_.info());
    const Launch l{static_cast<std::size_t>(grid::group_size_of(launch)),
                   static_cast<std::size_t>(std::max(context_.info().compute_units, 1)) *
                       static_cast<std::size_t>(grid::groups_per_cu_of(launch))};
    launches_[kernel] = l;
    if (2 * l.groups > host_partials_.size()) {  // dot and dot2 write one or two partials per group
      partials_ = context_.create_buffer(2 * l.groups * sizeof(T));
      host_partials_.resize(2 * l.groups);
    }
  }

 private:
  // A kernel's launch: work-group size, and work-groups for the grid-stride kernels.
  struct Launch {
    std::size_t local = 0, groups = 0;
  };

  std::size_t vector_bytes() const { return static_cast<std::size_t>(rows_) * sizeof(T); }  // the own rows
  cl_uint n() const { return static_cast<cl_uint>(rows_); }
  static T real(double x) { return static_cast<T>(x); }

  template <typename U>
  opencl::Buffer upload_array(std::span<const U> host) {
    // A zero-size buffer is invalid in OpenCL; an empty array still gets one element.
    auto buffer = context_.create_buffer(std::max<std::size_t>(host.size_bytes(), sizeof(U)), CL_MEM_READ_ONLY);
    if (!host.empty()) context_.write(buffer, host.data(), host.size_bytes());
    return buffer;
  }

  const opencl::Buffer& vector(Slot v) const {
    check_slot(v, vectors_.size());
    return vectors_[static_cast<std::size_t>(v)];
  }

  // The dot kernels: one (dot) or two (dot2) partial sums per work-group into partials_.
  void launch_dot(Slot a, Slot b) {
    const Launch& l = launches_.dot;
    run("dot", l, dot_, n(), vector(a), vector(b), partials_, opencl::LocalMemory{l.local * sizeof(T)});
    reading_groups_ = l.groups;
    reading_sums_ = 1;
  }
  void launch_dot2(Slot r, Slot w) {
    const Launch& l = launches_.dot2;
    const opencl::LocalMemory scratch{l.local * sizeof(T)};
    run("dot2", l, dot2_, n(), vector(r), vector(w), partials_, scratch, scratch);
    reading_groups_ = l.groups;
    reading_sums_ = 2;
  }
  // The last dot kernel's partials to the host: blocking, or started (finish_reduction waits).
  void read_partials(bool blocking) {
    reading_ = context_.read(partials_, host_partials_.data(), reading_sums_ * reading_groups_ * sizeof(T), 0, blocking);
  }
  // Each sum over the groups' partials in group order, in double.
  std::array<double, 2> sum_partials() const {
    std::array<double, 2> sums{0, 0};
    for (std::size_t k = 0; k < reading_sums_; ++k)
      for (std::size_t g = 0; g < reading_groups_; ++g)
        sums[k] += static_cast<double>(host_partials_[k * reading_groups_ + g]);
    return sums;
  }

  // A grid-stride kernel on compute units x work-groups per CU work-groups.
  template <typename... Args>
  void run(const char* name, const Launch& l, const opencl::Kernel& kernel, const Args&... args) {
    kernel.set_args(args...);
    times_.record(name, context_.launch(kernel, l.groups * l.local, l.local));
  }

  opencl::Context context_;
  int rows_;
  int cols_;  // a band's vectors hold its halo after its rows; the kernels and transfers above use rows_
  double per_row_ = 0;  // average nonzeros per row: SpMV's lanes per row follow from it
  opencl::Kernel spmv_vector_;
  opencl::Kernel spmv_, dot_, dot2_, axpy_, xpay_, scale_, three_term_, cg_update_;
  std::size_t largest_group_ = 0;
  KernelLaunches<Launch> launches_;
  opencl::Buffer row_ptr_, col_idx_, values_, partials_;
  std::vector<opencl::Buffer> vectors_;
  std::vector<T> host_partials_;
  std::size_t reading_groups_ = 0, reading_sums_ = 0;  // what the last dot kernel wrote
  opencl::Event reading_;  // the last read-back of its partials
  std::vector<T> staging_;
  std::vector<T> halo_staging_;  // upload_halo's, sized on first use

  opencl::KernelTimes times_;
};

std::unique_ptr<Operations> make_opencl_operations(const DeviceInfo& device, const CsrMatrix& a, Precision precision,
                                                   const Params& launch) {
  check_can_make(device, a, precision, launch);
  if (precision == Precision::f64) return std::make_unique<OpenclOperations<double>>(device, a, launch);
  return std::make_unique<OpenclOperations<float>>(device, a, launch);
}

}  // namespace

}  // namespace gpubench::cg

GPUBENCH_REGISTER_CG_OPERATIONS("opencl", gpubench::cg::make_opencl_operations, "", true);
