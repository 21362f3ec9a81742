// The LU suite's host pieces (kernels/lu/lu.hpp, operations.hpp), with no backend: problem
// parsing, the matrices, the work model, when pivoting is needed, HPL's check on hand-made
// factorisations, the reference getrf against a factorisation worked by hand (LAPACK's ipiv),
// and the blocked LU (written once over the operations) against the reference for many block
// sizes, with and without the look-ahead, its two queues run in either order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "kernels/lu/lu.hpp"
#include "kernels/lu/operations.hpp"
#include "tests/kernels/lu/lu_test_support.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::lu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace test_support;

std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not an InputError: ") + e.what();
  }
  return "no error";
}
std::string parse_error(const std::string& spec) {
  return input_error_of([&] { parse_problem(spec); });
}
std::vector<double> matrix_of(const std::string& spec) {
  Problem p = parse_problem(spec);
  return make_matrix(p);
}

// Column-major n x n from rows written as a C array reads them.
std::vector<double> from_rows(std::int64_t n, const std::vector<double>& rows) {
  std::vector<double> a(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) a[static_cast<std::size_t>(i + j * n)] = rows[static_cast<std::size_t>(i * n + j)];
  return a;
}

TEST(LuProblem, ParsesOrdersFormsAndFiles) {
  const Problem random = parse_problem("1000");
  EXPECT_EQ(random.kind, Kind::random);
  EXPECT_EQ(random.n, 1000);
  EXPECT_EQ(random.name, "1000");
  const Problem dd = parse_problem("0064:dd");
  EXPECT_EQ(dd.kind, Kind::dominant);
  EXPECT_EQ(dd.n, 64);
  EXPECT_EQ(dd.name, "64:dd");  // normalised
  EXPECT_EQ(parse_problem("1").n, 1);
  // The largest order parses; a host without the memory for it refuses it here, naming the need.
  try {
    EXPECT_EQ(parse_problem(std::to_string(max_order)).n, 46340);
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("LU problem 46340 needs 68.72 GB of host memory"));
  }
  const Problem file = parse_problem("mtx:/some/where/a.mtx");
  EXPECT_EQ(file.kind, Kind::file);
  EXPECT_EQ(file.path, "/some/where/a.mtx");
  EXPECT_EQ(file.name, "mtx:/some/where/a.mtx");
  EXPECT_EQ(file.n, 0);  // known once read
}

TEST(LuProblem, BadSpecsSayWhatIsWrong) {
  EXPECT_EQ(parse_error("0"), "LU problem '0': the order must be at least 1");
  EXPECT_EQ(parse_error("0:dd"), "LU problem '0:dd': the order must be at least 1");
  EXPECT_EQ(parse_error("abc"), "LU problem 'abc': 'abc' is not a matrix order (N, N:dd or mtx:PATH)");
  EXPECT_EQ(parse_error("100:xx"),
            "LU problem '100:xx': unknown form ':xx' (N: random; N:dd: diagonally dominant; mtx:PATH)");
  EXPECT_EQ(parse_error("46341"),
            "LU problem '46341': order 46341 is beyond 46340 (n^2 elements must fit the kernels' 32-bit indices)");
  EXPECT_EQ(parse_error("mtx:"), "LU problem 'mtx:': give a Matrix Market file's path after 'mtx:'");
  for (const char* bad : {"", "-5", "+5", "1e3", "12a", " 12", "12 ", "0x10", ":dd", "99999999999999999999", "3.0"})
    EXPECT_THAT(parse_error(bad), HasSubstr("is not a matrix order")) << "'" << bad << "'";
  for (const char* bad : {"100:", "100:DD", "100:dd:dd", "100:d"})
    EXPECT_THAT(parse_error(bad), HasSubstr("unknown form")) << bad;
}

