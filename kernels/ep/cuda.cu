// EP on CUDA (kernels/ep/ep.hpp says what is computed and how the work is dealt). tally_batches<false>
// (variant reduce) reduces each block's values in shared memory and writes one row per block;
// tally_batches<true> (variant partials) writes one row per thread. Either way `out` is
// column-major,
// value v of row r at out[v * rows + r], and sum_columns adds each column with one block.
#include <algorithm>
#include <cstdint>

#include "backends/cuda/cuda.hpp"
#include "bench/errors.hpp"
#include "kernels/ep/operations.hpp"

namespace gpubench::ep {

namespace {

constexpr std::uint64_t mask = modulus_mask;
constexpr unsigned sum_block = 256;

// 1 + x 2^-46 in [1, 2): the 46 bits of x as the top of a mantissa. 2 of it - 3 is exactly
// 2 (x 2^-46) - 1 (every step is exact), without an integer-to-double conversion, two of which
// per pair are slow on GPUs.
__device__ double uniform_plus_one(std::uint64_t x) {
  return __longlong_as_double(static_cast<long long>(0x3FF0000000000000ULL | (x << 6)));
}

// Tree sum of `v` over the block in `scratch` (blockDim.x doubles); thread 0 gets the total.
__device__ double block_sum(double v, double* scratch) {
  const unsigned lid = threadIdx.x;
  scratch[lid] = v;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned half = (active + 1) / 2;
    if (lid < active - half) scratch[lid] += scratch[lid + half];
    __syncthreads();
    active = half;
  }
  const double total = scratch[0];
  __syncthreads();
  return total;
}

template <bool Partials>
__global__ void tally_batches(std::uint64_t batches, std::uint64_t items, double* out) {
  extern __shared__ double scratch[];
  const std::uint64_t item = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sx = 0, sy = 0;
  unsigned q[annuli] = {};
  if (item < items) {
    const std::uint64_t first = item * batches / items, last = (item + 1) * batches / items;
    std::uint64_t x = state_before_pair(first << batch_log2);
    for (std::uint64_t p = (last - first) << batch_log2; p > 0; --p) {
      x = (x * multiplier) & mask;
      const double x1 = 2.0 * uniform_plus_one(x) - 3.0;
      x = (x * multiplier) & mask;
      const double x2 = 2.0 * uniform_plus_one(x) - 3.0;
      const double r = x1 * x1 + x2 * x2;
      if (r <= 1.0) {
        const double f = sqrt(-2.0 * log(r) / r);
        const double g1 = x1 * f, g2 = x2 * f;
        const int l = static_cast<int>(fmax(fabs(g1), fabs(g2)));
#pragma unroll
        for (int k = 0; k < annuli; ++k) q[k] += l == k;  // registers: no dynamic index
        sx += g1;
        sy += g2;
      }
    }
  }
  const double v[result_values] = {sx,   sy,   double(q[0]), double(q[1]), double(q[2]), double(q[3]),
                                   double(q[4]), double(q[5]), double(q[6]), double(q[7]), double(q[8]), double(q[9])};
  if constexpr (Partials) {
    const std::uint64_t rows = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
#pragma unroll
    for (int k = 0; k < result_values; ++k) out[k * rows + item] = v[k];
  } else {
#pragma unroll
    for (int k = 0; k < result_values; ++k) {
      const double total = block_sum(v[k], scratch);
      if (threadIdx.x == 0) out[static_cast<std::uint64_t>(k) * gridDim.x + blockIdx.x] = total;
    }
  }
}

__global__ void sum_columns(const double* in, std::uint64_t rows, double* out) {
  extern __shared__ double scratch[];
  const std::uint64_t column = blockIdx.x;
  double s = 0;
  for (std::uint64_t r = threadIdx.x; r < rows; r += blockDim.x) s += in[column * rows + r];
  const double total = block_sum(s, scratch);
  if (threadIdx.x == 0) out[column] = total;
}

class CudaOperations final : public Operations {
 public:
  explicit CudaOperations(const DeviceInfo& device)
      : info_(cuda::open_device(device.index)), totals_(result_values), host_(result_values) {
    if (!info_.fp64) throw DeviceError("device " + info_.label() + " has no fp64 support, which EP requires");
    largest_ = static_cast<int>(std::min<std::size_t>(info_.max_work_group_size, info_.local_mem_bytes / sizeof(double)));
    for (const void* kernel : {reinterpret_cast<const void*>(tally_batches<false>), reinterpret_cast<const void*>(tally_batches<true>)}) {
      cudaFuncAttributes attributes{};
      cuda::check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes", "(EP tally)");
      largest_ = std::min(largest_, attributes.maxThreadsPerBlock);
    }
    largest_ = std::max(largest_, 1);
  }

  const DeviceInfo& device() const override { return info_; }
  int largest_group() const override { return largest_; }

  TallyRun tally(std::uint64_t pairs, Variant variant, const LaunchConfig& launch) override {
    check_runs("cuda", variant);
    const Deal d = deal(info_, pairs, launch, largest_);
    const auto block = static_cast<unsigned>(launch.work_group_size);
    const auto grid = static_cast<unsigned>(d.items / block);
    const std::size_t rows = variant == Variant::partials ? static_cast<std::size_t>(d.items) : grid;
    if (rows * result_values > partials_.size()) partials_ = cuda::DeviceBuffer<double>(rows * result_values);
    const std::size_t shared = block * sizeof(double);
    start_.record(stream_);
    if (variant == Variant::partials)
      tally_batches<true><<<grid, block, 0, stream_.get()>>>(d.batches, d.items, partials_.data());
    else
      tally_batches<false><<<grid, block, shared, stream_.get()>>>(d.batches, d.items, partials_.data());
    cuda::check_launch(tally_kernel(variant), grid, block);
    middle_.record(stream_);
    sum_columns<<<result_values, sum_block, sum_block * sizeof(double), stream_.get()>>>(partials_.data(), rows,
                                                                                         totals_.data());
    cuda::check_launch("sum_columns", result_values, sum_block);
    end_.record(stream_);
    cuda::check(cudaMemcpyAsync(host_.data(), totals_.data(), totals_.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
                "cudaMemcpyAsync", "(EP totals)");
    stream_.synchronize();
    TallyRun run;
    run.items = d.items;
    std::copy(host_.data(), host_.data() + result_values, run.values.begin());
    run.tally_seconds = cuda::Event::seconds_between(start_, middle_);
    run.sum_seconds = cuda::Event::seconds_between(middle_, end_);
    return run;
  }

 private:
  DeviceInfo info_;
  int largest_ = 1;
  cuda::Stream stream_;
  cuda::Event start_, middle_, end_;
  cuda::DeviceBuffer<double> partials_, totals_;
  cuda::PinnedBuffer<double> host_;
};

}  // namespace

}  // namespace gpubench::ep

GPUBENCH_REGISTER_EP_OPERATIONS(
    "cuda", [](const gpubench::DeviceInfo& d) { return std::make_unique<gpubench::ep::CudaOperations>(d); }, true);
