// GEMM on OpenCL: kernels/gemm/opencl.cl (naive, tiled, tuned; each program built once per
// configuration on first use) and CLBlast as the vendor variant, where it was found when
// configured. Device time: the kernel's profiling event; CLBlast's, between two markers (it may
// run more than one kernel).
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#ifdef GPUBENCH_GEMM_CLBLAST
#include <clblast_c.h>
#endif

#include "backends/opencl/opencl.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
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
    if (v == Variant::tensor || v == Variant::serial)
      throw DeviceError("GEMM variant " + to_string(v) + " does not run on opencl");
    return kernels_.enqueue(v, params, whole(shape_), alpha, a_, b_, beta, c_).seconds();
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

const Kernel& OpenclKernels::kernel(const std::string& options, const std::string& name) {
  const std::string all = (precision_ == Precision::f32
                               ? std::string("-DREAL=float -DGEMM_VEC2=float2 -DGEMM_VEC4=float4")
                               : std::string("-DREAL=double -DGEMM_VEC2=double2 -DGEMM_VEC4=double4 -DGEMM_FP64")) +
                          options;
  auto found = kernels_.find(all);
  if (found == kernels_.end()) found = kernels_.emplace(all, context_->program("gemm/opencl.cl", all).kernel(name)).first;
  return found->second;
}

Event OpenclKernels::enqueue(Variant v, const Params& params, const Block& b, double alpha, const Buffer& a,
                             const Buffer& bm, double beta, const Buffer& c, cl_command_queue queue) {
  const Kernel* k = nullptr;
  Geometry g;
  switch (v) {
    case Variant::naive:
      k = &kernel("", "gemm_naive");
      g = Geometry{2, {round_up(b.n, naive_group), round_up(b.m, naive_group), 1}, {naive_group, naive_group, 1}};
      break;
    case Variant::tiled: {
      const auto tile = static_cast<std::size_t>(params.at("tile"));
      k = &kernel(compile_options(params), "gemm_tiled");
      g = Geometry{2, {round_up(b.n, tile), round_up(b.m, tile), 1}, {tile, tile, 1}};
      break;
    }
    case Variant::tuned: {
      const TunedConfig t = tuned_config(params);
      k = &kernel(compile_options(params), "gemm_tuned");
      const auto threads = static_cast<std::size_t>(t.threads());
      const std::size_t largest = k->max_work_group_size(context_->device());
      if (threads > largest)
        throw DeviceError("tuned " + format_params(params) + ": " + std::to_string(threads) +
                          " work-items per group, but the device runs this kernel with at most " +
                          std::to_string(largest) + " (registers)");
      const std::size_t groups_x = round_up(b.n, t.bn) / t.bn, groups_y = round_up(b.m, t.bm) / t.bm;
      g = Geometry{2, {groups_x * threads, groups_y, 1}, {threads, 1, 1}};
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
  return queue ? context_->launch_on(queue, *k, g) : context_->launch(*k, g);
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
         gpubench::gemm::Variant::vendor},
        nullptr, "no BLAS library was found when configured (Debian libclblast-dev)"});