// N and N:dd: the same values from the same seed, off the diagonal; N:dd's diagonal is its row's
// other magnitudes plus one; the values lie in [0, 1) and do not change from call to call.
TEST(LuProblem, RandomAndDominantMatricesShareTheirValues) {
  const std::int64_t n = 37;
  const auto a = matrix_of("37"), d = matrix_of("37:dd");
  ASSERT_EQ(a.size(), static_cast<std::size_t>(n * n));
  ASSERT_EQ(d.size(), a.size());
  EXPECT_EQ(matrix_of("37"), a);
  for (double v : a) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 1);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    double off = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(i + j * n);
      if (i == j) continue;
      EXPECT_EQ(d[k], a[k]);
      off += std::abs(a[k]);
    }
    EXPECT_DOUBLE_EQ(d[static_cast<std::size_t>(i + i * n)], off + 1) << "row " << i;
  }
  EXPECT_EQ(why_pivoting_is_needed(d, n), "");
  EXPECT_NE(why_pivoting_is_needed(a, n), "");
  // A larger order starts with the same stream: column-major, its first column is the smaller's.
  const auto b = matrix_of("40");
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(b[static_cast<std::size_t>(i)], a[static_cast<std::size_t>(i)]);
}

TEST(LuProblem, MatrixMarketFilesAreReadAsDenseMatrices) {
  // Array, general: column by column.
  const std::string general = write_array("general.mtx", 3, [](std::int64_t i, std::int64_t j) { return static_cast<double>(10 * (i + 1) + (j + 1)); });
  Problem p = parse_problem("mtx:" + general);
  auto a = make_matrix(p);
  EXPECT_EQ(p.n, 3);
  EXPECT_EQ(a, from_rows(3, {11, 12, 13, 21, 22, 23, 31, 32, 33}));
  // Array, symmetric: the lower triangle, mirrored.
  const std::string symmetric =
      write_array("symmetric.mtx", 3, [](std::int64_t i, std::int64_t j) { return static_cast<double>(10 * (i + 1) + (j + 1)); }, true);
  p = parse_problem("mtx:" + symmetric);
  EXPECT_EQ(make_matrix(p), from_rows(3, {11, 21, 31, 21, 22, 32, 31, 32, 33}));
  // Coordinate, general: absent elements are zeros.
  const std::string coordinate = write_coordinate("coordinate.mtx", 4, [](std::int64_t i, std::int64_t j) {
    return i == j ? 2.0 : (j == i + 1 ? -1.0 : 0.0);
  });
  p = parse_problem("mtx:" + coordinate);
  EXPECT_EQ(make_matrix(p), from_rows(4, {2, -1, 0, 0, 0, 2, -1, 0, 0, 0, 2, -1, 0, 0, 0, 2}));
  EXPECT_EQ(p.n, 4);
  // A real file: coordinate, symmetric (the lower triangle stored), order 1138.
  p = parse_problem("mtx:" + test::matrix_dir() + "/1138_bus.mtx");
  a = make_matrix(p);
  ASSERT_EQ(p.n, 1138);
  std::int64_t nonzeros = 0;
  for (std::int64_t i = 0; i < p.n; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      const double x = a[static_cast<std::size_t>(i + j * p.n)];
      ASSERT_EQ(x, a[static_cast<std::size_t>(j + i * p.n)]) << i << "," << j;
      nonzeros += x != 0;
    }
  EXPECT_EQ(nonzeros, 2 * 2596 - 1138);  // each stored off-diagonal entry twice, the diagonal once
  // The CG tests' 2 x 2 identity in array form.
  p = parse_problem("mtx:" + test::test_data_dir() + "/array_format.mtx");
  EXPECT_EQ(make_matrix(p), from_rows(2, {1, 0, 0, 1}));
}

