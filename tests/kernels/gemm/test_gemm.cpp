// The GEMM suite's problem, work model and verification (issue 13): the rules every GEMM point
// will be checked by, tested before any kernel exists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemv.hpp"

namespace gpubench::gemm {
namespace {

using ::testing::HasSubstr;

std::string input_error_of(const std::string& spec) {
  try {
    parse_shape(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GemmShape, SquareRectangularAndTransposed) {
  const Shape square = parse_shape("4096");
  EXPECT_EQ(square.m, 4096);
  EXPECT_EQ(square.n, 4096);
  EXPECT_EQ(square.k, 4096);
  EXPECT_FALSE(square.transpose_a);
  EXPECT_EQ(square.name, "4096");
  const Shape odd = parse_shape("1000x2000x333:tn");
  EXPECT_EQ(odd.m, 1000);
  EXPECT_EQ(odd.n, 2000);
  EXPECT_EQ(odd.k, 333);
  EXPECT_TRUE(odd.transpose_a);
  EXPECT_EQ(odd.name, "1000x2000x333:TN");
  EXPECT_EQ(odd.a_index(2, 5), 5 * 1000 + 2);  // A stored k x m
  EXPECT_EQ(parse_shape("7:NN").a_index(2, 5), 2 * 7 + 5);
}

TEST(GemmShape, BadSpecsSayWhatIsWrong) {
  EXPECT_THAT(input_error_of("0"), HasSubstr("at least 1"));
  EXPECT_THAT(input_error_of("12xx4"), HasSubstr("'' is not a size"));
  EXPECT_THAT(input_error_of("axbxc"), HasSubstr("'a' is not a size"));
  EXPECT_THAT(input_error_of("4x4"), HasSubstr("not N or MxNxK"));
  EXPECT_THAT(input_error_of("64:XN"), HasSubstr("is not NN or TN"));
  EXPECT_THAT(input_error_of("50000"), HasSubstr("A would have 2500000000 elements"));
  EXPECT_THAT(input_error_of("99999999999"), HasSubstr("beyond 2^31 - 1"));
}

TEST(GemmWork, TwoMnkFlopsAndEachMatrixOnce) {
  const Shape s = parse_shape("100x200x300");
  EXPECT_DOUBLE_EQ(flops(s), 2.0 * 100 * 200 * 300);
  EXPECT_DOUBLE_EQ(min_bytes(s, Precision::f64), 8.0 * (100 * 300 + 300 * 200 + 2 * 100 * 200));
  EXPECT_DOUBLE_EQ(min_bytes(s, Precision::f32), 4.0 * (100 * 300 + 300 * 200 + 2 * 100 * 200));
}

// The tensor kernel's aligned copies: only an operand whose rows are not 16-byte aligned (an odd
// leading dimension or offset) is copied, its rows and columns as stored (A transposed: K x M),
// into rows a multiple of 16 elements apart.
TEST(GemmPadding, OnlyAnOperandOfOddRowsIsCopiedAsStored) {
  const auto even = plan_padding(whole(parse_shape("8192")));
  EXPECT_FALSE(even[0].copy);
  EXPECT_FALSE(even[1].copy);
  EXPECT_EQ(even[0].elements() + even[1].elements(), 0);
  const auto odd = plan_padding(whole(parse_shape("8191")));
  EXPECT_TRUE(odd[0].copy && odd[1].copy);
  EXPECT_EQ(odd[0].pitch, 8192);
  EXPECT_EQ(odd[0].elements(), std::int64_t{8191} * 8192);
  const auto tn = plan_padding(whole(parse_shape("100x300x7:TN")));  // A: 7 x 100, B: 7 x 300
  EXPECT_FALSE(tn[0].copy);
  EXPECT_FALSE(tn[1].copy);
  const auto thin = plan_padding(whole(parse_shape("7999x8001x256")));  // A's rows 256, B's 8001
  EXPECT_FALSE(thin[0].copy);
  ASSERT_TRUE(thin[1].copy);
  EXPECT_EQ(thin[1].rows, 256);
  EXPECT_EQ(thin[1].cols, 8001);
  EXPECT_EQ(thin[1].pitch, 8016);
  EXPECT_EQ(thin[1].groups_x(), 32);
  Block offset = whole(parse_shape("64"));
  offset.aoff = 1;  // a block of a larger matrix that starts at an odd column
  EXPECT_TRUE(plan_padding(offset)[0].copy);
}

TEST(GemmInputs, FixedSeedAndExactIntegers) {
  EXPECT_EQ(make_input(1000, 7, false), make_input(1000, 7, false));
  EXPECT_NE(make_input(1000, 7, false), make_input(1000, 8, false));
  for (double v : make_input(1000, 7, false)) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
  }
  for (double v : make_input(1000, 7, true)) {
    EXPECT_EQ(v, std::round(v));
    EXPECT_LE(std::abs(v), 2.0);
  }
}

// A plain triple loop in T, A used through the shape's layout: the "device" of these tests.
template <typename T>
std::vector<double> triple_loop(const Shape& s, double alpha, const std::vector<double>& a,
                                const std::vector<double>& b, double beta, std::vector<double> c) {
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      T sum = 0;
      for (std::int64_t l = 0; l < s.k; ++l)
        sum += static_cast<T>(a[static_cast<std::size_t>(s.a_index(i, l))]) * static_cast<T>(b[static_cast<std::size_t>(l * s.n + j)]);
      auto& cij = c[static_cast<std::size_t>(i * s.n + j)];
      cij = static_cast<double>(static_cast<T>(alpha) * sum + static_cast<T>(beta) * static_cast<T>(cij));
    }
  return c;
}

// Inputs as a device of precision T holds them.
std::vector<double> rounded_to(std::vector<double> v, Precision p) {
  if (p == Precision::f32)
    for (auto& x : v) x = static_cast<float>(x);
  return v;
}

TEST(GemmReference, ExactOnSmallIntegersInBothLayouts) {
  for (const char* spec : {"17x13x29", "17x13x29:TN"}) {
    const Shape s = parse_shape(spec);
    const auto a = make_input(s.a_elements(), 1, true), b = make_input(s.b_elements(), 2, true);
    const auto c0 = make_input(s.c_elements(), 3, true);
    std::vector<double> ref = c0;
    reference_gemm(s, 2.0, a, b, -1.0, ref);
    EXPECT_EQ(ref, triple_loop<double>(s, 2.0, a, b, -1.0, c0)) << spec;  // integers: exact
    EXPECT_TRUE(check_against_reference(s, Precision::f32, 2.0, a, b, -1.0, c0, triple_loop<float>(s, 2.0, a, b, -1.0, c0)).passed);
  }
}

// A right result in either precision passes both checks; a result one element off, two
// columns swapped, or a NaN fails both, the message naming where.
class GemmVerification : public testing::TestWithParam<std::tuple<Precision, const char*>> {};

TEST_P(GemmVerification, RightPassesAndWrongFails) {
  const auto [p, spec] = GetParam();
  const Shape s = parse_shape(spec);
  const auto a = rounded_to(make_input(s.a_elements(), 11, false), p);
  const auto b = rounded_to(make_input(s.b_elements(), 12, false), p);
  const auto c0 = rounded_to(make_input(s.c_elements(), 13, false), p);
  const double alpha = 1.5, beta = -0.5;
  const std::vector<double> right = p == Precision::f32 ? triple_loop<float>(s, alpha, a, b, beta, c0)
                                                        : triple_loop<double>(s, alpha, a, b, beta, c0);
  const Verdict r = check_against_reference(s, p, alpha, a, b, beta, c0, right);
  EXPECT_TRUE(r.passed) << r.detail;
  const Verdict f = freivalds(s, p, alpha, a, b, beta, c0, right);
  EXPECT_TRUE(f.passed) << f.detail;

  const Verdict e = check_sampled_elements(s, p, alpha, a, b, beta, c0, right);
  EXPECT_TRUE(e.passed) << e.detail;

  // One element off by a relative 1e-3 (f32 rounding is 6e-8 per operation): the reference
  // check sees it. Freivalds' row bound sums the whole row's rounding budget, which can hide it
  // in f32; an element a hundred times off cannot hide.
  std::vector<double> off = right;
  off[static_cast<std::size_t>(5 * s.n + 3)] *= 1.001;
  EXPECT_THAT(check_against_reference(s, p, alpha, a, b, beta, c0, off).detail, HasSubstr("C(5, 3)"));
  std::vector<double> far_off = right;
  far_off[static_cast<std::size_t>(5 * s.n + 3)] += 100;
  const Verdict fo = freivalds(s, p, alpha, a, b, beta, c0, far_off);
  EXPECT_FALSE(fo.passed);
  EXPECT_THAT(fo.detail, HasSubstr("row 5"));
  // A wrong element in the last column, where a tile edge goes wrong: the sampled check sees the
  // small error too.
  std::vector<double> edge = right;
  edge[static_cast<std::size_t>(7 * s.n + s.n - 1)] *= 1.001;
  const Verdict ee = check_sampled_elements(s, p, alpha, a, b, beta, c0, edge);
  EXPECT_FALSE(ee.passed);
  EXPECT_THAT(ee.detail, HasSubstr("C(7, " + std::to_string(s.n - 1) + ")"));
  EXPECT_FALSE(verify(s, p, alpha, a, b, beta, c0, edge, 0).passed);  // Freivalds + elements
  EXPECT_TRUE(verify(s, p, alpha, a, b, beta, c0, right, 0).passed);

  std::vector<double> swapped = right;
  for (std::int64_t i = 0; i < s.m; ++i)
    std::swap(swapped[static_cast<std::size_t>(i * s.n)], swapped[static_cast<std::size_t>(i * s.n + 1)]);
  EXPECT_FALSE(check_against_reference(s, p, alpha, a, b, beta, c0, swapped).passed);
  EXPECT_FALSE(freivalds(s, p, alpha, a, b, beta, c0, swapped).passed);
  EXPECT_FALSE(verify(s, p, alpha, a, b, beta, c0, swapped, 0).passed);

  std::vector<double> nan = right;
  nan.back() = std::nan("");
  EXPECT_FALSE(check_against_reference(s, p, alpha, a, b, beta, c0, nan).passed);
  EXPECT_FALSE(freivalds(s, p, alpha, a, b, beta, c0, nan).passed);
}

INSTANTIATE_TEST_SUITE_P(BothPrecisionsAndLayouts, GemmVerification,
                         testing::Combine(testing::Values(Precision::f32, Precision::f64),
                                          testing::Values("61x47x129", "61x47x129:TN", "64")));

}  // namespace
}  // namespace gpubench::gemm
