// GEMM on OpenCL: kernels/gemm/opencl.cl (naive, tiled, tuned; each program built once per
// configuration on first use), kernels/gemm/tensor.cl (tensor: FP64 tensor cores through inline
// PTX, on NVIDIA's OpenCL of compute capability 8.0 or later) and CLBlast as the vendor variant,
// where it was found when configured. Device time: from the first kernel's start to the last's
// end (profiling events); CLBlast's, between two markers (it may run more than one kernel).
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#ifdef GPUBENCH_GEMM_CLBLAST
#include <clblast_c.h>
#endif

#include "backends/opencl/opencl.hpp"
#include "bench/tunable.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/gemv.hpp"
#include "kernels/gemm/opencl_kernels.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

#ifdef GPUBENCH_GEMM_CLBLAST
constexpr const char* clblast_library = "CLBlast 1.5";  // Debian's libclblast-dev; the header has no version macro
#else
constexpr const char* clblast_library = "";
#endif

namespace {

using opencl::Buffer;
using opencl::Context;
using opencl::Event;
using opencl::Kernel;

std::size_t round_up(std::int64_t n, std::size_t to) { return (static_cast<std::size_t>(n) + to - 1) / to * to; }

// The naive kernel's work-group: 16 x 16, as the study's.
constexpr std::size_t naive_group = 16;

template <typename T>
class OpenclOperations final : public Operations {
 public:
  explicit OpenclOperations(const DeviceInfo& device) : context_(device.index) {
    if (std::is_same_v<T, double> && !context_.info().fp64)
      throw DeviceError("device " + context_.info().label() + " has no fp64 support: no f64 GEMM there");
  }

  void upload(const Shape& s, const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& c0) override {
    shape_ = s;
    const std::vector<T> ta(a.begin(), a.end()), tb(b.begin(), b.end()), tc(c0.begin(), c0.end());
    a_ = context_.create_buffer(ta.size() * sizeof(T), CL_MEM_READ_ONLY);
    b_ = context_.create_buffer(tb.size() * sizeof(T), CL_MEM_READ_ONLY);
    c0_ = context_.create_buffer(tc.size() * sizeof(T), CL_MEM_READ_ONLY);
    c_ = context_.create_buffer(tc.size() * sizeof(T));
    context_.write(a_, ta.data(), ta.size() * sizeof(T));
    context_.write(b_, tb.data(), tb.size() * sizeof(T));
    context_.write(c0_, tc.data(), tc.size() * sizeof(T));
  }

  double run(Variant v, const Params& params, double alpha, double beta) override {
    context_.copy(c0_, c_, c_.bytes());  // in order before the call; not timed
    if (v == Variant::vendor) return vendor(alpha, beta);
    if (v == Variant::serial) throw DeviceError("GEMM variant " + to_string(v) + " does not run on opencl");
    if (v == Variant::tensor && !std::is_same_v<T, double>)
      throw DeviceError("tensor runs f64 only (FP64 tensor cores; FP32 on tensor cores would be TF32)");
    return kernels_.enqueue(v, params, whole(shape_), alpha, a_, b_, beta, c_).seconds();
  }

  std::string mode(Variant v) const override { return v == Variant::tensor ? kernels_.tensor_mode() : std::string(); }
  // The tensor variant's inline PTX mma.sync runs on the FP64 tensor cores (NVIDIA's OpenCL only).
  std::string compute_unit(Variant v) const override {
    return v == Variant::tensor && std::is_same_v<T, double> && !degenerate(shape_) && !kernels_.tensor_mode().empty()
               ? "f64 tensor"
               : std::string();
  }
  nlohmann::json gap_causes(Variant v) const override {
    nlohmann::json causes = nlohmann::json::array();
    if (v == Variant::tensor)
      if (nlohmann::json c = kernels_.tensor_gap_cause(); !c.is_null()) causes.push_back(std::move(c));
    return causes;
  }

  std::vector<double> result() const override {
    std::vector<T> c(static_cast<std::size_t>(shape_.c_elements()));
    context_.read(c_, c.data(), c.size() * sizeof(T));
    return {c.begin(), c.end()};
  }