TEST(LuProblem, MalformedFilesAreInputErrorsNamingTheFile) {
  const auto error = [](const std::string& path) {
    return input_error_of([&] {
      Problem p = parse_problem("mtx:" + path);
      make_matrix(p);
    });
  };
  EXPECT_EQ(error("/nonexistent/a.mtx"), "LU problem mtx:/nonexistent/a.mtx: cannot open the file");
  EXPECT_THAT(error(test::test_data_dir() + "/nonsquare.mtx"),
              AllOf(HasSubstr("nonsquare.mtx"), HasSubstr("LU needs a square matrix; this one is 3 x 5")));
  const std::string short_array = temp("short.mtx");
  std::ofstream(short_array) << "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n";
  EXPECT_THAT(error(short_array), AllOf(HasSubstr("short.mtx"), HasSubstr("the file ends after 3 of the 4 values"),
                                        HasSubstr("row 2, column 2, at line 6")));
  // Issue 32 item 9: each value that is not a finite number is named with its line and why.
  const auto array_with = [&](const std::string& name, const std::string& values) {
    const std::string path = temp(name);
    std::ofstream(path) << "%%MatrixMarket matrix array real general\n% a comment\n2 2\n" << values;
    return error(path);
  };
  EXPECT_THAT(array_with("nan.mtx", "1\nnan\n3\n4\n"),
              AllOf(HasSubstr("nan.mtx:5: value 2 of 4 (row 2, column 1) 'nan' is not finite")));
  EXPECT_THAT(array_with("inf.mtx", "1\n2\n-inf\n4\n"), HasSubstr("inf.mtx:6: value 3 of 4 (row 1, column 2) '-inf' is not finite"));
  EXPECT_THAT(array_with("big.mtx", "1\n1e400\n3\n4\n"), HasSubstr("big.mtx:5: value 2 of 4 (row 2, column 1) '1e400' is out of the range of double"));
  EXPECT_THAT(array_with("abc.mtx", "1 2\n abc\n4\n"), HasSubstr("abc.mtx:5: value 3 of 4 (row 1, column 2) 'abc' is not a number"));
  EXPECT_THAT(array_with("extra.mtx", "1\n2\n3\n4\n5\n"),
              HasSubstr("extra.mtx:8: more values than the 4 the size line declares (2 x 2)"));
  const std::string three = temp("size3.mtx");
  std::ofstream(three) << "%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n3\n4\n";
  EXPECT_THAT(error(three), HasSubstr("size3.mtx:2: expected the array's size 'ROWS COLS', found '2 2 4'"));
  // A skew-symmetric coordinate file is named as such, not as CG's need; a declared order beyond
  // the host's memory says so in words that read.
  const std::string skew = temp("skew.mtx");
  std::ofstream(skew) << "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n";
  EXPECT_THAT(error(skew), AllOf(HasSubstr("unsupported symmetry 'skew-symmetric': only general and symmetric matrices"),
                                 Not(HasSubstr("CG"))));
  const std::string wide = temp("wide_order.mtx");
  std::ofstream(wide) << "%%MatrixMarket matrix coordinate real general\n40000 40000 1\n1 1 1\n";
  ::setenv("GPUBENCH_HOST_MEMORY_AVAILABLE", "1000000000", 1);
  const std::string memory = error(wide);
  ::unsetenv("GPUBENCH_HOST_MEMORY_AVAILABLE");
  EXPECT_THAT(memory, HasSubstr("40000 x 40000 matrix with 1 nonzeros, counting the dense matrix LU makes of it and its "
                                "factors needs 51.2"));
  const std::string wide_array = temp("wide.mtx");
  std::ofstream(wide_array) << "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n";
  EXPECT_THAT(error(wide_array), HasSubstr("LU needs a square matrix; this one is 2 x 3"));
  const std::string complex_array = temp("complex.mtx");
  std::ofstream(complex_array) << "%%MatrixMarket matrix array complex general\n1 1\n1 0\n";
  EXPECT_THAT(error(complex_array), HasSubstr("LU reads real or integer matrices, not 'complex'"));
  const std::string not_mm = temp("not.mtx");
  std::ofstream(not_mm) << "hello\n";
  EXPECT_THAT(error(not_mm), HasSubstr("not a Matrix Market file"));
  const std::string huge = temp("huge.mtx");
  std::ofstream(huge) << "%%MatrixMarket matrix array real general\n46341 46341\n1\n";
  EXPECT_THAT(error(huge), HasSubstr("order 46341 is beyond 46340"));
}

