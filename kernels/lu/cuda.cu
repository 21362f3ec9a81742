// LU on CUDA: the blocked LU's steps and the study's buffer and kernel operations over
// kernels/lu/device.h (shared with OpenCL), the updates through GEMM's own CUDA kernels
// (kernels/gemm/cuda_kernels.hpp: the FP64 tensor-core kernel for f64, tuned for f32) on blocks of
// the column-major matrix; two streams for the look-ahead, joined by events; cuSOLVER's getrf
// as the vendor variant.
#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <cooperative_groups.h>
#include <cusolverDn.h>

#include "backends/cuda/cuda.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/cuda_kernels.hpp"
#include "kernels/lu/blocks.hpp"
#include "kernels/lu/operations.hpp"
#include "kernels/lu/study.hpp"

namespace gpubench::lu {

namespace {

#define LU_FN static __device__ __forceinline__
#define LU_G
#define LU_L
#define LU_SYNC() __syncthreads()
#define LU_GROUP 256
template <typename real>
struct Lu {
#include "kernels/lu/device.h"
};
constexpr int group = LU_GROUP;
static_assert(LU_LEAF_MAX == leaf_max, "kernels/lu/device.h and operations.hpp agree on the widest leaf");

__device__ __forceinline__ int gid_x() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }
__device__ __forceinline__ int gid_y() { return static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); }

template <typename real>
__global__ void study_factors(real* l, real* u, const real* a, int n, int i) {
  Lu<real>::lu_study_factors(l, u, a, n, i, gid_x());
}
template <typename real>
__global__ void study_update(const real* l, const real* u, real* a, int n, int i) {
  Lu<real>::lu_study_update(l, u, a, n, i, gid_y(), gid_x());
}
template <typename real>
__global__ void study_factors_optimised(const real* column, real* f, int n, int i) {
  Lu<real>::lu_study_factors_optimised(column, f, n, i, gid_x());
}
template <typename real>
__global__ void study_update_optimised(const real* a, const real* v, real* aux, int n) {
  Lu<real>::lu_study_update_optimised(a, v, aux, n, gid_y(), gid_x());
}
// The panel's partials (kernels/lu/device.h): two sets of LU_GROUP candidates (value, row, and
// the row's LU_LEAF_MAX values); set `in` read, the other written.
template <typename real>
__global__ void __launch_bounds__(LU_GROUP)
pivot(const real* a, int n, int j, int w, real* pvalue, int* prow, real* prows) {
  __shared__ real value[LU_GROUP];
  __shared__ int row[LU_GROUP];
  Lu<real>::lu_pivot(a, n, j, w, pvalue, prow, prows, value, row, threadIdx.x, blockIdx.x, gridDim.x);
}
template <typename real>
__global__ void __launch_bounds__(LU_GROUP)
column_step(real* a, int n, int c, int j, int w, int pgroups, int in, real* pvalue, int* prow, real* prows, int* ipiv) {
  __shared__ real value[LU_GROUP];
  __shared__ int row[LU_GROUP];
  __shared__ real u[LU_LEAF_MAX];
  const int out = 1 - in;
  Lu<real>::lu_step(a, n, c, j, w, pgroups, pvalue + in * LU_GROUP, prow + in * LU_GROUP,
                    prows + in * LU_GROUP * LU_LEAF_MAX, pvalue + out * LU_GROUP, prow + out * LU_GROUP,
                    prows + out * LU_GROUP * LU_LEAF_MAX, ipiv, value, row, u, threadIdx.x, blockIdx.x, gridDim.x);
}
template <typename real>
__global__ void __launch_bounds__(LU_GROUP) laswp(real* a, int n, const int* ipiv, int k0, int k1, int c0, int c1) {
  __shared__ real seg[LU_SWAP_ROWS * LU_SWAP_LD], out[LU_SWAP_ROWS * LU_SWAP_LD];
  __shared__ int piv[LU_SWAP_ROWS], prev[LU_SWAP_ROWS], last[LU_SWAP_ROWS];
  Lu<real>::lu_laswp(a, n, ipiv, k0, k1, c0, c1, seg, out, piv, prev, last, threadIdx.x, blockIdx.x);
}
template <typename real>
__global__ void __launch_bounds__(LU_GROUP) trtri(const real* a, int n, int j, int w, real* inv) {
  __shared__ real x[LU_TRTRI_MAX];
  Lu<real>::lu_trtri(a, n, j, w, inv, x, blockIdx.x, threadIdx.x);
}
template <typename real>
__global__ void copy_block(const real* src, int ld, real* a, int n, int row0, int col0, int rows, int cols) {
  Lu<real>::lu_copy(src, ld, a, n, row0, col0, rows, cols, gid_x(), gid_y());
}