 private:
  double vendor(double alpha, double beta) {
#ifdef GPUBENCH_GEMM_CLBLAST
    const auto m = static_cast<std::size_t>(shape_.m), n = static_cast<std::size_t>(shape_.n),
               k = static_cast<std::size_t>(shape_.k);
    const CLBlastTranspose ta = shape_.transpose_a ? CLBlastTransposeYes : CLBlastTransposeNo;
    const std::size_t lda = shape_.transpose_a ? m : k;
    cl_command_queue queue = context_.queue();
    cl_event done = nullptr;
    const Event before = opencl::mark(queue);
    CLBlastStatusCode status;
    if constexpr (std::is_same_v<T, float>)
      status = CLBlastSgemm(CLBlastLayoutRowMajor, ta, CLBlastTransposeNo, m, n, k, static_cast<float>(alpha), a_.get(),
                            0, lda, b_.get(), 0, n, static_cast<float>(beta), c_.get(), 0, n, &queue, &done);
    else
      status = CLBlastDgemm(CLBlastLayoutRowMajor, ta, CLBlastTransposeNo, m, n, k, alpha, a_.get(), 0, lda, b_.get(),
                            0, n, beta, c_.get(), 0, n, &queue, &done);
    if (done) clReleaseEvent(done);
    if (status != CLBlastSuccess)
      throw DeviceError(std::string(std::is_same_v<T, float> ? "CLBlastSgemm" : "CLBlastDgemm") + " failed on " +
                        context_.info().label() + ": CLBlast status " + std::to_string(static_cast<int>(status)) +
                        (static_cast<int>(status) > -1024 && static_cast<int>(status) < 0 ? " (an OpenCL error code)" : ""));
    return opencl::seconds_between(before, opencl::mark(queue));
#else
    (void)alpha;
    (void)beta;
    throw DeviceError("CLBlast was not found when gpubench was configured: no vendor GEMM on opencl");
#endif
  }

  Context context_;
  OpenclKernels kernels_{context_, std::is_same_v<T, float> ? Precision::f32 : Precision::f64};
  Shape shape_;
  Buffer a_, b_, c0_, c_;
};

}  // namespace

const Kernel& OpenclKernels::kernel(const std::string& path, const std::string& options, const std::string& name) {
  const std::string all = (precision_ == Precision::f32
                               ? std::string("-DREAL=float -DGEMM_VEC2=float2 -DGEMM_VEC4=float4")
                               : std::string("-DREAL=double -DGEMM_VEC2=double2 -DGEMM_VEC4=double4 -DGEMM_FP64")) +
                          options;
  const std::string key = path + " " + all + " " + name;
  auto found = kernels_.find(key);
  if (found == kernels_.end()) found = kernels_.emplace(key, context_->program(path, all).kernel(name)).first;
  return found->second;
}

std::string opencl_tensor_unavailable(const DeviceInfo& device) {
  const auto cc = opencl::nvidia_compute_capability(device.index);
  const std::string needs = "tensor needs NVIDIA's OpenCL on compute capability 8.0 or later (FP64 mma.sync through "
                            "inline PTX): ";
  if (!cc) return needs + device.label() + " is not an NVIDIA device";
  if (cc->first < 8)
    return needs + device.label() + " is compute capability " + std::to_string(cc->first) + "." +
           std::to_string(cc->second);
  return {};
}

std::string OpenclKernels::tensor_mode() const {
  const auto cc = opencl::nvidia_compute_capability(context_->device());
  if (!cc) return {};
  return cc->first >= 9 ? "FP64 tensor cores: inline PTX mma.sync m16n8k16, cp.async (compute capability 9.0)"
                        : "FP64 tensor cores: inline PTX mma.sync m8n8k4, cp.async (compute capability 8.x)";
}

nlohmann::json OpenclKernels::tensor_gap_cause() const {
  if (!opencl::nvidia_compute_capability(context_->device())) return nullptr;
  return gap_cause("api", "the tensor kernel's tiles and pipeline stages fit the " +
                              std::to_string(context_->info().local_mem_bytes / 1024) +
                              " KiB of local memory NVIDIA's OpenCL gives a work-group (CUDA's kernel opts in to "
                              "more: 64 x 64 x 32 tiles in two stages take 64 KiB)");
}