TEST(LuWork, LapacksFlopCountAndTheMatrixReadAndWrittenOnce) {
  EXPECT_DOUBLE_EQ(flops(1), 1);
  EXPECT_DOUBLE_EQ(flops(2), 5);
  EXPECT_DOUBLE_EQ(flops(3), 16);
  EXPECT_DOUBLE_EQ(flops(100), 661750);
  for (std::int64_t n : {1, 7, 64, 1000, 46340}) {
    const auto x = static_cast<double>(n);
    EXPECT_DOUBLE_EQ(flops(n), 2.0 / 3.0 * x * x * x - 0.5 * x * x + 5.0 / 6.0 * x) << n;
    EXPECT_DOUBLE_EQ(min_bytes(n, Precision::f64), 2 * 8 * x * x) << n;
    EXPECT_DOUBLE_EQ(min_bytes(n, Precision::f32), 2 * 4 * x * x) << n;
  }
}

TEST(LuPivoting, TheStudysFormsAreRefusedUnlessTheMatrixIsDiagonallyDominant) {
  // Dominant by rows; by columns only; weakly (equal) dominant: no pivoting needed.
  EXPECT_EQ(why_pivoting_is_needed(from_rows(2, {3, -2, 1, 4}), 2), "");
  EXPECT_EQ(why_pivoting_is_needed(from_rows(2, {3, 5, 1, 6}), 2), "");  // row 1 is not, every column is
  EXPECT_EQ(why_pivoting_is_needed(from_rows(2, {1, 1, 1, 1}), 2), "");
  EXPECT_EQ(why_pivoting_is_needed({7.0}, 1), "");
  // A zero diagonal: refused, naming the row and its diagonal.
  const std::string swap = why_pivoting_is_needed(from_rows(2, {0, 1, 1, 0}), 2);
  EXPECT_THAT(swap, AllOf(HasSubstr("not diagonally dominant"), HasSubstr("row 1: |a(1,1)| = 0"),
                          HasSubstr("an LU without pivoting may divide by a zero or tiny pivot"),
                          HasSubstr("use a variant that pivots (blocked on opencl, cuda or openmp; vendor on cuda or openmp)")));
  EXPECT_THAT(why_pivoting_is_needed({0.0}, 1), HasSubstr("row 1: |a(1,1)| = 0"));
  // The first row that is not dominant is the one named.
  EXPECT_THAT(why_pivoting_is_needed(from_rows(3, {5, 1, 1, 1, 5, 1, 1, 9, 2}), 3), HasSubstr("row 3: |a(3,3)| = 2"));
  // A NaN on the diagonal is not dominance.
  EXPECT_NE(why_pivoting_is_needed(from_rows(2, {std::nan(""), 0, 0, 1}), 2), "");
}

// A factorisation written by hand: [[0 1] [1 0]] is P A = I with rows 1 and 2 swapped.
TEST(LuVerify, AHandMadeFactorisationPassesAndItsFaultsFail) {
  const auto a = from_rows(2, {0, 1, 1, 0});
  const std::vector<double> identity = from_rows(2, {1, 0, 0, 1});
  for (Precision p : {Precision::f32, Precision::f64}) {
    const Verdict v = verify(a, 2, identity, {2, 2}, p);
    EXPECT_TRUE(v.passed) << v.detail;
    EXPECT_EQ(v.singular, 0);
    EXPECT_EQ(v.residual, 0);
    EXPECT_THAT(v.detail, AllOf(HasSubstr("HPL's scaled residual"), HasSubstr("must be < 16")));
  }
  // No swap: P A = A, which I is not.
  Verdict v = verify(a, 2, identity, {1, 2}, Precision::f64);
  EXPECT_FALSE(v.passed);
  EXPECT_GT(v.residual, 16);
  // A = [[4 3] [6 3]]: P = swap, L = [[1 0] [2/3 1]], U = [[6 3] [0 1]].
  const auto b = from_rows(2, {4, 3, 6, 3});
  v = verify(b, 2, from_rows(2, {6, 3, 2.0 / 3.0, 1}), {2, 2}, Precision::f64);
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_LT(v.residual, 1);
  // One factor off by a little more than f32's rounding: f64's check sees it, f32's does not.
  auto off = from_rows(2, {6, 3, 2.0 / 3.0, 1 + 1e-9});
  EXPECT_FALSE(verify(b, 2, off, {2, 2}, Precision::f64).passed);
  EXPECT_TRUE(verify(b, 2, off, {2, 2}, Precision::f32).passed);
  off = from_rows(2, {6, 3, 2.0 / 3.0, 1.001});
  EXPECT_FALSE(verify(b, 2, off, {2, 2}, Precision::f32).passed);
}

