// NAS FT on CUDA: the kernels (kernels/ft/nvrtc.cu, compiled at run time by NVRTC) are thin entry
// points to kernels/ft/device.h (shared with OpenCL), this file supplies gpu.hpp's steps, and
// gpu.cpp runs the variants' sequences (v1, v2, fast, vendor). vendor is cuFFT's double-complex
// 3-D transform, planned before the timed region, with the initial conditions, evolve and
// checksum from device.h. Each function's device time is the span between events recorded
// around it.
#include <cufft.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "common/out_of_memory.hpp"
#include "kernels/ft/device.h"
#include "kernels/ft/gpu.hpp"

namespace gpubench::ft {

namespace {

constexpr unsigned line_block = 64, element_block = 256, sum_block = 256;

// The kernel `name` of kernels/ft/nvrtc.cu on the current device, built by NVRTC on first use
// (the whole file at once), with `radix` (fft_fast's tunable) where it is not 0.
cudaKernel_t kernel(const char* name, int radix = 0) {
  cuda::Defines defines = {{"SUM_BLOCK", std::to_string(sum_block)}};
  if (radix != 0)
    for (auto& d : compile_defines({{"radix", radix}})) defines.push_back(std::move(d));
  return cuda::rtc_kernel("ft/nvrtc.cu", name, defines, "FT's kernels");
}

// The shared memory a block may opt into on `device` (cudaDevAttrMaxSharedMemoryPerBlockOptin).
std::uint64_t shared_memory_optin(const DeviceInfo& device) {
  int bytes = 0;
  cuda::check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device.index),
              "cudaDeviceGetAttribute", "(cudaDevAttrMaxSharedMemoryPerBlockOptin)");
  return static_cast<std::uint64_t>(bytes);
}

std::string cufft_text(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of device memory)";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cufftResult " + std::to_string(static_cast<int>(r));
  }
}

void check_cufft(cufftResult r, const char* call) {
  if (r != CUFFT_SUCCESS) throw DeviceError(std::string(call) + " failed: " + cufft_text(r));
}

class CufftPlan {
 public:
  CufftPlan() = default;
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  ~CufftPlan() {
    if (made_) cufftDestroy(plan_);
  }
  // nx fastest: cuFFT takes the sizes slowest first.
  void make(const FtClass& c, cudaStream_t stream, std::size_t& work_bytes) {
    if (made_) cufftDestroy(plan_);
    made_ = false;
    check_cufft(cufftCreate(&plan_), "cufftCreate");
    made_ = true;
    check_cufft(cufftMakePlan3d(plan_, c.nz, c.ny, c.nx, CUFFT_Z2Z, &work_bytes), "cufftMakePlan3d");
    check_cufft(cufftSetStream(plan_, stream), "cufftSetStream");
  }
  cufftHandle get() const { return plan_; }

 private:
  cufftHandle plan_ = 0;
  bool made_ = false;
};

class CudaSteps final : public Operations, public GpuSteps {
 public:
  explicit CudaSteps(const DeviceInfo& device) : info_(cuda::open_device(device.index)) {
    if (!info_.fp64) throw DeviceError("device " + info_.label() + " has no fp64 support, which FT requires");
  }

  void prepare(const FtClass& c, Variant v, const RunChoices& choices) override {
    c_ = &c;
    shapes_ = choices.shapes;
    u0_ = {};  // a second prepare (a sweep's next shape) frees the last one's memory first
    u1_ = {};
    third_ = {};
    factors_ = {};
    const auto n = static_cast<std::size_t>(c.total());
    const std::string what = "FT class " + std::string(1, c.name) + " (" + to_string(v) + ")";
    const bool study = v == Variant::v1 || v == Variant::v2;
    if (study) check_host_memory(study_host_bytes(c, v), what);
    std::string held;
    const std::uint64_t bytes = device_bytes(c, v, &held);
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (bytes > free_bytes)
      throw OutOfMemoryError(info_.label(), what + " needs " + std::to_string(bytes) + " bytes of device memory (" + held +
                                                "), " + std::to_string(free_bytes) + " are free");
    u0_ = cuda::DeviceBuffer<cplx>(n);
    u1_ = cuda::DeviceBuffer<cplx>(n);
    if (study) {
      third_ = cuda::DeviceBuffer<cplx>(n);
      factors_ = cuda::DeviceBuffer<double>(n);
    }
    sums_ = cuda::DeviceBuffer<cplx>(static_cast<std::size_t>(c.niter));
    host_sums_ = cuda::PinnedBuffer<cplx>(static_cast<std::size_t>(c.niter));
    axes_ = cuda::DeviceBuffer<double>(static_cast<std::size_t>(c.nx + c.ny + c.nz) * c.niter);
    for (int axis = 0; axis < 3; ++axis) roots_[axis] = cuda::DeviceBuffer<cplx>(static_cast<std::size_t>(length(axis)));
    if (v == Variant::fast)
      for (int axis = 0; axis < 3; ++axis) {
        const AxisShape& s = shapes_[axis];
        const int n_axis = length(axis);
        if (s.radix > n_axis || n_axis % s.radix != 0 || (s.radix != 4 && s.radix != 8 && s.radix != 16))
          throw DeviceError("FT fast: radix " + std::to_string(s.radix) + " is not 4, 8 or 16 dividing the axis's " +
                            std::to_string(n_axis) + " points");
        const std::size_t tile = static_cast<std::size_t>(s.lines) * n_axis * sizeof(Complex);
        const std::uint64_t most = shared_memory_optin(info_);
        if (tile > most)
          throw DeviceError("FT fast: " + std::to_string(s.lines) + " lines of " + std::to_string(n_axis) + " need " +
                            std::to_string(tile) + " bytes of shared memory, above the " + std::to_string(most) +
                            " a block may opt into on " + info_.label());
        // Above the default 48 KiB a kernel must ask for its dynamic shared memory.
        fast_[axis] = kernel("fft_fast", s.radix);
        cuda::rtc_set_max_shared(fast_[axis], tile, "fft_fast");
      }
    if (v == Variant::vendor) {
      std::size_t work = 0;
      plan_.make(c, stream_.get(), work);
    }
    run(v);  // warm-up: every kernel built and run once
  }

