// NAS FT on OpenCL: kernels/ft/opencl.cl (over device.h) supplies the kernels, this file gpu.hpp's
// steps; gpu.cpp runs the variants' sequences (v1, v2, fast, vendor). vendor is VkFFT's OpenCL
// backend (the default) or clFFT (--fft-library clfft): double-complex 3-D, in place, planned and
// its kernels built before the timed region, with the initial conditions, evolve and checksum
// from device.h. Each function's device time is the span
// between markers placed around it.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#ifdef GPUBENCH_FT_VKFFT
#define VKFFT_BACKEND 3  // OpenCL
#include <vkFFT.h>
#endif

#ifdef GPUBENCH_FT_CLFFT
#include <clFFT.h>
#endif

#include "backends/opencl/opencl.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "common/out_of_memory.hpp"
#include "kernels/ft/gpu.hpp"

namespace gpubench::ft {

namespace {

using opencl::Buffer;
using opencl::Context;
using opencl::Event;
using opencl::Kernel;
using opencl::LocalMemory;

constexpr std::size_t line_group = 64, element_group = 256;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

#ifdef GPUBENCH_FT_VKFFT
// One VkFFT application: a 3-D double-complex transform of nx x ny x nz (x fastest), in place.
class VkfftPlan {
 public:
  VkfftPlan() = default;
  VkfftPlan(const VkfftPlan&) = delete;
  VkfftPlan& operator=(const VkfftPlan&) = delete;
  ~VkfftPlan() {
    if (made_) deleteVkFFT(&app_);
  }
  void make(const FtClass& c, const Context& context, cl_mem field, std::uint64_t bytes) {
    device_ = context.device();
    context_ = context.context();
    queue_ = context.queue();
    field_ = field;
    bytes_ = bytes;
    VkFFTConfiguration config{};
    config.FFTdim = 3;
    config.size[0] = static_cast<std::uint64_t>(c.nx);
    config.size[1] = static_cast<std::uint64_t>(c.ny);
    config.size[2] = static_cast<std::uint64_t>(c.nz);
    config.doublePrecision = 1;
    config.normalize = 0;  // NAS's inverse is unnormalised
    config.device = &device_;
    config.context = &context_;
    config.buffer = &field_;
    config.bufferSize = &bytes_;
    check(initializeVkFFT(&app_, config), "initializeVkFFT");
    made_ = true;
  }
  void run(cl_mem field, int sign) {
    field_ = field;
    VkFFTLaunchParams launch{};
    launch.commandQueue = &queue_;
    launch.buffer = &field_;
    check(VkFFTAppend(&app_, sign < 0 ? -1 : 1, &launch), "VkFFTAppend");
  }

