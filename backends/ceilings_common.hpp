// What the ceiling probes of every API share (backends/<api>/ceilings.*), so that they measure the
// same thing: the size of the bandwidth arrays, the values the kernels start from and must end
// with, the FMA-chain recurrence and its host reference, the iteration-count calibration, and the
// log line and error text. Plain C++: included by .cpp files and .cu files (nvcc) alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/ceilings.hpp"
#include "backends/device.hpp"
#include "common/host_memory.hpp"
#include "backends/host_device.hpp"
#include "common/errors.hpp"

namespace gpubench::ceilings {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

// Each of the three bandwidth arrays: at least 4 x the last-level cache and 256 MiB on a GPU
// (64 MiB elsewhere), so that every pass streams from memory; at most what leaves the three
// arrays within a quarter of the device's memory, and of `free_bytes` (what it has free now;
// 0: not known), and each within its largest allocation. A whole number of MiB. Throws
// DeviceError when not even 1 MiB fits.
inline std::uint64_t stream_array_bytes(const DeviceInfo& device, std::uint64_t free_bytes) {
  const std::uint64_t floor = device.type == "gpu" ? 256 * mib : 64 * mib;
  const std::uint64_t wanted = (std::max(4 * device.cache_bytes, floor) + mib - 1) / mib * mib;
  std::uint64_t cap = device.global_mem_bytes / 4 / 3;
  if (free_bytes > 0) cap = std::min(cap, free_bytes / 4 / 3);
  if (device.max_alloc_bytes > 0) cap = std::min(cap, device.max_alloc_bytes);
  const std::uint64_t bytes = std::min(wanted, cap / mib * mib);
  if (bytes < mib)
    throw DeviceError("device " + device.label() + " has too little memory for the bandwidth probe (" +
                      std::to_string(device.global_mem_bytes) + " bytes global, " +
                      std::to_string(device.max_alloc_bytes) + " per allocation; 3 x 1 MiB needed)");
  return bytes;
}

// A CPU device's arrays live in the host's memory: capped by what the host has available, or less
// where an address-space limit (ulimit -v) leaves less (a 2-core machine with a large last-level
// cache would otherwise hold gigabytes).
inline std::uint64_t stream_array_bytes(const DeviceInfo& device) {
  return stream_array_bytes(device, device.type == "cpu" ? available_host_memory().available : 0);
}

// The arrays' contents, exact in float and double: a[i] and c[i] as the init kernels write them,
// b[i] before copy writes it. copy makes b[i] = a[i]; triad then a[i] = b[i] + triad_scalar c[i].
constexpr double triad_scalar = 3.0;
constexpr double stream_b_initial = -1.0;
GPUBENCH_HOST_DEVICE inline double stream_a_initial(std::uint64_t i) {
  return 1.0 + static_cast<double>(i & 1023) * 0.5;
}
GPUBENCH_HOST_DEVICE inline double stream_c_initial(std::uint64_t i) { return static_cast<double>(i & 7) * 0.25; }
inline double stream_b_after_copy(std::uint64_t i) { return stream_a_initial(i); }
inline double stream_a_after_triad(std::uint64_t i) {
  return stream_b_after_copy(i) + triad_scalar * stream_c_initial(i);
}

// Timed repetitions of a bandwidth kernel whose warm-up pass took `warmup_seconds`: 10, fewer
// (at least 3) where each pass is long (large arrays on a CPU), to keep the probe to seconds.
inline int stream_repetitions(double warmup_seconds) {
  if (warmup_seconds <= 0) return 10;
  return static_cast<int>(std::clamp(0.6 / warmup_seconds, 3.0, 10.0));
}

// Warm-up, then the best of the timed passes, in GB/s. `timed_pass` runs one pass of a bandwidth
// kernel and returns its seconds, by each API's own clock.
template <typename TimedPass>
double best_bandwidth(TimedPass&& timed_pass, double bytes_moved) {
  const int repetitions = stream_repetitions(timed_pass());
  double best = 0;
  for (int r = 0; r < repetitions; ++r) {
    const double seconds = timed_pass();
    if (seconds > 0) best = std::max(best, bytes_moved / seconds * 1e-9);
  }
  return best;
}

// The FMA chains: each work-item (each lane on the CPU) runs `fma_chains` independent chains
// x = fma(x, a, b) for K iterations and writes their sum. a = 1 - 2^-12 and b = (1 - a) p pull x
// towards p = 1 + (item mod 256) / 256 without ever leaving [1, 3]: finite, never denormal, and
// each item's result its own. All of these are exact in float and double.
constexpr int fma_chains = 8;
constexpr double fma_a = 1.0 - 1.0 / 4096.0;
constexpr double fma_one_minus_a = 1.0 / 4096.0;
GPUBENCH_HOST_DEVICE inline double fma_target(std::uint64_t item) {
  return 1.0 + static_cast<double>(item & 255) / 256.0;
}
GPUBENCH_HOST_DEVICE inline double fma_start(std::uint64_t item, int chain) {
  return fma_target(item) + (chain + 1) * 0.125;
}

// The result of item `item` after `iterations`, computed on the host in T as the kernels do:
// one fused multiply-add per step (`fused`), or a multiply then an add (OpenMP's portable path).
// Summed in the kernels' order: ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)).
template <typename T>
T fma_expected(std::uint64_t item, std::uint32_t iterations, bool fused = true) {
  static_assert(fma_chains == 8, "the summation order below is written for 8 chains");
  const T a = static_cast<T>(fma_a);
  const T b = static_cast<T>(fma_one_minus_a) * static_cast<T>(fma_target(item));
  T x[fma_chains];
  for (int c = 0; c < fma_chains; ++c) x[c] = static_cast<T>(fma_start(item, c));
  for (std::uint32_t k = 0; k < iterations; ++k)
    for (int c = 0; c < fma_chains; ++c) {
      if (fused) {
        x[c] = std::fma(x[c], a, b);
      } else {
        const T product = x[c] * a;  // separate statements: no contraction into an FMA
        x[c] = product + b;
      }
    }
  return ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
}

// The iteration count K: doubled (or more, from the time measured) from 256 until a launch
// takes `target_seconds`, at most 2^22. `run(K)` launches once and returns its seconds; each K
// is judged by the faster of two launches, so that one slow start does not end the search early.
template <typename Run>
std::uint32_t calibrate_iterations(Run&& run, double target_seconds = 0.008) {
  std::uint32_t iterations = 256;
  constexpr std::uint32_t most = std::uint32_t{1} << 22;
  for (;;) {
    const double first = run(iterations);
    const double seconds = std::min(first, run(iterations));
    if (seconds >= target_seconds || iterations >= most) return iterations;
    double factor = seconds > 0 ? 1.25 * target_seconds / seconds : 64.0;
    factor = std::clamp(factor, 2.0, 64.0);
    iterations = static_cast<std::uint32_t>(std::min<double>(most, std::ceil(iterations * factor)));
  }
}

// FLOPs of one FMA-chain launch: an FMA counts 2.
inline double fma_flops(std::uint64_t items, std::uint32_t iterations) {
  return 2.0 * fma_chains * static_cast<double>(iterations) * static_cast<double>(items);
}

// Throws DeviceError unless |got - expected| <= tolerance |expected| (0: exact).
inline void check_result(const DeviceInfo& device, const std::string& kernel, const std::string& where,
                         double got, double expected, double tolerance) {
  if (std::abs(got - expected) <= tolerance * std::abs(expected)) return;  // false for NaN
  std::ostringstream message;
  message.precision(17);
  message << "ceiling probe kernel '" << kernel << "' gave a wrong result on " << device.label() << ": " << where
          << " = " << got << ", expected " << expected;
  if (tolerance > 0) message << " (relative tolerance " << tolerance << ")";
  throw DeviceError(message.str());
}

// "gpubench: ceilings opencl:0: triad 3012.4 GB/s (3 x 512 MiB arrays)"
inline void log_line(std::ostream& log, const DeviceInfo& device, const std::string& what, double value,
                     const std::string& unit, const std::string& detail) {
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  line << "gpubench: ceilings " << device.backend << ':' << device.index << ": " << what << ' ' << value << ' '
       << unit << " (" << detail << ")\n";
  log << line.str();
}

// ---- The caches: working-set sweeps, as the Empirical Roofline Toolkit measures them ----
//
// One kernel, cache_read, on every API: `slices` work-groups of cache_group_size work-items; in
// pass p group g reads (as float4) slice (g + p x rotate) mod slices of `slice` float4 and adds
// what it reads. Every element is 1, so each work-item's sum is exact and known.
// - The L1 sweep (rotate 0): each group re-reads its own slice. cache_groups_per_cu groups share
//   a CU, so one CU's working set is that many slices: small ones stay in its L1/shared memory.
// - The L2 sweep (rotate = CUs + 1): each group reads another slice every pass, one that no group
//   of its CU read lately, so the L1 holds nothing it reads again; the whole working set is
//   slices x slice, served by the L2 while it fits there, by DRAM beyond.
// Each level's bandwidth is the best point of the sweep's fastest plateau (a run of neighbouring
// working sets within 15% of each other), the L2's among those that fit in the L2.
constexpr unsigned cache_group_size = 256;
constexpr int cache_groups_per_cu = 8;
constexpr std::uint64_t kib = 1024;

struct CacheLaunch {
  std::uint32_t slice = 0;   // float4 per slice
  std::uint32_t slices = 0;  // = work-groups
  std::uint32_t rotate = 0;
  std::uint32_t passes = 0;
  double bytes() const { return 16.0 * slice * slices * static_cast<double>(passes); }
  // Work-item `item`'s sum: 4 per float4 it read.
  double expected(std::uint64_t item) const {
    const std::uint64_t local = item % cache_group_size;
    const std::uint64_t each = local < slice ? (slice - local + cache_group_size - 1) / cache_group_size : 0;
    return 4.0 * static_cast<double>(each) * passes;
  }
};

inline std::uint32_t cache_groups(const DeviceInfo& d) {
  return static_cast<std::uint32_t>(std::max(d.compute_units, 1) * cache_groups_per_cu);
}

// The L2 sweep's working sets: from 4 MiB (at least 4 KiB a group) doubling to 8 x the last-level
// cache (at least 64 MiB), within a quarter of the device's memory and its largest allocation.
inline std::vector<std::uint64_t> l2_working_sets(const DeviceInfo& d) {
  std::uint64_t top = std::max<std::uint64_t>(8 * d.cache_bytes, 64 * mib);
  top = std::min<std::uint64_t>(top, d.global_mem_bytes / 4);
  if (d.max_alloc_bytes > 0) top = std::min<std::uint64_t>(top, d.max_alloc_bytes);
  std::vector<std::uint64_t> sets;
  for (std::uint64_t s = std::max<std::uint64_t>(4 * mib, cache_groups(d) * 4 * kib); s <= top; s *= 2) sets.push_back(s);
  return sets;
}

// The plateaus of a sweep (ascending working sets): [first, last] index ranges of neighbouring
// points each within `tolerance` of the range's best.
inline std::vector<std::pair<std::size_t, std::size_t>> plateaus(const std::vector<std::pair<double, double>>& sweep,
                                                                double tolerance = 0.15) {
  std::vector<std::pair<std::size_t, std::size_t>> found;
  std::size_t first = 0;
  double low = 0, high = 0;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const double g = sweep[i].second;
    if (i > first && (std::max(high, g) * (1 - tolerance) > std::min(low, g))) {
      found.emplace_back(first, i - 1);
      first = i;
    }
    if (i == first) low = high = g;
    low = std::min(low, g);
    high = std::max(high, g);
  }
  if (!sweep.empty()) found.emplace_back(first, sweep.size() - 1);
  return found;
}