// The tensor kernel (tensor.cl) in configuration `params` (64 x 64 blocks where none is given),
// after the scaling of C by beta where K is split.
Enqueued OpenclKernels::tensor(const Params& params, const Block& b, double alpha, const Buffer& a, const Buffer& bm,
                               double beta, const Buffer& c, cl_command_queue queue) {
  if (precision_ != Precision::f64)
    throw DeviceError("tensor runs f64 only (FP64 tensor cores; FP32 on tensor cores would be TF32)");
  const auto cc = opencl::nvidia_compute_capability(context_->device());  // (the device's own, no listing)
  if (!cc || cc->first < 8) throw DeviceError(opencl_tensor_unavailable(context_->info()));
  const gemm_tc::Shape t = params.empty() ? gemm_tc::small_local : tensor_config(params);
  const int splits = splits_of(params);
  const std::string what = "tensor " + (params.empty() ? std::string("(64 x 64 blocks)") : format_params(params));
  if (!gemm_tc::legal(t) || t.stages > 6 || splits < 1)
    throw DeviceError(what + " is not a configuration of the tensor kernel");
  const auto local = context_->info().local_mem_bytes;
  if (static_cast<std::uint64_t>(t.local_bytes()) > local)
    throw DeviceError(what + ": " + std::to_string(t.local_bytes()) + " bytes of local memory, but the device gives a "
                      "work-group " + std::to_string(local));
  const std::string options = " -DBM=" + std::to_string(t.bm) + " -DBN=" + std::to_string(t.bn) +
                              " -DBK=" + std::to_string(t.bk) + " -DSTAGES=" + std::to_string(t.stages) +
                              " -DWM=" + std::to_string(t.wm) + " -DWN=" + std::to_string(t.wn) +
                              " -DUNROLL=" + std::to_string(t.unroll) + (cc && cc->first >= 9 ? " -DGEMM_MMA_M16" : "");
  const Kernel& k = kernel("gemm/tensor.cl", options, b.transpose_a ? "gemm_tensor_tn" : "gemm_tensor_nn");
  const auto threads = static_cast<std::size_t>(t.threads());
  if (const std::size_t largest = k.max_work_group_size(context_->device()); threads > largest)
    throw DeviceError(what + ": " + std::to_string(threads) + " work-items per group, but the device runs this kernel "
                      "with at most " + std::to_string(largest) + " (registers)");
  const auto i = [](std::int64_t x) { return static_cast<cl_int>(x); };
  const auto launch = [&](const Kernel& kernel, const Geometry& g) {
    return queue ? context_->launch_on(queue, kernel, g) : context_->launch(kernel, g);
  };
  // An operand whose rows are not 16-byte aligned (an odd leading dimension or offset: an odd
  // size) would keep every work-group on 8-byte copies; it is copied first, inside the call, into
  // scratch whose rows are (as CUDA's tensor call does, kernels/gemm/cuda.cu). The scratch is kept
  // and grown, one pair of buffers per queue: calls on one in-order queue follow each other, calls
  // on two (LU's look-ahead) may overlap. Where it cannot be had, the kernel takes the 8-byte path.
  const std::array<PaddedOperand, 2> pads = plan_padding(b);
  Block run = b;
  const Buffer* operand[2] = {&a, &bm};
  std::array<Buffer, 2>& scratch = padded_[queue ? queue : context_->queue()];
  Enqueued done;
  const auto note = [&done](const opencl::Event& e) {
    if (!done.first) done.first = e;
  };
  for (int which = 0; which < 2; ++which) {
    const PaddedOperand& p = pads[which];
    if (!p.copy) continue;
    const auto bytes = static_cast<std::size_t>(p.elements()) * sizeof(double);
    if (scratch[which].bytes() < bytes) try {
        scratch[which] = context_->create_buffer(bytes);
      } catch (const DeviceError&) {
        scratch[which] = Buffer();
        continue;  // the 8-byte path
      }
    std::int64_t& off = which == 0 ? run.aoff : run.boff;
    std::int64_t& ld = which == 0 ? run.lda : run.ldb;
    const Kernel& pad = kernel("gemm/opencl.cl", " -DGEMM_GEMV", "gemm_pad");
    pad.set_args(i(p.rows), i(p.cols), *operand[which], static_cast<cl_long>(off), i(ld), scratch[which], i(p.pitch));
    const auto group = static_cast<std::size_t>(PaddedOperand::group);
    note(launch(pad, Geometry{2, {static_cast<std::size_t>(p.groups_x()) * group, static_cast<std::size_t>(p.groups_y()), 1},
                              {group, 1, 1}}));
    operand[which] = &scratch[which];
    off = 0;
    ld = p.pitch;
  }
  if (splits > 1) note(scale(b, beta, c, queue));  // C = beta C first: each share of K adds alpha times its product
  k.set_args(i(b.m), i(b.n), i(b.k), alpha, *operand[0], i(run.aoff), i(run.lda), *operand[1], i(run.boff), i(run.ldb),
             beta, c, i(b.coff), i(b.ldc));
  const std::size_t groups_x = round_up(b.n, static_cast<std::size_t>(t.bn)) / static_cast<std::size_t>(t.bn),
                    groups_y = round_up(b.m, static_cast<std::size_t>(t.bm)) / static_cast<std::size_t>(t.bm);
  done.last = launch(k, Geometry{3, {groups_x * threads, groups_y, static_cast<std::size_t>(splits)}, {threads, 1, 1}});
  if (!done.first) done.first = done.last;
  return done;
}

