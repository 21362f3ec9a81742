// GEMM on CUDA: the kernels of kernels/gemm/*_body.h (written once for CUDA and OpenCL), compiled
// at run time by NVRTC for the configuration asked for (kernels/gemm/nvrtc.cu); the FP64
// tensor-core kernel (variant tensor, Hopper's mma.sync m16n8k16 fed by a cp.async pipeline); cuBLAS as the
// vendor variant. Device time: CUDA events around the one call.
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/cuda_kernels.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

namespace {

constexpr unsigned naive_block = 16;

// --- The FP64 tensor-core kernel -------------------------------------------------------------
// A 128 x 128 block of C per block of 256 threads (8 warps, 2 x 4, a 64 x 32 tile each: 4 x 4
// tiles of Hopper's mma.sync.m16n8k16 f64, 64 accumulators a thread). (The m8n8k4 shape of
// Ampere runs at about half of Hopper's FP64 tensor rate: 23 TFLOP/s at N = 8192 on the H100.)
// Slices of 32 along K go through shared memory in a 3-stage cp.async pipeline (8-byte copies,
// zero-filled beyond the matrix, so any M, N, K and alignment run). A is kept as it is stored
// (NN: [m][k]; TN: [k][m]) and B as [k][n], rows padded by 4 doubles so that the fragment loads
// of each half-warp hit 32 distinct banks.
// Fragments of m16n8k16 (g = lane / 4, t = lane % 4): a[u] = A(g + 8 (u % 2), t + 4 (u / 2)),
// b[u] = B(t + 4 u, g), c[e] = C(g + 8 (e / 2), 2 t + e % 2).
namespace tc {
constexpr int bm = 128, bn = 128, bk = 32, stages = 3, threads = 256;
constexpr int ld_mk = bk + 4, ld_km = bm + 4, ld_kn = bn + 4;
constexpr int a_stage = bm * ld_mk > bk * ld_km ? bm * ld_mk : bk * ld_km;
constexpr int b_stage = bk * ld_kn;
constexpr std::size_t shared_bytes = static_cast<std::size_t>(stages) * (a_stage + b_stage) * sizeof(double);
}  // namespace tc

__device__ __forceinline__ void cp_async8(double* shared, const double* global, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(global), "r"(valid ? 8 : 0));
}
// Two consecutive doubles, as one 16-byte copy where both are inside the matrix and the address
// is 16-byte aligned, else as two 8-byte copies (zero-filled where outside).
__device__ __forceinline__ void cp_async16_or_8(double* shared, const double* global, const double* base, bool first,
                                                bool second) {
  if (first && second && (reinterpret_cast<std::uintptr_t>(global) & 15) == 0 &&
      (__cvta_generic_to_shared(shared) & 15) == 0) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global));
  } else {
    cp_async8(shared, first ? global : base, first);
    cp_async8(shared + 1, second ? global + 1 : base, second);
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

__device__ __forceinline__ void dmma16(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  (void)d, (void)a, (void)b;
  __trap();  // built for an older arch too: the host refuses to launch there (compute capability)
#else
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
      "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#endif
}

template <bool TA>
__global__ void __launch_bounds__(tc::threads)
gemm_tensor(int M, int N, int K, double alpha, const double* __restrict__ A, int lda, const double* __restrict__ B,
            int ldb, double beta, double* __restrict__ C, int ldc) {
  extern __shared__ double shared[];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
  // Blocks in bands of 8 block rows, column by column within a band, so that the blocks running
  // at once share A's and B's slices in L2.
  const int id = blockIdx.y * gridDim.x + blockIdx.x, band = 8 * gridDim.x, first = (id / band) * 8;
  const int rows_here = min(static_cast<int>(gridDim.y) - first, 8);
  const int row0 = (first + (id % band) % rows_here) * tc::bm, col0 = ((id % band) / rows_here) * tc::bn;
  double* as_base = shared;
  double* bs_base = shared + tc::stages * tc::a_stage;

  // Pairs of doubles along each stored row: A's (NN: along K; TN: along M) and B's (along N).
  auto load = [&](int stage, int k0) {
    double* as = as_base + stage * tc::a_stage;
    double* bs = bs_base + stage * tc::b_stage;
#pragma unroll 4
    for (int i = 0; i < tc::bm * tc::bk / (2 * tc::threads); ++i) {
      const int idx = tid + i * tc::threads;
      if constexpr (TA) {  // stored K x M
        const int l = idx / (tc::bm / 2), r = 2 * (idx % (tc::bm / 2)), gl = k0 + l, gr = row0 + r;
        const double* src = A + static_cast<long>(gl) * lda + gr;
        cp_async16_or_8(as + l * tc::ld_km + r, src, A, gl < K && gr < M, gl < K && gr + 1 < M);
      } else {
        const int r = idx / (tc::bk / 2), l = 2 * (idx % (tc::bk / 2)), gl = k0 + l, gr = row0 + r;
        const double* src = A + static_cast<long>(gr) * lda + gl;
        cp_async16_or_8(as + r * tc::ld_mk + l, src, A, gr < M && gl < K, gr < M && gl + 1 < K);
      }
    }
#pragma unroll 4
    for (int i = 0; i < tc::bk * tc::bn / (2 * tc::threads); ++i) {
      const int idx = tid + i * tc::threads;
      const int l = idx / (tc::bn / 2), c = 2 * (idx % (tc::bn / 2)), gl = k0 + l, gc = col0 + c;
      const double* src = B + static_cast<long>(gl) * ldb + gc;
      cp_async16_or_8(bs + l * tc::ld_kn + c, src, B, gl < K && gc < N, gl < K && gc + 1 < N);
    }
  };

  double acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0;

  const int steps = (K + tc::bk - 1) / tc::bk;
#pragma unroll
  for (int s = 0; s < tc::stages - 1; ++s) {
    if (s < steps) load(s, s * tc::bk);
    cp_async_commit();
  }
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<tc::stages - 2>();
    __syncthreads();
    // The stage computed one step ago is free (every thread passed this step's barrier).
    const int next = s + tc::stages - 1;
    if (next < steps) load(next % tc::stages, next * tc::bk);
    cp_async_commit();
    const int stage = s % tc::stages;
    const double* as = as_base + stage * tc::a_stage;
    const double* bs = bs_base + stage * tc::b_stage;
#pragma unroll 1
    for (int kk = 0; kk < tc::bk; kk += 16) {
      double b[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int u = 0; u < 4; ++u) b[j][u] = bs[(kk + t + 4 * u) * tc::ld_kn + wn + j * 8 + g];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        double a[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          const int r = wm + i * 16 + g + 8 * (u % 2), l = kk + t + 4 * (u / 2);
          a[u] = TA ? as[l * tc::ld_km + r] : as[r * tc::ld_mk + l];
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) dmma16(acc[i][j], a, b[j]);
      }
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row0 + wm + i * 16 + g + 8 * h;
      if (r >= M) continue;
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = col0 + wn + j * 8 + 2 * t + e;
          if (c < N) {
            double& out = C[static_cast<long>(r) * ldc + c];
            out = alpha * acc[i][j][2 * h + e] + beta * out;
          }
        }
    }
}


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
        *c = {nullptr, "gemm_tuned", dim3(blocks(b.n, t.bn), blocks(b.m, t.bm)), dim3(static_cast<unsigned>(t.threads()))};
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

