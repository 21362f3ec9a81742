// NAS FT on OpenCL: kernels/ft/opencl.cl; variants v1 (the FFTs on the strided lines) and v2
// (y and z rotated to be contiguous first, and back). The setup (evolve factors, initial conditions, FFT
// tables) runs on the host and is uploaded inside the timed region, as in the study's port; the
// transforms, evolve and checksum run on the device. The timed region is the host's clock around
// it all, the device finished; each function's time is the sum of its kernels' profiling events.
#include <chrono>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "backends/opencl/opencl.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "common/out_of_memory.hpp"
#include "kernels/ft/operations.hpp"

namespace gpubench::ft {

namespace {

using opencl::Buffer;
using opencl::Context;
using opencl::Event;
using opencl::Kernel;
using opencl::LocalMemory;

constexpr std::size_t line_group = 64, evolve_group = 256;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

class OpenclOperations final : public Operations {
 public:
  explicit OpenclOperations(const DeviceInfo& device) : context_(device.index) {
    if (!context_.info().fp64)
      throw DeviceError("device " + context_.info().label() + " has no fp64 support, which FT requires");
    const auto& program = context_.program("ft/opencl.cl", "");
    fft_ = program.kernel("fft_v1");
    rotate_ = program.kernel("rotate_axes");
    evolve_ = program.kernel("evolve");
    checksum_ = program.kernel("checksum");
    sum_group_ = std::min<std::size_t>(256, context_.info().max_work_group_size);
  }

  void prepare(const FtClass& c) override {
    c_ = &c;
    const auto n = static_cast<std::size_t>(c.total());
    check_host_memory(n * (sizeof(Complex) + sizeof(double)), "FT class " + std::string(1, c.name));
    const std::uint64_t device_bytes = n * (4 * sizeof(Complex) + sizeof(double));
    if (device_bytes > context_.info().global_mem_bytes)
      throw OutOfMemoryError(context_.info().label(),
                             "FT class " + std::string(1, c.name) + " needs " + std::to_string(device_bytes) +
                                 " bytes of device memory (the field twice, a scratch field, v2's rotated "
                                 "field and the factors)");
    if (n * sizeof(Complex) > context_.info().max_alloc_bytes)
      throw DeviceError("FT class " + std::string(1, c.name) + "'s field is " + std::to_string(n * sizeof(Complex)) +
                        " bytes, above the " + std::to_string(context_.info().max_alloc_bytes) + " bytes " +
                        context_.info().label() + " allows in one buffer");
    u0_ = context_.create_buffer(n * sizeof(Complex));
    u1_ = context_.create_buffer(n * sizeof(Complex));
    scratch_ = context_.create_buffer(n * sizeof(Complex));
    rotated_ = context_.create_buffer(n * sizeof(Complex));
    factors_ = context_.create_buffer(n * sizeof(double));
    sums_ = context_.create_buffer(static_cast<std::size_t>(c.niter) * sizeof(Complex));
    host_field_.resize(n);
    host_factors_.resize(n);
    // Warm-up: each kernel launched once with the work-group size it runs with (a runtime may
    // compile per size, as PoCL does), on no data: lines 0, total 0; the checksum writes sums[0],
    // which every run writes again.
    roots_[0] = context_.create_buffer(sizeof(Complex));
    fft_.set_args(u0_, scratch_, roots_[0], cl_int{2}, cl_long{1}, cl_int{1}, cl_long{1}, cl_long{1}, cl_int{0}, cl_int{-1});
    context_.launch(fft_, line_group, line_group);
    evolve_.set_args(u0_, u1_, factors_, cl_long{0});
    context_.launch(evolve_, evolve_group, evolve_group);
    checksum_.set_args(u1_, sums_, cl_int{0}, static_cast<cl_int>(c.nx), static_cast<cl_int>(c.ny),
                       static_cast<cl_int>(c.nz), LocalMemory{sum_group_ * sizeof(Complex)});
    context_.launch(checksum_, sum_group_, sum_group_);
    rotate_.set_args(u0_, rotated_, cl_int{0}, cl_int{0}, cl_int{0}, cl_int{1}, cl_int{0});
    context_.launch(rotate_, evolve_group, evolve_group);
    context_.finish();
  }

