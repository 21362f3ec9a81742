// The CG operations on CUDA, with the kernels of kernels/cg/opencl.cl written once more in CUDA C++
// (templated on the precision) so that OpenCL and CUDA run the same work: dot products end on the
// host (one partial per block, summed in double), the vector updates are grid-stride loops over
// SMs x blocks per SM blocks, copy and fill are runtime copies and memsets. SpMV has two kernels,
// chosen once per matrix by its average row length as OpenCL chooses them: one thread per row for
// short rows (stencils), 4 to 32 threads per row for long ones (NAS CG: a warp per row), where a
// thread per row would read its row's values uncoalesced and leave most of the bandwidth unused.
//
// The vendor variant (make_vendor_solver) is textbook CG built only from library calls on the same
// vectors: cusparseSpMV, cublas<t>dot, cublas<t>axpy and cublas<t>scal.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

namespace {

// ---------------------------------------------------------------------------------------------
// Kernels. Indices are unsigned: n < 2^31 and grid x block < 2^31, so i + stride never wraps.

constexpr unsigned warp_size = 32;
constexpr unsigned full_warp = 0xffffffffu;

namespace kernels {

// out = A in: CSR, one thread per row (launched over rows rounded up to the block size).
template <typename T>
__global__ void spmv_row_per_thread(unsigned rows, const std::int32_t* __restrict__ row_ptr,
                                    const std::int32_t* __restrict__ col_idx, const T* __restrict__ values,
                                    const T* __restrict__ in, T* __restrict__ out) {
  const unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const std::int32_t end = row_ptr[row + 1];
  T sum = 0;
  for (std::int32_t k = row_ptr[row]; k < end; ++k) sum += values[k] * in[col_idx[k]];
  out[row] = sum;
}

// out = A in: CSR, `lanes` threads per row (4, 8, 16 or 32: a power of two dividing the warp, and
// the block size a multiple of 32), for rows long enough that one thread per row would leave the
// loads uncoalesced and the rows' lengths unbalanced (NAS CG: ~240 nonzeros per row). The lanes
// stride through the row together, then fold their sums with shuffles. One row per group of lanes,
// no early exit: every thread of the warp takes part in the shuffles. Indices in 64 bits: rows x
// lanes may exceed 2^32.
template <typename T>
__global__ void spmv_vector(unsigned rows, unsigned lanes, const std::int32_t* __restrict__ row_ptr,
                            const std::int32_t* __restrict__ col_idx, const T* __restrict__ values,
                            const T* __restrict__ in, T* __restrict__ out) {
  const std::uint64_t thread = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t row = thread / lanes;
  const unsigned lane = threadIdx.x & (lanes - 1);
  T sum = 0;
  if (row < rows) {
    const std::int32_t end = row_ptr[row + 1];
    const auto step = static_cast<std::int32_t>(lanes);
    std::int32_t k = row_ptr[row] + static_cast<std::int32_t>(lane);
    // Four independent gathers per trip, to keep more loads in flight. (Measured on the H100, NAS
    // CG class C: no change, 0.348 ms either way; the random x gathers bound it, see spmv_slabs.)
    T sum1 = 0;
    for (; k + 3 * step < end; k += 4 * step) {
      const std::int32_t c0 = col_idx[k], c1 = col_idx[k + step], c2 = col_idx[k + 2 * step],
                         c3 = col_idx[k + 3 * step];
      const T v0 = values[k], v1 = values[k + step], v2 = values[k + 2 * step], v3 = values[k + 3 * step];
      sum += v0 * in[c0] + v2 * in[c2];
      sum1 += v1 * in[c1] + v3 * in[c3];
    }
    for (; k < end; k += step) sum += values[k] * in[col_idx[k]];
    sum += sum1;
  }
  for (unsigned offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(full_warp, sum, offset);
  if (lane == 0 && row < rows) out[row] = sum;
}

// out = A in for matrices whose x fits in L2 but whose rows gather x at random (NAS CG: 150000
// columns, ~240 nonzeros per row spread over all of them). Each gathered 8-byte x[j] costs a
// 32-byte L2 sector, so the gathers, not the matrix stream, bound spmv_vector there. Here the
// columns are cut into slabs that fit in shared memory; the matrix is stored slab by slab (within
// a slab, CSR by row, column indices as 16-bit offsets into the slab). Each block owns a contiguous
// run of rows; per slab it copies that slice of x into shared memory (coalesced), then its groups
// of `lanes` threads sum their rows' entries of the slab, gathering from shared memory, and add
// them to out. x is read from L2 once per block and slab instead of once per nonzero.
template <typename T>
__global__ void spmv_slabs(unsigned rows, unsigned cols, unsigned lanes, unsigned slab_width, unsigned slabs,
                           const std::int32_t* __restrict__ slab_row_ptr, const std::uint16_t* __restrict__ offsets,
                           const T* __restrict__ values, const T* __restrict__ in, T* __restrict__ out) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const slice = reinterpret_cast<T*>(shared_bytes);
  const unsigned per_block = (rows + gridDim.x - 1) / gridDim.x;
  const unsigned first = blockIdx.x * per_block;
  const unsigned last = min(rows, first + per_block);
  const unsigned groups = blockDim.x / lanes;
  const unsigned group = threadIdx.x / lanes;
  const unsigned lane = threadIdx.x & (lanes - 1);
  const auto step = static_cast<std::int32_t>(lanes);
  for (unsigned s = 0; s < slabs; ++s) {
    const unsigned base = s * slab_width;
    const unsigned width = min(slab_width, cols - base);
    __syncthreads();  // the previous slab's gathers are done
    for (unsigned i = threadIdx.x; i < width; i += blockDim.x) slice[i] = in[base + i];
    __syncthreads();
    const std::int32_t* const row_ptr = slab_row_ptr + static_cast<std::size_t>(s) * (rows + 1);
    // Every thread of a warp takes the same number of trips (the shuffles need the whole warp).
    for (unsigned r0 = first; r0 < last; r0 += groups) {
      const unsigned row = r0 + group;
      T sum = 0, sum1 = 0;
      if (row < last) {
        const std::int32_t end = row_ptr[row + 1];
        std::int32_t k = row_ptr[row] + static_cast<std::int32_t>(lane);
        for (; k + 3 * step < end; k += 4 * step) {
          const unsigned c0 = offsets[k], c1 = offsets[k + step], c2 = offsets[k + 2 * step], c3 = offsets[k + 3 * step];
          sum += values[k] * slice[c0] + values[k + 2 * step] * slice[c2];
          sum1 += values[k + step] * slice[c1] + values[k + 3 * step] * slice[c3];
        }
        for (; k < end; k += step) sum += values[k] * slice[offsets[k]];
      }
      sum += sum1;
      for (unsigned offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(full_warp, sum, offset);
      if (lane == 0 && row < last) out[row] = s == 0 ? sum : out[row] + sum;
    }
  }
}

// The block's dynamic shared memory, as reals (the launch sizes it).
template <typename T>
__device__ T* shared_scratch() {
  extern __shared__ __align__(sizeof(double)) unsigned char shared_bytes[];
  return reinterpret_cast<T*>(shared_bytes);
}

// Sums scratch[0 .. blockDim.x) into scratch[0]. Every thread of the block must call it, after
// writing its own entry. Halving with the odd one out carried keeps it right for any block size.
template <typename T>
__device__ void reduce_block(T* scratch) {
  const unsigned tid = threadIdx.x;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned upper = (active + 1) / 2;  // entries [upper, active) fold onto [0, active - upper)
    if (tid < active - upper) scratch[tid] += scratch[tid + upper];
    __syncthreads();
    active = upper;
  }
}

// The same for two arrays at once (one barrier per step for both).
template <typename T>
__device__ void reduce_block2(T* a, T* b) {
  const unsigned tid = threadIdx.x;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned upper = (active + 1) / 2;
    if (tid < active - upper) {
      a[tid] += a[tid + upper];
      b[tid] += b[tid + upper];
    }
    __syncthreads();
    active = upper;
  }
}

// partials[block] = this block's share of sum a_i b_i. The host adds the partials in double.
template <typename T>
__global__ void dot_partials(unsigned n, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ partials) {
  T* scratch = shared_scratch<T>();
  T sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += a[i] * b[i];
  scratch[threadIdx.x] = sum;
  reduce_block(scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = scratch[0];
}

// partials[block] = share of r.r, partials[blocks + block] = share of w.r.
template <typename T>
__global__ void dot2_partials(unsigned n, const T* __restrict__ r, const T* __restrict__ w, T* __restrict__ partials) {
  T* scratch_rr = shared_scratch<T>();
  T* scratch_wr = scratch_rr + blockDim.x;
  T rr = 0;
  T wr = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const T ri = r[i];
    rr += ri * ri;
    wr += w[i] * ri;
  }
  scratch_rr[threadIdx.x] = rr;
  scratch_wr[threadIdx.x] = wr;
  reduce_block2(scratch_rr, scratch_wr);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = scratch_rr[0];
    partials[gridDim.x + blockIdx.x] = scratch_wr[0];
  }
}

