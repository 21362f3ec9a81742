// EP on the omp_target backend: the device loop every API shares (pair_math.h, its host path,
// compiled for the device with `declare target`) in a `target teams distribute parallel for simd`
// over the work-items (GCC's nvptx: an OpenMP thread per warp, an item per simd lane),
// num_teams and thread_limit from work_groups_per_cu and work_group_size (the launch's tunables;
// omp_target::num_teams and thread_limit: on a GPU teams per SM and warps, on the host one team).
// reduce adds sx, sy and the counts in the region's reduction; partials writes each item's 12
// values to a device array, column-major, and a second region adds the columns. Each region says
// whether it ran on the initial device: a point asked of a GPU that ran on the host fails
// (omp_target::check_ran_where_asked).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "backends/omp_target/omp_target.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"
#include "kernels/ep/operations.hpp"
#include "kernels/launch_grid.hpp"

#pragma omp declare target
#include "kernels/ep/pair_math.h"
#pragma omp end declare target

namespace gpubench::ep {

namespace {

class OmpTargetOperations final : public Operations {
 public:
  explicit OmpTargetOperations(const DeviceInfo& device) : device_(device), number_(omp_target::device_number(device)) {}

  const DeviceInfo& device() const override { return device_; }
  nlohmann::json gap_causes() const override {
    nlohmann::json causes = nlohmann::json::array();
    if (const std::string g = omp_target::compiler_gap(device_); !g.empty()) causes.push_back(gap_cause("compiler", g));
#ifdef GPUBENCH_OMP_TARGET_CLANG
    if (device_.type == "gpu")
      causes.push_back(gap_cause("gpubench", "each thread counts its pairs' annuli in an array of its own (LLVM 19 keeps "
                                             "it in the stack: the partials kernel takes 52 registers and 48 bytes of "
                                             "stack for sm_90, ptxas says), where CUDA's and OpenCL's count in shared "
                                             "memory (32 registers, no stack); EP C on the H200: 22.39 ms against CUDA's "
                                             "20.97 (reports/data/h200-2026-12-04-issue57)"));
#endif
    return causes;
  }
  int largest_group() const override { return static_cast<int>(std::max<std::size_t>(device_.max_work_group_size, 1)); }

  TallyRun tally(std::uint64_t pairs, Variant variant, const Params& launch) override {
    if (variant == Variant::serial) throw UsageError("EP's serial variant runs on the host's backend (openmp)");
    const Deal d = deal(device_, pairs, launch, largest_group());
    const int teams = omp_target::num_teams(device_, grid::groups_per_cu_of(launch));
    const int threads = omp_target::thread_limit(device_, grid::group_size_of(launch));
    const std::uint64_t items = d.items, batches = d.batches;
    const int dev = number_;
    TallyRun run;
    run.items = items;
    int initial = 0;
    if (variant == Variant::reduce) {
      double sx = 0, sy = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0, q4 = 0, q5 = 0, q6 = 0, q7 = 0, q8 = 0, q9 = 0;
      const double start = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(threads) map(tofrom : initial) \
    reduction(+ : sx, sy, q0, q1, q2, q3, q4, q5, q6, q7, q8, q9)
      for (std::uint64_t i = 0; i < items; ++i) {
        if (i == 0) initial = omp_is_initial_device();
        const std::uint64_t first = i * batches / items, last = (i + 1) * batches / items;
        double x = 0, y = 0;
        ep_u32 counts[EP_COUNT_ROWS] = {};
        ep_tally_batches(ep_state_before_pair(first * EP_BATCH_PAIRS), last - first, &x, &y, counts, 1);
        sx += x;
        sy += y;
        q0 += counts[0], q1 += counts[1], q2 += counts[2], q3 += counts[3], q4 += counts[4];
        q5 += counts[5], q6 += counts[6], q7 += counts[7], q8 += counts[8], q9 += counts[9];
      }
      run.tally_seconds = omp_get_wtime() - start;
      run.values = {sx, sy, q0, q1, q2, q3, q4, q5, q6, q7, q8, q9};
    } else {
      omp_target::Buffer partials(number_, static_cast<std::size_t>(items) * result_values * sizeof(double));
      double* out = static_cast<double*>(partials.data());
      const double start = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(out) \
    map(tofrom : initial)
      for (std::uint64_t i = 0; i < items; ++i) {
        if (i == 0) initial = omp_is_initial_device();
        const std::uint64_t first = i * batches / items, last = (i + 1) * batches / items;
        double x = 0, y = 0;
        ep_u32 counts[EP_COUNT_ROWS] = {};
        ep_tally_batches(ep_state_before_pair(first * EP_BATCH_PAIRS), last - first, &x, &y, counts, 1);
        out[0 * items + i] = x;
        out[1 * items + i] = y;
        for (std::uint64_t l = 0; l < static_cast<std::uint64_t>(annuli); ++l) out[(2 + l) * items + i] = counts[l];
      }
      const double middle = omp_get_wtime();
      run.tally_seconds = middle - start;
      double sums[result_values] = {};
      constexpr int values = result_values;
#pragma omp target teams distribute device(dev) is_device_ptr(out) map(tofrom : sums[0 : values])
      for (int v = 0; v < values; ++v) {
        double sum = 0;
#pragma omp parallel for simd reduction(+ : sum)
        for (std::uint64_t i = 0; i < items; ++i) sum += out[static_cast<std::uint64_t>(v) * items + i];
        sums[v] = sum;
      }
      run.sum_seconds = omp_get_wtime() - middle;
      std::copy(sums, sums + values, run.values.begin());
    }
    omp_target::check_ran_where_asked(device_, initial != 0, "EP's " + to_string(variant) + " tally");
    return run;
  }

 private:
  DeviceInfo device_;
  int number_;
};

}  // namespace

}  // namespace gpubench::ep

GPUBENCH_REGISTER_EP_OPERATIONS(
    gpubench::omp_target::backend_name, [](const gpubench::DeviceInfo& d) { return std::make_unique<gpubench::ep::OmpTargetOperations>(d); },
    true);
