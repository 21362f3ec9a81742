// LU on CUDA: the blocked LU's steps and the study's buffer and kernel operations over
// kernels/lu/device.h (shared with OpenCL; the kernels, kernels/lu/nvrtc.cu, are compiled at run
// time by NVRTC), the updates through GEMM's own CUDA kernels (kernels/gemm/cuda_kernels.hpp: the
// FP64 tensor-core kernel for f64, tuned for f32) on blocks of the column-major matrix; two
// streams for the look-ahead, joined by events; cuSOLVER's getrf as the vendor variant.
#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <cusolverDn.h>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/cuda_kernels.hpp"
#include "kernels/lu/blocks.hpp"
#include "kernels/lu/operations.hpp"
#include "kernels/lu/study.hpp"

namespace gpubench::lu {

namespace {

// The kernels (kernels/lu/nvrtc.cu) take their constants from kernels/lu/device.h; the host
// reads them from there too (inside a struct that nothing instantiates: only the macros are used).
#define LU_FN static __device__ __forceinline__
#define LU_G
#define LU_L
#define LU_SYNC() __syncthreads()
#define LU_GROUP 256
template <typename real>
struct Lu {
  static __device__ int lu_grid_sync(unsigned int*, int*, int*);  // the leaf's barrier: kernels/lu/nvrtc.cu's
#include "kernels/lu/device.h"
};
constexpr int group = LU_GROUP;
static_assert(LU_LEAF_MAX == leaf_max, "kernels/lu/device.h and operations.hpp agree on the widest leaf");

// The kernels of kernels/lu/nvrtc.cu for elements of T on the current device, built by NVRTC on
// first use (the whole file at once: one compile per precision and device architecture).
template <typename T>
struct Kernels {
  Kernels()
      : study_factors(get("study_factors")), study_update(get("study_update")),
        study_factors_optimised(get("study_factors_optimised")), study_update_optimised(get("study_update_optimised")),
        pivot(get("pivot")), column_step(get("column_step")), laswp(get("laswp")), trtri(get("trtri")),
        copy_block(get("copy_block")), leaf(get("leaf")) {}

  static cudaKernel_t get(const char* name) {
    return cuda::rtc_kernel("lu/nvrtc.cu", name, {{"real", cuda::real_name<T>()}, {"LU_GROUP", std::to_string(group)}},
                            "LU's kernels");
  }

