// Runs the gpubench binary as a user would and checks what it prints, writes and exits with.
#include <gtest/gtest.h>

#include "tests/test_paths.hpp"
#include <gmock/gmock.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace {

using testing::HasSubstr;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Result gpubench(const std::string& args) {
  const std::string cmd = gpubench::test::gpubench_binary() + " " + args + " 2>&1";
  Result r;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe.get())) r.output += buf.data();
  const int status = pclose(pipe.release());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpubench_e2e_" + std::to_string(getpid()) + "_" + name)).string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

TEST(EndToEnd, JsonHasGoogleBenchmarkLayoutAndOurFields) {
  const std::string out = temp_path("run.json");
  const Result r = gpubench("--suite cg --backend all --problem poisson2d:40 --iterations 20 --repetitions 2 "
                            "--format json --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("speedup"));  // the table still goes to stdout
  const nlohmann::json j = read_json(out);
  const auto& ctx = j.at("context");
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "library_build_type", "gpubench_version",
                          "gpubench_commit", "devices"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  ASSERT_FALSE(ctx["devices"].empty());
  for (const auto& d : ctx["devices"])
    for (const char* key : {"api", "platform", "vendor", "name", "compute_units", "driver"})
      EXPECT_TRUE(d.contains(key)) << key;

  int iterations = 0, aggregates = 0;
  std::set<std::string> backends, variants, rows;
  for (const auto& b : j.at("benchmarks")) {
    for (const char* key : {"name", "run_name", "run_type", "real_time", "cpu_time", "time_unit", "suite", "problem",
                            "backend", "device", "variant", "precision", "verified", "kernels", "params"})
      ASSERT_TRUE(b.contains(key)) << key << " missing in " << b.dump();
    EXPECT_EQ(b["problem"], "poisson2d:40");
    EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
    EXPECT_FALSE(b.contains("error_occurred"));
    EXPECT_GT(b["real_time"].get<double>(), 0);
    backends.insert(b["backend"].get<std::string>());
    variants.insert(b["variant"].get<std::string>());
    rows.insert(b["backend"].get<std::string>() + "/" + b["variant"].get<std::string>());
    if (b["run_type"] == "iteration") {
      ++iterations;
      EXPECT_EQ(b["cg_iterations"], 20);
      EXPECT_GT(b["gflops"].get<double>(), 0);
      EXPECT_GT(b["gbps"].get<double>(), 0);
      EXPECT_LT(b["true_residual"].get<double>(), 1.0);
    } else {
      ++aggregates;
      EXPECT_TRUE(b.contains("aggregate_name"));
    }
    // The per-kernel breakdown names the kernels of the variant and ends with the overhead; the
    // algorithm's own variants start with the SpMV, a library's may time its solver as one row.
    ASSERT_FALSE(b["kernels"].empty());
    EXPECT_EQ(b["kernels"].back()["kernel"], "overhead");
    if (b["variant"] != "vendor") {
      EXPECT_EQ(b["kernels"].front()["kernel"], "spmv");
    }
  }
  // Every backend runs the three forms; vendor rows appear where a backend has a library.
  variants.erase("vendor");
  EXPECT_EQ(variants, (std::set<std::string>{"classic", "form1", "form2"}));
  for (const auto& backend : backends)
    for (const char* v : {"/classic", "/form1", "/form2"}) EXPECT_TRUE(rows.contains(backend + v)) << backend + v;
  EXPECT_EQ(iterations, static_cast<int>(2 * rows.size()));
  EXPECT_GT(aggregates, 0);
  std::filesystem::remove(out);
}

TEST(EndToEnd, GoogleBenchmarkComparePyReadsOurJson) {
  const char* compare = "/usr/share/benchmark/compare.py";
  if (!std::filesystem::exists(compare) || std::system("/usr/bin/python3 -c 'import scipy' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "compare.py or python3-scipy not installed (scripts/setup installs both)";
  const std::string a = temp_path("a.json"), b = temp_path("b.json");
  const std::string args = "--backend openmp --variant classic --problem poisson2d:32 --iterations 10 --repetitions 3 "
                           "--format json --out ";
  ASSERT_EQ(gpubench(args + a).exit_code, 0);
  ASSERT_EQ(gpubench(args + b).exit_code, 0);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen(("/usr/bin/python3 " + std::string(compare) + " benchmarks " + a + " " + b + " 2>&1").c_str(), "r"), pclose);
  std::string output;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe.get())) output += buf.data();
  const int status = pclose(pipe.release());
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  EXPECT_THAT(output, HasSubstr("cg/poisson2d:32/openmp:0/classic/f64"));
  EXPECT_THAT(output, HasSubstr("_median"));
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

TEST(EndToEnd, CsvIsFlatWithAHeader) {
  const Result r = gpubench("--backend openmp --variant form2 --problem poisson2d:16 --iterations 5 --repetitions 1 "
                            "--format csv 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("name,suite,problem,backend"));
  EXPECT_THAT(r.output, HasSubstr("cg/poisson2d:16/openmp:0/form2/f64"));
}

TEST(EndToEnd, BaselineRowHasSpeedupOne) {
  const Result r = gpubench("--backend openmp --variant classic,form2 --problem poisson2d:24 --iterations 5 "
                            "--repetitions 1 --baseline openmp:0:form2 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("speedup against openmp:0:form2"));
  std::string form2_row;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("openmp:0 ", 0) == 0 && line.find(" form2 ") != std::string::npos && form2_row.empty())
      form2_row = line;
  EXPECT_THAT(form2_row, HasSubstr(" 1.00x"));
}

TEST(EndToEnd, ListDevicesShowsTheFactsThatMatter) {
  const Result r = gpubench("--list-devices");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"openmp:", "compute units", "max work-group", "global memory", "local memory", "fp64", "driver"})
    EXPECT_THAT(r.output, HasSubstr(s));
}