// y = y + alpha x
template <typename T>
__global__ void axpy(unsigned n, T alpha, const T* __restrict__ x, T* __restrict__ y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += alpha * x[i];
}

// y = x + beta y
template <typename T>
__global__ void xpay(unsigned n, const T* __restrict__ x, T beta, T* __restrict__ y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[i] + beta * y[i];
}

// y = alpha x
template <typename T>
__global__ void scale(unsigned n, T alpha, const T* __restrict__ x, T* __restrict__ y) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = alpha * x[i];
}

// Saad's three-term update:
//   x_prev = rho (x + gamma r) + (1 - rho) x_prev
//   r_prev = rho (r - gamma w) + (1 - rho) r_prev
template <typename T>
__global__ void three_term_update(unsigned n, T rho, T gamma, const T* __restrict__ x, T* __restrict__ x_prev,
                                  const T* __restrict__ r, T* __restrict__ r_prev, const T* __restrict__ w) {
  const T keep = T(1) - rho;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const T ri = r[i];
    x_prev[i] = rho * (x[i] + gamma * ri) + keep * x_prev[i];
    r_prev[i] = rho * (ri - gamma * w[i]) + keep * r_prev[i];
  }
}

// Chronopoulos-Gear update: p = r + beta p; s = w + beta s; x = x + alpha p; r = r - alpha s
template <typename T>
__global__ void cg_update(unsigned n, T alpha, T beta, T* __restrict__ r, const T* __restrict__ w, T* __restrict__ p,
                          T* __restrict__ s, T* __restrict__ x) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const T pi = r[i] + beta * p[i];
    const T si = w[i] + beta * s[i];
    p[i] = pi;
    s[i] = si;
    x[i] += alpha * pi;
    r[i] -= alpha * si;
  }
}

}  // namespace kernels