template <typename T>
void launch(cudaStream_t stream, Variant v, const Params& params, const Block& b, T alpha, const T* A, const T* B,
            T beta, T* C) {
  const Compiled c = compiled<T>(v, params, b);
  int m = int(b.m), n = int(b.n), k = int(b.k), ta = b.transpose_a ? 1 : 0, aoff = int(b.aoff), lda = int(b.lda),
      boff = int(b.boff), ldb = int(b.ldb), coff = int(b.coff), ldc = int(b.ldc);
  void* args[] = {&m, &n, &k, &ta, &alpha, &A, &aoff, &lda, &B, &boff, &ldb, &beta, &C, &coff, &ldc};
  if (const cudaError_t status = cudaLaunchKernel(reinterpret_cast<const void*>(c.kernel), c.grid, c.block, args, 0, stream);
      status != cudaSuccess)
    cuda::check(status, "cudaLaunchKernel", std::string("(") + c.name + ")");
  cuda::check_launch(c.name, c.grid, c.block);
}

void tensor(cudaStream_t stream, const Block& b, double alpha, const double* A, const double* B, double beta,
            double* C) {
  int device = 0, major = 0, minor = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  cuda::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  cuda::check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
  if (major < 9)
    throw DeviceError("tensor: FP64 mma.sync m16n8k16 needs compute capability 9.0 or later; device " +
                      std::to_string(device) + " has " + std::to_string(major) + "." + std::to_string(minor));
  static const bool opted = [] {
    for (const void* kernel :
         {reinterpret_cast<const void*>(gemm_tensor<false>), reinterpret_cast<const void*>(gemm_tensor<true>)})
      cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(tc::shared_bytes)),
                  "cudaFuncSetAttribute", "(gemm_tensor's shared memory)");
    return true;
  }();
  (void)opted;
  const dim3 grid(blocks(b.n, tc::bn), blocks(b.m, tc::bm)), block(tc::threads);
  const int m = int(b.m), n = int(b.n), k = int(b.k);
  if (b.transpose_a)
    gemm_tensor<true><<<grid, block, tc::shared_bytes, stream>>>(m, n, k, alpha, A + b.aoff, int(b.lda), B + b.boff,
                                                                 int(b.ldb), beta, C + b.coff, int(b.ldc));
  else
    gemm_tensor<false><<<grid, block, tc::shared_bytes, stream>>>(m, n, k, alpha, A + b.aoff, int(b.lda), B + b.boff,
                                                                  int(b.ldb), beta, C + b.coff, int(b.ldc));
  cuda::check_launch("gemm_tensor", grid, block);
}

}  // namespace