 private:
  static void check(VkFFTResult r, const char* call) {
    if (r != VKFFT_SUCCESS) throw DeviceError(std::string(call) + " failed: VkFFTResult " + std::to_string(static_cast<int>(r)));
  }
  VkFFTApplication app_{};
  bool made_ = false;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem field_ = nullptr;
  std::uint64_t bytes_ = 0;
};
const std::string vkfft_library = "VkFFT " + std::to_string(VkFFTGetVersion() / 10000) + "." +
                                  std::to_string(VkFFTGetVersion() / 100 % 100) + "." + std::to_string(VkFFTGetVersion() % 100);
#else
const std::string vkfft_library;
#endif

#ifdef GPUBENCH_FT_CLFFT
void check_clfft(clfftStatus status, const char* call) {
  if (status != CLFFT_SUCCESS) throw DeviceError(std::string(call) + " failed: clfftStatus " + std::to_string(status));
}

// clFFT's library state, set up once per process (clfftSetup) and torn down at exit.
void clfft_setup() {
  static const bool done = [] {
    clfftSetupData setup;
    check_clfft(clfftInitSetupData(&setup), "clfftInitSetupData");
    check_clfft(clfftSetup(&setup), "clfftSetup");
    std::atexit([] { clfftTeardown(); });
    return true;
  }();
  static_cast<void>(done);
}

// One clFFT plan: a 3-D double-complex interleaved transform of nx x ny x nz (x fastest), in
// place, the inverse unnormalised (clFFT scales it by 1/N unless told otherwise).
class ClfftPlan {
 public:
  ClfftPlan(const FtClass& c, const Context& context) : queue_(context.queue()) {
    clfft_setup();
    std::size_t lengths[3] = {static_cast<std::size_t>(c.nx), static_cast<std::size_t>(c.ny), static_cast<std::size_t>(c.nz)};
    check_clfft(clfftCreateDefaultPlan(&plan_, context.context(), CLFFT_3D, lengths), "clfftCreateDefaultPlan");
    made_ = true;
    check_clfft(clfftSetPlanPrecision(plan_, CLFFT_DOUBLE), "clfftSetPlanPrecision");
    check_clfft(clfftSetLayout(plan_, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED), "clfftSetLayout");
    check_clfft(clfftSetResultLocation(plan_, CLFFT_INPLACE), "clfftSetResultLocation");
    check_clfft(clfftSetPlanScale(plan_, CLFFT_BACKWARD, 1.0f), "clfftSetPlanScale");
    check_clfft(clfftBakePlan(plan_, 1, &queue_, nullptr, nullptr), "clfftBakePlan");
    std::size_t temp = 0;
    check_clfft(clfftGetTmpBufSize(plan_, &temp), "clfftGetTmpBufSize");
    if (temp > 0) temp_ = context.create_buffer(temp);
  }
  ClfftPlan(const ClfftPlan&) = delete;
  ClfftPlan& operator=(const ClfftPlan&) = delete;
  ~ClfftPlan() {
    if (made_) clfftDestroyPlan(&plan_);
  }
  void run(cl_mem field, int sign) {
    cl_mem temp = temp_ ? temp_.get() : nullptr;
    check_clfft(clfftEnqueueTransform(plan_, sign < 0 ? CLFFT_FORWARD : CLFFT_BACKWARD, 1, &queue_, 0, nullptr, nullptr,
                                      &field, nullptr, temp),
                "clfftEnqueueTransform");
  }

 private:
  clfftPlanHandle plan_ = 0;
  bool made_ = false;
  cl_command_queue queue_ = nullptr;
  Buffer temp_;
};

std::string clfft_name() {
  cl_uint major = 0, minor = 0, patch = 0;
  clfftGetVersion(&major, &minor, &patch);
  return "clFFT " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}
#endif

// The vendor libraries of this build, VkFFT first (the default: see the issue 14 note).
std::vector<Library> opencl_libraries() {
  std::vector<Library> libraries;
#ifdef GPUBENCH_FT_VKFFT
  libraries.push_back({"vkfft", vkfft_library});
#endif
#ifdef GPUBENCH_FT_CLFFT
  libraries.push_back({"clfft", clfft_name()});
#endif
  return libraries;
}

class OpenclSteps final : public Operations, public GpuSteps {
 public:
  explicit OpenclSteps(const DeviceInfo& device) : context_(device.index) {
    if (!context_.info().fp64)
      throw DeviceError("device " + context_.info().label() + " has no fp64 support, which FT requires");
    const auto& program = context_.program("ft/opencl.cl", "");
    fft_v1_ = program.kernel("fft_v1");
    rotate_ = program.kernel("rotate_axes");
    evolve_ = program.kernel("evolve");
    evolve_to_ = program.kernel("evolve_to");
    checksum_ = program.kernel("checksum");
    generate_ = program.kernel("generate");
    sum_group_ = std::min<std::size_t>(256, context_.info().max_work_group_size);
  }

