// The LU suite end to end on the openmp backend (blocked, and vendor: LAPACK's getrf through
// LAPACKE): both precisions verify by HPL's scaled residual on random, diagonally dominant and
// Matrix Market inputs of many orders; matrices that need pivoting factor; a singular matrix
// fails naming its column; a planted wrong factor fails that point only; bad problems are input
// errors; a sweep of blocked stores an entry the next run takes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/lu/lu_test_support.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::lu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace test_support;

// blocked and (where LAPACKE was built) vendor, in f32 and f64.
std::set<std::string> openmp_points(const LuRun& r) {
  std::set<std::string> expected = {"openmp/blocked/f32", "openmp/blocked/f64"};
  if (openmp_vendor_built(r)) expected.insert({"openmp/vendor/f32", "openmp/vendor/f64"});
  return expected;
}

TEST(LuOpenmp, EveryVariantVerifiesRandomAndDominantMatricesOfManyOrders) {
  for (int n : {1, 2, 3, 17, 64, 100, 256})
    for (const std::string form : {"", ":dd"}) {
      const std::string problem = std::to_string(n) + form;
      const LuRun r = lu_run("--backend openmp --precision f32,f64 --problem " + problem);
      ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
      EXPECT_EQ(verified_points(r, problem, n), openmp_points(r)) << problem;
    }
}

// The study's forms are OpenCL's and CUDA's: asked for by name on openmp, they are listed as not
// its variants, and the others run.
TEST(LuOpenmp, TheStudysFormsAreNotOpenmpVariants) {
  const LuRun r = lu_run("--backend openmp --precision f64 --variant naive,optimised,blocked --problem 17:dd");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(verified_points(r, "17:dd", 17), (std::set<std::string>{"openmp/blocked/f64"}));
  EXPECT_EQ(unavailable_line(r, "naive on openmp"), "naive on openmp: not an LU variant of this backend");
  EXPECT_EQ(unavailable_line(r, "optimised on openmp"), "optimised on openmp: not an LU variant of this backend");
  const LuRun none = lu_run("--backend openmp --precision f64 --variant naive --problem 17:dd");
  EXPECT_EQ(none.exit_code, 2) << none.output;  // a usage error, as GEMM's and FT's (issue 32 item 9)
  EXPECT_THAT(none.output, AllOf(HasSubstr("nothing to run for LU problem 17:dd"),
                                 HasSubstr("naive on openmp: not an LU variant of this backend")));
}