// A level's bandwidth: the best point of the fastest plateau that begins at a working set of at
// most `within_bytes` (0: anywhere); plateaus of one point count only where no longer one does.
inline double level_gbps(const std::vector<std::pair<double, double>>& sweep, double within_bytes = 0) {
  double best[2] = {0, 0};  // [single point, longer]
  for (const auto& [first, last] : plateaus(sweep)) {
    if (within_bytes > 0 && sweep[first].first > within_bytes) continue;
    double top = 0;
    for (std::size_t i = first; i <= last; ++i) top = std::max(top, sweep[i].second);
    double& slot = best[last > first ? 1 : 0];
    slot = std::max(slot, top);
  }
  return best[1] > 0 ? best[1] : best[0];
}

// The sweeps. `launch(l)` runs cache_read once and returns its seconds; `check(l)` reads back the
// last launch's sums and throws DeviceError (check_result) when one is wrong. The buffer holds
// at least the last of l2_working_sets(d).
template <typename Launch, typename Check>
void measure_cache_levels(Ceilings& c, const DeviceInfo& d, Launch&& launch, Check&& check, std::ostream& log) {
  const std::uint32_t groups = cache_groups(d);
  const auto gbps = [&](std::uint64_t slice_bytes, std::uint32_t rotate) {
    CacheLaunch l;
    l.slice = static_cast<std::uint32_t>(slice_bytes / 16);
    l.slices = groups;
    l.rotate = rotate;
    const double working_set = 16.0 * l.slice * groups;
    l.passes = static_cast<std::uint32_t>(std::clamp(8e9 / working_set, 2.0, 65536.0));
    double best = 0;
    launch(l);  // warm-up
    for (int r = 0; r < 3; ++r) {
      const double seconds = launch(l);
      if (seconds > 0) best = std::max(best, l.bytes() / seconds * 1e-9);
    }
    check(l);
    return best;
  };
  c.l1_sweep.clear();
  c.l2_sweep.clear();
  for (std::uint64_t slice = 2 * kib; slice <= 128 * kib; slice *= 2)
    c.l1_sweep.emplace_back(static_cast<double>(slice * cache_groups_per_cu), gbps(slice, 0));
  const auto rotate = static_cast<std::uint32_t>(std::max(d.compute_units, 1) + 1);
  for (std::uint64_t set : l2_working_sets(d)) c.l2_sweep.emplace_back(static_cast<double>(set), gbps(set / groups / 16 * 16, rotate));
  c.l1_gbps = level_gbps(c.l1_sweep);
  c.l2_gbps = level_gbps(c.l2_sweep, static_cast<double>(d.cache_bytes));
  std::ostringstream l1, l2;
  l1 << c.l1_sweep.size() << " working sets of " << c.l1_sweep.front().first / kib << " to "
     << c.l1_sweep.back().first / kib << " KiB per CU";
  l2 << c.l2_sweep.size() << " working sets of " << (c.l2_sweep.empty() ? 0 : c.l2_sweep.front().first / mib) << " to "
     << (c.l2_sweep.empty() ? 0 : c.l2_sweep.back().first / mib) << " MiB, a " << d.cache_bytes / mib << " MiB cache";
  log_line(log, d, "L1/shared", c.l1_gbps, "GB/s", l1.str());
  log_line(log, d, "L2", c.l2_gbps, "GB/s", l2.str());
}

}  // namespace gpubench::ceilings