// ---------------------------------------------------------------------------------------------
// Host side.

template <typename T>
constexpr cudaDataType cuda_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;

// The largest block every one of this precision's kernels can be launched with on the current
// device (registers may hold some below the device's maxThreadsPerBlock).
template <typename T>
int largest_block() {
  const void* const all[] = {reinterpret_cast<const void*>(&kernels::spmv_row_per_thread<T>),
                             reinterpret_cast<const void*>(&kernels::spmv_vector<T>),
                             reinterpret_cast<const void*>(&kernels::dot_partials<T>),
                             reinterpret_cast<const void*>(&kernels::dot2_partials<T>),
                             reinterpret_cast<const void*>(&kernels::axpy<T>),
                             reinterpret_cast<const void*>(&kernels::xpay<T>),
                             reinterpret_cast<const void*>(&kernels::scale<T>),
                             reinterpret_cast<const void*>(&kernels::three_term_update<T>),
                             reinterpret_cast<const void*>(&kernels::cg_update<T>)};
  int limit = 1 << 30;
  for (const void* kernel : all) {
    cudaFuncAttributes attributes{};
    cuda::check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
    limit = std::min(limit, attributes.maxThreadsPerBlock);
  }
  return limit;
}

template <typename T>
class CudaOperations;

// Textbook CG from library calls alone (vendor variant), on the vectors of the CudaOperations that
// made it: slot 0 b, then x, r, p, Ap.
template <typename T>
class LibraryCg final : public Solver {
  enum : Slot { b = rhs_slot, x, r, p, ap, count };

 public:
  explicit LibraryCg(CudaOperations<T>& owner) : owner_(&owner) {}
  int vectors() const override { return count; }
  void start(Operations& ops) override {
    auto& cuda = owned(ops);
    cuda.prepare_library_spmv(p, ap);
    cuda.fill_zero(x);
    cuda.copy(b, r);
    cuda.copy(r, p);
    rr_ = cuda.library_dot(r, r);
  }
  void step(Operations& ops) override {
    auto& cuda = owned(ops);
    cuda.library_spmv(p, ap);
    const double alpha = checked_ratio(rr_, cuda.library_dot(p, ap), "p.Ap");
    cuda.library_axpy(alpha, p, x);
    cuda.library_axpy(-alpha, ap, r);
    const double rr_new = cuda.library_dot(r, r);
    const double beta = rr_new / rr_;
    cuda.library_scal(beta, p);  // p = r + beta p, as a library writes it: p = beta p; p += r
    cuda.library_axpy(1.0, r, p);
    rr_ = rr_new;
  }
  double residual_sq() const override { return rr_; }
  double final_residual_sq(Operations&) override { return rr_; }
  Slot solution() const override { return x; }

 private:
  CudaOperations<T>& owned(Operations& ops) const {
    if (&ops != static_cast<Operations*>(owner_))
      throw Error(ExitCode::internal, "the CUDA vendor CG runs only on the Operations that made it");
    return *owner_;
  }

  CudaOperations<T>* owner_;
  double rr_ = 0;
};

