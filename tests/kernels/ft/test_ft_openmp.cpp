// NAS FT end to end on the openmp backend: classes S and W verify against NAS's checksums on
// every variant; a planted wrong evolve factor fails verification.
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

nlohmann::json records(const std::string& args, const std::string& env, int expected_exit) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("gpubench_ft_" + std::to_string(::getpid()) + ".json")).string();
  const test::Result r =
      test::gpubench("--suite ft --backend openmp --repetitions 1 --breakdown --format json --out " + out + " " + args, env);
  EXPECT_EQ(r.exit_code, expected_exit) << r.output;
  std::ifstream f(out);
  nlohmann::json j = f ? nlohmann::json::parse(f) : nlohmann::json();
  std::filesystem::remove(out);
  return j;
}

TEST(FtSuite, ClassesSAndWVerifyOnEveryOpenmpVariant) {
  for (const char* cls : {"S", "W"}) {
    const nlohmann::json j = records(std::string("--problem ") + cls, "", 0);
    std::set<std::string> variants;
    for (const auto& b : j["benchmarks"]) {
      if (b["run_type"] != "iteration") continue;
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      EXPECT_THAT(b["verification"].get<std::string>(), HasSubstr("checksums within 1e-12 of NAS's"));
      variants.insert(b["variant"].get<std::string>());
    }
    EXPECT_TRUE(variants.count("nas") && variants.count("serial")) << cls;
  }
}

TEST(FtSuite, APlantedWrongTwiddleFailsVerification) {
  const nlohmann::json j = records("--problem S --variant nas", "GPUBENCH_FT_WRONG_TWIDDLE=1", 1);
  ASSERT_FALSE(j["failed_benchmarks"].empty());
  EXPECT_THAT(j["failed_benchmarks"][0]["error_message"].get<std::string>(), HasSubstr("relative error"));
}

TEST(FtSuite, SinglePrecisionAndUnknownClassesAreRefused) {
  EXPECT_EQ(test::gpubench("--suite ft --backend openmp --problem S --precision f32").exit_code, 2);
  const test::Result r = test::gpubench("--suite ft --backend openmp --problem Q");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("valid classes are S, W, A, B, C, D"));
}

}  // namespace
}  // namespace gpubench::ft
