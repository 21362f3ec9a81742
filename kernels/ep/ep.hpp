// The NAS Parallel Benchmarks' EP ("embarrassingly parallel") kernel: 2^M pairs of uniform
// deviates from NAS's linear congruential generator, turned into Gaussian pairs by the Marsaglia
// polar method; the result is the count of pairs in each square annulus, q[0..9], and the sums
// sx and sy of the Gaussian deviates, checked against NAS's verification values.
//
// The generator x_{j+1} = a x_j mod 2^46 (a = 5^13, x_0 = 271828183) is computed exactly in
// 64-bit unsigned integers: the low 46 bits of a product are exact even where the product
// wraps 2^64, so this is bit for bit NAS's randlc/vranlc (which split doubles into 23-bit
// halves), and a^n mod 2^46 by repeated squaring skips ahead to any point of the stream. Pair p
// (from 0) takes the uniforms x_{2p+1} 2^-46 and x_{2p+2} 2^-46, as NAS's batches do.
//
// Work is dealt out in batches of 2^10 pairs (NAS's batches hold 2^16: too few of them for a
// GPU at classes S-C). Each work-item takes a run of whole batches, skips ahead to the first,
// and keeps sx and sy in registers and its q counts in its own column of local memory. The
// result does not depend on the split beyond the order of the floating-point sums (relative
// differences around 1e-14, far inside NAS's 1e-8). host_tally below is NAS's formula with the
// host's libm; the GPUs' loop (kernels/ep/pair_math.h) computes the same f to within 2 ulp
// without the math library, and the tests check that both give the same q.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/host_device.hpp"
#include "common/nas_random.hpp"

namespace gpubench::ep {

constexpr std::uint64_t seed = 271828183;
constexpr std::uint64_t multiplier = nas::multiplier;  // 5^13
constexpr std::uint64_t modulus_mask = nas::mask46;
constexpr double two_to_minus_46 = 1.0 / 70368744177664.0;
constexpr int annuli = 10;           // q[0..9]
constexpr int batch_log2 = 10;       // pairs per batch: 1024
constexpr int result_values = 2 + annuli;  // sx, sy, q[0..9]: what every implementation returns

struct EpClass {
  char name;
  int m;  // 2^m pairs
  double sx_verify, sy_verify;
};

// NAS's classes S, W, A, B, C, D, E; throws InputError naming the valid ones.
const EpClass& ep_class(const std::string& name);
const std::vector<EpClass>& ep_classes();

constexpr double verify_tolerance = 1e-8;  // NAS's epsilon, relative, on sx and sy

// a^n mod 2^46 (common/nas_random.hpp).
using nas::lcg_power;

// The generator's state just before pair `pair`: x_{2 pair}.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t state_before_pair(std::uint64_t pair) {
  return (seed * lcg_power(multiplier, 2 * pair)) & modulus_mask;
}

// sx, sy and the annulus counts; counts in double (exact to 2^53).
struct Tally {
  double sx = 0, sy = 0;
  std::array<double, annuli> q{};
  double pairs_accepted() const;
  // The flat form the devices return: sx, sy, q[0..9].
  static Tally from_values(const double* values);
};

// Pairs [first, first + count) on the host, one thread: the serial reference.
Tally host_tally(std::uint64_t first, std::uint64_t count);

struct Verdict {
  bool passed = false;
  std::string detail;  // "sx -3247.834652034740 (rel err 1.2e-15), sy ..."
};
Verdict verify(const EpClass& c, const Tally& t);

// Declared work, per pair, for the roofline. Always 9 floating-point operations: the two
// scalings of the integer state to [0, 1), 2u - 1 twice (2 each), x1^2 + x2^2 (3). When the pair
// is accepted (probability pi/4), 8 more: log t, times -2, divided by t, the square root, the
// two products x1 f and x2 f, and the two sums (log, division and square root counted as one
// each; the max and the count as none). NAS counts the random numbers instead, 2 per pair: its
// Mop/s is reported beside. A pair costs about 115 instructions on an H100 (ncu, class C: the
// log's series alone is 9 fused multiply-adds) and the integer generator is not counted at all,
// so EP's % of the FLOP ceiling understates how busy the device is; the count is the
// conventional one, fixed so that results compare across devices and implementations.
constexpr double flops_always = 9;
constexpr double flops_accepted = 8;
constexpr double acceptance = 0.78539816339744830962;  // pi / 4
constexpr double flops_per_pair = flops_always + acceptance * flops_accepted;

// Minimum bytes: the result, sx, sy, q (12 doubles), read back once.
constexpr double result_bytes = result_values * 8.0;

}  // namespace gpubench::ep
