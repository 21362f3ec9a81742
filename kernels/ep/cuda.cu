// EP on CUDA (kernels/ep/ep.hpp says what is computed and how the work is dealt; the loop itself
// is kernels/ep/pair_math.h). tally_batches<false> (variant reduce) reduces each block's values
// in shared memory and writes one row per block; tally_batches<true> (variant partials) writes
// one row per thread. Either way `out` is column-major, value v of row r at out[v * rows + r],
// and sum_columns adds each column with one block.
#include <algorithm>
#include <cstdint>

#include "backends/cuda/cuda.hpp"
#include "common/errors.hpp"
#include "kernels/ep/operations.hpp"
#include "kernels/ep/pair_math.h"

namespace gpubench::ep {

namespace {

constexpr unsigned sum_block = 256;
static_assert(EP_BATCH_PAIRS == 1u << batch_log2 && EP_MULTIPLIER == multiplier && EP_COUNT_ROWS == annuli + 1);

// Shared memory per thread of tally_batches: its annulus counts, later the reduction's scratch.
constexpr std::size_t tally_shared_per_thread = EP_COUNT_ROWS * sizeof(ep_u32);
static_assert(tally_shared_per_thread >= sizeof(double));

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
  // EP_COUNT_ROWS x blockDim.x counts, thread t's in column t; then the reduction's doubles.
  extern __shared__ double scratch[];
  ep_u32* mine = reinterpret_cast<ep_u32*>(scratch) + threadIdx.x;
  for (unsigned row = 0; row < EP_COUNT_ROWS; ++row) mine[row * blockDim.x] = 0;
  const std::uint64_t item = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sx = 0, sy = 0;
  if (item < items) {
    const std::uint64_t first = item * batches / items, last = (item + 1) * batches / items;
    ep_tally_batches(state_before_pair(first << batch_log2), last - first, &sx, &sy, mine, blockDim.x);
  }
  double v[result_values] = {sx, sy};
#pragma unroll
  for (int k = 0; k < annuli; ++k) v[2 + k] = mine[k * blockDim.x];
  if constexpr (Partials) {
    const std::uint64_t rows = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
#pragma unroll
    for (int k = 0; k < result_values; ++k) out[k * rows + item] = v[k];
  } else {
    __syncthreads();  // every thread has read its counts: the memory becomes the scratch
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
    largest_ = static_cast<int>(
        std::min<std::size_t>(info_.max_work_group_size, info_.local_mem_bytes / tally_shared_per_thread));
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
    const std::size_t shared = block * tally_shared_per_thread;
    start_.record(stream_);
    if (variant == Variant::partials)
      tally_batches<true><<<grid, block, shared, stream_.get()>>>(d.batches, d.items, partials_.data());
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
