// GEMM on CUDA: the kernels of kernels/gemm/*_body.h (written once for CUDA and OpenCL), compiled
// at run time by NVRTC for the configuration asked for (kernels/gemm/nvrtc.cu); the FP64
// tensor-core kernel (variant tensor, kernels/gemm/tensor.h, NVRTC too); cuBLAS as the
// vendor variant. Device time: CUDA events around the one call.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "bench/suite.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/cuda_kernels.hpp"
#include "kernels/gemm/gemv.hpp"
#include "kernels/gemm/operations.hpp"
#include "kernels/gemm/tensor_shape.h"

namespace gpubench::gemm {

namespace {

constexpr unsigned naive_block = 16;

unsigned blocks(std::int64_t n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

// The run-time compiled kernel of `v` (naive, tiled, tuned) for `params` and elements of T, with
// the grid and block that cover `b`: built with NVRTC on first use (kernels/gemm/nvrtc.cu).
struct Compiled {
  cudaKernel_t kernel = nullptr;
  const char* name = "";
  dim3 grid, block;
};

// The -D defines of `v` with `params` (kernels/gemm/nvrtc.cu), and (when `c` is given) its name
// and launch shape on `b`.
template <typename T>
cuda::Defines defines_of(Variant v, const Params& params, Compiled* c = nullptr, const Block& b = {}) {
  cuda::Defines defines = {{"real", std::is_same_v<T, float> ? "float" : "double"}};
  switch (v) {
    case Variant::naive:
      defines.push_back({"GEMM_KERNEL", "1"});
      if (c) *c = {nullptr, "gemm_naive", dim3(blocks(b.n, naive_block), blocks(b.m, naive_block)), dim3(naive_block, naive_block)};
      break;
    case Variant::tiled: {
      const int tile = params.at("tile");
      defines.push_back({"GEMM_KERNEL", "2"});
      if (c)
        *c = {nullptr, "gemm_tiled", dim3(blocks(b.n, tile), blocks(b.m, tile)),
              dim3(static_cast<unsigned>(tile), static_cast<unsigned>(tile))};
      break;
    }
    case Variant::tuned: {
      const TunedConfig t = tuned_config(params);
      defines.push_back({"GEMM_KERNEL", "3"});
      if (c)
        *c = {nullptr, "gemm_tuned", dim3(blocks(b.n, t.bn), blocks(b.m, t.bm), static_cast<unsigned>(splits_of(params))),
              dim3(static_cast<unsigned>(t.threads()))};
      break;
    }
    default:
      throw DeviceError("GEMM's " + to_string(v) + " kernel is not compiled at run time");
  }
  for (auto& d : compile_defines(params)) defines.push_back(std::move(d));
  return defines;
}

// Called on every launch, between the caller's timer events: the kernel's name names it in
// messages (rtc_kernel adds the defines on a compile).
template <typename T>
Compiled compiled(Variant v, const Params& params, const Block& b) {
  Compiled c;
  const cuda::Defines defines = defines_of<T>(v, params, &c, b);
  c.kernel = cuda::rtc_kernel("gemm/nvrtc.cu", c.name, defines, c.name);
  return c;
}

// The degenerate shapes' kernels (gemv.h) for elements of T.
template <typename T>
cuda::Defines gemv_defines() {
  return {{"real", std::is_same_v<T, float> ? "float" : "double"}, {"GEMM_KERNEL", "5"}};
}

// C = beta C before a split K's shares add into it (gemv.h's gemm_scale, plan_scale's launch).
template <typename T>
void scale(cudaStream_t stream, const Block& b, T beta, T* C) {
  const ScalePlan p = plan_scale(b.m, b.n);
  const cudaKernel_t k = cuda::rtc_kernel("gemm/nvrtc.cu", "gemm_scale", gemv_defines<T>(), "gemm_scale");
  cuda::rtc_launch(k, "gemm_scale", dim3(static_cast<unsigned>(p.groups_x), static_cast<unsigned>(p.groups_y)),
                   dim3(ScalePlan::group), 0, stream, int(b.m), int(b.n), beta, C, long(b.coff), int(b.ldc));
}

template <typename T>
void launch(cudaStream_t stream, Variant v, const Params& params, const Block& b, T alpha, const T* A, const T* B,
            T beta, T* C) {
  const Compiled c = compiled<T>(v, params, b);
  if (v == Variant::tuned && splits_of(params) > 1) scale<T>(stream, b, beta, C);
  int m = int(b.m), n = int(b.n), k = int(b.k), ta = b.transpose_a ? 1 : 0, aoff = int(b.aoff), lda = int(b.lda),
      boff = int(b.boff), ldb = int(b.ldb), coff = int(b.coff), ldc = int(b.ldc);
  void* args[] = {&m, &n, &k, &ta, &alpha, &A, &aoff, &lda, &B, &boff, &ldb, &beta, &C, &coff, &ldc};
  cuda::rtc_launch_argv(c.kernel, c.name, c.grid, c.block, 0, stream, args);
}

// The tensor kernels' configuration (kernels/gemm/tensor_shape.h) in `params`, the first
// configuration where it has none (a caller that does not tune: tests), and the split of K.
gemm_tc::Shape tensor_shape(const Params& params) {
  return params.empty() ? gemm_tc::preferred : tensor_config(params);
}

// The -D defines of the tensor kernels (kernels/gemm/tensor.h) in configuration `params`: its
// shape (splitk is the launch's, gridDim.z).
cuda::Defines tensor_defines(const Params& params) {
  const gemm_tc::Shape s = tensor_shape(params);
  cuda::Defines defines = {{"real", "double"}, {"GEMM_KERNEL", "4"}};
  for (auto [name, value] : {std::pair{"BM", s.bm}, {"BN", s.bn}, {"BK", s.bk}, {"STAGES", s.stages}, {"WM", s.wm},
                             {"WN", s.wn}, {"UNROLL", s.unroll}, {"MINB", s.minb}})
    defines.push_back({name, std::to_string(value)});
  return defines;
}

// The tensor kernels of one configuration on the current device (nn: A as stored, tn: A
// transposed), checked against the device, built and given their shared memory once per device
// and configuration: a launch only finds them.
struct TensorKernels {
  cudaKernel_t nn = nullptr, tn = nullptr;
};
const TensorKernels& tensor_kernels(const Params& params) {
  int device = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex mutex;
  // Found on every launch (LU's updates call it hundreds of times a factorisation): keyed by the
  // device and the configuration's numbers; the defines are made on a build only.
  static std::map<std::array<int, 9>, TensorKernels> ready;
  const gemm_tc::Shape shape = tensor_shape(params);
  const std::array<int, 9> key = {device,   shape.bm, shape.bn,     shape.bk,  shape.stages,
                                  shape.wm, shape.wn, shape.unroll, shape.minb};
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = ready.find(key); it != ready.end()) return it->second;
  const cuda::Defines defines = tensor_defines(params);
  int major = 0, minor = 0;
  cuda::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  cuda::check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
  if (major < 9)
    throw DeviceError("tensor: FP64 mma.sync m16n8k16 needs compute capability 9.0 or later; device " +
                      std::to_string(device) + " has " + std::to_string(major) + "." + std::to_string(minor));
  if (!gemm_tc::legal(shape) || shape.shared_bytes() > gemm_tc::max_shared)
    throw DeviceError("tensor: " + format_params(params) + " is not a configuration of the tensor kernel");
  TensorKernels k;
  for (auto [kernel, name] : {std::pair{&k.nn, "gemm_tensor_nn"}, {&k.tn, "gemm_tensor_tn"}}) {
    *kernel = cuda::rtc_kernel("gemm/nvrtc.cu", name, defines, name);
    cuda::rtc_set_max_shared(*kernel, static_cast<std::size_t>(shape.shared_bytes()), name);
    // All of the SM's unified memory as shared memory where the blocks need it: with the
    // driver's default split, Nsight Compute's shared-memory block limit for 64 x 64 blocks of
    // 57 KB was 2 an SM, with this 4, so that minb (the registers' limit) is what decides.
    cuda::check(cudaKernelSetAttributeForDevice(*kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                cudaSharedmemCarveoutMaxShared, device),
                "cudaKernelSetAttributeForDevice", std::string("(") + name + ": shared memory carveout)");
  }
  return ready[key] = k;
}

// The current device's SMs and resident threads, asked once per device (the launch paths ask
// inside the caller's timed region), and its memory pool set then to keep what it is given, so
// that the stream-ordered scratch of gemv's partial sums and tensor's aligned copies comes from
// the pool after the first call, not from the driver.
struct DeviceFacts {
  std::once_flag once;
  int sms = 0, threads = 0;
};
const DeviceFacts& device_facts() {
  static DeviceFacts known[64];
  int device = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  DeviceFacts& d = known[device % 64];
  std::call_once(d.once, [&d, device] {
    cuda::check(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    cuda::check(cudaDeviceGetAttribute(&d.threads, cudaDevAttrMaxThreadsPerMultiProcessor, device), "cudaDeviceGetAttribute");
    cudaMemPool_t pool = nullptr;
    cuda::check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    std::uint64_t keep = UINT64_MAX;
    cuda::check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  });
  return d;
}

void tensor(cudaStream_t stream, const Params& params, const Block& b, double alpha, const double* A, const double* B,
            double beta, double* C) {
  const TensorKernels& k = tensor_kernels(params);
  const gemm_tc::Shape shape = tensor_shape(params);
  const int splits = splits_of(params);
  if (splits > 1) scale<double>(stream, b, beta, C);  // the blocks add their shares of K into C: beta C first
  // An operand whose rows are not 16-byte aligned (an odd leading dimension or offset: an odd
  // size) would keep every block on 8-byte copies (issue 59: 35 TFLOP/s at 8191 against 55 at
  // 8192); it is copied first, inside the call, into stream-ordered scratch whose rows are (a
  // read and a write of the operand, O(n^2) against the product's O(n^3)). Where the scratch
  // cannot be had (the device's memory), the kernel takes the 8-byte path instead.
  const std::array<PaddedOperand, 2> pads = plan_padding(b);
  Block run = b;
  const double* operand[2] = {A, B};
  double* scratch = nullptr;
  if (const std::int64_t elements = pads[0].elements() + pads[1].elements(); elements > 0) {
    device_facts();  // the pool keeps what it is given
    if (cudaMallocAsync(reinterpret_cast<void**>(&scratch), static_cast<std::size_t>(elements) * sizeof(double), stream) !=
        cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: the 8-byte path instead
      scratch = nullptr;
    } else {
      const cudaKernel_t pad = cuda::rtc_kernel("gemm/nvrtc.cu", "gemm_pad", gemv_defines<double>(), "gemm_pad");
      double* dst = scratch;
      for (int which = 0; which < 2; ++which) {
        const PaddedOperand& p = pads[which];
        if (!p.copy) continue;
        std::int64_t& off = which == 0 ? run.aoff : run.boff;
        std::int64_t& ld = which == 0 ? run.lda : run.ldb;
        cuda::rtc_launch(pad, "gemm_pad", dim3(static_cast<unsigned>(p.groups_x()), static_cast<unsigned>(p.groups_y())),
                         dim3(PaddedOperand::group), 0, stream, int(p.rows), int(p.cols), operand[which], long(off),
                         int(ld), dst, int(p.pitch));
        operand[which] = dst;
        off = 0;
        ld = p.pitch;
        dst += p.elements();
      }
    }
  }
  const char* name = b.transpose_a ? "gemm_tensor_tn" : "gemm_tensor_nn";
  const dim3 grid(blocks(b.n, shape.bn), blocks(b.m, shape.bm), static_cast<unsigned>(splits));
  const dim3 block(static_cast<unsigned>(shape.threads()));
  cuda::rtc_launch(b.transpose_a ? k.tn : k.nn, name, grid, block, static_cast<std::size_t>(shape.shared_bytes()),
                   stream, int(b.m), int(b.n), int(b.k), alpha, operand[0] + run.aoff, int(run.lda), operand[1] + run.boff,
                   int(run.ldb), beta, C + b.coff, int(b.ldc));
  if (scratch) cuda::check(cudaFreeAsync(scratch, stream), "cudaFreeAsync", "(the tensor kernel's aligned copies)");
}

// A degenerate block (m, n or k equal to 1) on gemv.h's kernels as plan_gemv lays it out; the
// partial sums of a split reduction in stream-ordered memory from the device's pool, which keeps
// what it was given (no allocation from the driver on each call).
template <typename T>
void gemv(cudaStream_t stream, const Params& params, const Block& b, T alpha, const T* A, const T* B, T beta, T* C) {
  const DeviceFacts& d = device_facts();
  const GemvPlan p = plan_gemv(b, params, d.sms, d.threads);
  const cuda::Defines defines = gemv_defines<T>();
  const cudaKernel_t k = cuda::rtc_kernel("gemm/nvrtc.cu", p.kernel(), defines, p.kernel());
  const dim3 grid(static_cast<unsigned>(p.groups_x), static_cast<unsigned>(p.groups_y)), block(static_cast<unsigned>(p.group));
  const auto i = [](std::int64_t x) { return static_cast<int>(x); };
  if (p.kind == GemvPlan::Kind::outer) {
    cuda::rtc_launch(k, p.kernel(), grid, block, 0, stream, i(p.rows), i(p.cols), alpha, A, i(p.aoff), i(p.inca), B,
                     i(p.boff), beta, C, i(p.coff), i(p.ldc));
    return;
  }
  T* partials = nullptr;
  if (p.partials() > 0)
    cuda::check(cudaMallocAsync(reinterpret_cast<void**>(&partials), static_cast<std::size_t>(p.partials()) * sizeof(T), stream),
                "cudaMallocAsync", "(GEMM's partial sums)");
  const T* M = p.matrix_is_a ? A : B;
  const T* X = p.matrix_is_a ? B : A;
  const std::int64_t first = p.kind == GemvPlan::Kind::rowdot ? p.outs : p.len, second = p.kind == GemvPlan::Kind::rowdot ? p.len : p.outs;
  cuda::rtc_launch(k, p.kernel(), grid, block, 0, stream, i(first), i(second), p.chunk, M, i(p.moff), i(p.ldm), X,
                   i(p.xoff), i(p.incx), partials, alpha, beta, C, i(p.coff), i(p.incc));
  if (partials) {
    const cudaKernel_t finish = cuda::rtc_kernel("gemm/nvrtc.cu", "gemm_finish", defines, "gemm_finish");
    cuda::rtc_launch(finish, "gemm_finish", dim3(blocks(p.outs, 256)), dim3(256), 0, stream, i(p.outs), p.splits,
                     static_cast<const T*>(partials), alpha, beta, C, i(p.coff), i(p.incc));
    cuda::check(cudaFreeAsync(partials, stream), "cudaFreeAsync", "(GEMM's partial sums)");
  }
}

}  // namespace

template <typename T>
void cuda_gemm(cudaStream_t stream, Variant v, const Params& params, const Block& b, T alpha, const T* A, const T* B,
               T beta, T* C) {
  switch (v) {
    case Variant::naive:
    case Variant::tiled:
    case Variant::tuned:
      if (is_gemv(params)) return gemv<T>(stream, params, b, alpha, A, B, beta, C);
      return launch<T>(stream, v, params, b, alpha, A, B, beta, C);
    case Variant::tensor:
      if (is_gemv(params)) return gemv<T>(stream, params, b, alpha, A, B, beta, C);
      if constexpr (std::is_same_v<T, double>) return tensor(stream, params, b, alpha, A, B, beta, C);
      throw DeviceError("tensor runs f64 only (FP64 tensor cores; f32 would be TF32)");
    case Variant::serial:
    case Variant::vendor:
    case Variant::blis:
    case Variant::packed:
      break;
  }
  throw DeviceError("GEMM's own CUDA kernels have no variant " + to_string(v));
}
template <typename T>
void cuda_gemm_build(Variant v, const Params& params) {
  if (is_gemv(params)) {
    for (const char* name : {"gemm_outer", "gemm_rowdot", "gemm_colsum", "gemm_finish"})
      cuda::rtc_kernel("gemm/nvrtc.cu", name, gemv_defines<T>(), name);
    return;
  }
  if (v == Variant::naive || v == Variant::tiled || v == Variant::tuned) compiled<T>(v, params, Block{});
  if (v == Variant::tensor && std::is_same_v<T, double>) {
    tensor_kernels(params);
    cuda::rtc_kernel("gemm/nvrtc.cu", "gemm_pad", gemv_defines<double>(), "gemm_pad");  // odd sizes' copies
  }
  if ((v == Variant::tuned || v == Variant::tensor) && splits_of(params) > 1)
    cuda::rtc_kernel("gemm/nvrtc.cu", "gemm_scale", gemv_defines<T>(), "gemm_scale");  // C = beta C first
}
template void cuda_gemm_build<float>(Variant, const Params&);
template void cuda_gemm_build<double>(Variant, const Params&);

template void cuda_gemm<float>(cudaStream_t, Variant, const Params&, const Block&, float, const float*, const float*,
                               float, float*);
template void cuda_gemm<double>(cudaStream_t, Variant, const Params&, const Block&, double, const double*,
                                const double*, double, double*);

namespace {

template <typename T>
class CudaOperations final : public Operations {
 public:
  explicit CudaOperations(const DeviceInfo& device) : info_(cuda::open_device(device.index)) {
    if (std::is_same_v<T, double> && !info_.fp64)
      throw DeviceError("device " + info_.label() + " has no fp64 support: no f64 GEMM there");
  }