  void prepare(const FtClass& c, Variant v, const RunChoices& choices) override {
    c_ = &c;
    shapes_ = choices.shapes;
    u0_ = {};  // a second prepare (a sweep's next shape) frees the last one's memory first
    u1_ = {};
    third_ = {};
    factors_ = {};
#ifdef GPUBENCH_FT_VKFFT
    vkfft_.reset();
#endif
#ifdef GPUBENCH_FT_CLFFT
    clfft_.reset();
#endif
    const auto n = static_cast<std::size_t>(c.total());
    const std::string what = "FT class " + std::string(1, c.name) + " (" + to_string(v) + ")";
    const bool study = v == Variant::v1 || v == Variant::v2;
    if (study) check_host_memory(study_host_bytes(c, v), what);
    std::string held;
    const std::uint64_t bytes = device_bytes(c, v, &held);
    if (bytes > context_.info().global_mem_bytes)
      throw OutOfMemoryError(context_.info().label(),
                             what + " needs " + std::to_string(bytes) + " bytes of device memory (" + held + ")");
    if (n * sizeof(Complex) > context_.info().max_alloc_bytes)
      throw DeviceError(what + ": the field is " + std::to_string(n * sizeof(Complex)) + " bytes, above the " +
                        std::to_string(context_.info().max_alloc_bytes) + " bytes " + context_.info().label() +
                        " allows in one buffer");
    u0_ = context_.create_buffer(n * sizeof(Complex));
    u1_ = context_.create_buffer(n * sizeof(Complex));
    if (study) {
      third_ = context_.create_buffer(n * sizeof(Complex));
      factors_ = context_.create_buffer(n * sizeof(double));
    }
    sums_ = context_.create_buffer(static_cast<std::size_t>(c.niter) * sizeof(Complex));
    const std::size_t per = static_cast<std::size_t>(c.nx + c.ny + c.nz);
    axes_ = context_.create_buffer(per * static_cast<std::size_t>(c.niter) * sizeof(double));
    for (int axis = 0; axis < 3; ++axis)
      roots_[axis] = context_.create_buffer(static_cast<std::size_t>(length(axis)) * sizeof(Complex));
    if (v == Variant::fast)
      for (int axis = 0; axis < 3; ++axis) {
        const AxisShape& s = shapes_[axis];
        const int n_axis = length(axis);
        if (s.radix > n_axis || n_axis % s.radix != 0)
          throw DeviceError("FT fast: radix " + std::to_string(s.radix) + " does not divide the axis's " +
                            std::to_string(n_axis) + " points");
        const std::size_t tile = static_cast<std::size_t>(s.lines) * n_axis * sizeof(Complex);
        if (tile > context_.info().local_mem_bytes)
          throw DeviceError("FT fast: " + std::to_string(s.lines) + " lines of " + std::to_string(n_axis) + " need " +
                            std::to_string(tile) + " bytes of local memory, above the " +
                            std::to_string(context_.info().local_mem_bytes) + " of " + context_.info().label());
        fast_[axis] = context_.program("ft/opencl.cl", compile_options({{"radix", s.radix}})).kernel("fft_fast");
        const std::size_t group = static_cast<std::size_t>(s.lines) * (n_axis / s.radix);
        const std::size_t most = fast_[axis].max_work_group_size(context_.device());
        if (group > most)
          throw DeviceError("FT fast: " + std::to_string(group) + " work-items per group (" + std::to_string(s.lines) +
                            " lines of " + std::to_string(n_axis) + " / radix " + std::to_string(s.radix) + ") above the " +
                            std::to_string(most) + " " + context_.info().label() + " runs this kernel with");
      }
    if (v == Variant::vendor) {  // a new plan for this class (its kernels are built here)
      const std::string library = choices.library.empty() ? opencl_libraries().at(0).key : choices.library;
#ifdef GPUBENCH_FT_VKFFT
      if (library == "vkfft") {
        vkfft_ = std::make_unique<VkfftPlan>();
        vkfft_->make(c, context_, u0_.get(), u0_.bytes());
      }
#endif
#ifdef GPUBENCH_FT_CLFFT
      if (library == "clfft") clfft_ = std::make_unique<ClfftPlan>(c, context_);
#endif
      if (!library_ready()) throw DeviceError("FT vendor on opencl: library '" + library + "' is not in this build");
    }
    // Warm-up: one whole run, so that every kernel has been built and run with the group size it
    // runs with (a runtime may compile per size, as PoCL does).
    run(v);
  }

  RunResult run(Variant v) override { return run_on_gpu(*this, *c_, v); }

