// EP on CUDA: the kernels of kernels/ep/nvrtc.cu (which says what they do), compiled at run time
// by NVRTC, dealt and launched here.
#include <algorithm>
#include <cstdint>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "common/errors.hpp"
#include "kernels/ep/operations.hpp"
#include "kernels/ep/pair_math.h"

namespace gpubench::ep {

namespace {

constexpr unsigned sum_block = 256;
static_assert(EP_BATCH_PAIRS == 1u << batch_log2 && EP_MULTIPLIER == multiplier && EP_SEED == seed &&
              EP_MASK46 == modulus_mask && EP_COUNT_ROWS == annuli + 1);

// Shared memory per thread of tally_batches: its annulus counts, later the reduction's scratch.
constexpr std::size_t tally_shared_per_thread = EP_COUNT_ROWS * sizeof(ep_u32);
static_assert(tally_shared_per_thread >= sizeof(double));

// The kernels of kernels/ep/nvrtc.cu on the current device, built by NVRTC on first use.
cudaKernel_t kernel(const char* name) { return cuda::rtc_kernel("ep/nvrtc.cu", name, {}, "EP's kernels"); }

class CudaOperations final : public Operations {
 public:
  explicit CudaOperations(const DeviceInfo& device)
      : info_(cuda::open_device(device.index)), totals_(result_values), host_(result_values) {
    if (!info_.fp64) throw DeviceError("device " + info_.label() + " has no fp64 support, which EP requires");
    largest_ = static_cast<int>(
        std::min<std::size_t>(info_.max_work_group_size, info_.local_mem_bytes / tally_shared_per_thread));
    for (const char* name : {"tally", "tally_partials"}) largest_ = std::min(largest_, cuda::rtc_max_threads(kernel(name), name));
    largest_ = std::max(largest_, 1);
  }

  const DeviceInfo& device() const override { return info_; }
  int largest_group() const override { return largest_; }

  TallyRun tally(std::uint64_t pairs, Variant variant, const Params& launch) override {
    check_runs("cuda", variant);
    const Deal d = deal(info_, pairs, launch, largest_);
    const auto block = static_cast<unsigned>(grid::group_size_of(launch));
    const auto grid = static_cast<unsigned>(d.items / block);
    const std::size_t rows = variant == Variant::partials ? static_cast<std::size_t>(d.items) : grid;
    if (rows * result_values > partials_.size()) partials_ = cuda::DeviceBuffer<double>(rows * result_values);
    const std::size_t shared = block * tally_shared_per_thread;
    const std::string name = tally_kernel(variant);
    const cudaKernel_t tally = kernel(name.c_str());  // before the timed region: a first use compiles
    const cudaKernel_t sum = kernel("sum_columns");
    TallyRun run;
    timeline_.clear();
    timeline_.mark(stream_, nullptr);
    cuda::rtc_launch(tally, name.c_str(), grid, block, shared, stream_.get(), std::uint64_t{d.batches},
                     std::uint64_t{d.items}, partials_.data());
    timeline_.mark(stream_, &run.tally_seconds);
    cuda::rtc_launch(sum, "sum_columns", result_values, sum_block, sum_block * sizeof(double), stream_.get(),
                     static_cast<const double*>(partials_.data()), std::uint64_t{rows}, totals_.data());
    timeline_.mark(stream_, &run.sum_seconds);
    cuda::check(cudaMemcpyAsync(host_.data(), totals_.data(), totals_.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
                "cudaMemcpyAsync", "(EP totals)");
    stream_.synchronize();
    timeline_.collect();
    run.items = d.items;
    std::copy(host_.data(), host_.data() + result_values, run.values.begin());
    return run;
  }

 private:
  DeviceInfo info_;
  int largest_ = 1;
  cuda::Stream stream_;
  cuda::Timeline timeline_;  // the tally's and the sum's device times
  cuda::DeviceBuffer<double> partials_, totals_;
  cuda::PinnedBuffer<double> host_;
};

}  // namespace

}  // namespace gpubench::ep

GPUBENCH_REGISTER_EP_OPERATIONS(
    "cuda", [](const gpubench::DeviceInfo& d) { return std::make_unique<gpubench::ep::CudaOperations>(d); }, true);