TEST(LuVerify, AZeroOrNonFinitePivotNamesItsColumnBeforeAnyResidual) {
  const auto a = from_rows(3, {2, 0, 5, 1, 0, 1, 4, 0, 7});
  // U(2,2) = 0 (column 2 of A is zero).
  Verdict v = verify(a, 3, from_rows(3, {4, 0, 7, 0.25, 0, -0.75, 0.5, 0, 1.5}), {3, 3, 3}, Precision::f64);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.singular, 2);
  EXPECT_EQ(v.residual, 0);
  EXPECT_EQ(v.detail,
            "the factorisation broke down at column 2: pivot U(2,2) = 0 (the matrix is singular, or numerically so, there)");
  // A NaN or infinite pivot breaks down too, named as such.
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    v = verify(a, 3, from_rows(3, {4, 0, 7, 0.25, bad, -0.75, 0.5, 0, 1.5}), {3, 3, 3}, Precision::f32);
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.singular, 2);
    EXPECT_THAT(v.detail, HasSubstr("broke down at column 2: pivot U(2,2) = "));
  }
  // ipiv outside j..n (LAPACK's meaning: row j was swapped with row ipiv(j) >= j).
  v = verify(from_rows(2, {1, 0, 0, 1}), 2, from_rows(2, {1, 0, 0, 1}), {0, 2}, Precision::f64);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.detail, "ipiv(1) = 0 is outside 1..2");
  v = verify(from_rows(2, {1, 0, 0, 1}), 2, from_rows(2, {1, 0, 0, 1}), {1, 3}, Precision::f64);
  EXPECT_EQ(v.detail, "ipiv(2) = 3 is outside 2..2");
  v = verify(from_rows(2, {1, 0, 0, 1}), 2, from_rows(2, {1, 0, 0, 1}), {2, 1}, Precision::f64);
  EXPECT_EQ(v.detail, "ipiv(2) = 1 is outside 2..2");
}

// [[1 2 3] [4 5 6] [7 8 10]] by hand, as LAPACK's dgetf2: pivot 7 (row 3), then 6/7 (row 3 again,
// after the first swap), then -1/2; ipiv = (3, 3, 3).
TEST(LuReference, AThreeByThreeFactorisationWorkedByHand) {
  const auto a = from_rows(3, {1, 2, 3, 4, 5, 6, 7, 8, 10});
  auto lu = a;
  std::vector<int> ipiv;
  EXPECT_EQ(reference_getrf(lu, 3, ipiv), 0);
  EXPECT_EQ(ipiv, (std::vector<int>{3, 3, 3}));
  const auto expected = from_rows(3, {7, 8, 10, 1.0 / 7, 6.0 / 7, 11.0 / 7, 4.0 / 7, 0.5, -0.5});
  for (std::size_t k = 0; k < 9; ++k) EXPECT_NEAR(lu[k], expected[k], 1e-15) << k;
  EXPECT_TRUE(verify(a, 3, lu, ipiv, Precision::f64).passed);
  // No pivoting needed: ipiv(j) = j.
  auto d = from_rows(2, {4, 1, 2, 3});
  EXPECT_EQ(reference_getrf(d, 2, ipiv), 0);
  EXPECT_EQ(ipiv, (std::vector<int>{1, 2}));
  EXPECT_EQ(d, from_rows(2, {4, 1, 0.5, 2.5}));
}

TEST(LuReference, ASingularMatrixReturnsTheFirstZeroPivotsColumn) {
  auto a = from_rows(3, {2, 0, 5, 1, 0, 1, 4, 0, 7});
  std::vector<int> ipiv;
  EXPECT_EQ(reference_getrf(a, 3, ipiv), 2);
  EXPECT_EQ(a[static_cast<std::size_t>(1 + 1 * 3)], 0);
  EXPECT_EQ(verify(from_rows(3, {2, 0, 5, 1, 0, 1, 4, 0, 7}), 3, a, ipiv, Precision::f64).singular, 2);
  std::vector<double> zero(16, 0.0);
  EXPECT_EQ(reference_getrf(zero, 4, ipiv), 1);
  EXPECT_EQ(ipiv, (std::vector<int>{1, 2, 3, 4}));
}

