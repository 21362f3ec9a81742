// NAS Parallel Benchmarks FT (NPB 3.x) as NAS defines it (issue 14): a 3-D complex field from
// NAS's generator (seed 314159265), its forward 3-D FFT, then per iteration the evolve step
// (each Fourier mode times exp(-4 alpha pi^2 |k|^2 t), cumulatively), the inverse FFT and the
// checksum of 1024 elements; the official checksums of every iteration are the verification.
// Layout: u[(k ny + j) nx + i], x fastest. Double precision only.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "common/nas_random.hpp"

namespace gpubench::ft {

using Complex = std::complex<double>;

struct FtClass {
  char name;
  int nx, ny, nz, niter;
  std::array<Complex, 25> checksums;  // NAS's, iteration 1..niter at [0..niter-1]
  std::int64_t total() const { return static_cast<std::int64_t>(nx) * ny * nz; }
};

// "S", "W", "A", "B", "C", "D" or "npb:X"; InputError naming the valid ones otherwise.
const FtClass& ft_class(const std::string& spec);

constexpr double alpha = 1.0e-6;              // NAS's diffusion constant
constexpr std::uint64_t seed = 314159265;     // NAS's initial seed
using nas::multiplier;                        // 5^13
constexpr double tolerance = 1.0e-12;         // NAS's relative error per checksum

// NAS's generator (common/nas_random.hpp): a^n mod 2^46.
using nas::lcg_power;

// The initial field: plane k starts 2 nx ny numbers into the stream per plane; each element takes
// two consecutive numbers (real, imaginary), x fastest, as NAS's compute_initial_conditions.
void initial_conditions(const FtClass& c, Complex* u);
// exp(-4 alpha pi^2 (i'^2 + j'^2 + k'^2)) with i' the signed frequency of i (NAS's indexmap).
void evolve_factors(const FtClass& c, double* twiddle);
// NAS's checksum: the sum of u at (j mod nx, 3j mod ny, 5j mod nz), j = 1..1024, over nx ny nz.
Complex checksum(const FtClass& c, const Complex* u);

// NAS's signed frequency of index i of n: mod(i + n/2, n) - n/2.
int frequency(int i, int n);

struct Verdict {
  bool passed = false;
  std::string detail;
  double worst = 0;  // the largest relative error of a checksum
};
// Every iteration's checksum against NAS's within 1e-12 relative.
Verdict verify(const FtClass& c, const std::vector<Complex>& sums);

// NAS's operation count of a whole run (its Mop/s numerator, in operations):
// ntotal (14.8157 + 7.19641 ln ntotal + (5.23518 + 7.21113 ln ntotal) niter).
double nas_operations(const FtClass& c);

// The bytes a whole run must move at least: every 1-D FFT pass reads and writes the field once
// (3 passes per 3-D FFT, 1 + niter FFTs), except the forward's first, which only writes it (the
// initial conditions are generated where they are used); the evolve factor applied on the way
// into the inverse's first pass (its per-axis tables are a few KiB); the checksum's 1024 points.
double min_bytes(const FtClass& c);

}  // namespace gpubench::ft