Event OpenclKernels::scale(const Block& b, double beta, const Buffer& c, cl_command_queue queue) {
  const ScalePlan p = plan_scale(b.m, b.n);
  const Kernel& k = kernel("gemm/opencl.cl", " -DGEMM_GEMV", "gemm_scale");
  const auto i = [](std::int64_t x) { return static_cast<cl_int>(x); };
  if (precision_ == Precision::f32)
    k.set_args(i(b.m), i(b.n), static_cast<float>(beta), c, static_cast<cl_long>(b.coff), i(b.ldc));
  else
    k.set_args(i(b.m), i(b.n), beta, c, static_cast<cl_long>(b.coff), i(b.ldc));
  const auto group = static_cast<std::size_t>(ScalePlan::group);
  const Geometry g{2, {static_cast<std::size_t>(p.groups_x) * group, static_cast<std::size_t>(p.groups_y), 1}, {group, 1, 1}};
  return queue ? context_->launch_on(queue, k, g) : context_->launch(k, g);
}

// A degenerate block (m, n or k equal to 1) on gemv.h's kernels as plan_gemv lays it out.
Enqueued OpenclKernels::gemv(const Params& params, const Block& b, double alpha, const Buffer& a, const Buffer& bm,
                             double beta, const Buffer& c, cl_command_queue queue) {
  const GemvPlan p = plan_gemv(b, params, static_cast<int>(context_->info().compute_units));
  const auto i = [](std::int64_t x) { return static_cast<cl_int>(x); };
  const auto launch = [&](const Kernel& kernel, const Geometry& g) {
    return queue ? context_->launch_on(queue, kernel, g) : context_->launch(kernel, g);
  };
  const auto group = static_cast<std::size_t>(p.group);
  const Kernel& k = kernel("gemm/opencl.cl", " -DGEMM_GEMV", p.kernel());
  if (const std::size_t largest = k.max_work_group_size(context_->device()); group > largest)
    throw DeviceError(std::string(p.kernel()) + " " + format_params(params) + ": " + std::to_string(group) +
                      " work-items per group, but the device runs this kernel with at most " + std::to_string(largest));
  const Geometry g{2, {static_cast<std::size_t>(p.groups_x) * group, static_cast<std::size_t>(p.groups_y), 1}, {group, 1, 1}};
  // Each scalar as the precision's type.
  const auto run = [&](auto real) {
    using R = decltype(real);
    const R al = static_cast<R>(alpha), be = static_cast<R>(beta);
    if (p.kind == GemvPlan::Kind::outer) {
      k.set_args(i(p.rows), i(p.cols), al, a, i(p.aoff), i(p.inca), bm, i(p.boff), be, c, i(p.coff), i(p.ldc));
      const Event e = launch(k, g);
      return Enqueued{e, e};
    }
    const std::size_t bytes = static_cast<std::size_t>(p.partials()) * sizeof(R);
    if (bytes > partials_.bytes()) partials_ = context_->create_buffer(bytes);
    const bool rowdot = p.kind == GemvPlan::Kind::rowdot;
    k.set_args(i(rowdot ? p.outs : p.len), i(rowdot ? p.len : p.outs), p.chunk, p.matrix_is_a ? a : bm, i(p.moff),
               i(p.ldm), p.matrix_is_a ? bm : a, i(p.xoff), i(p.incx), bytes ? partials_ : c, al, be, c, i(p.coff),
               i(p.incc));
    Enqueued done{launch(k, g), {}};
    done.last = done.first;
    if (bytes) {
      const Kernel& finish = kernel("gemm/opencl.cl", " -DGEMM_GEMV", "gemm_finish");
      finish.set_args(i(p.outs), p.splits, partials_, al, be, c, i(p.coff), i(p.incc));
      done.last = launch(finish, Geometry{1, {round_up(p.outs, 256), 1, 1}, {256, 1, 1}});
    }
    return done;
  };
  return precision_ == Precision::f32 ? run(0.0f) : run(0.0);
}