  RunResult run(Variant v) override {
    if (v != Variant::v1 && v != Variant::v2) throw DeviceError("FT variant " + to_string(v) + " does not run on opencl yet");
    variant_ = v;
    const FtClass& c = *c_;
    RunResult r;
    FunctionTimes& t = r.times;
    context_.finish();
    const double start = now();
    // Setup: on the host, uploaded.
    evolve_factors(c, host_factors_.data());
    if (planted_wrong_twiddle()) host_factors_[0] *= 1 - 1e-9;
    initial_conditions(c, host_field_.data());
    for (int axis = 0; axis < 3; ++axis) {
      const int n = axis == 0 ? c.nx : axis == 1 ? c.ny : c.nz;
      std::vector<Complex> w(static_cast<std::size_t>(std::max(n / 2, 1)));
      for (int p = 0; p < n / 2; ++p) w[static_cast<std::size_t>(p)] = std::polar(1.0, -2 * std::numbers::pi * p / n);
      roots_[axis] = context_.create_buffer(w.size() * sizeof(Complex));
      context_.write(roots_[axis], w.data(), w.size() * sizeof(Complex));
    }
    context_.write(factors_, host_factors_.data(), host_factors_.size() * sizeof(double));
    context_.write(u1_, host_field_.data(), host_field_.size() * sizeof(Complex));
    t.setup = now() - start;
    // Forward: u0 = FFT(u1).
    std::vector<std::pair<Event, double*>> events;
    events.emplace_back(context_.copy(u1_, u0_, u0_.bytes()), &t.fft_x);  // the copy is part of the transform
    fft3d(u0_, -1, t, events);
    const auto total = static_cast<cl_long>(c.total());
    for (int iter = 0; iter < c.niter; ++iter) {
      evolve_.set_args(u0_, u1_, factors_, total);
      events.emplace_back(context_.launch(evolve_, round_up(static_cast<std::size_t>(total), evolve_group), evolve_group),
                          &t.evolve);
      fft3d(u1_, +1, t, events);
      checksum_.set_args(u1_, sums_, static_cast<cl_int>(iter), static_cast<cl_int>(c.nx), static_cast<cl_int>(c.ny),
                         static_cast<cl_int>(c.nz), LocalMemory{sum_group_ * sizeof(Complex)});
      events.emplace_back(context_.launch(checksum_, sum_group_, sum_group_), &t.checksum);
    }
    r.sums.resize(static_cast<std::size_t>(c.niter));
    context_.read(sums_, r.sums.data(), r.sums.size() * sizeof(Complex));  // blocking: everything is done
    r.seconds = now() - start;
    for (const auto& [event, into] : events) *into += event.seconds();
    return r;
  }

 private:
  // x, y, z (forward) or z, y, x (inverse): one work-item per line.
  void fft3d(const Buffer& u, int sign, FunctionTimes& t, std::vector<std::pair<Event, double*>>& events) {
    for (int step = 0; step < 3; ++step) {
      const int axis = sign < 0 ? step : 2 - step;
      double* into = axis == 0 ? &t.fft_x : axis == 1 ? &t.fft_y : &t.fft_z;
      if (variant_ == Variant::v2 && axis != 0) {  // x is already contiguous
        events.emplace_back(rotation(u, rotated_, axis, false), &t.rotate);
        events.emplace_back(axis_fft(rotated_, axis, sign, true), into);
        events.emplace_back(rotation(rotated_, u, axis, true), &t.rotate);
      } else {
        events.emplace_back(axis_fft(u, axis, sign, false), into);
      }
    }
  }

  Event rotation(const Buffer& src, const Buffer& dst, int axis, bool back) {
    const FtClass& c = *c_;
    rotate_.set_args(src, dst, static_cast<cl_int>(c.nx), static_cast<cl_int>(c.ny), static_cast<cl_int>(c.nz),
                     static_cast<cl_int>(axis), static_cast<cl_int>(back ? 1 : 0));
    return context_.launch(rotate_, round_up(static_cast<std::size_t>(c.total()), evolve_group), evolve_group);
  }

  // `contiguous`: the lines of `axis` lie one after another (v2's rotated field).
  Event axis_fft(const Buffer& u, int axis, int sign, bool contiguous) {
    const FtClass& c = *c_;
    const cl_long nx = c.nx, ny = c.ny;
    // x lines (k, j): count_a ny, stride nx, then nx ny; y lines (k, i): count_a nx, stride 1,
    // then nx ny; z lines (j, i): count_a nx, stride 1, then nx.
    const int n = axis == 0 ? c.nx : axis == 1 ? c.ny : c.nz;
    const cl_long elem_stride = axis == 0 ? 1 : axis == 1 ? nx : nx * ny;
    const cl_int count_a = axis == 0 ? static_cast<cl_int>(ny) : static_cast<cl_int>(nx);
    const cl_long stride_a = axis == 0 ? nx : 1, stride_b = axis == 2 ? nx : nx * ny;
    const auto lines = static_cast<cl_int>(c.total() / n);
    if (contiguous)
      fft_.set_args(u, scratch_, roots_[axis], static_cast<cl_int>(n), cl_long{1}, cl_int{1}, cl_long{0},
                    static_cast<cl_long>(n), lines, static_cast<cl_int>(sign));
    else
      fft_.set_args(u, scratch_, roots_[axis], static_cast<cl_int>(n), elem_stride, count_a, stride_a, stride_b, lines,
                    static_cast<cl_int>(sign));
    return context_.launch(fft_, round_up(static_cast<std::size_t>(lines), line_group), line_group);
  }

  Variant variant_ = Variant::v1;
  Context context_;
  Kernel fft_, evolve_, checksum_, rotate_;
  std::size_t sum_group_ = 1;
  const FtClass* c_ = nullptr;
  Buffer u0_, u1_, scratch_, rotated_, factors_, sums_, roots_[3];
  std::vector<Complex> host_field_;
  std::vector<double> host_factors_;
};

}  // namespace

}  // namespace gpubench::ft

GPUBENCH_REGISTER_FT_OPERATIONS(
    "opencl", [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::ft::Operations> {
      return std::make_unique<gpubench::ft::OpenclOperations>(d);
    },
    gpubench::ft::BackendTraits{"", {gpubench::ft::Variant::v1, gpubench::ft::Variant::v2}});