// Real files (coordinate, symmetric and general) and files written here (array general and
// symmetric; coordinate general), read as dense matrices.
TEST(LuOpenmp, MatrixMarketFilesVerify) {
  struct File {
    std::string path;
    std::int64_t n;
  };
  const std::vector<File> files = {
      {test::matrix_dir() + "/1138_bus.mtx", 1138},
      {test::matrix_dir() + "/ani4.mtx", 3081},
      {write_array("general17.mtx", 17, [](std::int64_t i, std::int64_t j) { return noise(i, j, 1); }), 17},
      {write_array("symmetric64.mtx", 64, [](std::int64_t i, std::int64_t j) { return noise(std::max(i, j), std::min(i, j), 2); },
                   true),
       64},
      {write_coordinate("dominant100.mtx", 100,
                        [](std::int64_t i, std::int64_t j) { return (i * 7 + j * 3) % 5 == 0 || i == j ? dominant(100, i, j) : 0.0; }),
       100},
  };
  for (const File& f : files) {
    const std::string problem = "mtx:" + f.path;
    const LuRun r = lu_run("--backend openmp --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    EXPECT_EQ(verified_points(r, problem, f.n), openmp_points(r)) << problem;
  }
}

// Zeros on the diagonal: [[0 1] [1 0]], a 3 x 3 and a 64 x 64 (two panels of the heuristic's 32
// columns) factor with partial pivoting.
TEST(LuOpenmp, MatricesThatNeedPivotingFactor) {
  const std::string swap2 = write_array("swap2.mtx", 2, [](std::int64_t i, std::int64_t j) { return i == j ? 0.0 : 1.0; });
  const std::string three = write_array("zero_diagonal3.mtx", 3, zero_diagonal3);
  const std::string sixty_four = write_array("zero_diagonal64.mtx", 64, zero_diagonal);
  for (const auto& [path, n] : {std::pair{swap2, 2}, std::pair{three, 3}, std::pair{sixty_four, 64}}) {
    const std::string problem = "mtx:" + path;
    const LuRun r = lu_run("--backend openmp --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    EXPECT_EQ(verified_points(r, problem, n), openmp_points(r)) << problem;
  }
}

// All-zero columns (the second of 3, the 40th and the last of 64, the only one of 1): blocked
// and vendor fail with exit 1, naming the column; no point verifies.
TEST(LuOpenmp, ASingularMatrixFailsNamingTheColumn) {
  struct Case {
    std::string path;
    std::int64_t column;
  };
  const std::vector<Case> cases = {
      {write_coordinate("singular3.mtx", 3, [](std::int64_t i, std::int64_t j) { return j == 1 ? 0.0 : 1.0 + static_cast<double>(i + 3 * j * j); }), 2},
      {write_array("singular64_40.mtx", 64, [](std::int64_t i, std::int64_t j) { return j == 39 ? 0.0 : noise(i, j, 3); }), 40},
      {write_array("singular64_64.mtx", 64, [](std::int64_t i, std::int64_t j) { return j == 63 ? 0.0 : noise(i, j, 4); }), 64},
      {write_array("zero1.mtx", 1, [](std::int64_t, std::int64_t) { return 0.0; }), 1},
  };
  for (const Case& c : cases) {
    const LuRun r = lu_run("--backend openmp --precision f32,f64 --problem mtx:" + c.path);
    std::set<std::string> expected = {"openmp/blocked/f32", "openmp/blocked/f64"};
    if (openmp_vendor_built(r)) expected.insert({"openmp/vendor/f32", "openmp/vendor/f64"});
    EXPECT_EQ(singular_points(r, c.column), expected) << c.path;
  }
}

// Issue 31 item 8: a matrix singular to working precision (Hilbert's of order 12: cond_1 about
// 4e16, every pivot nonzero) still verifies (LU is backward stable), but its records carry LAPACK's
// reciprocal condition estimate and the table warns; a well-conditioned one has no warning.
TEST(LuOpenmp, SingularToWorkingPrecisionIsVerifiedWithAWarning) {
  const std::string hilbert =
      write_array("hilbert12.mtx", 12, [](std::int64_t i, std::int64_t j) { return 1.0 / static_cast<double>(i + j + 1); });
  const std::string well = write_array("dominant12.mtx", 12, [](std::int64_t i, std::int64_t j) { return dominant(12, i, j); });
  const LuRun r = lu_run("--backend openmp --precision f64 --variant blocked --problem mtx:" + hilbert, "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto& b = r.records.at("benchmarks").at(0);
  if (!b.contains("rcond")) GTEST_SKIP() << "LAPACKE is not in this build: no condition estimate";
  EXPECT_GT(b["rcond"].get<double>(), 0);
  EXPECT_LT(b["rcond"].get<double>(), 1.1e-16);
  EXPECT_THAT(b["warning"].get<std::string>(), HasSubstr("singular to working precision: rcond"));
  EXPECT_THAT(r.output, HasSubstr("yes  WARNING: singular to working precision"));  // the table
  const LuRun ok = lu_run("--backend openmp --precision f64 --variant blocked --problem mtx:" + well, "OMP_NUM_THREADS=1");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  const auto& c = ok.records.at("benchmarks").at(0);
  EXPECT_GT(c.at("rcond").get<double>(), 0.1);
  EXPECT_FALSE(c.contains("warning"));
  EXPECT_THAT(ok.output, Not(HasSubstr("WARNING: singular")));
}

// "Never a number": a point that broke down reports the column, and no scaled residual (the
// residual was never computed; 0 would read as a perfect factorisation).
TEST(LuOpenmp, ASingularPointReportsNoResidual) {
  const std::string path =
      write_coordinate("singular3_record.mtx", 3, [](std::int64_t i, std::int64_t j) { return j == 1 ? 0.0 : 1.0 + static_cast<double>(i + 3 * j * j); });
  const LuRun r = lu_run("--backend openmp --precision f64 --variant blocked --problem mtx:" + path);
  ASSERT_EQ(r.exit_code, 1) << r.output;
  ASSERT_EQ(r.records["failed_benchmarks"].size(), 1u) << r.records.dump();
  const auto& f = r.records["failed_benchmarks"][0];
  EXPECT_EQ(f["singular_column"], 2);
  EXPECT_FALSE(f.contains("hpl_scaled_residual") && f["hpl_scaled_residual"].is_number())
      << "a singular point carries hpl_scaled_residual = " << f["hpl_scaled_residual"].dump();
}

// GPUBENCH_LU_WRONG_RESULT=NAME changes one factor of the points whose name contains NAME: that
// point alone fails verification (exit 1), the others verify.
TEST(LuOpenmp, APlantedWrongResultFailsThatPointOnly) {
  for (const auto& [problem, planted] :
       {std::pair<std::string, std::string>{"100:dd", "openmp:0/blocked/f64"}, {"64", "openmp:0/blocked/f32"}, {"1", "openmp:0/blocked/f64"}}) {
    const LuRun r = lu_run("--backend openmp --precision f32,f64 --problem " + problem, "GPUBENCH_LU_WRONG_RESULT=" + planted);
    EXPECT_EQ(r.exit_code, 1) << problem << ":\n" << r.output;
    ASSERT_TRUE(r.records.is_object()) << r.output;
    ASSERT_EQ(r.records["failed_benchmarks"].size(), 1u) << problem << ": " << r.records["failed_benchmarks"].dump();
    const auto& f = r.records["failed_benchmarks"][0];
    EXPECT_EQ(f["name"], "lu/" + problem + "/" + planted);
    EXPECT_THAT(f["error_message"].get<std::string>(),
                AllOf(HasSubstr("verification failed: HPL's scaled residual"), HasSubstr("must be < 16")));
    std::set<std::string> verified;
    for (const auto& b : r.records["benchmarks"]) {
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      verified.insert(b["name"].get<std::string>());
    }
    EXPECT_EQ(verified.size(), openmp_points(r).size() - 1) << problem;
    EXPECT_EQ(verified.count("lu/" + problem + "/" + planted), 0u);
  }
}

// --breakdown's rows (the JSON records carry them always): each step's time and FLOPs, for an
// order within one panel (17) and one of four panels (100).
TEST(LuOpenmp, TheBreakdownAccountsForEveryStep) {
  for (int n : {17, 100}) {
    const LuRun r = lu_run("--backend openmp --variant blocked --precision f32,f64 --breakdown --problem " + std::to_string(n));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_breakdown_accounts_for_every_step(r, n);
  }
}

// What a blocked record says its time includes agrees with its parameters: openmp has one queue
// and no look-ahead (params.lookahead false), so its time is not "with the look-ahead".
TEST(LuOpenmp, TheRecordsSayWhetherTheLookAheadRan) {
  const LuRun r = lu_run("--backend openmp --variant blocked --precision f64 --problem 100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(r.records["benchmarks"].size(), 1u) << r.output;
  const auto& b = r.records["benchmarks"][0];
  EXPECT_FALSE(b["params"]["lookahead"].get<bool>());
  EXPECT_THAT(b["time_includes"].get<std::string>(), HasSubstr("without the look-ahead")) << b["time_includes"];
}

// Bad problems: exit 3 (input), the message naming the problem and what is wrong.
TEST(LuProblems, BadProblemsAreInputErrorsNamingTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0", "LU problem '0': the order must be at least 1"},
      {"abc", "LU problem 'abc': 'abc' is not a matrix order (N, N:dd or mtx:PATH)"},
      {"100:xx", "LU problem '100:xx': unknown form ':xx' (N: random; N:dd: diagonally dominant; mtx:PATH)"},
      {"mtx:/nonexistent", "LU problem mtx:/nonexistent: cannot open the file"},
      {"46341", "LU problem '46341': order 46341 is beyond 46340 (n^2 elements must fit the kernels' 32-bit indices)"},
      {"99999999999999999999", "'99999999999999999999' is not a matrix order"},
      {"mtx:" + test::test_data_dir() + "/nonsquare.mtx", "LU needs a square matrix; this one is 3 x 5"},
  };
  for (const auto& [problem, message] : cases) {
    const LuRun r = lu_run("--backend openmp --problem " + problem);
    EXPECT_EQ(r.exit_code, 3) << problem << ":\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(message)) << problem;
    EXPECT_THAT(r.output, Not(HasSubstr("FAILED"))) << problem;
  }
  // The same refusals from a sweep.
  for (const char* problem : {"0", "abc", "46341"}) {
    const test::Result s = test::gpubench(std::string("sweep --suite lu --backend openmp --problem ") + problem +
                                          " --tuning-db " + temp("refused-db"));
    EXPECT_EQ(s.exit_code, 3) << problem << ":\n" << s.output;
    EXPECT_THAT(s.output, HasSubstr(std::string("LU problem '") + problem + "'"));
  }
}

TEST(LuProblems, UnknownVariantsAndKernelsAreUsageErrors) {
  LuRun r = lu_run("--backend openmp --problem 17 --variant optimized");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown LU variant 'optimized' (valid: naive, optimised, blocked, vendor, all)"));
  test::Result s = test::gpubench("sweep --suite lu --backend openmp --problem 17 --kernel panel --tuning-db " + temp("usage-db"));
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_THAT(s.output, HasSubstr("unknown LU kernel 'panel' (tunable: blocked)"));
  s = test::gpubench("sweep --suite lu --backend openmp --problem 17 --variant blocked --tuning-db " + temp("usage-db"));
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_THAT(s.output, HasSubstr("sweep tunes kernels, not variants"));
}

// A problem the host cannot hold is refused before anything of its size is allocated, with exit
// 3 as other suites' (GEMM, CG): the hook stands in for MemAvailable (1 GB); an order-20000 LU
// needs about 12.8 GB (the matrix and its copies, in double). For a file, the header's order.
TEST(LuProblems, AProblemTooLargeForTheHostIsRefusedBeforeAllocating) {
  const std::string hook = "GPUBENCH_HOST_MEMORY_AVAILABLE=1000000000";
  for (const char* problem : {"20000", "20000:dd"}) {
    const LuRun r = lu_run(std::string("--backend openmp --precision f64 --problem ") + problem, hook);
    EXPECT_EQ(r.exit_code, 3) << problem << ":\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("LU problem ") + problem + " needs 12.80 GB of host memory; 1.00 GB is available"));
  }
  const std::string array = temp("huge_array.mtx");
  std::ofstream(array) << "%%MatrixMarket matrix array real general\n20000 20000\n1\n";
  const std::string coordinate = temp("huge_coordinate.mtx");
  std::ofstream(coordinate) << "%%MatrixMarket matrix coordinate real general\n20000 20000 1\n1 1 1\n";
  for (const std::string& path : {array, coordinate}) {
    const LuRun r = lu_run("--backend openmp --precision f64 --problem mtx:" + path, hook);
    EXPECT_EQ(r.exit_code, 3) << path << ":\n" << r.output;
    EXPECT_THAT(r.output, AllOf(HasSubstr(path), HasSubstr("of host memory; 1.00 GB is available")));
  }
}

// A sweep of blocked (its space cut to one configuration that is not the heuristic's: nb 64,
// base 8 on order 64) stores one entry per precision, and the next run takes it from there.
TEST(LuOpenmp, ASweepOfBlockedStoresAnEntryTheNextRunUses) {
  const std::string db = clean_tuning_db("openmp-db", "openmp");
  for (const auto& launch : blocked_launches("openmp", "64", db)) {
    EXPECT_EQ(launch["from"], "heuristic") << launch.dump();
    EXPECT_NE(launch["nb"], 64);
  }
  const test::Result sweep = test::gpubench(
      "sweep --suite lu --backend openmp --problem 64 --precision f32,f64 --param nb=64 --param base=8 --tuning-db " + db);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_THAT(sweep.output, AllOf(HasSubstr("blocked"), HasSubstr("base=8 nb=64"), HasSubstr("stored 1 entries"),
                                  Not(HasSubstr("VerificationError"))));
  for (const auto& launch : blocked_launches("openmp", "64", db)) {
    EXPECT_EQ(launch["from"], "tuned") << launch.dump();
    EXPECT_EQ(launch["nb"], 64);
    EXPECT_EQ(launch["base"], 8);
    EXPECT_THAT(launch["detail"].get<std::string>(), AllOf(HasSubstr(db), HasSubstr("swept on 64")));
  }
  std::filesystem::remove_all(db);
}

}  // namespace
}  // namespace gpubench::lu
