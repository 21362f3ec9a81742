// LU on OpenCL: the blocked LU's steps and the study's buffer and kernel operations over
// kernels/lu/opencl.cl; the updates through GEMM's own OpenCL kernels (kernels/gemm/
// opencl_kernels.hpp) on blocks of the column-major matrix. Two queues for the look-ahead, joined
// by markers and barriers. The panel's leaf in one launch of work-groups that meet at a barrier in
// global memory, where a probe saw them all resident at once; else a launch per column. No
// vendor: Debian packages no OpenCL getrf.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/opencl/opencl.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "common/test_hooks.hpp"
#include "kernels/gemm/opencl_kernels.hpp"
#include "kernels/lu/blocks.hpp"
#include "kernels/lu/operations.hpp"
#include "kernels/lu/study.hpp"

namespace gpubench::lu {

namespace {

using opencl::Buffer;
using opencl::Event;
using opencl::Kernel;

constexpr std::size_t group = 256;  // LU_GROUP
constexpr std::int64_t swap_cols = 32;  // LU_SWAP_COLS: the columns of a laswp group
std::size_t round_up(std::int64_t n, std::size_t to) {
  return (static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) + to - 1) / to * to;
}

template <typename T>
class OpenclOperations final : public Operations, public StudyOps<T> {
 public:
  explicit OpenclOperations(const DeviceInfo& device) : context_(device.index) {
    if (std::is_same_v<T, double> && !context_.info().fp64)
      throw DeviceError("device " + context_.info().label() + " has no fp64 support: no f64 LU there");
    // NVIDIA's OpenCL on compute capability 7.0 or later: the leaf's barrier and maxima through
    // inline PTX (release and acquire at GPU scope, warp shuffles); elsewhere OpenCL's atomics.
    const std::string ptx = opencl::inline_ptx_option(context_.device());
    ptx_ = !ptx.empty();
    const auto& program = context_.program("lu/opencl.cl", std::string(std::is_same_v<T, float> ? "-DREAL=float"
                                                                                              : "-DREAL=double -DLU_FP64") +
                                                               (ptx_ ? " -DLU_PTX" + ptx : std::string()));
    for (const char* name : {"study_factors", "study_update", "study_factors_optimised", "study_update_optimised",
                             "pivot", "column_step", "laswp", "trtri", "copy_block", "leaf", "leaf_meet"})
      kernels_.emplace(name, program.kernel(name));
    max_groups_ = std::clamp<int>(context_.info().compute_units, 1, static_cast<int>(group));
    probe_leaf();
  }

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    host_.assign(a.begin(), a.end());
    const std::size_t bytes = host_.size() * sizeof(T);
    original_ = context_.create_buffer(bytes, CL_MEM_READ_ONLY);
    a_ = context_.create_buffer(bytes);
    context_.write(original_, host_.data(), bytes);
    ipiv_ = context_.create_buffer(static_cast<std::size_t>(n) * sizeof(cl_int));
    for (int q = 0; q < 2; ++q) {
      pvalue_[q] = context_.create_buffer(2 * group * sizeof(T));
      prow_[q] = context_.create_buffer(2 * group * sizeof(cl_int));
      prows_[q] = context_.create_buffer(2 * group * leaf_max * sizeof(T));
      rowc_[q] = context_.create_buffer(2 * leaf_max * sizeof(T));
    }
    reset();
  }