  RunResult run(Variant v) override { return run_on_gpu(*this, *c_, v); }

  // ---- GpuSteps ----
  void finish() override { stream_.synchronize(); }
  void mark(double* into) override { timeline_.mark(stream_, into); }
  void collect_marks() override { timeline_.collect(); }
  void upload_field(const Complex* field) override { put(u1_.data(), field, u1_.bytes()); }
  void upload_factors(const double* factors) override { put(factors_.data(), factors, factors_.bytes()); }
  void upload_roots(int axis, const Complex* roots, int n) override {
    put(roots_[axis].data(), roots, static_cast<std::size_t>(n) * sizeof(Complex));
  }
  void upload_axis_factors(const double* tables, std::size_t count) override {
    put(axes_.data(), tables, count * sizeof(double));
  }
  void copy(Field src, Field dst) override {
    cuda::check(cudaMemcpyAsync(field(dst), field(src), u0_.bytes(), cudaMemcpyDeviceToDevice, stream_.get()),
                "cudaMemcpyAsync", "(FT's field)");
  }
  void fft_line_per_item(Field f, Field scratch, int axis, int sign, bool contiguous) override {
    const int n = length(axis);
    const int lines = static_cast<int>(c_->total() / n);
    const unsigned grid = static_cast<unsigned>((lines + line_block - 1) / line_block);
    const Strides s = contiguous ? Strides{1, 1, 0, n} : strides(axis);
    launch(kernels_.fft_v1, "fft_v1", grid, line_block, 0, field(f), field(scratch), const_roots(axis), n, s.elem,
           static_cast<int>(s.count_a), s.a, s.b, lines, sign);
  }
  void rotate(Field src, Field dst, int axis, bool back) override {
    launch(kernels_.rotate_axes, "rotate_axes", element_grid(), element_block, 0, static_cast<const cplx*>(field(src)),
           field(dst), c_->nx, c_->ny, c_->nz, axis, back ? 1 : 0);
  }
  void evolve() override {
    launch(kernels_.evolve, "evolve", element_grid(), element_block, 0, u0_.data(), u1_.data(),
           static_cast<const double*>(factors_.data()), ft_i64{c_->total()});
  }
  void evolve_to(int t) override {
    launch(kernels_.evolve_to, "evolve_to", element_grid(), element_block, 0, static_cast<const cplx*>(u0_.data()),
           u1_.data(), axes_for(t), c_->nx, c_->ny, ft_i64{c_->total()});
  }
  void generate(Field f) override {
    const unsigned grid = static_cast<unsigned>(c_->total() / c_->nx), block = std::min(256u, static_cast<unsigned>(c_->nx));
    launch(kernels_.generate, "generate", grid, block, 0, field(f), c_->nx, ft_u64{seed}, ft_u64{multiplier});
  }
  void fft_batched(Field src, Field dst, int axis, int sign, FirstPass first, int t) override {
    const AxisShape& s = shapes_[axis];
    const int n = length(axis);
    const Strides st = strides(axis);
    const ft_lines g{n, s.lines, axis != 0 ? 1 : 0, static_cast<int>(st.count_a), st.elem, st.a, st.b};
    const ft_first f{static_cast<int>(first), c_->nx, c_->ny, seed, multiplier};
    const auto grid = static_cast<unsigned>(c_->total() / n / s.lines);
    const auto block = static_cast<unsigned>(s.lines * (n / s.radix));
    const std::size_t shared = static_cast<std::size_t>(s.lines) * n * sizeof(cplx);
    const cplx* in = field(src);
    cplx* out = field(dst);
    launch(fast_[axis], "fft_fast", grid, block, shared, in, out, const_roots(axis), g, f, axes_for(t), sign);
  }
  void fft_library(Field f, int sign) override {
    cufftDoubleComplex* data = reinterpret_cast<cufftDoubleComplex*>(field(f));
    check_cufft(cufftExecZ2Z(plan_.get(), data, data, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE), "cufftExecZ2Z");
  }
  void checksum(Field f, int iteration) override {
    launch(kernels_.checksum, "checksum", 1, sum_block, 0, static_cast<const cplx*>(field(f)), sums_.data(), iteration,
           c_->nx, c_->ny, c_->nz);
  }
  void read_sums(Complex* sums, int count) override {
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(Complex);
    cuda::check(cudaMemcpyAsync(host_sums_.data(), sums_.data(), bytes, cudaMemcpyDeviceToHost, stream_.get()),
                "cudaMemcpyAsync", "(FT's checksums)");
    stream_.synchronize();
    for (int i = 0; i < count; ++i) sums[i] = Complex(host_sums_[static_cast<std::size_t>(i)].x, host_sums_[static_cast<std::size_t>(i)].y);
  }