TEST(EndToEnd, AFailedPointIsReportedWithoutNumbersAndExitsNonZero) {
  // Symmetric but indefinite: CG breaks down. The point fails; nothing is printed as a figure.
  const std::string out = temp_path("fail.json");
  const Result r = gpubench(std::string("--backend openmp --variant classic --problem mtx:") + gpubench::test::test_data_dir() +
                            "/e2e_indefinite.mtx --iterations 10 --repetitions 2 --format json --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAILED"));
  EXPECT_THAT(r.output, HasSubstr("breakdown"));
  const nlohmann::json j = read_json(out);
  ASSERT_FALSE(j["benchmarks"].empty());
  for (const auto& b : j["benchmarks"]) {
    EXPECT_TRUE(b.value("error_occurred", false));
    EXPECT_THAT(b["error_message"].get<std::string>(), HasSubstr("breakdown"));
    EXPECT_FALSE(b["verified"].get<bool>());
  }
  std::filesystem::remove(out);
}

TEST(EndToEnd, BadInputGetsAClearErrorAndItsExitCode) {
  struct Bad {
    std::string args;
    int exit_code;
    std::string message;
  };
  const std::string data = gpubench::test::test_data_dir();
  const std::vector<Bad> bad = {
      {"--backend metal", 2, "valid in this build"},
      {"--variant fastest", 2, "valid: classic, form1, form2, vendor, all"},
      {"--problem mtx:/no/such/file.mtx --backend openmp", 3, "/no/such/file.mtx"},
      {"--problem poisson2d:zero --backend openmp", 3, "poisson2d:zero"},
      {"--problem cube:5 --backend openmp", 3, "poisson2d:N"},
      {"--problem npb:Q --backend openmp", 3, "S"},
      {"--backend openmp --device 7", 4, "no device 7"},
      {"--backend openmp --problem poisson2d:30000", 3, "nonzeros"},
      {"--backend openmp --problem poisson2d:8 --baseline nosuch:vendor", 2, "matches no planned row"},
      {"--backend openmp --problem poisson2d:8 --baseline openmp:x:classic", 2, "must be an index"},
      {"--backend openmp --variant vendor --problem poisson2d:8", 2, "no vendor CG library"},
  };
  for (const auto& b : bad) {
    const Result r = gpubench(b.args);
    EXPECT_EQ(r.exit_code, b.exit_code) << b.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(b.message)) << b.args;
    EXPECT_THAT(r.output, testing::Not(HasSubstr("GFLOP/s"))) << b.args;
  }
}

TEST(EndToEnd, ProblemTooLargeForTheMachineIsRefusedBeforeAllocating) {
  // 400M rows and 2G nonzeros: about 45 GB on the host in f64.
  std::ifstream meminfo("/proc/meminfo");
  long available_kb = 0;
  for (std::string key; meminfo >> key;)
    if (key == "MemAvailable:") meminfo >> available_kb;
  if (available_kb > 40L * 1024 * 1024) GTEST_SKIP() << "this host has the memory to hold poisson2d:20000";
  const Result r = gpubench("--backend openmp --problem poisson2d:20000");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("GB"));
  EXPECT_THAT(r.output, HasSubstr("needs"));
}

}  // namespace