  void upload(const Shape& s, const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<double>& c0) override {
    shape_ = s;
    a_ = put(a);
    b_ = put(b);
    c0_ = put(c0);
    c_ = cuda::DeviceBuffer<T>(c0.size());
    warm_.clear();
  }

  double run(Variant v, const Params& params, double alpha, double beta) override {
    cuda_gemm_build<T>(v, params);  // compiled (or loaded) before the timed region
    cuda::check(cudaMemcpyAsync(c_.data(), c0_.data(), c_.bytes(), cudaMemcpyDeviceToDevice, stream_.get()),
                "cudaMemcpyAsync", "(C from C0)");
    double seconds = 0;
    timeline_.clear();
    // The region's first event waits, behind the gate, until every launch of the call is queued
    // (cuda.hpp's LaunchGate): the host's time to queue them is not the kernels'. Not on the first
    // call of a variant and configuration since the upload (the suite's and the sweeper's untimed
    // warm-up or verification): a kernel's first launch can wait on the stream (CUDA's lazy module
    // loading, the pool's first allocation), which the held gate would block for its patience.
    // A gate that ever gave up stays open for the rest of the process (the warning below).
    if (const std::string key = to_string(v) + " " + format_params(params); !warm_.insert(key).second && !gate_off())
      gate_.close(stream_);
    const struct Opens {
      cuda::LaunchGate& gate;
      ~Opens() { gate.open(); }  // a launch that throws leaves no stream held
    } opens{gate_};
    timeline_.mark(stream_, nullptr);
    if (v == Variant::vendor)
      vendor(int(shape_.m), int(shape_.n), int(shape_.k), static_cast<T>(alpha), static_cast<T>(beta));
    else if (v == Variant::tensor && !info_.fp64)
      throw DeviceError("device " + info_.label() + " has no fp64 support");
    else
      cuda_gemm<T>(stream_.get(), v, params, whole(shape_), static_cast<T>(alpha), a_.data(), b_.data(),
                   static_cast<T>(beta), c_.data());
    timeline_.mark(stream_, &seconds);
    gate_.open();
    timeline_.collect();
    if (gate_.held_too_long() && !gate_off().exchange(true))
      std::cerr << "gpubench: warning: GEMM " << to_string(v) << " on " << info_.label()
                << " synchronised with the host while its launches were being queued: the launch gate gave up after "
                << gate_patience << " s (that call's time includes the host's queueing after it), and CUDA's GEMM "
                << "runs ungated for the rest of this run (its times then include the host's queueing)" << std::endl;
    return seconds;
  }