  void reset() override {
    context_.copy(original_, a_, a_.bytes());
    const cl_int zero = 0;
    context_.fill(ipiv_, &zero, sizeof zero, ipiv_.bytes());
    context_.finish();  // (the study's forms make their host copy themselves: no n^2 host copy between runs here)
  }

  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    if (study_ran_) {  // row-major, no pivoting
      lu.resize(work_.size());
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < n_; ++j)
          lu[static_cast<std::size_t>(i + j * n_)] = work_[static_cast<std::size_t>(i * n_ + j)];
      ipiv.resize(static_cast<std::size_t>(n_));
      for (std::int64_t i = 0; i < n_; ++i) ipiv[static_cast<std::size_t>(i)] = static_cast<int>(i + 1);
      return;
    }
    std::vector<T> factors(static_cast<std::size_t>(n_ * n_));
    context_.read(a_, factors.data(), a_.bytes());
    lu.assign(factors.begin(), factors.end());
    std::vector<cl_int> pivots(static_cast<std::size_t>(n_));
    context_.read(ipiv_, pivots.data(), ipiv_.bytes());
    ipiv.resize(pivots.size());
    for (std::size_t i = 0; i < pivots.size(); ++i) ipiv[i] = pivots[i] + 1;
  }

  void start() override {
    study_ran_ = false;
    leaf_.in_one_launch = leaf_.by_columns = 0;
    start_ = opencl::mark(context_.queue());
  }
  double stop() override {
    if (side_used_) {
      const Event side = opencl::mark(context_.side_queue());
      barrier(context_.queue(), side);
    }
    const Event end = opencl::mark(context_.queue());
    current_ = 0;
    const double seconds = opencl::seconds_between(start_, end);
    if (leaf_.in_one_launch > 0) check_leaf_met();
    return seconds;
  }

  std::string panel() const override {
    return leaf_.describe("launch of up to " + std::to_string(leaf_.groups) +
                              " work-groups meeting at a barrier in global memory (" +
                              (ptx_ ? "inline PTX" : "OpenCL atomics") + ", resident at once as probed)",
                          leaf_why_, "local memory per work-group");
  }
  nlohmann::json gap_causes() const override {
    nlohmann::json causes = nlohmann::json::array();
    if (leaf_.by_columns > 0 && leaf_.groups == 0)
      causes.push_back(gap_cause("api", "the panel's leaves by a launch per column: OpenCL does not promise that a "
                                        "launch's work-groups run at once (" + leaf_why_ + ")"));
    if (variant() == gemm::Variant::tensor)
      if (nlohmann::json c = gemm_.tensor_gap_cause(); !c.is_null()) {
        c["cause"] = "the trailing updates' GEMM: " + c["cause"].get<std::string>();
        causes.push_back(std::move(c));
      }
    // NVIDIA's OpenCL runs two queues' kernels at once (reports/data/h200-2026-11-29-issue56-cache/
    // conc.c), but lists no cl_khr_priority_hints: the look-ahead's panel, a chain of small
    // launches, waits behind the trailing update's work-groups (the probe
    // reports/data/h200-2026-12-01-issue56-lu/lahead.c), where CUDA's panels go on a stream of
    // high priority. What CUDA overlaps without that priority, OpenCL does not: not analysed.
    if (side_used_ && opencl::nvidia_compute_capability(context_.device())) {
      causes.push_back(gap_cause(
          "api", "the look-ahead's panel waits behind the trailing update: NVIDIA's OpenCL has no queue priorities "
                 "(no cl_khr_priority_hints), CUDA factors the panels on a stream of high priority (LU 8192 on the "
                 "H200: CUDA 54.3 ms, 56.5 with that stream at normal priority; on OpenCL a 16-launch panel beside a "
                 "4-wave update ended 1.5 ms after it, 5.7 ms against 5.9 on one queue)"));
      causes.push_back(gap_cause(
          "gpubench", "not analysed: CUDA's look-ahead still overlaps 3.7 ms at normal priority (LU 8192 on the "
                      "H200: 56.5 ms against its kernels' 60.2) where OpenCL's overlaps 0.5 (75.7 against 76.2; the "
                      "update in 8 launches, 75.5, is within the 75.7-76.4 of the unchanged code); and OpenCL's kernels alone take 16 ms more, most of it the "
                      "panels (54.6 ms against 41.0), not yet compared at one nb (OpenCL's swept 512, CUDA's "
                      "heuristic 256)"));
    }
    return causes;
  }
  void mark(double* into) override { timeline_.mark(context_.queue(), into); }
  void collect_marks() override { timeline_.collect(); }

  void configure(const BlockedConfig& c) override {
    config_ = c;
    const auto nb = static_cast<std::size_t>(std::min<std::int64_t>(c.nb, n_));
    const T zero = 0;
    for (int q = 0; q < 2; ++q) {
      inverse_[q] = context_.create_buffer(nb * nb * sizeof(T));
      temp_[q] = context_.create_buffer(nb * static_cast<std::size_t>(n_) * sizeof(T));
      context_.fill(temp_[q], &zero, sizeof zero, temp_[q].bytes());
    }
    context_.finish();
  }

  void getf2(std::int64_t j, std::int64_t w) override {
    check_leaf(w);
    const int n = static_cast<int>(n_), q = current_;
    if (leaf_.fits(n_ - j, w, sizeof(T))) {
      const std::int64_t rows = n_ - j, slab = leaf_.slab(rows);
      const Kernel& leaf = kernels_.at("leaf");
      leaf.set_args(a_, n, static_cast<cl_int>(j), static_cast<cl_int>(w), static_cast<cl_int>(slab), pvalue_[q],
                    prow_[q], prows_[q], rowc_[q], ipiv_, word_[q], failed_,
                    opencl::LocalMemory{static_cast<std::size_t>(slab * w) * sizeof(T)});
      launch(leaf, static_cast<std::size_t>((rows + slab - 1) / slab) * group, group);
      ++leaf_.in_one_launch;
      return;
    }
    ++leaf_.by_columns;
    int groups = groups_for(n_ - j);
    const Kernel& pivot = kernels_.at("pivot");
    pivot.set_args(a_, n, static_cast<cl_int>(j), static_cast<cl_int>(w), pvalue_[q], prow_[q], prows_[q]);
    launch(pivot, groups * group, group);
    const Kernel& step = kernels_.at("column_step");
    for (std::int64_t c = j; c < j + w; ++c) {
      const int next = groups_for(n_ - c - 1);
      step.set_args(a_, n, static_cast<cl_int>(c), static_cast<cl_int>(j), static_cast<cl_int>(w),
                    static_cast<cl_int>(groups), static_cast<cl_int>((c - j) % 2), pvalue_[q], prow_[q], prows_[q],
                    ipiv_);
      launch(step, next * group, group);
      groups = next;
    }
  }

  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || k0 >= k1) return;
    const Kernel& k = kernels_.at("laswp");
    k.set_args(a_, static_cast<cl_int>(n_), ipiv_, static_cast<cl_int>(k0), static_cast<cl_int>(k1),
               static_cast<cl_int>(c0), static_cast<cl_int>(c1));
    launch(k, static_cast<std::size_t>((c1 - c0 + swap_cols - 1) / swap_cols) * group, group);
  }

  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1) return;
    const int q = current_;
    const Kernel& inv = kernels_.at("trtri");
    inv.set_args(a_, static_cast<cl_int>(n_), static_cast<cl_int>(j), static_cast<cl_int>(w), inverse_[q]);
    launch(inv, static_cast<std::size_t>(w) * group, group);
    // temp = L^-1 A[j:j+w, c0:c1], then back into the matrix.
    const gemm::Block b = colmajor_gemm(w, c1 - c0, w, 0, w, j + c0 * n_, n_, 0, w);
    gemm_.enqueue(variant(), config_.gemm_params, b, 1.0, a_, inverse_[q], 0.0, temp_[q], queue());
    const Kernel& copy = kernels_.at("copy_block");
    copy.set_args(temp_[q], static_cast<cl_int>(w), a_, static_cast<cl_int>(n_), static_cast<cl_int>(j),
                  static_cast<cl_int>(c0), static_cast<cl_int>(w), static_cast<cl_int>(c1 - c0));
    context_.launch_on(queue(), copy, Geometry{2, {round_up(w, 16), round_up(c1 - c0, 16), 1}, {16, 16, 1}});
  }

  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    const gemm::Block b = trailing_update(n_, r0, r1, c0, c1, k0, k1);
    gemm_.enqueue(variant(), config_.gemm_params, b, -1.0, a_, a_, 1.0, a_, queue());
  }

  void queue(int q) override {
    current_ = q;
    if (q == 1) side_used_ = true;
  }
  // The other queue waits for this mark: OpenCL asks that its queue be flushed for that.
  void signal(int e) override {
    events_[e] = opencl::mark(queue());
    opencl::check(clFlush(queue()), "clFlush");
  }
  void wait(int e) override { barrier(queue(), events_[e]); }

  void vendor() override { throw DeviceError("no vendor LU on opencl (Debian packages no OpenCL getrf)"); }

  StudyRun study(Variant v, StepTimes* times, double limit_s) override {
    work_ = host_;
    // Row-major, as the study's host arrays.
    std::vector<T> rows(work_.size());
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < n_; ++j)
        rows[static_cast<std::size_t>(i * n_ + j)] = host_[static_cast<std::size_t>(i + j * n_)];
    const StudyRun run = run_study<T>(*this, v, rows, static_cast<int>(n_), times, limit_s);
    work_ = std::move(rows);
    study_ran_ = true;
    return run;
  }

  // StudyOps
  int create(std::size_t elements) override {
    const int id = next_buffer_++;
    buffers_[id] = context_.create_buffer(std::max<std::size_t>(elements, 1) * sizeof(T));
    return id;
  }
  void release(int b) override { buffers_.erase(b); }
  void write(int b, const T* host, std::size_t elements) override {
    context_.write(buffers_.at(b), host, elements * sizeof(T));
  }
  void read(int b, T* host, std::size_t elements) override { context_.read(buffers_.at(b), host, elements * sizeof(T)); }
  void factors(int l, int u, int a, int n, int i) override {
    const Kernel& k = kernels_.at("study_factors");
    k.set_args(buffers_.at(l), buffers_.at(u), buffers_.at(a), n, i);
    context_.launch(k, round_up(n, 64), 64);
  }
  void update(int l, int u, int a, int n, int i) override {
    const Kernel& k = kernels_.at("study_update");
    k.set_args(buffers_.at(l), buffers_.at(u), buffers_.at(a), n, i);
    context_.launch(k, Geometry{2, {round_up(n, 16), round_up(n, 16), 1}, {16, 16, 1}});
  }
  void factors_optimised(int column, int f, int n, int i) override {
    const Kernel& k = kernels_.at("study_factors_optimised");
    k.set_args(buffers_.at(column), buffers_.at(f), n, i);
    context_.launch(k, round_up(n, 64), 64);
  }
  void update_optimised(int a, int v, int aux, int n, int) override {
    const Kernel& k = kernels_.at("study_update_optimised");
    k.set_args(buffers_.at(a), buffers_.at(v), buffers_.at(aux), n);
    context_.launch(k, Geometry{2, {round_up(n, 16), round_up(n, 16), 1}, {16, 16, 1}});
  }
  void finish() override { context_.finish(); }

 private:
  // The leaf's work-groups: one per compute unit (at most LU_GROUP: the partials' candidates),
  // each with the local memory the device leaves beside the kernel's own; used on a GPU, and only
  // where a probe (leaf_meet) saw that many groups, each holding that much, meet at the barrier,
  // all resident at once. Otherwise leaf_why_ says why not.
  void probe_leaf() {
    const char* asked = test_hook("GPUBENCH_LU_LEAF_GROUPS");  // (a test's: the probe on any device, so many groups)
    if (context_.info().type != "gpu" && !asked) {
      leaf_why_ = "a " + context_.info().type + " device's work-groups share its cores with the host's threads, so "
                  "waiting at a barrier between them spins (LU 1000 on PoCL, 2 cores: 6.4 s in one launch per leaf, "
                  "1.6 s by launches)";
      return;
    }
    const Kernel& leaf = kernels_.at("leaf");
    leaf.set_arg(12, opencl::LocalMemory{sizeof(T)});
    const std::size_t used = leaf.local_mem_bytes(context_.device());
    const std::size_t own = std::max<std::size_t>(used > sizeof(T) ? used - sizeof(T) : 0,
                                                  group * (sizeof(T) + sizeof(cl_int)) + leaf_max * sizeof(T) + 8);
    const std::size_t local = context_.info().local_mem_bytes;
    if (local < own + group * sizeof(T)) {
      leaf_why_ = "the leaf needs more local memory than the device's " + std::to_string(local) + " bytes";
      return;
    }
    if (leaf.max_work_group_size(context_.device()) < group) {
      leaf_why_ = "the device runs the leaf with fewer than " + std::to_string(group) + " work-items per group";
      return;
    }
    const std::size_t bytes = (local - own) / 64 * 64;
    const int groups = asked ? std::clamp(std::atoi(asked), 1, static_cast<int>(group)) : max_groups_;
    failed_ = context_.create_buffer(sizeof(cl_int));
    for (auto& w : word_) w = context_.create_buffer(sizeof(cl_uint));
    reset_leaf_words();
    const Kernel& meet = kernels_.at("leaf_meet");
    meet.set_args(word_[0], failed_, opencl::LocalMemory{bytes});
    context_.launch(meet, static_cast<std::size_t>(groups) * group, group);
    cl_int failed = 0;
    context_.read(failed_, &failed, sizeof failed);
    if (failed) {
      reset_leaf_words();
      leaf_why_ = std::to_string(groups) + " work-groups with " + std::to_string(bytes) +
                  " bytes of local memory each were not all resident at once when probed";
      return;
    }
    leaf_.groups = groups;
    leaf_.bytes = bytes;
  }
  // After a run with leaves: none of their groups gave up waiting at the barrier (else the run's
  // factors are not the factorisation: a DeviceError says why, and the words start over).
  void check_leaf_met() {
    cl_int failed = 0;
    context_.read(failed_, &failed, sizeof failed);
    if (!failed) return;
    reset_leaf_words();
    throw DeviceError("the LU panel's leaf (" + std::to_string(leaf_.groups) + " work-groups meeting at a barrier in "
                      "global memory) waited in vain: its work-groups were not all resident at once (another program "
                      "on the device?); the run's factors are discarded");
  }
  // The barrier words and the failure flag zeroed, as a launch of the leaf expects them.
  void reset_leaf_words() {
    const cl_uint zero = 0;
    for (auto& w : word_) context_.fill(w, &zero, sizeof zero, sizeof zero);
    context_.fill(failed_, &zero, sizeof zero, sizeof zero);
    context_.finish();
  }
  int groups_for(std::int64_t rows) const {
    return static_cast<int>(std::clamp<std::int64_t>((rows + group - 1) / static_cast<std::int64_t>(group), 1, max_groups_));
  }
  cl_command_queue queue() { return current_ == 0 ? context_.queue() : context_.side_queue(); }
  void launch(const Kernel& k, std::size_t global, std::size_t local) {
    context_.launch_on(queue(), k, Geometry{1, {global}, {local}});
  }
  gemm::Variant variant() const { return gemm::parse_variant(config_.gemm_variant); }
  static void barrier(cl_command_queue q, const Event& after) {
    cl_event e = after.get();
    opencl::check(clEnqueueBarrierWithWaitList(q, 1, &e, nullptr), "clEnqueueBarrierWithWaitList");
  }

  opencl::Context context_;
  gemm::OpenclKernels gemm_{context_, std::is_same_v<T, float> ? Precision::f32 : Precision::f64};
  std::map<std::string, Kernel> kernels_;
  int max_groups_ = 1;
  std::int64_t n_ = 0;
  std::vector<T> host_, work_;
  bool study_ran_ = false;
  Buffer original_, a_, ipiv_, pvalue_[2], prow_[2], prows_[2], rowc_[2], inverse_[2], temp_[2];
  // The leaf's: its barrier word per queue (zero between launches) and whether a group gave up.
  Buffer word_[2], failed_;
  bool ptx_ = false;
  Leaf leaf_;  // groups 0: a launch per column (leaf_why_ says why)
  std::string leaf_why_;
  BlockedConfig config_;
  int current_ = 0;
  bool side_used_ = false;
  Event start_, events_[2];
  opencl::Timeline timeline_;
  std::map<int, Buffer> buffers_;
  int next_buffer_ = 0;
};

}  // namespace

}  // namespace gpubench::lu

GPUBENCH_REGISTER_LU_OPERATIONS(
    "opencl",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::lu::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::lu::OpenclOperations<float>>(d);
      return std::make_unique<gpubench::lu::OpenclOperations<double>>(d);
    },
    gpubench::lu::BackendTraits{
        "",
        {gpubench::lu::Variant::naive, gpubench::lu::Variant::optimised, gpubench::lu::Variant::blocked},
        true,
        // GEMM's tensor kernel (FP64 mma.sync through inline PTX) where NVIDIA's OpenCL runs it.
        [](const gpubench::DeviceInfo& d, gpubench::Precision p) {
          if (p == gpubench::Precision::f64 && gpubench::gemm::opencl_tensor_unavailable(d).empty())
            return std::vector<std::string>{"tensor", "tuned"};
          return std::vector<std::string>{"tuned"};
        },
        true,
        "no OpenCL getrf among Debian's packages"});
