// NAS FT end to end on cuda (skipped without a CUDA device): v1, v2, fast and cuFFT verify
// classes S and W against NAS's checksums; a planted wrong evolve factor fails each; every shape
// of fast's space verifies (a sweep).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/cuda/cuda.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::ft {
namespace {

using ::testing::HasSubstr;

constexpr const char* no_device = "no CUDA device on this machine";

nlohmann::json cuda_records(const std::string& args, const std::string& env, int expected_exit) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("gpubench_ft_cuda_" + std::to_string(::getpid()) + ".json")).string();
  const test::Result r = test::gpubench(
      "--suite ft --backend cuda --variant v1,v2,fast,vendor --repetitions 1 --breakdown --format json --out " + out + " " +
          args,
      env);
  EXPECT_EQ(r.exit_code, expected_exit) << r.output;
  std::ifstream f(out);
  nlohmann::json j = f ? nlohmann::json::parse(f) : nlohmann::json();
  std::filesystem::remove(out);
  return j;
}

class FtCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::list_devices().empty()) GTEST_SKIP() << no_device;
  }
};

TEST_F(FtCuda, EveryVariantVerifiesClassesSAndW) {
  for (const char* cls : {"S", "W"}) {
    const nlohmann::json j = cuda_records(std::string("--problem ") + cls, "", 0);
    std::set<std::string> variants;
    for (const auto& b : j["benchmarks"]) {
      if (b["run_type"] != "iteration") continue;
      variants.insert(b["variant"].get<std::string>());
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      std::set<std::string> kernels;
      for (const auto& k : b["kernels"]) kernels.insert(k["kernel"].get<std::string>());
      const std::string v = b["variant"].get<std::string>();
      if (v == "vendor") EXPECT_TRUE(kernels.count("fft")) << b["kernels"].dump();
      else EXPECT_TRUE(kernels.count("cffts1") && kernels.count("cffts2") && kernels.count("cffts3")) << b["kernels"].dump();
    }
    EXPECT_EQ(variants, (std::set<std::string>{"v1", "v2", "fast", "vendor"})) << cls;
  }
}

TEST_F(FtCuda, APlantedWrongTwiddleFailsVerification) {
  const nlohmann::json j = cuda_records("--problem S", "GPUBENCH_FT_WRONG_TWIDDLE=1", 1);
  ASSERT_EQ(j["failed_benchmarks"].size(), 4u) << j.dump();
  for (const auto& f : j["failed_benchmarks"])
    EXPECT_THAT(f["error_message"].get<std::string>(), HasSubstr("relative error"));
}

TEST_F(FtCuda, EveryFastShapeVerifiesInASweep) {
  const std::string db = (std::filesystem::temp_directory_path() / ("gpubench_ft_cudadb_" + std::to_string(::getpid()))).string();
  const test::Result r = test::gpubench("sweep --suite ft --backend cuda --problem W --tuning-db " + db, "");
  std::filesystem::remove_all(db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("VerificationError")));
  EXPECT_THAT(r.output, ::testing::ContainsRegex("cffts3 +[0-9.]+\\*? +[0-9.]+ +lines=[0-9]+ radix=[0-9]+ .* [0-9]+ +0\n"));
}

}  // namespace
}  // namespace gpubench::ft