  std::vector<double> result() const override {
    std::vector<T> c(c_.size());
    cuda::check(cudaMemcpy(c.data(), c_.data(), c_.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy", "(C to the host)");
    return {c.begin(), c.end()};
  }

  void build(Variant v, const std::vector<Params>& configs) override {
    std::vector<cuda::Defines> each;
    if (v == Variant::tensor || std::any_of(configs.begin(), configs.end(), [](const Params& p) { return is_gemv(p); }))
      each.push_back(gemv_defines<T>());  // tensor: gemm_pad's copies at odd sizes
    if (v == Variant::tensor && std::is_same_v<T, double>)
      for (const Params& p : configs) {
        if (!is_gemv(p)) each.push_back(tensor_defines(p));
      }
    else if (v == Variant::naive || v == Variant::tiled || v == Variant::tuned)
      for (const Params& p : configs) {
        if (!is_gemv(p)) each.push_back(defines_of<T>(v, p));
      }
    if (each.empty()) return;
    cuda::rtc_build_all("gemm/nvrtc.cu", each, "GEMM " + to_string(v) + (std::is_same_v<T, float> ? " f32" : " f64"));
  }

  // The tensor variant issues FP64 mma.sync; cuBLAS's DGEMM takes the FP64 tensor cores on compute
  // capability 8.0 and later (its 179% of the FMA roof on the H100 says so); SGEMM in the default
  // math mode runs on the FMA pipes.
  std::string compute_unit(Variant v) const override {
    if (!std::is_same_v<T, double> || degenerate(shape_)) return {};  // degenerate: gemv.h's kernels, cuBLAS's GEMV
    if (v == Variant::tensor) return "f64 tensor";
    int major = 0;
    if (v == Variant::vendor && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, info_.index) == cudaSuccess &&
        major >= 8)
      return "f64 tensor";
    return {};
  }

  std::string mode(Variant v) const override {
    if (v != Variant::vendor) return {};
    std::string mode = "cuBLAS math mode CUBLAS_DEFAULT_MATH (";
    mode += std::is_same_v<T, float> ? "FP32 on the FMA units, no TF32" : "FP64, on the FP64 tensor cores where cuBLAS chooses";
    mode += ")";
    if (const char* o = std::getenv("NVIDIA_TF32_OVERRIDE")) mode += std::string("; NVIDIA_TF32_OVERRIDE=") + o;
    return mode;
  }

 private:
  cuda::DeviceBuffer<T> put(const std::vector<double>& v) {
    const std::vector<T> host(v.begin(), v.end());
    cuda::DeviceBuffer<T> d(host.size());
    cuda::check(cudaMemcpy(d.data(), host.data(), d.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy", "(GEMM input)");
    return d;
  }

  // cuBLAS is column-major: row-major C (m x n) is column-major C^T = B^T op(A)^T, so B comes
  // first. Row-major A (m x k) is column-major A^T (ld k); stored transposed (TN) it is A (ld m).
  void vendor(int m, int n, int k, T a, T b) {
    if (!blas_) {
      blas_ = std::make_unique<cuda::BlasHandle>(stream_);
      cuda::check(cublasSetMathMode(blas_->get(), CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
    const cublasOperation_t op_a = shape_.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int lda = shape_.transpose_a ? m : k;
    if constexpr (std::is_same_v<T, float>)
      cuda::check(cublasSgemm(blas_->get(), CUBLAS_OP_N, op_a, n, m, k, &a, b_.data(), n, a_.data(), lda, &b,
                              c_.data(), n),
                  "cublasSgemm");
    else
      cuda::check(cublasDgemm(blas_->get(), CUBLAS_OP_N, op_a, n, m, k, &a, b_.data(), n, a_.data(), lda, &b,
                              c_.data(), n),
                  "cublasDgemm");
  }

  DeviceInfo info_;
  Shape shape_;
  cuda::Stream stream_;
  cuda::Timeline timeline_;  // the call's device time
  static constexpr double gate_patience = 0.5;
  cuda::LaunchGate gate_{gate_patience};  // holds the call's first event until its launches are queued
  std::set<std::string> warm_;            // the variants and configurations run since the upload
  static std::atomic<bool>& gate_off() {
    static std::atomic<bool> off{false};
    return off;
  }
  cuda::DeviceBuffer<T> a_, b_, c0_, c_;
  std::unique_ptr<cuda::BlasHandle> blas_;
};

#define GPUBENCH_STR2(x) #x
#define GPUBENCH_STR(x) GPUBENCH_STR2(x)
constexpr const char* cublas_library =
    "cuBLAS " GPUBENCH_STR(CUBLAS_VER_MAJOR) "." GPUBENCH_STR(CUBLAS_VER_MINOR) "." GPUBENCH_STR(CUBLAS_VER_PATCH);

}  // namespace

}  // namespace gpubench::gemm

GPUBENCH_REGISTER_GEMM_OPERATIONS(
    "cuda",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::gemm::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::gemm::CudaOperations<float>>(d);
      return std::make_unique<gpubench::gemm::CudaOperations<double>>(d);
    },
    gpubench::gemm::BackendTraits{
        gpubench::gemm::cublas_library,
        {gpubench::gemm::Variant::naive, gpubench::gemm::Variant::tiled, gpubench::gemm::Variant::tuned,
         gpubench::gemm::Variant::tensor, gpubench::gemm::Variant::vendor},
        [](const gpubench::DeviceInfo&, gpubench::gemm::Variant v, gpubench::Precision p) -> std::string {
          if (v == gpubench::gemm::Variant::tensor && p == gpubench::Precision::f32)
            return "tensor runs f64 only (FP64 tensor cores; FP32 on tensor cores would be TF32)";
          return {};
        },
        "no BLAS library was found when configured", /*shape_classes=*/true});