TEST(LuReference, FactorsOfRandomAndDominantMatricesVerify) {
  for (const char* spec : {"1", "2", "3", "17", "64", "100", "1:dd", "17:dd", "100:dd"}) {
    Problem p = parse_problem(spec);
    const auto a = make_matrix(p);
    auto lu = a;
    std::vector<int> ipiv;
    EXPECT_EQ(reference_getrf(lu, p.n, ipiv), 0) << spec;
    for (Precision q : {Precision::f32, Precision::f64}) {
      const Verdict v = verify(a, p.n, lu, ipiv, q);
      EXPECT_TRUE(v.passed) << spec << ": " << v.detail;
    }
    if (p.kind == Kind::dominant) {  // no row is ever swapped
      for (std::int64_t j = 0; j < p.n; ++j) EXPECT_EQ(ipiv[static_cast<std::size_t>(j)], j + 1) << spec;
    }
  }
}

TEST(LuVariants, NamesAndWhichFormsPivot) {
  for (Variant v : variant_table().values()) EXPECT_EQ(parse_variant(to_string(v)), v);
  EXPECT_EQ(to_string(Variant::optimised), "optimised");
  try {
    parse_variant("optimized");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown LU variant 'optimized' (valid: naive, optimised, blocked, vendor, all)"));
  }
  EXPECT_TRUE(without_pivoting(Variant::naive, true));
  EXPECT_TRUE(without_pivoting(Variant::optimised, true));
  EXPECT_FALSE(without_pivoting(Variant::blocked, false));
  EXPECT_FALSE(without_pivoting(Variant::vendor, true));
  EXPECT_TRUE(without_pivoting(Variant::vendor, false));
}

// The operations as operations.hpp specifies them, in double on the host, with the two queues of
// the look-ahead simulated: one of them runs each step at once, the other (`late`) holds its
// steps back until a wait on it (or the end) needs them, the latest order the events allow. A
// dependency the blocked LU forgets to signal then shows as a wrong factorisation.
class SpecOperations final : public Operations {
 public:
  explicit SpecOperations(int late) : late_(late) {}