template <typename T>
class CudaOperations final : public Operations {
 public:
  CudaOperations(const DeviceInfo& device, const CsrMatrix& a, const LaunchConfig& launch)
      : info_(cuda::open_device(device.index)), rows_(a.rows), nnz_(a.nnz()) {
    // Block sizes up to what every kernel can launch with and dot2's shared scratch (two arrays
    // of the block size).
    largest_block_ = std::min<std::size_t>(info_.max_work_group_size, static_cast<std::size_t>(largest_block<T>()));
    largest_block_ = std::min<std::size_t>(largest_block_, info_.local_mem_bytes / (2 * sizeof(T)));
    largest_block_ = std::max<std::size_t>(largest_block_, 1);
    LaunchConfig defaults = launch;
    if (static_cast<std::size_t>(defaults.work_group_size) > largest_block_) {
      std::cerr << "gpubench: note: work_group_size " << defaults.work_group_size << " exceeds the largest "
                << info_.label() << " runs the CG kernels with (" << largest_block_ << "); using " << largest_block_
                << "\n";
      defaults.work_group_size = static_cast<int>(largest_block_);
    }
    per_row_ = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0;
    for (const auto& kernel : tunable_kernels()) set_launch(kernel, defaults);
    plan_slabs(a);

    row_ptr_ = upload_array(std::span<const std::int32_t>(a.row_ptr));
    col_idx_ = upload_array(std::span<const std::int32_t>(a.col_idx));
    std::vector<T> values(a.values.size());
    std::transform(a.values.begin(), a.values.end(), values.begin(), [](double v) { return static_cast<T>(v); });
    values_ = upload_array(std::span<const T>(values));
    staging_ = cuda::PinnedBuffer<T>(static_cast<std::size_t>(rows_));
    stream_.synchronize();  // the uploads read `values`, which goes out of scope
  }

  ~CudaOperations() override {
    // Let queued work finish before its buffers go; an error here cannot be reported.
    static_cast<void>(cudaStreamSynchronize(stream_.get()));
  }

  CudaOperations(const CudaOperations&) = delete;
  CudaOperations& operator=(const CudaOperations&) = delete;

  void allocate_vectors(int count) override {
    stream_.synchronize();
    vectors_.clear();
    for (int i = 0; i < count; ++i) {
      vectors_.emplace_back(static_cast<std::size_t>(rows_));
      cuda::check(cudaMemsetAsync(vectors_.back().data(), 0, vector_bytes(), stream_.get()), "cudaMemsetAsync");
    }
    stream_.synchronize();
  }

  void upload(Slot v, std::span<const double> values) override {
    check_vector_length(values.size(), rows_, "upload");
    std::transform(values.begin(), values.end(), staging_.data(), [](double x) { return static_cast<T>(x); });
    cuda::check(cudaMemcpyAsync(vector(v), staging_.data(), vector_bytes(), cudaMemcpyHostToDevice, stream_.get()),
                "cudaMemcpyAsync", "(upload to slot " + std::to_string(v) + ")");
    stream_.synchronize();  // staging_ may be reused at once
  }

  void download(Slot v, std::span<double> values) override {
    check_vector_length(values.size(), rows_, "download");
    cuda::check(cudaMemcpyAsync(staging_.data(), vector(v), vector_bytes(), cudaMemcpyDeviceToHost, stream_.get()),
                "cudaMemcpyAsync", "(download from slot " + std::to_string(v) + ")");
    stream_.synchronize();
    std::transform(staging_.data(), staging_.data() + staging_.size(), values.begin(), [](T x) { return static_cast<double>(x); });
  }

  void fill_zero(Slot v) override {
    T* y = vector(v);
    enqueue("fill", [&] {
      cuda::check(cudaMemsetAsync(y, 0, vector_bytes(), stream_.get()), "cudaMemsetAsync", "(fill_zero)");
    });
  }

  void copy(Slot src, Slot dst) override {
    const T* x = vector(src);
    T* y = vector(dst);
    enqueue("copy", [&] {
      cuda::check(cudaMemcpyAsync(y, x, vector_bytes(), cudaMemcpyDeviceToDevice, stream_.get()), "cudaMemcpyAsync",
                  "(copy)");
    });
  }

  void spmv(Slot in, Slot out) override {
    const T* x = vector(in);
    T* y = vector(out);
    // spmv_vector shuffles across whole warps: its block size is rounded down to a multiple of 32.
    const std::size_t warp_block = std::max<std::size_t>(launches_.spmv.block / warp_size * warp_size, warp_size);
    const unsigned lanes = spmv_lanes(per_row_, warp_block);
    if (lanes == 1) {
      const std::size_t b = launches_.spmv.block;
      const auto grid = static_cast<unsigned>((static_cast<std::size_t>(rows_) + b - 1) / b);
      const auto block = static_cast<unsigned>(b);
      enqueue("spmv", [&] {
        kernels::spmv_row_per_thread<T>
            <<<grid, block, 0, stream_.get()>>>(n(), row_ptr_.data(), col_idx_.data(), values_.data(), x, y);
        cuda::check_launch("spmv_row_per_thread", grid, block);
      });
      return;
    }
    if (slabs_ > 0) {
      const auto grid = static_cast<unsigned>(slab_grid_);
      const auto block = static_cast<unsigned>(slab_block_);
      enqueue("spmv", [&] {
        kernels::spmv_slabs<T><<<grid, block, slab_width_ * sizeof(T), stream_.get()>>>(
            n(), n(), slab_lanes_, static_cast<unsigned>(slab_width_), static_cast<unsigned>(slabs_),
            slab_row_ptr_.data(), slab_offsets_.data(), slab_values_.data(), x, y);
        cuda::check_launch("spmv_slabs", grid, block);
      });
      return;
    }
    const std::size_t threads = static_cast<std::size_t>(rows_) * lanes;
    const auto grid = static_cast<unsigned>((threads + warp_block - 1) / warp_block);
    const auto block = static_cast<unsigned>(warp_block);
    enqueue("spmv", [&] {
      kernels::spmv_vector<T>
          <<<grid, block, 0, stream_.get()>>>(n(), lanes, row_ptr_.data(), col_idx_.data(), values_.data(), x, y);
      cuda::check_launch("spmv_vector", grid, block);
    });
  }

