// The LU suite end to end on the ViennaCL backends (viennacl: its OpenCL domain, PoCL here;
// viennacl_host: its OpenMP domain): vendor is ViennaCL's lu_factorize, which does not pivot, so
// it verifies on diagonally dominant inputs in both precisions and is refused, with the reason,
// on the others.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/kernels/lu/lu_test_support.hpp"

namespace gpubench::lu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace test_support;

const std::set<std::string> both = {"viennacl/vendor/f32", "viennacl/vendor/f64", "viennacl_host/vendor/f32",
                                    "viennacl_host/vendor/f64"};

TEST(LuViennacl, VendorVerifiesDominantMatricesOfManyOrders) {
  for (int n : {1, 2, 3, 17, 64, 100, 256}) {
    const std::string problem = std::to_string(n) + ":dd";
    const LuRun r = lu_run("--backend viennacl,viennacl_host --precision f32,f64 --problem " + problem);
    ASSERT_EQ(r.exit_code, 0) << problem << ":\n" << r.output;
    EXPECT_EQ(verified_points(r, problem, n), both) << problem;
    for (const auto& b : r.records["benchmarks"]) EXPECT_EQ(b["params"]["library"], "ViennaCL 1.7 lu_factorize");
  }
  const std::string file =
      "mtx:" + write_coordinate("dominant100.mtx", 100, [](std::int64_t i, std::int64_t j) {
        return (i * 7 + j * 3) % 5 == 0 || i == j ? dominant(100, i, j) : 0.0;
      });
  const LuRun r = lu_run("--backend viennacl,viennacl_host --precision f32,f64 --problem " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(verified_points(r, file, 100), both);
}

// Random, zero-diagonal and real (1138_bus) matrices: nothing to run (exit 3), each backend's
// line saying that its library does not pivot and why the matrix needs it. Order 1 runs.
TEST(LuViennacl, MatricesThatNeedPivotingAreRefusedWithTheReason) {
  const std::string swap2 = write_array("swap2.mtx", 2, [](std::int64_t i, std::int64_t j) { return i == j ? 0.0 : 1.0; });
  for (const std::string& problem : {std::string("100"), std::string("17"), "mtx:" + swap2, "mtx:" + test::matrix_dir() + "/1138_bus.mtx"}) {
    const LuRun r = lu_run("--backend viennacl,viennacl_host --precision f32,f64 --problem " + problem);
    EXPECT_EQ(r.exit_code, 3) << problem << ":\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("nothing to run for LU problem " + problem + ":"));
    for (const char* backend : {"viennacl", "viennacl_host"})
      EXPECT_THAT(r.output, HasSubstr(std::string("vendor on ") + backend + " (ViennaCL 1.7 lu_factorize) does not pivot, and " +
                                      problem + ": the matrix is not diagonally dominant"))
          << problem;
  }
  const LuRun one = lu_run("--backend viennacl,viennacl_host --precision f32,f64 --problem 1");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(verified_points(one, "1", 1), both);
}

// Weakly dominant and singular: lu_factorize runs and fails naming column 2.
TEST(LuViennacl, AWeaklyDominantSingularMatrixFailsNamingTheColumn) {
  const std::string path =
      write_array("weak3.mtx", 3, [](std::int64_t i, std::int64_t j) { return (i < 2 && j < 2) || i == j ? 1.0 : 0.0; });
  const LuRun r = lu_run("--backend viennacl,viennacl_host --precision f32,f64 --problem mtx:" + path);
  EXPECT_EQ(singular_points(r, 2), both);
}

TEST(LuViennacl, APlantedWrongResultFailsThatPointOnly) {
  const LuRun r = lu_run("--backend viennacl,viennacl_host --precision f32,f64 --problem 64:dd",
                       "GPUBENCH_LU_WRONG_RESULT=viennacl_host:0/vendor/f32");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  ASSERT_TRUE(r.records.is_object()) << r.output;
  ASSERT_EQ(r.records["failed_benchmarks"].size(), 1u) << r.records["failed_benchmarks"].dump();
  EXPECT_EQ(r.records["failed_benchmarks"][0]["name"], "lu/64:dd/viennacl_host:0/vendor/f32");
  EXPECT_THAT(r.records["failed_benchmarks"][0]["error_message"].get<std::string>(),
              AllOf(HasSubstr("HPL's scaled residual"), HasSubstr("must be < 16")));
  EXPECT_EQ(r.records["benchmarks"].size(), 3u);
}

}  // namespace
}  // namespace gpubench::lu
