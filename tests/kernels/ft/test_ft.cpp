// NAS FT's pieces on the host: classes, the generator, the evolve factors and the checksum rule.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/errors.hpp"
#include "kernels/ft/ft.hpp"

namespace gpubench::ft {
namespace {

TEST(FtClasses, NasSizesAndUnknownNames) {
  EXPECT_EQ(ft_class("S").nx, 64);
  EXPECT_EQ(ft_class("npb:W").nz, 32);
  EXPECT_EQ(ft_class("B").niter, 20);
  EXPECT_EQ(ft_class("D").total(), std::int64_t{2048} * 1024 * 1024);
  for (const char* bad : {"E", "s", "", "npb:", "AA", "npb:Q"}) EXPECT_THROW(ft_class(bad), InputError) << bad;
}

// The generator's skip-ahead lands where stepping does, and its first number is NAS's
// randlc(314159265, 5^13).
TEST(FtGenerator, SkipAheadMatchesStepping) {
  constexpr std::uint64_t mask = (std::uint64_t{1} << 46) - 1;
  std::uint64_t x = seed;
  for (int i = 0; i < 1000; ++i) x = (x * multiplier) & mask;
  EXPECT_EQ(x, (seed * lcg_power(multiplier, 1000)) & mask);
  EXPECT_EQ(lcg_power(multiplier, 0), 1u);
}

TEST(FtInitialConditions, PlanesContinueTheStream) {
  const FtClass& c = ft_class("S");
  std::vector<Complex> u(static_cast<std::size_t>(c.total()));
  initial_conditions(c, u.data());
  constexpr std::uint64_t mask = (std::uint64_t{1} << 46) - 1;
  // Element 0 of plane 1 is numbers 2 nx ny + 1 and + 2 of the stream.
  const std::uint64_t before = (seed * lcg_power(multiplier, 2 * 64 * 64)) & mask;
  const std::uint64_t re = (before * multiplier) & mask, im = (re * multiplier) & mask;
  EXPECT_EQ(u[64 * 64], Complex(std::ldexp(static_cast<double>(re), -46), std::ldexp(static_cast<double>(im), -46)));
  for (const Complex& z : u) {
    ASSERT_GT(z.real(), 0);
    ASSERT_LT(z.real(), 1);
  }
}

TEST(FtEvolve, FactorsAreSymmetricInTheSignedFrequencies) {
  const FtClass& c = ft_class("S");
  std::vector<double> t(static_cast<std::size_t>(c.total()));
  evolve_factors(c, t.data());
  EXPECT_EQ(t[0], 1.0);
  EXPECT_DOUBLE_EQ(t[1], t[63]);  // frequencies 1 and -1 along x
  EXPECT_DOUBLE_EQ(t[1], std::exp(-4.0 * alpha * M_PI * M_PI));
  EXPECT_LT(t[32], t[31]);  // -32 is the highest frequency
}

TEST(FtVerify, NasChecksumsPassAndAnyOffByMoreThanTheToleranceFails) {
  const FtClass& c = ft_class("W");
  std::vector<Complex> sums(c.checksums.begin(), c.checksums.begin() + c.niter);
  EXPECT_TRUE(verify(c, sums).passed);
  sums[3] *= 1 + 1e-11;
  const Verdict v = verify(c, sums);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.detail.find("iteration 4"), std::string::npos) << v.detail;
  EXPECT_FALSE(verify(c, std::vector<Complex>(3)).passed);
}

TEST(FtWork, NasOperationCount) {
  const FtClass& c = ft_class("A");
  const double n = 256.0 * 256 * 128;
  EXPECT_DOUBLE_EQ(nas_operations(c), n * (14.8157 + 7.19641 * std::log(n) + (5.23518 + 7.21113 * std::log(n)) * 6));
}

}  // namespace
}  // namespace gpubench::ft
