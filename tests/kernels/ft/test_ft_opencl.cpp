// NAS FT end to end on opencl (PoCL without a GPU): the study's v1 and v2, our fast and VkFFT
// verify classes S and W against NAS's checksums; a planted wrong evolve factor fails verification in
// each; every radix and lines-per-group of fast's space verifies (a sweep).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_paths.hpp"

namespace gpubench::ft {
namespace {

using ::testing::HasSubstr;

nlohmann::json opencl_records(const std::string& args, const std::string& env, int expected_exit) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("gpubench_ft_cl_" + std::to_string(::getpid()) + ".json")).string();
  const test::Result r = test::gpubench(
      "--suite ft --backend opencl --variant v1,v2,fast,vendor --repetitions 1 --breakdown --format json --out " + out + " " + args, env);
  EXPECT_EQ(r.exit_code, expected_exit) << r.output;
  std::ifstream f(out);
  nlohmann::json j = f ? nlohmann::json::parse(f) : nlohmann::json();
  std::filesystem::remove(out);
  return j;
}

TEST(FtOpencl, EveryVariantVerifiesClassesSAndW) {
  for (const char* cls : {"S", "W"}) {
    const nlohmann::json j = opencl_records(std::string("--problem ") + cls, "", 0);
    int points = 0;
    for (const auto& b : j["benchmarks"]) {
      if (b["run_type"] != "iteration") continue;
      ++points;
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      // NAS's per-function rows: the study's cffts1/2/3 table comes from these.
      std::set<std::string> kernels;
      for (const auto& k : b["kernels"]) kernels.insert(k["kernel"].get<std::string>());
      const bool fast = b["variant"] == "fast", vendor = b["variant"] == "vendor";
      for (const char* k : {"setup", "cffts1", "cffts2", "cffts3", "evolve", "checksum"}) {
        const bool expected = std::string(k) == "evolve" ? !fast : std::string(k).starts_with("cffts") ? !vendor : true;
        EXPECT_EQ(kernels.count(k), expected ? 1u : 0u) << k << " in " << b["kernels"].dump();
      }
      EXPECT_EQ(kernels.count("fft"), vendor ? 1u : 0u);  // the library's whole 3-D transforms
      EXPECT_EQ(kernels.count("rotate"), b["variant"] == "v2" ? 1u : 0u);  // v2's rotations, a row of their own
    }
    EXPECT_EQ(points, 4) << cls;
  }
}

TEST(FtOpencl, APlantedWrongTwiddleFailsVerification) {
  const nlohmann::json j = opencl_records("--problem S", "GPUBENCH_FT_WRONG_TWIDDLE=1", 1);
  ASSERT_EQ(j["failed_benchmarks"].size(), 4u) << j.dump();
  for (const auto& f : j["failed_benchmarks"])
    EXPECT_THAT(f["error_message"].get<std::string>(), HasSubstr("relative error"));
}

// The other OpenCL FFT library: --fft-library clfft verifies S and W, and the records name it.
TEST(FtOpencl, ClfftVerifiesClassesSAndW) {
  for (const char* cls : {"S", "W"}) {
    const nlohmann::json j = opencl_records(std::string("--problem ") + cls + " --fft-library clfft", "", 0);
    int points = 0;
    for (const auto& b : j["benchmarks"]) {
      if (b["run_type"] != "iteration" || b["variant"] != "vendor") continue;
      ++points;
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      EXPECT_THAT(b["params"]["library"].get<std::string>(), ::testing::StartsWith("clFFT ")) << b["params"].dump();
    }
    EXPECT_EQ(points, 1) << cls;
  }
}

// Every shape of fast's space along each axis (radix 4, 8, 16 with 1 to 64 lines per group),
// each verified by the sweeper against NAS's checksums before it is timed.
TEST(FtOpencl, EveryFastShapeVerifiesInASweep) {
  const std::string db = (std::filesystem::temp_directory_path() / ("gpubench_ft_db_" + std::to_string(::getpid()))).string();
  const test::Result r = test::gpubench("sweep --suite ft --backend opencl --problem S --tuning-db " + db, "");
  std::filesystem::remove_all(db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* k : {"cffts1", "cffts2", "cffts3"}) EXPECT_THAT(r.output, HasSubstr(k));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("VerificationError")));
  EXPECT_THAT(r.output, ::testing::ContainsRegex("cffts3 +[0-9.]+\\*? +[0-9.]+ +lines=[0-9]+ radix=[0-9]+ .* [0-9]+ +0\n"));
}

}  // namespace
}  // namespace gpubench::ft
