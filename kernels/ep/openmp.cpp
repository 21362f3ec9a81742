// EP on the host's threads. Each thread takes one run of whole batches (one skip-ahead) and
// keeps sx, sy and q in registers; reduce adds them in an OpenMP reduction, partials writes
// each thread's 12 values to a column-major array that a second loop adds. The work-items are
// the threads (OMP_NUM_THREADS): there are no launch parameters. serial is NAS's serial code:
// the whole stream on one thread.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "common/errors.hpp"
#include "kernels/ep/operations.hpp"

namespace gpubench::ep {

namespace {

class OpenmpOperations final : public Operations {
 public:
  explicit OpenmpOperations(const DeviceInfo& device) : device_(device) {}

  const DeviceInfo& device() const override { return device_; }
  int largest_group() const override { return 1; }

  TallyRun tally(std::uint64_t pairs, Variant variant, const Params&) override {
    if (variant == Variant::serial) {
      whole_batches(pairs);
      const double start = omp_get_wtime();
      const Tally t = host_tally(0, pairs);
      TallyRun run;
      run.tally_seconds = omp_get_wtime() - start;
      run.items = 1;
      run.values[0] = t.sx;
      run.values[1] = t.sy;
      std::copy(t.q.begin(), t.q.end(), run.values.begin() + 2);
      return run;
    }
    const int threads = std::max(omp_get_max_threads(), 1);
    // One run of batches per thread; host_tally counts in double, so no per-item limit.
    const Deal d{whole_batches(pairs), static_cast<std::uint64_t>(threads)};
    const auto items = static_cast<std::size_t>(d.items);
    std::vector<double> partials(variant == Variant::partials ? items * result_values : 0);

    TallyRun run;
    run.items = d.items;
    double sx = 0, sy = 0;
    double q[annuli] = {};
    const double start = omp_get_wtime();
    // Over items, not thread numbers: right even where the runtime gives fewer threads.
#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(+ : sx, sy, q[:annuli])
    for (std::size_t i = 0; i < items; ++i) {
      const std::uint64_t first = d.first(i) << batch_log2;
      const std::uint64_t count = (d.first(i + 1) << batch_log2) - first;
      const Tally t = host_tally(first, count);
      if (variant == Variant::reduce) {
        sx += t.sx;
        sy += t.sy;
        for (int l = 0; l < annuli; ++l) q[l] += t.q[static_cast<std::size_t>(l)];
      } else {
        partials[0 * items + i] = t.sx;
        partials[1 * items + i] = t.sy;
        for (std::size_t l = 0; l < annuli; ++l) partials[(2 + l) * items + i] = t.q[l];
      }
    }
    const double middle = omp_get_wtime();
    run.tally_seconds = middle - start;
    if (variant == Variant::reduce) {
      run.values[0] = sx;
      run.values[1] = sy;
      for (std::size_t l = 0; l < annuli; ++l) run.values[2 + l] = q[l];
      return run;
    }
    for (std::size_t v = 0; v < result_values; ++v) {
      double sum = 0;
      for (std::size_t i = 0; i < items; ++i) sum += partials[v * items + i];
      run.values[v] = sum;
    }
    run.sum_seconds = omp_get_wtime() - middle;
    return run;
  }

 private:
  DeviceInfo device_;
};

}  // namespace

}  // namespace gpubench::ep

GPUBENCH_REGISTER_EP_OPERATIONS(
    "openmp", [](const gpubench::DeviceInfo& d) { return std::make_unique<gpubench::ep::OpenmpOperations>(d); }, false,
    true);