  void upload(const std::vector<double>& a, std::int64_t n) override {
    n_ = n;
    original_ = a;
    reset();
  }
  void reset() override {
    a_ = original_;
    ipiv_.assign(static_cast<std::size_t>(n_), 0);
    pending_.clear();
    done_ = 0;
    current_ = 0;
    signalled_ = 0;
  }
  void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) override {
    flush(pending_.size());
    lu = a_;
    ipiv = ipiv_;
  }
  void start() override {}
  double stop() override {
    flush(pending_.size());
    return 0;
  }
  // Marks as OpenCL's and CUDA's: kept until collect_marks(), which adds each interval (1 here)
  // to its row; a row's address that no longer lies in `watched` is reported, not written.
  void watch(StepTimes* watched) { watched_ = watched; }
  void mark(double* into) override { marks_.push_back(into); }
  void collect_marks() override {
    flush(pending_.size());
    for (std::size_t i = 1; i < marks_.size(); ++i) {
      if (!marks_[i]) continue;
      bool inside = false;
      if (watched_)
        for (auto& row : watched_->rows) inside = inside || &row.second == marks_[i];
      if (inside) {
        *marks_[i] += 1;
      } else {
        ++dangling_;
      }
    }
    marks_.clear();
  }
  int dangling() const { return dangling_; }
  void configure(const BlockedConfig&) override {}

  void getf2(std::int64_t j, std::int64_t w) override {
    submit([=, this] {
      for (std::int64_t c = j; c < j + w; ++c) {
        std::int64_t p = c;
        for (std::int64_t i = c + 1; i < n_; ++i)
          if (std::abs(at(i, c)) > std::abs(at(p, c))) p = i;
        ipiv_[static_cast<std::size_t>(c)] = static_cast<int>(p + 1);
        if (at(p, c) != 0) {
          if (p != c)
            for (std::int64_t k = j; k < j + w; ++k) std::swap(at(c, k), at(p, k));
          for (std::int64_t i = c + 1; i < n_; ++i) at(i, c) /= at(c, c);
        }
        for (std::int64_t k = c + 1; k < j + w; ++k)
          for (std::int64_t i = c + 1; i < n_; ++i) at(i, k) -= at(i, c) * at(c, k);
      }
    });
  }
  void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) override {
    submit([=, this] {
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t p = ipiv_[static_cast<std::size_t>(k)] - 1;
        ASSERT_GE(p, k) << "laswp reads ipiv(" << k + 1 << ") before the panel wrote it";
        for (std::int64_t c = c0; c < c1; ++c) std::swap(at(k, c), at(p, c));
      }
    });
  }
  void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    submit([=, this] {
      for (std::int64_t c = c0; c < c1; ++c)
        for (std::int64_t r = j; r < j + w; ++r)
          for (std::int64_t q = j; q < r; ++q) at(r, c) -= at(r, q) * at(q, c);
    });
  }
  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    submit([=, this] {
      for (std::int64_t c = c0; c < c1; ++c)
        for (std::int64_t k = k0; k < k1; ++k)
          for (std::int64_t r = r0; r < r1; ++r) at(r, c) -= at(r, k) * at(k, c);
    });
  }
  void queue(int q) override {
    ASSERT_TRUE(q == 0 || q == 1) << q;
    current_ = q;
  }
  void signal(int q) override {
    ASSERT_EQ(q, current_) << "an event is signalled by the queue the steps go to";
    if (q == late_) signalled_ = pending_.size();
  }
  void wait(int q) override {
    if (q == late_ && current_ != late_) flush(signalled_);
  }
  void vendor() override { FAIL() << "not part of the blocked LU"; }
  StudyRun study(Variant, StepTimes*, double) override {
    ADD_FAILURE() << "not part of the blocked LU";
    return {};
  }

 private:
  double& at(std::int64_t i, std::int64_t j) { return a_[static_cast<std::size_t>(i + j * n_)]; }
  void submit(std::function<void()> step) {
    if (current_ == late_) {
      pending_.push_back(std::move(step));
    } else {
      step();
    }
  }
  void flush(std::size_t to) {
    while (done_ < to) pending_[done_++]();
  }

  int late_;  // the queue held back (-1: none, every step at once)
  int current_ = 0;
  std::int64_t n_ = 0;
  std::vector<double> original_, a_;
  std::vector<int> ipiv_;
  std::vector<std::function<void()>> pending_;
  std::size_t done_ = 0, signalled_ = 0;
  StepTimes* watched_ = nullptr;
  std::vector<double*> marks_;
  int dangling_ = 0;
};