// The panel's leaf, columns [j, j + w) over rows [j, n), in one cooperative launch: each block
// holds `slab` consecutive rows in shared memory (column-major, ld slab) from the first column to
// the last, and the blocks meet once per column (grid.sync) instead of once per launch. Per
// column c: each block's candidate (the largest |A(r, c)|, r >= c, the smaller row on ties, as
// LAPACK's idamax) with its row's values, and row c's values from the block that holds it, go to
// the partials of c's parity; after the sync every block takes the pivot p from them, the
// holders of rows c and p swap those rows, and every block eliminates its rows below c. A zero
// column keeps its row and is left as it is (as LAPACK's dgetf2). ipiv[c]: 0-based, as getf2's.
template <typename real>
__global__ void __launch_bounds__(LU_GROUP)
leaf(real* a, int n, int j, int w, int slab, real* pvalue, int* prow, real* prows, real* rowc, int* ipiv) {
  extern __shared__ __align__(16) unsigned char shared[];
  real* s = reinterpret_cast<real*>(shared);
  __shared__ real value[LU_GROUP];
  __shared__ int row[LU_GROUP];
  __shared__ real u[LU_LEAF_MAX];
  __shared__ int winner;
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const int tid = threadIdx.x, b = blockIdx.x, groups = gridDim.x;
  const int r0 = j + b * slab, rows = max(0, min(slab, n - r0));
  for (int e = tid; e < rows * w; e += LU_GROUP) s[e % rows + e / rows * slab] = a[r0 + e % rows + (long)(j + e / rows) * n];
  __syncthreads();
  for (int k = 0; k < w; ++k) {
    const int c = j + k, in = k & 1;
    real* cv = pvalue + in * LU_GROUP;
    int* cr = prow + in * LU_GROUP;
    real* crows = prows + in * LU_GROUP * LU_LEAF_MAX;
    real* rc = rowc + in * LU_LEAF_MAX;
    real best = (real)-1;
    int best_row = n;
    for (int i = max(0, c - r0) + tid; i < rows; i += LU_GROUP) {
      const real v = fabs(s[i + k * slab]);
      if (v > best) {
        best = v;
        best_row = r0 + i;
      }
    }
    real g;
    int p;
    Lu<real>::lu_group_max(value, row, tid, best, best_row, &g, &p);
    if (tid == 0) {
      cv[b] = g;
      cr[b] = p;
    }
    if (p < n)
      for (int t = tid; t < w; t += LU_GROUP) crows[b * LU_LEAF_MAX + t] = s[p - r0 + t * slab];
    if (c >= r0 && c < r0 + rows)
      for (int t = tid; t < w; t += LU_GROUP) rc[t] = s[c - r0 + t * slab];
    grid.sync();
    Lu<real>::lu_group_max(value, row, tid, tid < groups ? cv[tid] : (real)-1, tid < groups ? cr[tid] : n, &g, &p);
    const bool swap = g > 0 && p != c && p < n;
    if (swap && tid < groups && cr[tid] == p) winner = tid;
    __syncthreads();
    for (int t = tid; t < w; t += LU_GROUP) u[t] = swap ? crows[winner * LU_LEAF_MAX + t] : rc[t];
    if (b == 0 && tid == 0) ipiv[c] = swap ? p : c;
    if (swap) {
      if (c >= r0 && c < r0 + rows)
        for (int t = tid; t < w; t += LU_GROUP) s[c - r0 + t * slab] = crows[winner * LU_LEAF_MAX + t];
      if (p >= r0 && p < r0 + rows)
        for (int t = tid; t < w; t += LU_GROUP) s[p - r0 + t * slab] = rc[t];
    }
    __syncthreads();
    const real pivot = u[k];
    const int first = max(0, c + 1 - r0), below = rows - first;
    if (pivot != (real)0)
      for (int i = first + tid; i < rows; i += LU_GROUP) s[i + k * slab] /= pivot;
    __syncthreads();
    if (pivot != (real)0 && below > 0)
      for (int e = tid; e < below * (w - k - 1); e += LU_GROUP) {
        const int i = first + e % below, t = k + 1 + e / below;
        s[i + t * slab] -= s[i + k * slab] * u[t];
      }
    __syncthreads();
  }
  for (int e = tid; e < rows * w; e += LU_GROUP) a[r0 + e % rows + (long)(j + e / rows) * n] = s[e % rows + e / rows * slab];
}

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
      leaf_bytes_ = static_cast<std::size_t>(optin) - (2 * LU_GROUP + LU_LEAF_MAX) * sizeof(T) - 2 * LU_GROUP * sizeof(int);
      cuda::check(cudaFuncSetAttribute(reinterpret_cast<const void*>(&leaf<T>),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(leaf_bytes_)),
                  "cudaFuncSetAttribute", "(the panel's leaf)");
      leaf_groups_ = std::min(info_.compute_units, group);
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
    work_ = host_;
    one_based_ = false;
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
    start_.record(stream_[0]);
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
  void mark(double* into) override {
    marks_.emplace_back(std::make_unique<cuda::Event>(), into);
    marks_.back().first->record(stream_[0]);
  }
  void collect_marks() override {
    stream_[0].synchronize();
    for (std::size_t i = 1; i < marks_.size(); ++i)
      if (marks_[i].second) *marks_[i].second += cuda::Event::seconds_between(*marks_[i - 1].first, *marks_[i].first);
    marks_.clear();
  }

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
    if (leaf_fits(n_ - j, w)) {
      // Slabs of at least 64 rows, on at most one block per SM (all resident at once).
      const std::int64_t rows = n_ - j;
      int slab = static_cast<int>(std::max<std::int64_t>(64, (rows + leaf_groups_ - 1) / leaf_groups_));
      const int groups = static_cast<int>((rows + slab - 1) / slab);
      const std::size_t bytes = static_cast<std::size_t>(slab) * static_cast<std::size_t>(w) * sizeof(T);
      T* pa = a_.data();
      T* pv = pvalue_[q].data();
      int* pr = prow_[q].data();
      T* prs = prows_[q].data();
      T* rc = rowc_[q].data();
      int* pi = ipiv_.data();
      int jj = static_cast<int>(j), ww = static_cast<int>(w);
      void* args[] = {&pa, const_cast<int*>(&n), &jj, &ww, &slab, &pv, &pr, &prs, &rc, &pi};
      cuda::check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(&leaf<T>), groups, group, args, bytes, s),
                  "cudaLaunchCooperativeKernel", "(the panel's leaf)");
      return;
    }
    int groups = groups_for(n_ - j);
    pivot<T><<<groups, group, 0, s>>>(a_.data(), n, int(j), int(w), pvalue_[q].data(), prow_[q].data(),
                                      prows_[q].data());
    cuda::check_launch("pivot", groups, group);
    for (std::int64_t c = j; c < j + w; ++c) {
      const int next = groups_for(n_ - c - 1);
      column_step<T><<<next, group, 0, s>>>(a_.data(), n, int(c), int(j), int(w), groups, int((c - j) % 2),
                                            pvalue_[q].data(), prow_[q].data(), prows_[q].data(), ipiv_.data());
      groups = next;
    }
    cuda::check_launch("column_step", groups, group);
  }

  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1 || k0 >= k1) return;
    const auto groups = blocks(c1 - c0, LU_SWAP_COLS);
    lu::laswp<T><<<groups, group, 0, stream()>>>(a_.data(), int(n_), ipiv_.data(), int(k0), int(k1), int(c0), int(c1));
    cuda::check_launch("laswp", groups, group);
  }

  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    if (c0 >= c1) return;
    const int q = current_;
    trtri<T><<<unsigned(w), group, 0, stream()>>>(a_.data(), int(n_), int(j), int(w), inverse_[q].data());
    const gemm::Block b = colmajor_gemm(w, c1 - c0, w, 0, w, j + c0 * n_, n_, 0, w);
    gemm::cuda_gemm<T>(stream(), variant(), config_.gemm_params, b, T(1), a_.data(), inverse_[q].data(), T(0),
                       temp_[q].data());
    const dim3 grid(blocks(w, 16), blocks(c1 - c0, 16)), block(16, 16);
    copy_block<T><<<grid, block, 0, stream()>>>(temp_[q].data(), int(w), a_.data(), int(n_), int(j), int(c0), int(w),
                                                int(c1 - c0));
    cuda::check_launch("copy_block", grid, block);
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
    study_factors<T><<<blocks(n, 64), 64, 0, stream_[0].get()>>>(buffers_.at(l).data(), buffers_.at(u).data(),
                                                                 buffers_.at(a).data(), n, i);
    cuda::check_launch("study_factors", blocks(n, 64), 64);
  }
  void update(int l, int u, int a, int n, int i) override {
    const dim3 grid(blocks(n, 16), blocks(n, 16)), block(16, 16);
    study_update<T><<<grid, block, 0, stream_[0].get()>>>(buffers_.at(l).data(), buffers_.at(u).data(),
                                                          buffers_.at(a).data(), n, i);
    cuda::check_launch("study_update", grid, block);
  }
  void factors_optimised(int column, int f, int n, int i) override {
    study_factors_optimised<T><<<blocks(n, 64), 64, 0, stream_[0].get()>>>(buffers_.at(column).data(),
                                                                           buffers_.at(f).data(), n, i);
    cuda::check_launch("study_factors_optimised", blocks(n, 64), 64);
  }
  void update_optimised(int a, int v, int aux, int n, int) override {
    const dim3 grid(blocks(n, 16), blocks(n, 16)), block(16, 16);
    study_update_optimised<T><<<grid, block, 0, stream_[0].get()>>>(buffers_.at(a).data(), buffers_.at(v).data(),
                                                                    buffers_.at(aux).data(), n);
    cuda::check_launch("study_update_optimised", grid, block);
  }
  void finish() override { stream_[0].synchronize(); }

 private:
  // Whether the cooperative leaf holds `rows` x w in shared memory on leaf_groups_ blocks.
  bool leaf_fits(std::int64_t rows, std::int64_t w) const {
    if (leaf_groups_ == 0) return false;
    const std::int64_t slab = std::max<std::int64_t>(64, (rows + leaf_groups_ - 1) / leaf_groups_);
    return static_cast<std::size_t>(slab * w) * sizeof(T) <= leaf_bytes_;
  }
  int groups_for(std::int64_t rows) const {
    return static_cast<int>(std::clamp<std::int64_t>((rows + group - 1) / group, 1, max_groups_));
  }
  cudaStream_t stream() const { return stream_[current_].get(); }
  gemm::Variant variant() const { return gemm::parse_variant(config_.gemm_variant); }

  DeviceInfo info_;
  cuda::Stream stream_[2] = {cuda::Stream(), cuda::Stream::high_priority()};  // [1]: the look-ahead's panels
  cuda::Event start_, end_, side_done_, events_[2];
  int max_groups_ = 1;
  int leaf_groups_ = 0;  // 0: no cooperative launch here
  std::size_t leaf_bytes_ = 0;
  std::int64_t n_ = 0;
  std::vector<T> host_, work_;
  bool study_ran_ = false, one_based_ = false, side_used_ = false;
  cuda::DeviceBuffer<T> original_, a_, pvalue_[2], prows_[2], rowc_[2], inverse_[2], temp_[2], workspace_;
  cuda::DeviceBuffer<int> ipiv_, prow_[2], info_buffer_;
  BlockedConfig config_;
  int current_ = 0;
  std::vector<std::pair<std::unique_ptr<cuda::Event>, double*>> marks_;
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
                                [](gpubench::Precision p) {
                                  if (p == gpubench::Precision::f64) return std::vector<std::string>{"tensor", "tuned"};
                                  return std::vector<std::string>{"tuned"};
                                }});