  double dot(Slot a, Slot b) override {
    const T* x = vector(a);
    const T* y = vector(b);
    const Launch& l = launches_.dot;
    run("dot", l, "dot_partials", kernels::dot_partials<T>, l.block * sizeof(T), n(), x, y, partials_.data());
    read_partials(l.blocks);
    double sum = 0;
    for (std::size_t g = 0; g < l.blocks; ++g) sum += static_cast<double>(host_partials_[g]);
    return sum;
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    const T* rv = vector(r);
    const T* wv = vector(w);
    const Launch& l = launches_.dot2;
    run("dot2", l, "dot2_partials", kernels::dot2_partials<T>, 2 * l.block * sizeof(T), n(), rv, wv,
        partials_.data());
    read_partials(2 * l.blocks);
    std::array<double, 2> sums{0, 0};
    for (std::size_t g = 0; g < l.blocks; ++g) {
      sums[0] += static_cast<double>(host_partials_[g]);
      sums[1] += static_cast<double>(host_partials_[l.blocks + g]);
    }
    return sums;
  }

  void axpy(double alpha, Slot x, Slot y) override {
    const T* xv = vector(x);
    T* yv = vector(y);
    run("axpy", launches_.axpy, "axpy", kernels::axpy<T>, 0, n(), real(alpha), xv, yv);
  }

  void xpay(Slot x, double beta, Slot y) override {
    const T* xv = vector(x);
    T* yv = vector(y);
    run("xpay", launches_.xpay, "xpay", kernels::xpay<T>, 0, n(), xv, real(beta), yv);
  }