  cudaKernel_t study_factors, study_update, study_factors_optimised, study_update_optimised, pivot, column_step, laswp,
      trtri, copy_block, leaf;
};

unsigned blocks(std::int64_t n, int per) { return static_cast<unsigned>((std::max<std::int64_t>(n, 1) + per - 1) / per); }

void check(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw DeviceError(std::string(call) + " failed: cuSOLVER status " + std::to_string(static_cast<int>(status)));
}

template <typename T>
class CudaOperations final : public Operations, public StudyOps<T> {
 public:
  explicit CudaOperations(const DeviceInfo& device) : info_(cuda::open_device(device.index)) {
    if (std::is_same_v<T, double> && !info_.fp64)
      throw DeviceError("device " + info_.label() + " has no fp64 support: no f64 LU there");
    max_groups_ = std::clamp(info_.compute_units, 1, group);
    // The cooperative leaf: one block per SM, each with up to the opt-in shared memory.
    int cooperative = 0, optin = 0, current = 0;
    cuda::check(cudaGetDevice(&current), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, current), "cudaDeviceGetAttribute");
    cuda::check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, current),
                "cudaDeviceGetAttribute");
    if (cooperative) {
      leaf_.bytes = static_cast<std::size_t>(optin) - (2 * LU_GROUP + LU_LEAF_MAX) * sizeof(T) - 2 * LU_GROUP * sizeof(int);
      cuda::rtc_set_max_shared(kernels_.leaf, leaf_.bytes, "leaf");
      leaf_.groups = std::min(info_.compute_units, group);
      for (auto& b : barrier_) {
        b = cuda::DeviceBuffer<unsigned>(1);
        cuda::check(cudaMemset(b.data(), 0, b.bytes()), "cudaMemset", "(the leaf's barrier)");
      }
    }
  }
  ~CudaOperations() override {
    if (solver_) cusolverDnDestroy(solver_);
  }

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    host_.assign(a.begin(), a.end());
    original_ = cuda::DeviceBuffer<T>(host_.size());
    a_ = cuda::DeviceBuffer<T>(host_.size());
    cuda::check(cudaMemcpy(original_.data(), host_.data(), original_.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy",
                "(the matrix)");
    ipiv_ = cuda::DeviceBuffer<int>(static_cast<std::size_t>(n));
    for (int q = 0; q < 2; ++q) {
      pvalue_[q] = cuda::DeviceBuffer<T>(2 * group);
      prow_[q] = cuda::DeviceBuffer<int>(2 * group);
      prows_[q] = cuda::DeviceBuffer<T>(2 * group * LU_LEAF_MAX);
      rowc_[q] = cuda::DeviceBuffer<T>(2 * LU_LEAF_MAX);
    }
    reset();
  }

  void reset() override {
    cuda::check(cudaMemcpyAsync(a_.data(), original_.data(), a_.bytes(), cudaMemcpyDeviceToDevice, stream_[0].get()),
                "cudaMemcpyAsync", "(the matrix from its copy)");
    cuda::check(cudaMemsetAsync(ipiv_.data(), 0, ipiv_.bytes(), stream_[0].get()), "cudaMemsetAsync");
    stream_[0].synchronize();
    one_based_ = false;  // (the study's forms make their host copy themselves: no n^2 host copy between runs here)
  }

  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    if (study_ran_) {
      lu.resize(work_.size());
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < n_; ++j)
          lu[static_cast<std::size_t>(i + j * n_)] = work_[static_cast<std::size_t>(i * n_ + j)];
      ipiv.resize(static_cast<std::size_t>(n_));
      for (std::int64_t i = 0; i < n_; ++i) ipiv[static_cast<std::size_t>(i)] = static_cast<int>(i + 1);
      return;
    }
    std::vector<T> factors(a_.size());
    cuda::check(cudaMemcpy(factors.data(), a_.data(), a_.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy", "(factors)");
    lu.assign(factors.begin(), factors.end());
    ipiv.resize(ipiv_.size());
    cuda::check(cudaMemcpy(ipiv.data(), ipiv_.data(), ipiv_.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy", "(ipiv)");
    if (!one_based_)
      for (auto& p : ipiv) ++p;
  }

  void start() override {
    study_ran_ = false;
    leaf_.in_one_launch = leaf_.by_columns = 0;
    start_.record(stream_[0]);
  }

  std::string panel() const override {
    return leaf_.describe("cooperative launch of up to " + std::to_string(leaf_.groups) +
                              " blocks meeting at a grid barrier",
                          "the device has no cooperative launch", "shared memory per block");
  }
  double stop() override {
    if (side_used_) {
      side_done_.record(stream_[1]);
      cuda::check(cudaStreamWaitEvent(stream_[0].get(), side_done_.get(), 0), "cudaStreamWaitEvent");
    }
    end_.record(stream_[0]);
    end_.synchronize();
    current_ = 0;
    return cuda::Event::seconds_between(start_, end_);
  }
  void mark(double* into) override { timeline_.mark(stream_[0], into); }
  void collect_marks() override { timeline_.collect(); }

  void configure(const BlockedConfig& c) override {
    config_ = c;
    gemm::cuda_gemm_build<T>(variant(), config_.gemm_params);  // GEMM's kernel compiled before anything is timed
    const auto nb = static_cast<std::size_t>(std::min<std::int64_t>(c.nb, n_));
    for (int q = 0; q < 2; ++q) {
      inverse_[q] = cuda::DeviceBuffer<T>(nb * nb);
      temp_[q] = cuda::DeviceBuffer<T>(nb * static_cast<std::size_t>(n_));
      cuda::check(cudaMemset(temp_[q].data(), 0, temp_[q].bytes()), "cudaMemset");
    }
  }

  void getf2(std::int64_t j, std::int64_t w) override {
    check_leaf(w);
    const int n = static_cast<int>(n_), q = current_;
    const cudaStream_t s = stream_[q].get();
    if (leaf_.fits(n_ - j, w, sizeof(T))) {
      const std::int64_t rows = n_ - j;
      int slab = static_cast<int>(leaf_.slab(rows));
      const int groups = static_cast<int>((rows + slab - 1) / slab);
      const std::size_t bytes = static_cast<std::size_t>(slab) * static_cast<std::size_t>(w) * sizeof(T);
      T* pa = a_.data();
      T* pv = pvalue_[q].data();
      int* pr = prow_[q].data();
      T* prs = prows_[q].data();
      T* rc = rowc_[q].data();
      int* pi = ipiv_.data();
      unsigned* barrier = barrier_[q].data();
      int jj = static_cast<int>(j), ww = static_cast<int>(w);
      void* args[] = {&pa, const_cast<int*>(&n), &jj, &ww, &slab, &pv, &pr, &prs, &rc, &pi, &barrier};
      cuda::rtc_launch_argv(kernels_.leaf, "leaf", groups, group, bytes, s, args, true);
      ++leaf_.in_one_launch;
      return;
    }
    ++leaf_.by_columns;
    int groups = groups_for(n_ - j);
    cuda::rtc_launch(kernels_.pivot, "pivot", groups, group, 0, s, const_a(), n, int(j), int(w), pvalue_[q].data(),
                     prow_[q].data(), prows_[q].data());
    for (std::int64_t c = j; c < j + w; ++c) {
      const int next = groups_for(n_ - c - 1);
      cuda::rtc_launch(kernels_.column_step, "column_step", next, group, 0, s, a_.data(), n, int(c), int(j), int(w),
                       groups, int((c - j) % 2), pvalue_[q].data(), prow_[q].data(), prows_[q].data(), ipiv_.data());
      groups = next;
    }
  }

  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || k0 >= k1) return;
    const auto groups = blocks(c1 - c0, LU_SWAP_COLS);
    cuda::rtc_launch(kernels_.laswp, "laswp", groups, group, 0, stream(), a_.data(), int(n_),
                     static_cast<const int*>(ipiv_.data()), int(k0), int(k1), int(c0), int(c1));
  }

  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1) return;
    const int q = current_;
    cuda::rtc_launch(kernels_.trtri, "trtri", unsigned(w), group, 0, stream(), const_a(), int(n_), int(j), int(w),
                     inverse_[q].data());
    const gemm::Block b = colmajor_gemm(w, c1 - c0, w, 0, w, j + c0 * n_, n_, 0, w);
    gemm::cuda_gemm<T>(stream(), variant(), config_.gemm_params, b, T(1), a_.data(), inverse_[q].data(), T(0),
                       temp_[q].data());
    const dim3 grid(blocks(w, 16), blocks(c1 - c0, 16)), block(16, 16);
    cuda::rtc_launch(kernels_.copy_block, "copy_block", grid, block, 0, stream(), static_cast<const T*>(temp_[q].data()),
                     int(w), a_.data(), int(n_), int(j), int(c0), int(w), int(c1 - c0));
  }

  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    gemm::cuda_gemm<T>(stream(), variant(), config_.gemm_params, trailing_update(n_, r0, r1, c0, c1, k0, k1), T(-1),
                       a_.data(), a_.data(), T(1), a_.data());
  }

  void queue(int q) override {
    current_ = q;
    if (q == 1) side_used_ = true;
  }
  void signal(int e) override { events_[e].record(stream_[current_]); }
  void wait(int e) override {
    cuda::check(cudaStreamWaitEvent(stream(), events_[e].get(), 0), "cudaStreamWaitEvent");
  }

  void vendor() override {
    if (!solver_) {
      check(cusolverDnCreate(&solver_), "cusolverDnCreate");
      check(cusolverDnSetStream(solver_, stream_[0].get()), "cusolverDnSetStream");
      int lwork = 0;
      if constexpr (std::is_same_v<T, float>)
        check(cusolverDnSgetrf_bufferSize(solver_, int(n_), int(n_), a_.data(), int(n_), &lwork),
              "cusolverDnSgetrf_bufferSize");
      else
        check(cusolverDnDgetrf_bufferSize(solver_, int(n_), int(n_), a_.data(), int(n_), &lwork),
              "cusolverDnDgetrf_bufferSize");
      workspace_ = cuda::DeviceBuffer<T>(static_cast<std::size_t>(std::max(lwork, 1)));
      info_buffer_ = cuda::DeviceBuffer<int>(1);
    }
    if constexpr (std::is_same_v<T, float>)
      check(cusolverDnSgetrf(solver_, int(n_), int(n_), a_.data(), int(n_), workspace_.data(), ipiv_.data(),
                             info_buffer_.data()),
            "cusolverDnSgetrf");
    else
      check(cusolverDnDgetrf(solver_, int(n_), int(n_), a_.data(), int(n_), workspace_.data(), ipiv_.data(),
                             info_buffer_.data()),
            "cusolverDnDgetrf");
    one_based_ = true;
  }

  StudyRun study(Variant v, StepTimes* times, double limit_s) override {
    std::vector<T> rows(host_.size());
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
    buffers_.emplace(id, cuda::DeviceBuffer<T>(std::max<std::size_t>(elements, 1)));
    return id;
  }
  void release(int b) override { buffers_.erase(b); }
  void write(int b, const T* host, std::size_t elements) override {
    cuda::check(cudaMemcpyAsync(buffers_.at(b).data(), host, elements * sizeof(T), cudaMemcpyHostToDevice,
                                stream_[0].get()),
                "cudaMemcpyAsync", "(study write)");
    stream_[0].synchronize();
  }
  void read(int b, T* host, std::size_t elements) override {
    cuda::check(cudaMemcpyAsync(host, buffers_.at(b).data(), elements * sizeof(T), cudaMemcpyDeviceToHost,
                                stream_[0].get()),
                "cudaMemcpyAsync", "(study read)");
    stream_[0].synchronize();
  }
  void factors(int l, int u, int a, int n, int i) override {
    cuda::rtc_launch(kernels_.study_factors, "study_factors", blocks(n, 64), 64, 0, stream_[0].get(), buffers_.at(l).data(),
                     buffers_.at(u).data(), static_cast<const T*>(buffers_.at(a).data()), n, i);
  }
  void update(int l, int u, int a, int n, int i) override {
    const dim3 grid(blocks(n, 16), blocks(n, 16)), block(16, 16);
    cuda::rtc_launch(kernels_.study_update, "study_update", grid, block, 0, stream_[0].get(),
                     static_cast<const T*>(buffers_.at(l).data()), static_cast<const T*>(buffers_.at(u).data()),
                     buffers_.at(a).data(), n, i);
  }
  void factors_optimised(int column, int f, int n, int i) override {
    cuda::rtc_launch(kernels_.study_factors_optimised, "study_factors_optimised", blocks(n, 64), 64, 0,
                     stream_[0].get(), static_cast<const T*>(buffers_.at(column).data()), buffers_.at(f).data(), n, i);
  }
  void update_optimised(int a, int v, int aux, int n, int) override {
    const dim3 grid(blocks(n, 16), blocks(n, 16)), block(16, 16);
    cuda::rtc_launch(kernels_.study_update_optimised, "study_update_optimised", grid, block, 0, stream_[0].get(),
                     static_cast<const T*>(buffers_.at(a).data()), static_cast<const T*>(buffers_.at(v).data()),
                     buffers_.at(aux).data(), n);
  }
  void finish() override { stream_[0].synchronize(); }

 private:
  int groups_for(std::int64_t rows) const {
    return static_cast<int>(std::clamp<std::int64_t>((rows + group - 1) / group, 1, max_groups_));
  }
  cudaStream_t stream() const { return stream_[current_].get(); }
  const T* const_a() const { return a_.data(); }
  gemm::Variant variant() const { return gemm::parse_variant(config_.gemm_variant); }

  DeviceInfo info_;
  Kernels<T> kernels_;  // built on info_'s device, made current by open_device
  cuda::Stream stream_[2] = {cuda::Stream(), cuda::Stream::high_priority()};  // [1]: the look-ahead's panels
  cuda::Event start_, end_, side_done_, events_[2];
  int max_groups_ = 1;
  Leaf leaf_;  // the cooperative leaf: one block per SM, with the opt-in shared memory (groups 0: none here)
  std::int64_t n_ = 0;
  std::vector<T> host_, work_;
  bool study_ran_ = false, one_based_ = false, side_used_ = false;
  cuda::DeviceBuffer<T> original_, a_, pvalue_[2], prows_[2], rowc_[2], inverse_[2], temp_[2], workspace_;
  cuda::DeviceBuffer<int> ipiv_, prow_[2], info_buffer_;
  cuda::DeviceBuffer<unsigned> barrier_[2];  // the leaf's grid_sync word per stream (kernels/lu/nvrtc.cu), zero between launches
  BlockedConfig config_;
  int current_ = 0;
  cuda::Timeline timeline_;
  std::map<int, cuda::DeviceBuffer<T>> buffers_;
  int next_buffer_ = 0;
  cusolverDnHandle_t solver_ = nullptr;
};