  // ---- GpuSteps ----
  void finish() override { context_.finish(); }
  void mark(double* into) override { timeline_.mark(context_.queue(), into); }
  void collect_marks() override { timeline_.collect(); }
  void upload_field(const Complex* field) override {
    context_.write(u1_, field, static_cast<std::size_t>(c_->total()) * sizeof(Complex));
  }
  void upload_factors(const double* factors) override {
    context_.write(factors_, factors, static_cast<std::size_t>(c_->total()) * sizeof(double));
  }
  void upload_roots(int axis, const Complex* roots, int n) override {
    context_.write(roots_[axis], roots, static_cast<std::size_t>(n) * sizeof(Complex));
  }
  void upload_axis_factors(const double* tables, std::size_t count) override {
    context_.write(axes_, tables, count * sizeof(double));
  }
  void copy(Field src, Field dst) override { context_.copy(buffer(src), buffer(dst), u0_.bytes()); }

  void fft_line_per_item(Field f, Field scratch, int axis, int sign, bool contiguous) override {
    const FtClass& c = *c_;
    const int n = length(axis);
    const auto lines = static_cast<cl_int>(c.total() / n);
    if (contiguous) {
      fft_v1_.set_args(buffer(f), buffer(scratch), roots_[axis], static_cast<cl_int>(n), cl_long{1}, cl_int{1},
                       cl_long{0}, static_cast<cl_long>(n), lines, static_cast<cl_int>(sign));
    } else {
      const Strides s = strides(axis);
      fft_v1_.set_args(buffer(f), buffer(scratch), roots_[axis], static_cast<cl_int>(n), s.elem,
                       static_cast<cl_int>(s.count_a), s.a, s.b, lines, static_cast<cl_int>(sign));
    }
    context_.launch(fft_v1_, round_up(static_cast<std::size_t>(lines), line_group), line_group);
  }
  void rotate(Field src, Field dst, int axis, bool back) override {
    const FtClass& c = *c_;
    rotate_.set_args(buffer(src), buffer(dst), static_cast<cl_int>(c.nx), static_cast<cl_int>(c.ny),
                     static_cast<cl_int>(c.nz), static_cast<cl_int>(axis), static_cast<cl_int>(back ? 1 : 0));
    context_.launch(rotate_, elements(), element_group);
  }
  void evolve() override {
    evolve_.set_args(u0_, u1_, factors_, static_cast<cl_long>(c_->total()));
    context_.launch(evolve_, elements(), element_group);
  }
  void evolve_to(int t) override {
    evolve_to_.set_args(u0_, u1_, axes_, axes_at(t), static_cast<cl_int>(c_->nx), static_cast<cl_int>(c_->ny),
                        static_cast<cl_long>(c_->total()));
    context_.launch(evolve_to_, elements(), element_group);
  }
  void generate(Field f) override {
    const std::size_t items = std::min<std::size_t>(256, static_cast<std::size_t>(c_->nx));
    generate_.set_args(buffer(f), static_cast<cl_int>(c_->nx), static_cast<cl_ulong>(seed), static_cast<cl_ulong>(multiplier));
    context_.launch(generate_, static_cast<std::size_t>(c_->total() / c_->nx) * items, items);
  }
  void fft_batched(Field src, Field dst, int axis, int sign, FirstPass first, int t) override {
    const FtClass& c = *c_;
    const AxisShape& s = shapes_[axis];
    const int n = length(axis);
    const Strides st = strides(axis);
    const auto lines = static_cast<std::size_t>(c.total() / n);
    const std::size_t group = static_cast<std::size_t>(s.lines) * (n / s.radix);
    Kernel& k = fast_[axis];
    k.set_args(buffer(src), buffer(dst), LocalMemory{static_cast<std::size_t>(s.lines) * n * sizeof(Complex)},
               roots_[axis], static_cast<cl_int>(n), static_cast<cl_int>(s.lines), static_cast<cl_int>(axis != 0),
               static_cast<cl_int>(st.count_a), st.elem, st.a, st.b, static_cast<cl_int>(first),
               static_cast<cl_int>(c.nx), static_cast<cl_int>(c.ny), static_cast<cl_ulong>(seed),
               static_cast<cl_ulong>(multiplier), axes_, axes_at(t), static_cast<cl_int>(sign));
    context_.launch(k, lines / static_cast<std::size_t>(s.lines) * group, group);
  }
  void fft_library(Field f, int sign) override {
#ifdef GPUBENCH_FT_VKFFT
    if (vkfft_) return vkfft_->run(buffer(f).get(), sign);
#endif
#ifdef GPUBENCH_FT_CLFFT
    if (clfft_) return clfft_->run(buffer(f).get(), sign);
#endif
    static_cast<void>(f);
    static_cast<void>(sign);
    throw DeviceError("FT's vendor variant on opencl has no library prepared");
  }
  void checksum(Field f, int iteration) override {
    const FtClass& c = *c_;
    checksum_.set_args(buffer(f), sums_, static_cast<cl_int>(iteration), static_cast<cl_int>(c.nx),
                       static_cast<cl_int>(c.ny), static_cast<cl_int>(c.nz), LocalMemory{sum_group_ * sizeof(Complex)});
    context_.launch(checksum_, sum_group_, sum_group_);
  }
  void read_sums(Complex* sums, int count) override {
    context_.read(sums_, sums, static_cast<std::size_t>(count) * sizeof(Complex));
  }

