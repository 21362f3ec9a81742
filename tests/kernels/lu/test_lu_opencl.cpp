// The LU suite end to end on opencl (PoCL without a GPU): the study's naive and optimised forms
// verify on diagonally dominant inputs and are refused, with the reason, on inputs that need
// pivoting; blocked verifies on every input, in both precisions; a singular matrix fails naming
// its column; a planted wrong factor fails that point only; a sweep of blocked stores an entry
// the next run takes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
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

const std::set<std::string> all_forms = {"opencl/naive/f32",     "opencl/naive/f64",   "opencl/optimised/f32",
                                         "opencl/optimised/f64", "opencl/blocked/f32", "opencl/blocked/f64"};
const std::set<std::string> blocked_only = {"opencl/blocked/f32", "opencl/blocked/f64"};

void expect_no_opencl_vendor(const LuRun& r) {
  EXPECT_EQ(unavailable_line(r, "vendor on opencl"), "vendor on opencl: no OpenCL getrf among Debian's packages");
}

// N:dd: every form verifies. N: blocked verifies, the study's forms are refused for pivoting
// (but for order 1, whose one element is its diagonal: nothing to pivot).
TEST(LuOpencl, EveryVariantVerifiesRandomAndDominantMatricesOfManyOrders) {
  for (int n : {1, 2, 3, 17, 64, 100, 256})
    for (const std::string form : {"", ":dd"}) {
      const std::string problem = std::to_string(n) + form;
      const LuRun r = lu_run("--backend opencl --precision f32,f64 --problem " + problem);
      ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
      const bool dominant = form == ":dd" || n == 1;
      EXPECT_EQ(verified_points(r, problem, n), dominant ? all_forms : blocked_only) << problem;
      expect_no_opencl_vendor(r);
      if (!dominant) {
        expect_refused_for_pivoting(r, "naive", "opencl", problem);
        expect_refused_for_pivoting(r, "optimised", "opencl", problem);
      } else {
        EXPECT_EQ(unavailable(r).size(), 1u) << problem << ":\n" << r.output;
      }
    }
}

// The study's forms asked for alone on an input that needs pivoting: nothing to run (exit 3),
// and the run says why.
TEST(LuOpencl, TheStudysFormsAloneOnARandomMatrixAreRefusedWithTheReason) {
  const LuRun r = lu_run("--backend opencl --precision f64 --variant naive,optimised --problem 100");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("nothing to run for LU problem 100:"),
                              HasSubstr("naive on opencl (the study's form) does not pivot, and 100: the matrix is not diagonally dominant"),
                              HasSubstr("optimised on opencl (the study's form) does not pivot")));
}