// Every block size and panel base, with and without the look-ahead (its queues in both orders):
// the same pivots as the reference getrf, the same factors to rounding, and HPL's check passes;
// matrices that need pivoting (random, a zero diagonal) and a singular one (breaks down at the
// same column as the reference).
TEST(LuBlockedAlgorithm, MatchesTheReferenceForEveryBlockSizeAndQueueOrder) {
  struct Input {
    std::string name;
    std::int64_t n;
    std::vector<double> a;
  };
  std::vector<Input> inputs;
  for (const char* spec : {"1", "2", "3", "17", "64", "100", "130"}) inputs.push_back({spec, parse_problem(spec).n, matrix_of(spec)});
  for (std::int64_t n : {2, 3, 40, 97}) {
    std::vector<double> z(static_cast<std::size_t>(n * n));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) z[static_cast<std::size_t>(i + j * n)] = n == 3 ? zero_diagonal3(i, j) : zero_diagonal(i, j);
    inputs.push_back({"zero diagonal " + std::to_string(n), n, z});
  }
  {
    auto s = matrix_of("70");
    for (std::int64_t i = 0; i < 70; ++i) s[static_cast<std::size_t>(i + 37 * 70)] = 0;  // column 38
    inputs.push_back({"singular at 38", 70, s});
  }
  int runs = 0;
  for (const Input& in : inputs) {
    auto reference = in.a;
    std::vector<int> reference_ipiv;
    const std::int64_t info = reference_getrf(reference, in.n, reference_ipiv);
    for (std::int64_t nb : {1, 3, 16, 32, 64})
      for (std::int64_t base : {1, 2, 8, 16, 64})
        for (int late : {-1, 0, 1}) {
          const bool lookahead = late >= 0;
          SpecOperations ops(late);
          ops.upload(in.a, in.n);
          BlockedConfig c;
          c.nb = nb;
          c.base = base;
          c.lookahead = lookahead;
          ops.start();
          blocked(ops, in.n, c);
          ops.stop();
          std::vector<double> lu;
          std::vector<int> ipiv;
          ops.read_factors(lu, ipiv);
          ++runs;
          const std::string what = in.name + " nb " + std::to_string(nb) + " base " + std::to_string(base) +
                                   (lookahead ? " look-ahead, queue " + std::to_string(late) + " late" : "");
          ASSERT_EQ(ipiv, reference_ipiv) << what;
          double worst = 0;
          for (std::size_t k = 0; k < lu.size(); ++k)
            worst = std::max(worst, std::abs(lu[k] - reference[k]) / std::max(1.0, std::abs(reference[k])));
          ASSERT_LT(worst, 1e-10) << what;
          const Verdict v = verify(in.a, in.n, lu, ipiv, Precision::f64);
          ASSERT_EQ(v.singular, info) << what << ": " << v.detail;
          if (info == 0) {
            ASSERT_TRUE(v.passed) << what << ": " << v.detail;
          }
        }
  }
  EXPECT_EQ(runs, 12 * 5 * 5 * 3);
}

// The profiled pass (no look-ahead) marks its steps as the records' per-kernel rows: panel,
// laswp, trsm, gemm, in the order first seen, and factors the same.
TEST(LuBlockedAlgorithm, TheProfiledPassNamesItsStepsAndFactorsTheSame) {
  const auto a = matrix_of("100");
  SpecOperations ops(1);
  ops.upload(a, 100);
  BlockedConfig c;
  c.nb = 32;
  c.base = 8;
  c.lookahead = true;  // ignored when profiled
  StepTimes times;
  ops.watch(&times);
  blocked(ops, 100, c, &times);
  ops.collect_marks();
  std::vector<std::string> rows;
  for (const auto& r : times.rows) rows.push_back(r.first);
  EXPECT_EQ(rows, (std::vector<std::string>{"panel", "laswp", "trsm", "gemm"}));
  std::vector<double> lu;
  std::vector<int> ipiv;
  ops.read_factors(lu, ipiv);
  EXPECT_TRUE(verify(a, 100, lu, ipiv, Precision::f64).passed);
}

// operations.hpp lets mark() keep its row until collect_marks() (OpenCL and CUDA do: their
// marks are device events, read once the device is done). The rows' addresses that the profiled
// pass hands to mark() must then still be the rows' when collect_marks() writes them: every
// interval lands in a row, none in freed memory (a heap corruption on those backends).
TEST(LuBlockedAlgorithm, DeferredMarksStillPointIntoTheRowsWhenCollected) {
  const auto a = matrix_of("100");
  for (std::int64_t nb : {32, 100}) {
    SpecOperations ops(-1);
    ops.upload(a, 100);
    BlockedConfig c;
    c.nb = nb;
    c.base = 8;
    StepTimes times;
    ops.watch(&times);
    blocked(ops, 100, c, &times);
    ops.collect_marks();
    EXPECT_EQ(ops.dangling(), 0) << "nb " << nb << ": intervals whose row had moved when collected (written to freed memory)";
    double total = 0;
    for (const auto& r : times.rows) total += r.second;
    EXPECT_GT(times["panel"], 0) << "nb " << nb;
    EXPECT_GT(total, 0);
  }
}

}  // namespace
}  // namespace gpubench::lu
