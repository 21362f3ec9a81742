// The NAS Parallel Benchmarks' generator (randlc, vranlc): x_{k+1} = a x_k mod 2^46 with a = 5^13,
// each number x_{k+1} 2^-46. NAS computes it in doubles split into 23-bit halves, which is exact;
// 64-bit unsigned arithmetic is exact too, because 2^46 divides 2^64, so the wrap-around of a x
// does not disturb the low 46 bits. Shared by EP (host and device code), CG and FT.
#pragma once

#include <cstdint>

#include "backends/host_device.hpp"

namespace gpubench::nas {

constexpr std::uint64_t multiplier = 1220703125;  // 5^13
constexpr std::uint64_t mask46 = (std::uint64_t{1} << 46) - 1;
constexpr double two_minus_46 = 1.0 / static_cast<double>(std::uint64_t{1} << 46);

// The next state.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t lcg_next(std::uint64_t x, std::uint64_t a = multiplier) {
  return (x * a) & mask46;
}

// a^n mod 2^46: n steps at once.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t lcg_power(std::uint64_t a, std::uint64_t n) {
  std::uint64_t result = 1;
  a &= mask46;
  while (n > 0) {
    if (n & 1) result = (result * a) & mask46;
    a = (a * a) & mask46;
    n >>= 1;
  }
  return result;
}

// A state as NAS's number in (0, 1).
GPUBENCH_HOST_DEVICE constexpr double to_unit(std::uint64_t x) { return static_cast<double>(x) * two_minus_46; }

}  // namespace gpubench::nas