Enqueued OpenclKernels::enqueue(Variant v, const Params& params, const Block& b, double alpha, const Buffer& a,
                                const Buffer& bm, double beta, const Buffer& c, cl_command_queue queue) {
  if ((v == Variant::tuned || v == Variant::tensor) && is_gemv(params)) return gemv(params, b, alpha, a, bm, beta, c, queue);
  if (v == Variant::tensor) return tensor(params, b, alpha, a, bm, beta, c, queue);
  const Kernel* k = nullptr;
  Geometry g;
  int splits = 1;
  switch (v) {
    case Variant::naive:
      k = &kernel("gemm/opencl.cl", "", "gemm_naive");
      g = Geometry{2, {round_up(b.n, naive_group), round_up(b.m, naive_group), 1}, {naive_group, naive_group, 1}};
      break;
    case Variant::tiled: {
      const auto tile = static_cast<std::size_t>(params.at("tile"));
      k = &kernel("gemm/opencl.cl", compile_options(params), "gemm_tiled");
      g = Geometry{2, {round_up(b.n, tile), round_up(b.m, tile), 1}, {tile, tile, 1}};
      break;
    }
    case Variant::tuned: {
      const TunedConfig t = tuned_config(params);
      splits = splits_of(params);
      // A split K adds its shares with PTX's red.global.add on NVIDIA's OpenCL (device.h).
      const bool ptx = splits > 1 && opencl::nvidia_compute_capability(context_->device()).has_value();
      k = &kernel("gemm/opencl.cl", compile_options(params) + (ptx ? " -DGEMM_PTX" : ""), "gemm_tuned");
      const auto threads = static_cast<std::size_t>(t.threads());
      const std::size_t largest = k->max_work_group_size(context_->device());
      if (threads > largest)
        throw DeviceError("tuned " + format_params(params) + ": " + std::to_string(threads) +
                          " work-items per group, but the device runs this kernel with at most " +
                          std::to_string(largest) + " (registers)");
      const std::size_t groups_x = round_up(b.n, t.bn) / t.bn, groups_y = round_up(b.m, t.bm) / t.bm;
      g = Geometry{3, {groups_x * threads, groups_y, static_cast<std::size_t>(splits)}, {threads, 1, 1}};
      break;
    }
    default:
      throw DeviceError("GEMM's OpenCL kernels have no variant " + to_string(v));
  }
  const auto i = [](std::int64_t x) { return static_cast<cl_int>(x); };
  if (precision_ == Precision::f32)
    k->set_args(i(b.m), i(b.n), i(b.k), i(b.transpose_a), static_cast<float>(alpha), a, i(b.aoff), i(b.lda), bm,
                i(b.boff), i(b.ldb), static_cast<float>(beta), c, i(b.coff), i(b.ldc));
  else
    k->set_args(i(b.m), i(b.n), i(b.k), i(b.transpose_a), alpha, a, i(b.aoff), i(b.lda), bm, i(b.boff), i(b.ldb), beta,
                c, i(b.coff), i(b.ldc));
  const Event first = splits > 1 ? scale(b, beta, c, queue) : Event();  // C = beta C before the shares add into it
  Event done = queue ? context_->launch_on(queue, *k, g) : context_->launch(*k, g);
  return {splits > 1 ? first : done, done};
}

}  // namespace gpubench::gemm

GPUBENCH_REGISTER_GEMM_OPERATIONS(
    "opencl",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::gemm::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::gemm::OpenclOperations<float>>(d);
      return std::make_unique<gpubench::gemm::OpenclOperations<double>>(d);
    },
    gpubench::gemm::BackendTraits{
        gpubench::gemm::clblast_library,
        {gpubench::gemm::Variant::naive, gpubench::gemm::Variant::tiled, gpubench::gemm::Variant::tuned,
         gpubench::gemm::Variant::tensor, gpubench::gemm::Variant::vendor},
        [](const gpubench::DeviceInfo& d, gpubench::gemm::Variant v, gpubench::Precision p) -> std::string {
          if (v != gpubench::gemm::Variant::tensor) return {};
          if (p == gpubench::Precision::f32)
            return "tensor runs f64 only (FP64 tensor cores; FP32 on tensor cores would be TF32)";
          return gpubench::gemm::opencl_tensor_unavailable(d);
        },
        "no BLAS library was found when configured (Debian libclblast-dev)", /*shape_classes=*/true});
