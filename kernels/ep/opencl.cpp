// EP on OpenCL: kernels/ep/opencl.cl, built once per variant (-DPARTIALS=0/1). The tally
// kernel's grid comes from the launch parameters; sum_columns adds the 12 columns with one
// work-group each. Device time from the two kernels' profiling events.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/opencl/opencl.hpp"
#include "common/errors.hpp"
#include "kernels/ep/operations.hpp"
#include "kernels/ep/pair_math.h"

namespace gpubench::ep {

namespace {

using opencl::Buffer;
using opencl::Context;
using opencl::Event;
using opencl::Kernel;
using opencl::LocalMemory;

constexpr std::size_t sum_group = 256;
// Local memory per work-item of tally: its annulus counts, later the reduction's scratch.
constexpr std::size_t tally_local_per_item = EP_COUNT_ROWS * sizeof(cl_uint);
static_assert(tally_local_per_item >= sizeof(double));

class OpenclOperations final : public Operations {
 public:
  explicit OpenclOperations(const DeviceInfo& device) : context_(device.index) {
    if (!context_.info().fp64)
      throw DeviceError("device " + context_.info().label() + " has no fp64 support, which EP requires");
    // NVIDIA's OpenCL: CUDA's seeds and truncation by inline PTX (kernels/ep/pair_math.h).
    const std::string ptx = opencl::inline_ptx_option(context_.device());
    for (Variant v : device_variants) {
      const auto& program =
          context_.program("ep/opencl.cl", (v == Variant::partials ? "-DPARTIALS=1" : "-DPARTIALS=0") + ptx);
      tally_[static_cast<int>(v)] = program.kernel("tally");
      sum_[static_cast<int>(v)] = program.kernel("sum_columns");
    }
    // The device's largest work-group, within the local memory the counts need.
    largest_ = static_cast<int>(std::min<std::size_t>(context_.info().max_work_group_size,
                                                      context_.info().local_mem_bytes / tally_local_per_item));
    largest_ = std::max(largest_, 1);
    totals_ = context_.create_buffer(result_values * sizeof(double));
  }

  const DeviceInfo& device() const override { return context_.info(); }
  int largest_group() const override { return largest_; }

  TallyRun tally(std::uint64_t pairs, Variant variant, const Params& launch) override {
    check_runs("opencl", variant);
    const Deal d = deal(context_.info(), pairs, launch, largest_);
    const auto local = static_cast<std::size_t>(grid::group_size_of(launch));
    const auto global = static_cast<std::size_t>(d.items);
    const std::size_t rows = variant == Variant::partials ? global : global / local;
    if (rows * result_values * sizeof(double) > partial_bytes_) {
      partial_bytes_ = rows * result_values * sizeof(double);
      partials_ = context_.create_buffer(partial_bytes_);
    }
    const Kernel& tally = tally_[static_cast<int>(variant)];
    tally.set_arg(0, static_cast<cl_ulong>(d.batches));
    tally.set_arg(1, static_cast<cl_ulong>(d.items));
    tally.set_arg(2, partials_);
    tally.set_arg(3, LocalMemory{local * tally_local_per_item});
    const Kernel& sum = sum_[static_cast<int>(variant)];
    sum.set_arg(0, partials_);
    sum.set_arg(1, static_cast<cl_ulong>(rows));
    sum.set_arg(2, totals_);
    const std::size_t sum_local = std::min<std::size_t>(sum_group, context_.info().max_work_group_size);
    sum.set_arg(3, LocalMemory{sum_local * sizeof(double)});
    const Event first = context_.launch(tally, global, local);
    const Event second = context_.launch(sum, result_values * sum_local, sum_local);
    TallyRun run;
    run.items = d.items;
    context_.read(totals_, run.values.data(), sizeof run.values);  // blocking: both kernels are done
    run.tally_seconds = first.seconds();
    run.sum_seconds = second.seconds();
    return run;
  }

 private:
  Context context_;
  Kernel tally_[2], sum_[2];
  int largest_ = 1;
  Buffer partials_, totals_;
  std::size_t partial_bytes_ = 0;
};

}  // namespace

}  // namespace gpubench::ep

GPUBENCH_REGISTER_EP_OPERATIONS(
    "opencl", [](const gpubench::DeviceInfo& d) { return std::make_unique<gpubench::ep::OpenclOperations>(d); },
    true);