 private:
  struct Strides {
    cl_long elem, count_a, a, b;
  };
  // x lines (k, j): elements 1 apart, line g at g nx; y lines (k, i): nx apart, line g at
  // (g % nx) + (g / nx) nx ny; z lines (j, i): nx ny apart, line g at g.
  Strides strides(int axis) const {
    const cl_long nx = c_->nx, ny = c_->ny;
    if (axis == 0) return {1, c_->total() / nx, nx, 0};
    if (axis == 1) return {nx, nx, 1, nx * ny};
    return {nx * ny, nx * ny, 1, 0};
  }
  int length(int axis) const { return axis == 0 ? c_->nx : axis == 1 ? c_->ny : c_->nz; }
  std::size_t elements() const { return round_up(static_cast<std::size_t>(c_->total()), element_group); }
  const Buffer& buffer(Field f) const { return f == Field::u0 ? u0_ : f == Field::u1 ? u1_ : third_; }
  bool library_ready() const {
#ifdef GPUBENCH_FT_VKFFT
    if (vkfft_) return true;
#endif
#ifdef GPUBENCH_FT_CLFFT
    if (clfft_) return true;
#endif
    return false;
  }
  // Where iteration t's per-axis tables start in axes_ (t 0: unused).
  cl_long axes_at(int t) const { return t > 0 ? static_cast<cl_long>(t - 1) * (c_->nx + c_->ny + c_->nz) : 0; }

  Context context_;
  Kernel fft_v1_, rotate_, evolve_, evolve_to_, checksum_, generate_, fast_[3];
#ifdef GPUBENCH_FT_VKFFT
  std::unique_ptr<VkfftPlan> vkfft_;
#endif
#ifdef GPUBENCH_FT_CLFFT
  std::unique_ptr<ClfftPlan> clfft_;
#endif
  std::size_t sum_group_ = 1;
  const FtClass* c_ = nullptr;
  Shapes shapes_{};
  Buffer u0_, u1_, third_, factors_, sums_, axes_, roots_[3];
  opencl::Timeline timeline_;
};

}  // namespace

}  // namespace gpubench::ft

GPUBENCH_REGISTER_FT_OPERATIONS(
    "opencl", [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::ft::Operations> {
      return std::make_unique<gpubench::ft::OpenclSteps>(d);
    },
    gpubench::ft::BackendTraits{
        gpubench::ft::opencl_libraries(),
        gpubench::ft::opencl_libraries().empty()
            ? std::vector<gpubench::ft::Variant>{gpubench::ft::Variant::v1, gpubench::ft::Variant::v2, gpubench::ft::Variant::fast}
            : std::vector<gpubench::ft::Variant>{gpubench::ft::Variant::v1, gpubench::ft::Variant::v2, gpubench::ft::Variant::fast,
                                                 gpubench::ft::Variant::vendor},
        nullptr, gpubench::ft::study_host_bytes,
        "neither VkFFT nor clFFT was found when configured (Debian libvkfft-dev, libclfft-dev)"});