  void scale(double alpha, Slot x, Slot y) override {
    const T* xv = vector(x);
    T* yv = vector(y);
    run("scale", launches_.scale, "scale", kernels::scale<T>, 0, n(), real(alpha), xv, yv);
  }

  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    const T* xv = vector(x);
    T* xp = vector(x_prev);
    const T* rv = vector(r);
    T* rp = vector(r_prev);
    const T* wv = vector(w);
    run("three_term_update", launches_.three_term_update, "three_term_update", kernels::three_term_update<T>, 0, n(), real(rho), real(gamma), xv, xp,
        rv, rp, wv);
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    T* rv = vector(r);
    const T* wv = vector(w);
    T* pv = vector(p);
    T* sv = vector(s);
    T* xv = vector(x);
    run("cg_update", launches_.cg_update, "cg_update", kernels::cg_update<T>, 0, n(), real(alpha), real(beta), rv, wv, pv, sv, xv);
  }

  void start_timer() override {
    timing_ = true;
    timer_started_ = false;
  }

  double stop_timer() override {
    timing_ = false;
    stream_.synchronize();
    if (!timer_started_) return 0;
    timer_started_ = false;
    return cuda::Event::seconds_between(timer_start_, timer_end_);
  }

  void set_profiling(bool on) override { profiling_ = on; }

  std::vector<KernelProfile> take_profile() override {
    stream_.synchronize();
    std::vector<KernelProfile> profile;
    for (auto& launch : profiled_) {
      auto it = std::find_if(profile.begin(), profile.end(),
                             [&](const KernelProfile& k) { return k.kernel == launch.kernel; });
      if (it == profile.end()) it = profile.insert(profile.end(), KernelProfile{launch.kernel, 0.0, 0});
      it->seconds += cuda::Event::seconds_between(launch.start, launch.end);
      ++it->calls;
      spare_events_.push_back(std::move(launch.start));
      spare_events_.push_back(std::move(launch.end));
    }
    profiled_.clear();
    return profile;
  }

  int rows() const override { return rows_; }

  void set_launch(const std::string& kernel, const LaunchConfig& launch) override {
    check_set_launch(kernel, launch, largest_block_, info_);
    const Launch l{static_cast<std::size_t>(launch.work_group_size),
                   static_cast<std::size_t>(std::max(info_.compute_units, 1)) *
                       static_cast<std::size_t>(launch.work_groups_per_cu)};
    if (2 * l.blocks > partials_.size()) {  // dot and dot2 write one or two partials per block
      stream_.synchronize();  // queued kernels may still write the old buffer
      partials_ = cuda::DeviceBuffer<T>(2 * l.blocks);
      host_partials_ = cuda::PinnedBuffer<T>(2 * l.blocks);
    }
    launches_[kernel] = l;
  }

  std::unique_ptr<Solver> make_vendor_solver() override {
    if (!library_) library_ = std::make_unique<Library>(stream_, rows_, nnz_, row_ptr_, col_idx_, values_);
    return std::make_unique<LibraryCg<T>>(*this);
  }

  // The vendor variant's operations: library calls on these slots, timed and profiled like the
  // kernels under the names whose work they do.

  // Sizes and allocates cusparseSpMV's work buffer, once (outside any timed region: the solver's
  // start() calls it).
  void prepare_library_spmv(Slot in, Slot out) {
    Library& lib = library();
    if (lib.in) return;
    lib.in.emplace(rows_, vector(in), cuda_type<T>);
    lib.out.emplace(rows_, vector(out), cuda_type<T>);
    const T one = 1;
    const T zero = 0;
    std::size_t bytes = 0;
    cuda::check(cusparseSpMV_bufferSize(lib.sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, lib.matrix.get(),
                                        lib.in->get(), &zero, lib.out->get(), cuda_type<T>, spmv_algorithm, &bytes),
                "cusparseSpMV_bufferSize");
    lib.work = cuda::DeviceBuffer<unsigned char>(bytes);
  }

  void library_spmv(Slot in, Slot out) {
    Library& lib = library();
    prepare_library_spmv(in, out);
    lib.in->set_values(vector(in));
    lib.out->set_values(vector(out));
    const T one = 1;
    const T zero = 0;
    enqueue("spmv", [&] {
      cuda::check(cusparseSpMV(lib.sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, lib.matrix.get(),
                               lib.in->get(), &zero, lib.out->get(), cuda_type<T>, spmv_algorithm, lib.work.data()),
                  "cusparseSpMV");
    });
  }

  double library_dot(Slot a, Slot b) {
    const cublasHandle_t blas = library().blas.get();
    const T* x = vector(a);
    const T* y = vector(b);
    T result = 0;
    enqueue("dot", [&] {
      if constexpr (std::is_same_v<T, double>)
        cuda::check(cublasDdot(blas, n_int(), x, 1, y, 1, &result), "cublasDdot");
      else
        cuda::check(cublasSdot(blas, n_int(), x, 1, y, 1, &result), "cublasSdot");
    });
    return static_cast<double>(result);  // host pointer mode: cuBLAS has waited for it
  }

  void library_axpy(double alpha, Slot x, Slot y) {
    const cublasHandle_t blas = library().blas.get();
    const T a = real(alpha);
    const T* xv = vector(x);
    T* yv = vector(y);
    enqueue("axpy", [&] {
      if constexpr (std::is_same_v<T, double>)
        cuda::check(cublasDaxpy(blas, n_int(), &a, xv, 1, yv, 1), "cublasDaxpy");
      else
        cuda::check(cublasSaxpy(blas, n_int(), &a, xv, 1, yv, 1), "cublasSaxpy");
    });
  }

  void library_scal(double alpha, Slot x) {
    const cublasHandle_t blas = library().blas.get();
    const T a = real(alpha);
    T* xv = vector(x);
    enqueue("scale", [&] {
      if constexpr (std::is_same_v<T, double>)
        cuda::check(cublasDscal(blas, n_int(), &a, xv, 1), "cublasDscal");
      else
        cuda::check(cublasSscal(blas, n_int(), &a, xv, 1), "cublasSscal");
    });
  }

 private:
  static constexpr cusparseSpMVAlg_t spmv_algorithm = CUSPARSE_SPMV_CSR_ALG1;

  // cuBLAS and cuSPARSE state of the vendor variant, made on its first use: the handles (bound to
  // the stream) and the matrix's descriptor; then, once vectors exist (prepare_library_spmv), the
  // vector descriptors and cusparseSpMV's work buffer, sized and allocated once.
  struct Library {
    Library(const cuda::Stream& stream, int rows, std::int64_t nnz, const cuda::DeviceBuffer<std::int32_t>& row_ptr,
            const cuda::DeviceBuffer<std::int32_t>& col_idx, const cuda::DeviceBuffer<T>& values)
        : blas(stream),
          sparse(stream),
          matrix(rows, nnz, row_ptr.data(), col_idx.data(), values.data(), cuda_type<T>) {}
    cuda::BlasHandle blas;
    cuda::SparseHandle sparse;
    cuda::SparseCsr matrix;
    std::optional<cuda::DenseVector> in, out;
    cuda::DeviceBuffer<unsigned char> work;
  };

  struct ProfiledLaunch {
    std::string kernel;
    cuda::Event start, end;
  };

  Library& library() {
    if (!library_) throw Error(ExitCode::internal, "CUDA library call before make_vendor_solver()");
    return *library_;
  }

  std::size_t vector_bytes() const { return static_cast<std::size_t>(rows_) * sizeof(T); }
  unsigned n() const { return static_cast<unsigned>(rows_); }
  int n_int() const { return rows_; }
  static T real(double x) { return static_cast<T>(x); }

  template <typename U>
  cuda::DeviceBuffer<U> upload_array(std::span<const U> host) {
    // At least one element, so that no array's pointer is null (cuSPARSE refuses null arrays).
    cuda::DeviceBuffer<U> buffer(std::max<std::size_t>(host.size(), 1));
    if (!host.empty())
      cuda::check(cudaMemcpyAsync(buffer.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream_.get()),
                  "cudaMemcpyAsync", "(matrix upload)");
    return buffer;
  }

  T* vector(Slot v) const {
    check_slot(v, vectors_.size());
    return vectors_[static_cast<std::size_t>(v)].data();
  }

  void read_partials(std::size_t count) {
    cuda::check(cudaMemcpyAsync(host_partials_.data(), partials_.data(), count * sizeof(T), cudaMemcpyDeviceToHost,
                                stream_.get()),
                "cudaMemcpyAsync", "(dot partials)");
    stream_.synchronize();
  }

  // Decides whether SpMV runs as spmv_slabs (see the kernel) and, if so, stores the matrix slab by
  // slab. It pays when x fits in shared memory in a few slabs and reloading it once per block and
  // slab moves well under the bytes of the gathers it replaces (a 32-byte L2 sector per nonzero;
  // the test below allows half of that): long
  // rows over a moderate number of columns, as in NAS CG. Short-row matrices (Poisson) gather
  // neighbours that share sectors anyway and keep spmv_row_per_thread.
  void plan_slabs(const CsrMatrix& a) {
    if (spmv_lanes(per_row_, 1024) == 1 || a.cols != a.rows) return;
    int device = 0, per_block = 0, per_sm = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                "cudaDeviceGetAttribute", "(cudaDevAttrMaxSharedMemoryPerBlockOptin)");
    cuda::check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
                "cudaDeviceGetAttribute", "(cudaDevAttrMaxSharedMemoryPerMultiprocessor)");
    // Two blocks per SM, each with half the shared memory: one copies its slice of x while the
    // other gathers (measured on the H100, NAS CG class C: 0.275 ms per SpMV against 0.345 with one
    // block per SM and 0.348 for spmv_vector).
    constexpr std::size_t blocks_per_sm = 2;
    // The runtime keeps 1 KiB of each block's shared memory for itself.
    const std::size_t bytes = std::min<std::size_t>(static_cast<std::size_t>(per_block),
                                                    static_cast<std::size_t>(per_sm) / blocks_per_sm - 1024);
    const std::size_t max_width = std::min<std::size_t>(bytes / sizeof(T), 1u << 16);  // 16-bit offsets
    const auto cols = static_cast<std::size_t>(a.cols);
    const std::size_t slabs = (cols + max_width - 1) / max_width;
    const std::size_t grid = static_cast<std::size_t>(std::max(info_.compute_units, 1)) * blocks_per_sm;
    if (grid * cols * sizeof(T) > static_cast<std::size_t>(nnz_) * 16) return;

    cudaFuncAttributes attributes{};
    cuda::check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&kernels::spmv_slabs<T>)),
                "cudaFuncGetAttributes", "(spmv_slabs)");
    slab_block_ = std::min<std::size_t>(1024, static_cast<std::size_t>(attributes.maxThreadsPerBlock)) / warp_size *
                  warp_size;
    slab_width_ = (cols + slabs - 1) / slabs;
    cuda::check(cudaFuncSetAttribute(reinterpret_cast<const void*>(&kernels::spmv_slabs<T>),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(slab_width_ * sizeof(T))),
                "cudaFuncSetAttribute", "(spmv_slabs shared memory " + std::to_string(slab_width_ * sizeof(T)) + " B)");
    slab_lanes_ = spmv_lanes(static_cast<double>(nnz_) / (static_cast<double>(rows_) * static_cast<double>(slabs)),
                             slab_block_);

    // Slab-major CSR: per slab, rows + 1 offsets into one values/offsets array.
    const auto rows = static_cast<std::size_t>(rows_);
    std::vector<std::int32_t> row_ptr(slabs * (rows + 1), 0);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
        ++row_ptr[static_cast<std::size_t>(a.col_idx[k]) / slab_width_ * (rows + 1) + r + 1];
    std::int32_t running = 0;
    for (std::size_t s = 0; s < slabs; ++s) {
      std::int32_t* p = row_ptr.data() + s * (rows + 1);
      p[0] = running;
      for (std::size_t r = 0; r < rows; ++r) p[r + 1] = running += p[r + 1];
    }
    std::vector<std::int32_t> next(row_ptr);  // where each (slab, row)'s next entry goes
    std::vector<std::uint16_t> offsets(static_cast<std::size_t>(nnz_));
    std::vector<T> values(static_cast<std::size_t>(nnz_));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        const auto c = static_cast<std::size_t>(a.col_idx[k]);
        const std::size_t s = c / slab_width_;
        const auto at = static_cast<std::size_t>(next[s * (rows + 1) + r]++);
        offsets[at] = static_cast<std::uint16_t>(c - s * slab_width_);
        values[at] = static_cast<T>(a.values[k]);
      }
    slab_row_ptr_ = upload_array(std::span<const std::int32_t>(row_ptr));
    slab_offsets_ = upload_array(std::span<const std::uint16_t>(offsets));
    slab_values_ = upload_array(std::span<const T>(values));
    stream_.synchronize();  // the uploads read the vectors above
    slab_grid_ = grid;
    slabs_ = slabs;
  }

  // A kernel's launch: block size, and blocks for the grid-stride kernels.
  struct Launch {
    std::size_t block = 0, blocks = 0;
  };

  // A grid-stride kernel on SMs x blocks per SM blocks, with `shared` bytes of dynamic shared memory.
  template <typename... Params, typename... Args>
  void run(const char* profile_name, const Launch& l, const char* kernel_name, void (*kernel)(Params...),
           std::size_t shared, Args... args) {
    const auto grid = static_cast<unsigned>(l.blocks);
    const auto block = static_cast<unsigned>(l.block);
    enqueue(profile_name, [&] {
      kernel<<<grid, block, shared, stream_.get()>>>(args...);
      cuda::check_launch(kernel_name, grid, block);
    });
  }

  // Queues `body`'s work on the stream between the events that timing and profiling ask for.
  template <typename Body>
  void enqueue(const char* kernel, Body&& body) {
    if (timing_ && !timer_started_) {
      timer_start_.record(stream_);
      timer_started_ = true;
    }
    if (profiling_) {
      ProfiledLaunch launch{kernel, spare_event(), spare_event()};
      launch.start.record(stream_);
      body();
      launch.end.record(stream_);
      profiled_.push_back(std::move(launch));
    } else {
      body();
    }
    if (timing_) timer_end_.record(stream_);
  }

  cuda::Event spare_event() {
    if (spare_events_.empty()) return cuda::Event();
    cuda::Event e = std::move(spare_events_.back());
    spare_events_.pop_back();
    return e;
  }

  // Declaration order is destruction order reversed: the library state and the buffers go before
  // the stream they were used on.
  DeviceInfo info_;
  int rows_;
  std::int64_t nnz_;
  cuda::Stream stream_;
  cuda::Event timer_start_, timer_end_;
  std::size_t largest_block_ = 0;
  double per_row_ = 0;  // average nonzeros per row: SpMV's lanes per row follow from it
  KernelLaunches<Launch> launches_;
  cuda::DeviceBuffer<std::int32_t> row_ptr_, col_idx_;
  // spmv_slabs (slabs_ > 0): the matrix slab by slab, and its launch.
  std::size_t slabs_ = 0, slab_width_ = 0, slab_grid_ = 0, slab_block_ = 0;
  unsigned slab_lanes_ = 0;
  cuda::DeviceBuffer<std::int32_t> slab_row_ptr_;
  cuda::DeviceBuffer<std::uint16_t> slab_offsets_;
  cuda::DeviceBuffer<T> slab_values_;
  cuda::DeviceBuffer<T> values_, partials_;
  cuda::PinnedBuffer<T> host_partials_;
  std::vector<cuda::DeviceBuffer<T>> vectors_;
  cuda::PinnedBuffer<T> staging_;  // page-locked: uploads and downloads at the link's speed
  std::unique_ptr<Library> library_;

  bool timing_ = false;
  bool timer_started_ = false;
  bool profiling_ = false;
  std::vector<ProfiledLaunch> profiled_;
  std::vector<cuda::Event> spare_events_;
};

std::unique_ptr<Operations> make_cuda_operations(const DeviceInfo& device, const CsrMatrix& a, Precision precision,
                                                 const LaunchConfig& launch) {
  check_can_make(device, a, precision, launch);
  if (precision == Precision::f64) return std::make_unique<CudaOperations<double>>(device, a, launch);
  return std::make_unique<CudaOperations<float>>(device, a, launch);
}

}  // namespace

}  // namespace gpubench::cg

GPUBENCH_REGISTER_CG_OPERATIONS("cuda", gpubench::cg::make_cuda_operations,
                                "cuSPARSE SpMV (CSR) + cuBLAS dot/axpy/scal", true);