template <typename T>
void cuda_gemm(cudaStream_t stream, Variant v, const Params& params, const Block& b, T alpha, const T* A, const T* B,
               T beta, T* C) {
  switch (v) {
    case Variant::naive:
    case Variant::tiled:
    case Variant::tuned:
      return launch<T>(stream, v, params, b, alpha, A, B, beta, C);
    case Variant::tensor:
      if constexpr (std::is_same_v<T, double>) return tensor(stream, b, alpha, A, B, beta, C);
      throw DeviceError("tensor runs f64 only (FP64 tensor cores; f32 would be TF32)");
    case Variant::serial:
    case Variant::vendor:
      break;
  }
  throw DeviceError("GEMM's own CUDA kernels have no variant " + to_string(v));
}
template <typename T>
void cuda_gemm_build(Variant v, const Params& params) {
  if (v == Variant::naive || v == Variant::tiled || v == Variant::tuned) compiled<T>(v, params, Block{});
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
  }

  double run(Variant v, const Params& params, double alpha, double beta) override {
    cuda_gemm_build<T>(v, params);  // compiled (or loaded) before the timed region
    cuda::check(cudaMemcpyAsync(c_.data(), c0_.data(), c_.bytes(), cudaMemcpyDeviceToDevice, stream_.get()),
                "cudaMemcpyAsync", "(C from C0)");
    start_.record(stream_);
    if (v == Variant::vendor)
      vendor(int(shape_.m), int(shape_.n), int(shape_.k), static_cast<T>(alpha), static_cast<T>(beta));
    else if (v == Variant::tensor && !info_.fp64)
      throw DeviceError("device " + info_.label() + " has no fp64 support");
    else
      cuda_gemm<T>(stream_.get(), v, params, whole(shape_), static_cast<T>(alpha), a_.data(), b_.data(),
                   static_cast<T>(beta), c_.data());
    end_.record(stream_);
    end_.synchronize();
    return cuda::Event::seconds_between(start_, end_);
  }

  std::vector<double> result() const override {
    std::vector<T> c(c_.size());
    cuda::check(cudaMemcpy(c.data(), c_.data(), c_.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy", "(C to the host)");
    return {c.begin(), c.end()};
  }

  void build(Variant v, const std::vector<Params>& configs) override {
    if (v != Variant::naive && v != Variant::tiled && v != Variant::tuned) return;
    std::vector<cuda::Defines> each;
    for (const Params& p : configs) each.push_back(defines_of<T>(v, p));
    cuda::rtc_build_all("gemm/nvrtc.cu", each, "GEMM " + to_string(v) + (std::is_same_v<T, float> ? " f32" : " f64"));
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
  cuda::Event start_, end_;
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
        [](gpubench::gemm::Variant v, gpubench::Precision p) -> std::string {
          if (v == gpubench::gemm::Variant::tensor && p == gpubench::Precision::f32)
            return "tensor runs f64 only (FP64 tensor cores; FP32 on tensor cores would be TF32)";
          return {};
        }});