#define GPUBENCH_STR2(x) #x
#define GPUBENCH_STR(x) GPUBENCH_STR2(x)
constexpr const char* cusolver_library = "cuSOLVER " GPUBENCH_STR(CUSOLVER_VER_MAJOR) "." GPUBENCH_STR(
    CUSOLVER_VER_MINOR) "." GPUBENCH_STR(CUSOLVER_VER_PATCH) " getrf";

}  // namespace

}  // namespace gpubench::lu

GPUBENCH_REGISTER_LU_OPERATIONS(
    "cuda",
    [](const gpubench::DeviceInfo& d, gpubench::Precision p) -> std::unique_ptr<gpubench::lu::Operations> {
      if (p == gpubench::Precision::f32) return std::make_unique<gpubench::lu::CudaOperations<float>>(d);
      return std::make_unique<gpubench::lu::CudaOperations<double>>(d);
    },
    gpubench::lu::BackendTraits{gpubench::lu::cusolver_library,
                                {gpubench::lu::Variant::naive, gpubench::lu::Variant::optimised,
                                 gpubench::lu::Variant::blocked, gpubench::lu::Variant::vendor},
                                true,
                                [](const gpubench::DeviceInfo&, gpubench::Precision p) {
                                  if (p == gpubench::Precision::f64) return std::vector<std::string>{"tensor", "tuned"};
                                  return std::vector<std::string>{"tuned"};
                                }});
