// The CG operations on OpenCL: kernels in kernels/cg/opencl.cl, built once per precision
// (-DREAL=float / -DREAL=double). Dot products end on the host: each work-group writes one
// partial sum, the host reads them back and adds them in double; the fused forms' sums instead
// advance their scalars on the device (advance_scalars, kernels/cg/recurrence.h).
#include "backends/opencl/opencl.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/slabs.hpp"
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
    // NVIDIA's OpenCL on compute capability 7.0 or later: the folds by warp shuffles in inline PTX
    // (backends/opencl/ptx.h); elsewhere in local memory.
    const std::string ptx = opencl::inline_ptx_option(context_.device());
    warp_shuffles_ = !ptx.empty();
    const auto& program = context_.program(
        "cg/opencl.cl", std::string(std::is_same_v<T, double> ? "-DREAL=double" : "-DREAL=float") + ptx);
    spmv_ = program.kernel("spmv");
    spmv_vector_ = program.kernel("spmv_vector");
    dot_ = program.kernel("dot_partials");
    dot2_ = program.kernel("dot2_partials");
    spmv_dot2_ = program.kernel("spmv_dot2");
    sum_partials2_ = program.kernel("sum_partials2");
    advance_scalars_ = program.kernel("advance_scalars");
    spmv_slabs_ = program.kernel("spmv_slabs");
    keep_sums_ = program.kernel("keep_sums");
    advance_gathered_ = program.kernel("advance_gathered");
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
    while (sum_group_ * 2 <= std::min<std::size_t>(largest_group_, 256)) sum_group_ *= 2;
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
    state_ = context_.create_buffer(CG_SCALARS * sizeof(T));
    kept_buf_ = context_.create_buffer(2 * sizeof(T));
    gathered_buf_ = context_.create_buffer(2 * max_bands * sizeof(T));
    plan_slab_spmv(a);
    ready_ = true;
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
    if (const SlabLayout* m = slab_layout(launches_.spmv); m && first == 0 && count == rows_) {
      launch_slabs(*m, in, out, nullptr, launches_.spmv.slab_lanes);
      return;
    }
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
    return take_sums()[0];
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    launch_dot2(r, w);
    read_partials(true);
    return take_sums();
  }

  std::array<double, 2> spmv_dot2(Slot r, Slot w) override {
    launch_spmv_dot2(r, w, 0, rows_);
    read_partials(true);
    return take_sums();
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

  void start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count) override {
    check_row_range(first, count, rows_);
    launch_spmv_dot2(r, w, first, count);
    read_partials(false);
  }

  // The fused forms' scalars in device memory: the fused SpMV's partials summed and the
  // recurrence advanced by one work-group on the device (advance_scalars, its own profile row),
  // the updates reading their coefficients there; nothing is read back.
  bool device_scalars() const override { return true; }

  void set_scalars(const Scalars& s) override {
    std::array<T, CG_SCALARS> values{};
    std::transform(s.begin(), s.end(), values.begin(), [](double x) { return static_cast<T>(x); });
    context_.write(state_, values.data(), sizeof values);
  }

  Scalars get_scalars() override {
    std::array<T, CG_SCALARS> values{};
    context_.read(state_, values.data(), sizeof values);
    Scalars s{};
    std::transform(values.begin(), values.end(), s.begin(), [](T x) { return static_cast<double>(x); });
    return s;
  }

  void spmv_dot2_advance(Slot r, Slot w, int rule) override {
    launch_spmv_dot2(r, w, 0, rows_);
    const std::size_t k = parts_.size() - 1;
    const Part part = parts_[k];
    parts_.clear();
    const opencl::LocalMemory scratch{sum_group_ * sizeof(T)};
    advance_scalars_.set_args(static_cast<cl_uint>(part.groups), partials_[k], state_, static_cast<cl_int>(rule),
                              scratch, scratch);
    times_.record("advance_scalars", context_.launch(advance_scalars_, sum_group_, sum_group_));
  }

  void three_term_update_scalars(Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    run("three_term_update", launches_.three_term_update, three_term_, n(), real(0), real(0), cl_uint{1}, state_,
        vector(x), vector(x_prev), vector(r), vector(r_prev), vector(w));
  }

  void cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x) override {
    run("cg_update", launches_.cg_update, cg_update_, n(), real(0), real(0), cl_uint{1}, state_, vector(r), vector(w),
        vector(p), vector(s), vector(x));
  }

  // Across devices (distributed.hpp): the band's parts summed on its device into kept_buf_; another
  // band's kept sums (this one's too) come through the host (bands of OpenCL devices have their own
  // contexts); the state advanced on the device from the gathered pairs.
  void finish_reduction_here() override {
    if (parts_.empty()) throw Error(ExitCode::internal, "finish_reduction_here without a reduction begun");
    std::array<cl_uint, max_reduction_parts> n{};
    for (std::size_t k = 0; k < parts_.size(); ++k) n[k] = static_cast<cl_uint>(parts_[k].groups);
    const opencl::LocalMemory scratch{sum_group_ * sizeof(T)};
    keep_sums_.set_args(partials_[0], n[0], partials_[1], n[1], partials_[2], n[2], kept_buf_, scratch, scratch);
    times_.record("sum_partials", context_.launch(keep_sums_, sum_group_, sum_group_));
    parts_.clear();
  }

  std::array<double, 2> kept_sums() override {
    std::array<T, 2> kept{};
    context_.read(kept_buf_, kept.data(), sizeof kept);
    return {static_cast<double>(kept[0]), static_cast<double>(kept[1])};
  }

  void gather_sums(Operations& from, int index) override {
    if (index < 0 || static_cast<std::size_t>(index) >= max_bands)
      throw Error(ExitCode::internal, "gather_sums: slot " + std::to_string(index) + " of " + std::to_string(max_bands));
    const std::size_t offset = 2 * static_cast<std::size_t>(index) * sizeof(T);
    const auto sums = from.kept_sums();
    const std::array<T, 2> kept{static_cast<T>(sums[0]), static_cast<T>(sums[1])};
    context_.write(gathered_buf_, kept.data(), sizeof kept, offset);
  }

  void advance_gathered(int count, int rule) override {
    if (count < 1 || static_cast<std::size_t>(count) > max_bands)
      throw Error(ExitCode::internal, "advance_gathered: " + std::to_string(count) + " slots");
    advance_gathered_.set_args(static_cast<cl_uint>(count), gathered_buf_, state_, static_cast<cl_int>(rule));
    times_.record("advance_scalars", context_.launch(advance_gathered_, 1, 1));
  }

  // Waits for the last read-back alone (the queue is in order: the kernels and the earlier
  // read-backs are done before it).
  std::array<double, 2> finish_reduction() override {
    if (!parts_.empty()) reading_.wait();
    return take_sums();
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
    run("three_term_update", launches_.three_term_update, three_term_, n(), real(rho), real(gamma), cl_uint{0}, state_,
        vector(x), vector(x_prev), vector(r), vector(r_prev), vector(w));
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    run("cg_update", launches_.cg_update, cg_update_, n(), real(alpha), real(beta), cl_uint{0}, state_, vector(r),
        vector(w), vector(p), vector(s), vector(x));
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
                       static_cast<std::size_t>(grid::groups_per_cu_of(launch)),
                   static_cast<std::size_t>(spmv_dot2_runs(launch)), slab_spmv(launch), slab_lanes(launch),
                   slab_cache_kib(launch)};
    launches_[kernel] = l;
    if (ready_ && (kernel == "spmv" || kernel == "spmv_dot2")) make_slab_layouts(nullptr);
    if (kernel == "spmv_dot2") {  // its work-groups' partials, for the whole matrix at this size
      const std::size_t needed = 2 * std::get<2>(spmv_dot2_grid(rows_));
      if (needed > block_partials_capacity_) {
        block_partials_ = context_.create_buffer(needed * sizeof(T));
        block_partials_capacity_ = needed;
      }
    }
    reserve_partials(2 * l.groups);  // the reductions write one or two partials per group
  }

 private:
  // A kernel's launch: work-group size, work-groups for the grid-stride kernels, runs of rows
  // per work-group for spmv_dot2.
  struct Launch {
    std::size_t local = 0, groups = 0, runs = default_row_runs;
    bool slabs = true;  // SpMV as spmv_slabs where it was planned
    unsigned slab_lanes = 0;  // its work-items per row (0: the plan's)
    unsigned slab_cache_kib = 0;  // its slabs' KiB of x gathered through the cache (0: staged)
  };

  // One layout of the matrix for spmv_slabs (slabs.hpp): its plan and arrays.
  struct SlabLayout {
    SlabPlan plan;
    opencl::Buffer row_ptr, offsets, values;
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

  // The reduction kernels: one (dot) or two (dot2, spmv_dot2) partial sums per work-group, each
  // start of a reduction into the next part's buffer.
  void launch_dot(Slot a, Slot b) {
    const Launch& l = launches_.dot;
    run("dot", l, dot_, n(), vector(a), vector(b), next_part(l.groups, 1), opencl::LocalMemory{l.local * sizeof(T)});
  }
  void launch_dot2(Slot r, Slot w) {
    const Launch& l = launches_.dot2;
    const opencl::LocalMemory scratch{l.local * sizeof(T)};
    run("dot2", l, dot2_, n(), vector(r), vector(w), next_part(l.groups, 2), scratch, scratch);
  }
  // Rows [first, first + count) of w = A r and their share of r.r and w.r: one work-item per row,
  // or spmv_vector's lanes where the rows are long; the work-groups' partials summed on the device
  // (sum_partials2, its own profile row) to a pair per compute unit, the reduction's part.
  void launch_spmv_dot2(Slot r, Slot w, std::int32_t first, std::int32_t count) {
    if (const SlabLayout* m = slab_layout(launches_.spmv_dot2); m && first == 0 && count == rows_) {
      launch_slabs(*m, r, w, &next_part(m->plan.groups, 2), launches_.spmv_dot2.slab_lanes);  // its groups' sums
      return;
    }
    const auto [local, lanes, groups] = spmv_dot2_grid(count);
    if (2 * groups > block_partials_capacity_)
      throw Error(ExitCode::internal, "spmv_dot2: more work-groups than its partials were sized for");
    const auto from = static_cast<cl_uint>(first), to = static_cast<cl_uint>(first + count);
    const opencl::LocalMemory scratch{local * sizeof(T)};
    if (groups > 0) {
      spmv_dot2_.set_args(from, to, static_cast<cl_uint>(lanes), static_cast<cl_uint>(launches_.spmv_dot2.runs), row_ptr_,
                          col_idx_, values_, vector(r), vector(w), block_partials_, scratch, scratch);
      times_.record("spmv_dot2", context_.launch(spmv_dot2_, groups * local, local));
    }
    // One work-group per compute unit for the sum, each a share of the partials; the host adds theirs.
    const auto sum_groups = static_cast<std::size_t>(std::max(context_.info().compute_units, 1));
    const opencl::LocalMemory sum_scratch{sum_group_ * sizeof(T)};
    sum_partials2_.set_args(static_cast<cl_uint>(groups), block_partials_, next_part(sum_groups, 2), sum_scratch,
                            sum_scratch);
    times_.record("sum_partials", context_.launch(sum_partials2_, sum_groups * sum_group_, sum_group_));
  }
  // The entries each of spmv_slabs' two folding arrays needs in a work-group of `size`: one per
  // warp with shuffles (opencl.cl's warp_folds), else one per work-item.
  std::size_t folding_items(std::size_t size) const { return warp_shuffles_ && size % 32 == 0 ? 32 : size; }
  // Where SpMV can run as spmv_slabs (kernels/cg/slabs.hpp): work-groups of up to 1024 work-items
  // whose two folding arrays would take at most a quarter of the local memory, two per compute
  // unit. With warp shuffles the folds need a value per warp (group_partials2), not per
  // work-item: the slices get the rest (NVIDIA's 48 KiB: 29 slabs of NAS CG class C's x in f64
  // instead of 36), and the work-groups may be 1024 work-items, as CUDA's blocks are (sized as
  // if every work-item folded in local memory, they were 512: NAS CG class C's fused SpMV on the
  // H200 ran 0.274 ms through L1 and 0.320 staged with 512, 0.203 and 0.240 with 1024). The
  // matrix slab by slab for each layout the SpMV launches ask for.
  void plan_slab_spmv(const CsrMatrix& a) {
    const std::size_t local = context_.info().local_mem_bytes;
    std::size_t group = 1;
    while (group * 2 <= std::min<std::size_t>(largest_group_, 1024)) group *= 2;
    while (group > 64 && 2 * folding_items(group) * sizeof(T) > local / 4) group /= 2;
    const std::size_t reserved = 2 * folding_items(group) * sizeof(T);
    if (reserved < local) {
      slab_group_ = group;
      slab_local_ = local - reserved;
      square_ = a.rows == a.cols;
    }
    make_slab_layouts(&a);
  }
  // The layouts the SpMV launches ask for, made from `a` (null: the matrix read back from the
  // device), the others dropped; and the run's gap causes for the SpMV the fused forms run (or
  // the classic form's).
  void make_slab_layouts(const CsrMatrix* a) {
    if (slab_group_ != 0 && square_) {
      std::optional<CsrMatrix> read_back;
      const auto make = [&](unsigned cache_kib) -> std::optional<SlabLayout> {
        if (!a) a = &read_back.emplace(device_matrix());
        const auto groups = static_cast<std::size_t>(std::max(context_.info().compute_units, 1)) * 2;
        auto plan = plan_slabs(*a, slab_group_, slab_local_, groups, sizeof(T), std::size_t{cache_kib} * 1024);
        if (!plan) return std::nullopt;
        const SlabMatrix m = slab_matrix(*a, *plan);
        std::vector<T> values(m.values.size());
        std::transform(m.values.begin(), m.values.end(), values.begin(), [](double v) { return static_cast<T>(v); });
        reserve_partials(2 * plan->groups);
        return SlabLayout{*plan, upload_array(std::span<const std::int32_t>(m.row_ptr)),
                          upload_array(std::span<const std::uint16_t>(m.offsets)), upload_array(std::span<const T>(values))};
      };
      const unsigned spmv = launches_.spmv.slab_cache_kib, fused = launches_.spmv_dot2.slab_cache_kib;
      slab_layouts_.keep({spmv, fused});
      if (launches_.spmv.slabs) slab_layouts_.get(spmv, make);
      if (launches_.spmv_dot2.slabs) slab_layouts_.get(fused, make);
    }
    gap_causes_ = nlohmann::json::array();
    if (!opencl::nvidia_compute_capability(context_.device())) return;
    const SlabLayout* used = slab_layout(launches_.spmv_dot2);
    if (!used) used = slab_layout(launches_.spmv);
    if (!used) {
      // The CSR kernels: CUDA's fused SpMV of CG poisson2d:4096 on the H200 ran 0.370 ms with the
      // driver's split and 0.389 with a quarter of the SM's memory set aside as shared memory;
      // OpenCL's, the same kernel, 0.380 (reports/data/h200-2026-11-29-issue56-cache/log-call8.txt).
      gap_causes_.push_back(gap_cause(
          "api", "OpenCL cannot choose the split of the SM's memory between L1 cache and shared memory, and the SpMV's "
                 "gathers of x depend on it: CUDA's same fused SpMV of CG poisson2d:4096 on the H200 ran 0.370 ms with "
                 "the driver's split and 0.389 with a quarter set aside as shared memory; OpenCL's ran 0.380"));
      return;
    }
    const SlabPlan& p = used->plan;
    // Staged, the slices fit NVIDIA's 48 KiB (29 slabs of NAS CG class C's x against CUDA's 12 in
    // 113 KiB); through L1 both APIs run the same kernel with the same slabs, lanes and grid, and
    // on the H200 the sweep prefers that on both (NAS CG class C's fused SpMV: OpenCL 0.199 ms,
    // staged 0.247; CUDA 0.178, staged 0.189). What remains is the L1 cache's size: CUDA's kernel
    // with a quarter of the SM's memory set aside as shared memory (the carve-out, which OpenCL
    // cannot set) ran 0.194-0.199 ms, OpenCL's time, and 0.179 with the driver's choice
    // (reports/data/h200-2026-11-29-issue56-cache/log-call5.txt).
    if (p.staged) {
      gap_causes_.push_back(gap_cause(
          "api", "NVIDIA's OpenCL gives a work-group " + std::to_string(context_.info().local_mem_bytes / 1024) +
                     " KiB of local memory (CUDA's slab SpMV opts in to the SM's shared memory): x staged in " +
                     std::to_string(p.slabs) + " slabs"));
      gap_causes_.push_back(gap_cause(
          "gpubench", "the slab SpMV stages x in local memory (slab_cache_kib 0, untuned): through the L1 cache in "
                      "wider slabs it can be faster (NAS CG class C on the H200: 0.199 ms against 0.247); sweep "
                      "slab_cache_kib"));
    } else {
      gap_causes_.push_back(gap_cause(
          "api", "OpenCL cannot choose the split of the SM's memory between L1 cache and shared memory, and the slab "
                 "SpMV through L1 (" + std::to_string(p.slabs) +
                     " slabs) depends on it: CUDA's same kernel ran NAS CG class C's fused SpMV on the H200 in 0.179 "
                     "ms with the driver's split and 0.194-0.199 with a quarter set aside as shared memory, OpenCL's "
                     "time (0.200)"));
    }
  }
  // The layout an SpMV launch runs with: null where it asks for the CSR kernels or its plan declined.
  const SlabLayout* slab_layout(const Launch& l) const { return l.slabs ? slab_layouts_.find(l.slab_cache_kib) : nullptr; }
  // The matrix as uploaded (its values in T): what a layout made after construction is laid out from.
  CsrMatrix device_matrix() const {
    CsrMatrix a;
    a.rows = a.cols = rows_;
    a.row_ptr.resize(static_cast<std::size_t>(rows_) + 1);
    context_.read(row_ptr_, std::span<std::int32_t>(a.row_ptr));
    const auto nnz = static_cast<std::size_t>(a.row_ptr.back());
    a.col_idx.resize(nnz);
    std::vector<T> values(nnz);
    if (nnz > 0) {
      context_.read(col_idx_, a.col_idx.data(), nnz * sizeof(std::int32_t));
      context_.read(values_, values.data(), nnz * sizeof(T));
    }
    a.values.assign(values.begin(), values.end());
    return a;
  }
  // out = A in by spmv_slabs with layout `m`; with `partials`, the fused forms' sums too (a pair
  // per work-group); `lanes` work-items per row (0: the plan's).
  void launch_slabs(const SlabLayout& m, Slot in, Slot out, const opencl::Buffer* partials, unsigned lanes) {
    const SlabPlan& p = m.plan;
    const opencl::LocalMemory scratch{folding_items(slab_group_) * sizeof(T)};
    spmv_slabs_.set_args(n(), n(), static_cast<cl_uint>(lanes_of(p, lanes, slab_group_)), static_cast<cl_uint>(p.width),
                         static_cast<cl_uint>(p.slabs), static_cast<cl_uint>(p.staged ? 1 : 0), m.row_ptr, m.offsets,
                         m.values, vector(in), vector(out), static_cast<cl_uint>(partials ? 1 : 0),
                         partials ? *partials : state_, opencl::LocalMemory{std::max<std::size_t>(p.slice_bytes, 16)},
                         opencl::LocalMemory{p.sums_bytes}, opencl::LocalMemory{p.offsets_bytes}, scratch, scratch);
    times_.record(partials ? "spmv_dot2" : "spmv", context_.launch(spmv_slabs_, p.groups * slab_group_, slab_group_));
  }
  // The reductions' partial buffers hold at least `entries` values.
  void reserve_partials(std::size_t entries) {
    if (entries <= partial_capacity_) return;
    partial_capacity_ = entries;
    for (std::size_t k = 0; k < max_reduction_parts; ++k) {
      partials_[k] = context_.create_buffer(partial_capacity_ * sizeof(T));
      host_partials_[k].resize(partial_capacity_);
    }
  }
  // spmv_dot2's launch for `count` rows: work-group size, lanes per row, work-groups (each
  // its launch's row_runs runs of rows).
  std::tuple<std::size_t, std::size_t, std::size_t> spmv_dot2_grid(std::int32_t count) const {
    const std::size_t local = launches_.spmv_dot2.local;
    const std::size_t lanes = spmv_lanes(per_row_, local);
    const std::size_t rows_per_group = local / lanes * launches_.spmv_dot2.runs;
    return {local, lanes, (static_cast<std::size_t>(count) + rows_per_group - 1) / rows_per_group};
  }
  // The buffer the next start of the reduction writes its partials to (`groups` x `sums`).
  const opencl::Buffer& next_part(std::size_t groups, std::size_t sums) {
    if (parts_.size() == max_reduction_parts || groups * sums > partial_capacity_)
      throw Error(ExitCode::internal, "a CG reduction of more parts or partials than planned");
    parts_.push_back({groups, sums});
    return partials_[parts_.size() - 1];
  }
  // The last part's partials to the host: blocking, or started (finish_reduction waits).
  void read_partials(bool blocking) {
    const std::size_t k = parts_.size() - 1;
    reading_ = context_.read(partials_[k], host_partials_[k].data(), parts_[k].sums * parts_[k].groups * sizeof(T), 0,
                             blocking);
  }
  // Each sum over the parts' partials in part and group order, in double; the reduction ends.
  std::array<double, 2> take_sums() {
    std::array<double, 2> sums{0, 0};
    for (std::size_t p = 0; p < parts_.size(); ++p)
      for (std::size_t k = 0; k < parts_[p].sums; ++k)
        for (std::size_t g = 0; g < parts_[p].groups; ++g)
          sums[k] += static_cast<double>(host_partials_[p][k * parts_[p].groups + g]);
    parts_.clear();
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
  opencl::Kernel spmv_slabs_, keep_sums_, advance_gathered_;
  opencl::Kernel spmv_, dot_, dot2_, spmv_dot2_, sum_partials2_, advance_scalars_, axpy_, xpay_, scale_, three_term_,
      cg_update_;
  std::size_t largest_group_ = 0;
  KernelLaunches<Launch> launches_;
  opencl::Buffer row_ptr_, col_idx_, values_;
  std::vector<opencl::Buffer> vectors_;
  // A reduction's parts (Operations::max_reduction_parts): each its own buffer of partials and
  // host copy, of partial_capacity_ entries; parts_ those begun since the last take_sums().
  struct Part {
    std::size_t groups = 0, sums = 0;
  };
  std::array<opencl::Buffer, max_reduction_parts> partials_;
  std::array<std::vector<T>, max_reduction_parts> host_partials_;
  std::size_t partial_capacity_ = 0;
  opencl::Buffer block_partials_;  // spmv_dot2's, summed on the device by sum_partials2
  std::size_t block_partials_capacity_ = 0;
  std::size_t sum_group_ = 1;  // sum_partials2's and advance_scalars' work-group size: the largest power of two up to 256
  opencl::Buffer state_;  // the fused forms' scalars (recurrence.h)
  // Across devices: this band's kept sums, and every band's gathered here (max_bands pairs).
  static constexpr std::size_t max_bands = 256;
  opencl::Buffer kept_buf_, gathered_buf_;
  // spmv_slabs (slabs.hpp) where it suits the matrix: its work-group size (0: never), the local
  // memory its plans may take, and its layouts.
  bool warp_shuffles_ = false;  // the kernels built with OPENCL_PTX
  std::size_t slab_group_ = 0, slab_local_ = 0;
  bool square_ = false;  // the matrix (not a band with a halo)
  bool ready_ = false;   // constructed: set_launch may make layouts
  SlabLayouts<SlabLayout> slab_layouts_;
  std::vector<Part> parts_;
  opencl::Event reading_;  // the last read-back of partials
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
