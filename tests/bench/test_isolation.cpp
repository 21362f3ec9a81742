// Crash isolation, as a user meets it: a point whose driver, compiler or kernel aborts, segfaults
// or hangs (planted with the test-only GPUBENCH_FAULT hook) is FAILED with the reason, every other
// point is still measured and verified, the --out file is complete, and the exit code is 1.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_paths.hpp"

namespace {

using gpubench::test::gpubench;
using gpubench::test::Result;
using testing::HasSubstr;

using gpubench::test::temp_path;

struct Fault {
  std::string kind;      // GPUBENCH_FAULT's KIND
  std::string backends;  // the run's --backend
  std::string reason;    // what the FAILED line says
};

class PlantedFault : public testing::TestWithParam<Fault> {};

TEST_P(PlantedFault, CostsOnePointOfAMultiPointRun) {
  const Fault& f = GetParam();
  const std::string out = temp_path(f.kind + ".json");
  const std::string victim = "cg/poisson2d:32/openmp:0/form1/f64";
  // A hang is caught by --point-timeout; 5 s is far beyond a normal point of this size.
  const Result r = gpubench("--suite cg --backend " + f.backends +
                            " --problem poisson2d:32 --iterations 10 --repetitions 2 --point-timeout 5 "
                            "--format json --out " + out,
                            "GPUBENCH_FAULT=" + f.kind + "@openmp:0/form1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(victim + " FAILED: crashed: " + f.reason));
  EXPECT_THAT(r.output, HasSubstr("going on in a new worker process"));

  std::ifstream in(out);
  ASSERT_TRUE(in) << "no --out file: " << r.output;
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_TRUE(j.at("context").contains("devices"));
  std::map<std::string, int> verified, failed;  // iteration entries per point
  nlohmann::json entries = j.at("benchmarks");
  for (const auto& b : j.at("failed_benchmarks")) entries.push_back(b);
  for (const auto& b : entries) {
    if (b.at("run_type") != "iteration") continue;
    const std::string point = b.at("suite").get<std::string>() + "/" + b.at("problem").get<std::string>() + "/" +
                              b.at("backend").get<std::string>() + ":" + std::to_string(b.at("device_index").get<int>()) +
                              "/" + b.at("variant").get<std::string>() + "/" + b.at("precision").get<std::string>();
    if (b.at("verified").get<bool>()) {
      ++verified[point];
    } else {
      ++failed[point];
      EXPECT_EQ(point, victim);
      EXPECT_TRUE(b.value("error_occurred", false));
      EXPECT_THAT(b.value("error_message", ""), HasSubstr(f.reason));
    }
  }
  EXPECT_EQ(failed[victim], 2);
  const int backends = f.backends.find(',') == std::string::npos ? 1 : 2;
  EXPECT_EQ(verified.size(), static_cast<std::size_t>(3 * backends - 1)) << r.output;  // classic, form1, form2 each
  for (const auto& [point, n] : verified) EXPECT_EQ(n, 2) << point;
  std::filesystem::remove(out);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, PlantedFault,
                         testing::Values(Fault{"abort", "openmp,opencl", "killed by signal 6 (SIGABRT"},
                                         Fault{"segv", "openmp,opencl", "killed by signal 11 (SIGSEGV"},
                                         Fault{"hang", "openmp", "hung: no progress for 5 s"}),
                         [](const auto& p) { return p.param.kind; });

TEST(Isolation, WithoutTheFaultEveryPointVerifiesAndNothingIsSaidOfWorkers) {
  const Result r = gpubench("--suite cg --backend openmp --problem poisson2d:16 --iterations 5 --repetitions 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("worker")));
  EXPECT_THAT(r.output, testing::Not(HasSubstr("FAILED")));
}

TEST(Isolation, OffRunsInProcessWhereAFaultEndsTheRun) {
  // The hook is real: without isolation the planted abort takes the whole process down.
  const Result r = gpubench("--suite cg --backend openmp --problem poisson2d:16 --iterations 5 --repetitions 1 "
                            "--isolate off",
                            "GPUBENCH_FAULT=abort@openmp:0/form1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("form2/f64 verified")));
}

TEST(Isolation, AMalformedFaultSpecIsAUsageErrorNamingIt) {
  const Result r = gpubench("--suite cg --backend openmp --problem poisson2d:16 --iterations 5 --repetitions 1",
                            "GPUBENCH_FAULT=explode@form1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("GPUBENCH_FAULT: unknown kind 'explode'"));
}

TEST(Isolation, PointTimeoutMustBePositive) {
  const Result r = gpubench("--suite cg --backend openmp --point-timeout 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--point-timeout"));
}

}  // namespace

namespace {

class PlantedSweepFault : public testing::TestWithParam<Fault> {};

TEST_P(PlantedSweepFault, CostsOneConfigurationAndTheBestStillLandsInTheDatabase) {
  const Fault& f = GetParam();
  const std::string db = temp_path("sweep-db-" + f.kind), out = temp_path("sweep-" + f.kind + ".json");
  std::filesystem::create_directories(db);
  const std::string victim = "work_group_size=64,work_groups_per_cu=2";
  const Result r = gpubench("sweep --suite cg --backend opencl --problem poisson2d:64 --kernel axpy "
                            "--param work_group_size=32,64 --param work_groups_per_cu=1:3 --exhaustive "
                            "--point-timeout 5 --tuning-db " + db + " --format json --out " + out,
                            "GPUBENCH_FAULT=" + f.kind + "@/axpy/" + victim);
  ASSERT_THAT(r.output, HasSubstr("sweep poisson2d:64 on opencl:0"));
  EXPECT_EQ(r.exit_code, 0) << r.output;  // every kernel still found its best configuration
  EXPECT_THAT(r.output, HasSubstr("going on in a new worker process"));

  std::ifstream in(out);
  ASSERT_TRUE(in) << "no --out file: " << r.output;
  const nlohmann::json j = nlohmann::json::parse(in);
  const auto& configs = j.at("sweeps").at(0).at("kernels").at(0).at("configs");
  EXPECT_EQ(configs.size(), 6u);  // 2 sizes x 3 WG/CU, the crashed one included, none twice
  int crashed = 0, verified = 0;
  for (const auto& c : configs) {
    if (c.at("status") == "crashed") {
      ++crashed;
      EXPECT_EQ(c.at("params").at("work_group_size"), 64);
      EXPECT_EQ(c.at("params").at("work_groups_per_cu"), 2);
      EXPECT_THAT(c.at("reason").get<std::string>(), HasSubstr(f.reason));
    } else {
      verified += c.at("status") == "verified" ? 1 : 0;
    }
  }
  EXPECT_EQ(crashed, 1);
  EXPECT_EQ(verified, 5);

  // The database holds the best entry and reads back.
  const Result show = gpubench("tuning show --tuning-db " + db);
  EXPECT_EQ(show.exit_code, 0) << show.output;
  EXPECT_THAT(show.output, HasSubstr("axpy"));
  std::filesystem::remove_all(db);
  std::filesystem::remove(out);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, PlantedSweepFault,
                         testing::Values(Fault{"abort", "opencl", "killed by signal 6 (SIGABRT"},
                                         Fault{"segv", "opencl", "killed by signal 11 (SIGSEGV"},
                                         Fault{"hang", "opencl", "hung: no progress for 5 s"}),
                         [](const auto& p) { return p.param.kind; });

}  // namespace
