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

}  // namespace gpubench::ceilings