TEST(LuOpencl, MatrixMarketFilesVerify) {
  struct File {
    std::string path;
    std::int64_t n;
    bool dominant;
  };
  const std::vector<File> files = {
      {test::matrix_dir() + "/1138_bus.mtx", 1138, false},
      {write_array("dominant17.mtx", 17, [](std::int64_t i, std::int64_t j) { return dominant(17, i, j); }), 17, true},
      {write_array("symmetric64.mtx", 64, [](std::int64_t i, std::int64_t j) { return noise(std::max(i, j), std::min(i, j), 2); },
                   true),
       64, false},
      {write_coordinate("dominant100.mtx", 100,
                        [](std::int64_t i, std::int64_t j) { return (i * 7 + j * 3) % 5 == 0 || i == j ? dominant(100, i, j) : 0.0; }),
       100, true},
  };
  for (const File& f : files) {
    const std::string problem = "mtx:" + f.path;
    const LuRun r = lu_run("--backend opencl --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    EXPECT_EQ(verified_points(r, problem, f.n), f.dominant ? all_forms : blocked_only) << problem;
    if (!f.dominant) {
      expect_refused_for_pivoting(r, "naive", "opencl", problem);
      expect_refused_for_pivoting(r, "optimised", "opencl", problem);
    }
  }
}

// Zeros on the diagonal: blocked factors them with partial pivoting; the study's forms are
// refused, the reason naming the zero diagonal element.
TEST(LuOpencl, MatricesThatNeedPivotingFactorWithBlockedAndAreRefusedByTheStudysForms) {
  const std::string swap2 = write_array("swap2.mtx", 2, [](std::int64_t i, std::int64_t j) { return i == j ? 0.0 : 1.0; });
  const std::string three = write_array("zero_diagonal3.mtx", 3, zero_diagonal3);
  const std::string sixty_four = write_array("zero_diagonal64.mtx", 64, zero_diagonal);
  for (const auto& [path, n] : {std::pair{swap2, 2}, std::pair{three, 3}, std::pair{sixty_four, 64}}) {
    const std::string problem = "mtx:" + path;
    const LuRun r = lu_run("--backend opencl --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    EXPECT_EQ(verified_points(r, problem, n), blocked_only) << problem;
    for (const char* form : {"naive", "optimised"}) {
      expect_refused_for_pivoting(r, form, "opencl", problem);
      EXPECT_THAT(unavailable_line(r, std::string(form) + " on opencl"), HasSubstr("row 1: |a(1,1)| = 0 is less than"));
    }
  }
}

TEST(LuOpencl, ASingularMatrixFailsNamingTheColumn) {
  struct Case {
    std::string path;
    std::int64_t column;
  };
  const std::vector<Case> cases = {
      {write_coordinate("singular3.mtx", 3, [](std::int64_t i, std::int64_t j) { return j == 1 ? 0.0 : 1.0 + static_cast<double>(i + 3 * j * j); }), 2},
      {write_array("singular64_40.mtx", 64, [](std::int64_t i, std::int64_t j) { return j == 39 ? 0.0 : noise(i, j, 3); }), 40},
      {write_array("singular64_1.mtx", 64, [](std::int64_t i, std::int64_t j) { return j == 0 ? 0.0 : noise(i, j, 4); }), 1},
  };
  for (const Case& c : cases) {
    const LuRun r = lu_run("--backend opencl --precision f32,f64 --problem mtx:" + c.path);
    EXPECT_EQ(singular_points(r, c.column), blocked_only) << c.path;
    expect_refused_for_pivoting(r, "naive", "opencl", "mtx:" + c.path);
  }
}

// Weakly diagonally dominant and singular ([[1 1 0] [1 1 0] [0 0 1]]): the study's forms run on it
// (nothing says they need pivoting) and, like blocked, fail naming column 2, not a NaN.
TEST(LuOpencl, AWeaklyDominantSingularMatrixFailsNamingTheColumnOnEveryForm) {
  const std::string path =
      write_array("weak3.mtx", 3, [](std::int64_t i, std::int64_t j) { return (i < 2 && j < 2) || i == j ? 1.0 : 0.0; });
  const LuRun r = lu_run("--backend opencl --precision f32,f64 --problem mtx:" + path);
  EXPECT_EQ(singular_points(r, 2), all_forms);
}

// The planted name leaves out the device's index: the default OpenCL device is the first GPU,
// which need not be opencl:0.
TEST(LuOpencl, APlantedWrongResultFailsThatPointOnly) {
  for (const auto& [problem, planted] : {std::pair<std::string, std::string>{"64:dd", "/naive/f32"},
                                         {"64:dd", "/optimised/f64"},
                                         {"100", "/blocked/f32"}}) {
    const LuRun r = lu_run("--backend opencl --precision f32,f64 --problem " + problem, "GPUBENCH_LU_WRONG_RESULT=" + planted);
    EXPECT_EQ(r.exit_code, 1) << problem << ":\n" << r.output;
    ASSERT_TRUE(r.records.is_object()) << r.output;
    ASSERT_EQ(r.records["failed_benchmarks"].size(), 1u) << planted << ": " << r.records["failed_benchmarks"].dump();
    const auto& f = r.records["failed_benchmarks"][0];
    EXPECT_THAT(f["name"].get<std::string>(), AllOf(::testing::StartsWith("lu/" + problem + "/opencl:"), ::testing::EndsWith(planted)));
    EXPECT_THAT(f["error_message"].get<std::string>(),
                AllOf(HasSubstr("verification failed: HPL's scaled residual"), HasSubstr("must be < 16")));
    std::size_t verified = 0;
    for (const auto& b : r.records["benchmarks"]) {
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      EXPECT_THAT(b["name"].get<std::string>(), Not(::testing::EndsWith(planted)));
      ++verified;
    }
    EXPECT_EQ(verified, (problem == "100" ? blocked_only : all_forms).size() - 1) << planted;
  }
}

// --breakdown's rows: each step's time and FLOPs in its row, for an order within one panel and
// one of four; the records say the look-ahead ran (two queues).
TEST(LuOpencl, TheBreakdownAccountsForEveryStep) {
  for (int n : {17, 100}) {
    const LuRun r = lu_run("--backend opencl --variant blocked --precision f32,f64 --breakdown --problem " + std::to_string(n));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_breakdown_accounts_for_every_step(r, n);
    for (const auto& b : r.records["benchmarks"]) {
      EXPECT_TRUE(b["params"]["lookahead"].get<bool>());
      EXPECT_THAT(b["time_includes"].get<std::string>(), HasSubstr("with the look-ahead"));
    }
  }
}

// The panel's leaf: on a GPU in one launch where the probe saw its work-groups resident at once
// (NVIDIA's: the barrier in inline PTX); on a CPU device by a launch per column, saying why, unless
// a test asks the probe for N groups (GPUBENCH_LU_LEAF_GROUPS): 1 and 2 run the leaf with OpenCL's
// atomics on PoCL, 256 (each with the leaf's local memory: more than a CPU device's threads hold
// at once) falls back there, saying so (an H200's 132 SMs hold four each: there the probe decides). The factors verify every way, and the
// records say which ran.
TEST(LuOpencl, ThePanelsLeafRunsInOneLaunchWhereItsGroupsAreResidentAtOnceAndByColumnsWhereNot) {
  const bool gpu = test::gpubench("--list-devices --backend opencl").output.find("(gpu)") != std::string::npos;
  for (const std::string groups : {"", "1", "2", "256"}) {
    const LuRun r = lu_run("--backend opencl --variant blocked --precision f32,f64 --problem 300",
                           groups.empty() ? "" : "GPUBENCH_LU_LEAF_GROUPS=" + groups);
    ASSERT_EQ(r.exit_code, 0) << groups << ":\n" << r.output;
    ASSERT_EQ(r.records["benchmarks"].size(), 2u) << r.output;
    for (const auto& b : r.records["benchmarks"]) {
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      const std::string panel = b.value("panel", "");
      if (groups == "256" && gpu) {  // an H200 holds four such groups per SM: either answer is the probe's
        EXPECT_THAT(panel, ::testing::AnyOf(::testing::StartsWith("a launch per column: 256 work-groups with "),
                                            HasSubstr("leaves in one launch of up to 256 work-groups")))
            << panel;
      } else if (groups == "256") {
        EXPECT_THAT(panel, HasSubstr("a launch per column: 256 work-groups with ")) << panel;
        EXPECT_THAT(panel, HasSubstr("were not all resident at once when probed")) << panel;
      } else if (groups.empty() && !gpu) {
        EXPECT_THAT(panel, ::testing::StartsWith("a launch per column: a cpu device's work-groups share its cores"))
            << panel;
      } else {
        // Every leaf in one launch (n 300: a dozen or more, as nb and base are).
        std::smatch m;
        ASSERT_TRUE(std::regex_search(panel, m, std::regex("^([0-9]+) of ([0-9]+) leaves in one launch of up to ([0-9]+) "
                                                           "work-groups meeting at a barrier in global memory")))
            << panel;
        EXPECT_EQ(m[1], m[2]) << panel;
        EXPECT_GE(std::stoi(m[1]), 10) << panel;
        if (!groups.empty()) {
          EXPECT_EQ(m[3], groups) << panel;
        }
        EXPECT_THAT(panel, HasSubstr(gpu ? "(inline PTX," : "(OpenCL atomics,")) << panel;
      }
    }
  }
}

// The study's table (gpubench report table --kind lu-study) from records: a measured order has its times and
// gain; an order whose forms stop at --study-limit is marked with the steps done, not dropped.
TEST(LuOpencl, TheStudysTableMarksOrdersOverTheTimeLimit) {
  const LuRun measured = lu_run("--backend opencl --precision f64 --variant naive,optimised --problem 16:dd");
  ASSERT_EQ(measured.exit_code, 0) << measured.output;
  const LuRun over =
      lu_run("--backend opencl --precision f64 --variant naive,optimised --problem 40:dd --study-limit 1e-9");
  EXPECT_EQ(over.exit_code, 1) << over.output;
  EXPECT_THAT(over.output, testing::ContainsRegex("lu/40:dd/opencl:[0-9]+/naive/f64: over the time limit: the study's "
                                                  "naive form had done 1 of 40 steps after "));
  const std::string a = temp("study16.json"), b = temp("study40.json"), table = temp("study.md");
  std::ofstream(a) << measured.records.dump();
  std::ofstream(b) << over.records.dump();
  ASSERT_EQ(std::system((test::gpubench_binary() + " report table --kind lu-study " + a + " " + b + " > " + table).c_str()), 0);
  std::ifstream in(table);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("naive (s) | "));
  EXPECT_THAT(text, testing::ContainsRegex("\\| 16 \\| [0-9.]+ \\| [0-9.]+ \\| -?[0-9.]+ % \\|"));
  EXPECT_THAT(text, testing::ContainsRegex("\\| 40 \\| > [0-9.e-]+ s \\(time limit: 1 of 40 steps; about"));
  EXPECT_THAT(text, HasSubstr("(time limit: 1 of 40 steps; about"));
  // A limit that is not a positive number is a usage error.
  EXPECT_EQ(lu_run("--backend opencl --variant naive --problem 16:dd --study-limit 0").exit_code, 2);
  for (const auto& f : {a, b, table}) std::filesystem::remove(f);
}

TEST(LuOpencl, ASweepOfBlockedStoresAnEntryTheNextRunUses) {
  const std::string db = clean_tuning_db("opencl-db", "opencl");
  for (const auto& launch : blocked_launches("opencl", "64", db)) {
    EXPECT_EQ(launch["from"], "heuristic") << launch.dump();
    EXPECT_NE(launch["nb"], 64);
  }
  const test::Result sweep = test::gpubench(
      "sweep --suite lu --backend opencl --problem 64 --precision f32,f64 --param nb=64 --param base=8 --tuning-db " + db);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_THAT(sweep.output, AllOf(HasSubstr("blocked"), HasSubstr("base=8 nb=64"), HasSubstr("stored 1 entries"),
                                  Not(HasSubstr("VerificationError"))));
  for (const auto& launch : blocked_launches("opencl", "64", db)) {
    EXPECT_EQ(launch["from"], "tuned") << launch.dump();
    EXPECT_EQ(launch["nb"], 64);
    EXPECT_EQ(launch["base"], 8);
    EXPECT_THAT(launch["detail"].get<std::string>(), AllOf(HasSubstr(db), HasSubstr("swept on 64")));
  }
  std::filesystem::remove_all(db);
}

}  // namespace
}  // namespace gpubench::lu
