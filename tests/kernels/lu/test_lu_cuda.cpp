// The LU suite end to end on cuda (skipped, saying so, without a CUDA device): naive, optimised,
// blocked and cuSOLVER's getrf verify in both precisions on random and diagonally dominant
// matrices (the study's forms on the dominant ones, refused with the reason on the others);
// matrices that need pivoting factor with blocked and vendor; a singular matrix fails naming its
// column; a planted wrong factor fails that point only; a sweep of blocked stores an entry the
// next run takes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/cuda/cuda.hpp"
#include "tests/kernels/lu/lu_test_support.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::lu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using namespace test_support;

constexpr const char* no_device = "no CUDA device on this machine";

const std::set<std::string> all_forms = {"cuda/naive/f32",   "cuda/naive/f64",   "cuda/optimised/f32", "cuda/optimised/f64",
                                         "cuda/blocked/f32", "cuda/blocked/f64", "cuda/vendor/f32",    "cuda/vendor/f64"};
const std::set<std::string> pivoting_forms = {"cuda/blocked/f32", "cuda/blocked/f64", "cuda/vendor/f32", "cuda/vendor/f64"};

class LuCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::list_devices().empty()) GTEST_SKIP() << no_device;
  }
};

TEST_F(LuCuda, EveryVariantVerifiesRandomAndDominantMatrices) {
  for (const auto& [problem, n] : {std::pair<std::string, int>{"17", 17}, {"256", 256}, {"1000", 1000}, {"300:dd", 300}}) {
    const LuRun r = lu_run("--backend cuda --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    const bool dominant = problem.ends_with(":dd");
    EXPECT_EQ(verified_points(r, problem, n), dominant ? all_forms : pivoting_forms) << problem;
    for (const auto& b : r.records["benchmarks"]) {
      if (b["variant"] == "vendor") {
        EXPECT_THAT(b["params"]["library"].get<std::string>(), StartsWith("cuSOLVER "));
      }
    }
    if (!dominant) {
      expect_refused_for_pivoting(r, "naive", "cuda", problem);
      expect_refused_for_pivoting(r, "optimised", "cuda", problem);
    } else {
      EXPECT_TRUE(unavailable(r).empty()) << r.output;
    }
  }
}

TEST_F(LuCuda, MatricesThatNeedPivotingFactorWithBlockedAndVendor) {
  const std::string swap2 = write_array("swap2.mtx", 2, [](std::int64_t i, std::int64_t j) { return i == j ? 0.0 : 1.0; });
  const std::string three = write_array("zero_diagonal3.mtx", 3, zero_diagonal3);
  const std::string big = write_array("zero_diagonal300.mtx", 300, zero_diagonal);
  for (const auto& [path, n] : {std::pair{swap2, 2}, std::pair{three, 3}, std::pair{big, 300}}) {
    const std::string problem = "mtx:" + path;
    const LuRun r = lu_run("--backend cuda --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    EXPECT_EQ(verified_points(r, problem, n), pivoting_forms) << problem;
    for (const char* form : {"naive", "optimised"}) {
      expect_refused_for_pivoting(r, form, "cuda", problem);
      EXPECT_THAT(unavailable_line(r, std::string(form) + " on cuda"), HasSubstr("row 1: |a(1,1)| = 0 is less than"));
    }
  }
  const std::string real = "mtx:" + test::matrix_dir() + "/1138_bus.mtx";
  const LuRun r = lu_run("--backend cuda --precision f32,f64 --problem " + real);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(verified_points(r, real, 1138), pivoting_forms);
}

TEST_F(LuCuda, ASingularMatrixFailsNamingTheColumn) {
  struct Case {
    std::string path;
    std::int64_t column;
  };
  const std::vector<Case> cases = {
      {write_coordinate("singular3.mtx", 3, [](std::int64_t i, std::int64_t j) { return j == 1 ? 0.0 : 1.0 + static_cast<double>(i + 3 * j * j); }), 2},
      {write_array("singular300_200.mtx", 300, [](std::int64_t i, std::int64_t j) { return j == 199 ? 0.0 : noise(i, j, 3); }), 200},
  };
  for (const Case& c : cases) {
    const LuRun r = lu_run("--backend cuda --precision f32,f64 --problem mtx:" + c.path);
    EXPECT_EQ(singular_points(r, c.column), pivoting_forms) << c.path;
  }
  // Weakly dominant and singular: the study's forms run on it and fail at the same column.
  const std::string weak =
      write_array("weak3.mtx", 3, [](std::int64_t i, std::int64_t j) { return (i < 2 && j < 2) || i == j ? 1.0 : 0.0; });
  const LuRun r = lu_run("--backend cuda --precision f32,f64 --problem mtx:" + weak);
  EXPECT_EQ(singular_points(r, 2), all_forms);
}

TEST_F(LuCuda, APlantedWrongResultFailsThatPointOnly) {
  for (const char* planted : {"cuda:0/vendor/f64", "cuda:0/blocked/f32", "cuda:0/naive/f64"}) {
    const LuRun r = lu_run("--backend cuda --precision f32,f64 --problem 300:dd", std::string("GPUBENCH_LU_WRONG_RESULT=") + planted);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    ASSERT_TRUE(r.records.is_object()) << r.output;
    ASSERT_EQ(r.records["failed_benchmarks"].size(), 1u) << r.records["failed_benchmarks"].dump();
    EXPECT_EQ(r.records["failed_benchmarks"][0]["name"], std::string("lu/300:dd/") + planted);
    EXPECT_THAT(r.records["failed_benchmarks"][0]["error_message"].get<std::string>(),
                AllOf(HasSubstr("HPL's scaled residual"), HasSubstr("must be < 16")));
    EXPECT_EQ(r.records["benchmarks"].size(), all_forms.size() - 1) << planted;
  }
}

// --breakdown's rows: each step's time and FLOPs in its row (CUDA's marks are events, read when
// the pass is done), for an order within one panel and one of several.
TEST_F(LuCuda, TheBreakdownAccountsForEveryStep) {
  for (int n : {17, 1000}) {
    const LuRun r = lu_run("--backend cuda --variant blocked --precision f32,f64 --breakdown --problem " + std::to_string(n));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_breakdown_accounts_for_every_step(r, n);
  }
}

TEST_F(LuCuda, ASweepOfBlockedStoresAnEntryTheNextRunUses) {
  const std::string db = clean_tuning_db("cuda-db", "cuda");
  for (const auto& launch : blocked_launches("cuda", "256", db)) EXPECT_EQ(launch["from"], "heuristic") << launch.dump();
  const test::Result sweep = test::gpubench(
      "sweep --suite lu --backend cuda --problem 256 --precision f32,f64 --param nb=64 --param base=8 --tuning-db " + db);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_THAT(sweep.output, AllOf(HasSubstr("blocked"), HasSubstr("stored 1 entries"), Not(HasSubstr("VerificationError"))));
  for (const auto& launch : blocked_launches("cuda", "256", db)) {
    EXPECT_EQ(launch["from"], "tuned") << launch.dump();
    EXPECT_EQ(launch["nb"], 64);
    EXPECT_EQ(launch["base"], 8);
    EXPECT_THAT(launch["detail"].get<std::string>(), AllOf(HasSubstr(db), HasSubstr("swept on 256")));
  }
  std::filesystem::remove_all(db);
}

}  // namespace
}  // namespace gpubench::lu