 private:
  struct Strides {
    ft_i64 elem, count_a, a, b;
  };
  // As opencl.cpp's: x lines (k, j) at g nx; y lines (k, i) at (g % nx) + (g / nx) nx ny, nx
  // apart; z lines (j, i) at g, nx ny apart.
  Strides strides(int axis) const {
    const ft_i64 nx = c_->nx, ny = c_->ny;
    if (axis == 0) return {1, c_->total() / nx, nx, 0};
    if (axis == 1) return {nx, nx, 1, nx * ny};
    return {nx * ny, nx * ny, 1, 0};
  }
  // The kernels every variant launches, resolved once (the first CudaSteps on a device builds or
  // loads them): nothing is looked up between a step's marks.
  struct Kernels {
    cudaKernel_t fft_v1 = kernel("fft_v1"), rotate_axes = kernel("rotate_axes"), evolve = kernel("evolve"),
                 evolve_to = kernel("evolve_to"), generate = kernel("generate"), checksum = kernel("checksum");
  };
  template <typename... Args>
  void launch(cudaKernel_t k, const char* name, unsigned grid, unsigned block, std::size_t shared, Args... args) {
    cuda::rtc_launch(k, name, grid, block, shared, stream_.get(), args...);
  }
  const cplx* const_roots(int axis) const { return roots_[axis].data(); }
  int length(int axis) const { return axis == 0 ? c_->nx : axis == 1 ? c_->ny : c_->nz; }
  unsigned element_grid() const { return static_cast<unsigned>((c_->total() + element_block - 1) / element_block); }
  cplx* field(Field f) const { return f == Field::u0 ? u0_.data() : f == Field::u1 ? u1_.data() : third_.data(); }
  const double* axes_for(int t) const {
    return axes_.data() + (t > 0 ? static_cast<std::size_t>(t - 1) * (c_->nx + c_->ny + c_->nz) : 0);
  }
  void put(void* dst, const void* src, std::size_t bytes) {
    cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_.get()), "cudaMemcpyAsync", "(FT's setup)");
    stream_.synchronize();  // the host's arrays may go once this returns
  }

  DeviceInfo info_;
  Kernels kernels_;  // on info_'s device, made current by open_device
  cudaKernel_t fast_[3] = {};  // fft_fast per axis, for its radix (prepare)
  cuda::Stream stream_;
  const FtClass* c_ = nullptr;
  Shapes shapes_{};
  cuda::DeviceBuffer<cplx> u0_, u1_, third_, sums_, roots_[3];
  cuda::DeviceBuffer<double> factors_, axes_;
  cuda::PinnedBuffer<cplx> host_sums_;
  CufftPlan plan_;
  cuda::Timeline timeline_;
};

#define GPUBENCH_STR2(x) #x
#define GPUBENCH_STR(x) GPUBENCH_STR2(x)
constexpr const char* cufft_library = "cuFFT " GPUBENCH_STR(CUFFT_VER_MAJOR) "." GPUBENCH_STR(CUFFT_VER_MINOR) "." GPUBENCH_STR(CUFFT_VER_PATCH);

}  // namespace

}  // namespace gpubench::ft

GPUBENCH_REGISTER_FT_OPERATIONS(
    "cuda", [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::ft::Operations> {
      return std::make_unique<gpubench::ft::CudaSteps>(d);
    },
    gpubench::ft::BackendTraits{{{"cufft", gpubench::ft::cufft_library}},
                                {gpubench::ft::Variant::v1, gpubench::ft::Variant::v2, gpubench::ft::Variant::fast,
                                 gpubench::ft::Variant::vendor},
                                gpubench::ft::shared_memory_optin, gpubench::ft::study_host_bytes});
