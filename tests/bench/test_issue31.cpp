// Issue 31, items 6, 9, 10 and 11: ceilings that say where they were measured and are stored only
// when a second trial confirms them, the host's cache from Linux's topology; an address-space
// limit that hangs nothing (the host BLAS loaded only when called); devices of several backends in
// one run and a point filter; progress inside long steps, and a sweep's total that stays.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "backends/openmp/openmp.hpp"
#include "bench/harness.hpp"
#include "bench/progress.hpp"
#include "bench/records.hpp"
#include "bench/roofline.hpp"
#include "bench/tuning_db.hpp"
#include "tests/test_paths.hpp"

namespace gpubench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("gpubench_i31_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

// ------------------------------------------------------------------------------- item 6: ceilings

// A fake /sys/devices/system/cpu: L1d, L1i, L2 per CPU, and L3 shared by `l3_sharing` CPUs each.
fs::path fake_topology(const std::string& name, int cpus, const std::vector<std::string>& l3_sharing) {
  const fs::path root = temp_dir(name);
  for (int cpu = 0; cpu < cpus; ++cpu) {
    const fs::path cache = root / ("cpu" + std::to_string(cpu)) / "cache";
    const std::string self = std::to_string(cpu);
    const std::vector<std::array<std::string, 4>> levels = {{"1", "Data", "32K", self},
                                                            {"1", "Instruction", "32K", self},
                                                            {"2", "Unified", "1024K", self},
                                                            {"3", "Unified", "32768K", l3_sharing[static_cast<std::size_t>(cpu)]}};
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const fs::path index = cache / ("index" + std::to_string(i));
      write(index / "level", levels[i][0]);
      write(index / "type", levels[i][1]);
      write(index / "size", levels[i][2]);
      write(index / "shared_cpu_list", levels[i][3]);
    }
  }
  return root;
}

// sysconf said 320 MiB on a 2-core EPYC VM whose L3 (lscpu, /sys) is 32 MiB.
TEST(HostCache, IsTheLastLevelFromLinuxTopologyTimesItsInstances) {
  const fs::path one = fake_topology("one_l3", 2, {"0-1", "0-1"});
  EXPECT_EQ(openmp::last_level_cache_bytes(one.string()), 32ull << 20);
  const fs::path two = fake_topology("two_l3", 4, {"0-1", "0-1", "2-3", "2-3"});  // two sockets
  EXPECT_EQ(openmp::last_level_cache_bytes(two.string()), 64ull << 20);
  fs::remove_all(one);
  fs::remove_all(two);
  // This machine's, where it has the topology: what lscpu reads.
  std::ifstream size("/sys/devices/system/cpu/cpu0/cache/index3/size");
  if (size) {
    EXPECT_LE(openmp::last_level_cache_bytes("/sys/devices/system/cpu"), 1ull << 30);
  }
}

// Without /sys's topology, CPUID's figure through sysconf: an AMD core reaches only its CCD's L3
// (96 MiB at most), so a 2-core VM whose CPUID says 508 MiB has at most 192 MiB.
TEST(HostCache, CpuidsFigureIsBoundedByTheCcdsAnAmdCoreReaches) {
  EXPECT_EQ(openmp::cpuid_cache_bound(508ull << 20, "AuthenticAMD", 2), 192ull << 20);
  EXPECT_EQ(openmp::cpuid_cache_bound(32ull << 20, "AuthenticAMD", 2), 32ull << 20);
  EXPECT_EQ(openmp::cpuid_cache_bound(1152ull << 20, "AuthenticAMD", 96), 1152ull << 20);
  EXPECT_EQ(openmp::cpuid_cache_bound(504ull << 20, "GenuineIntel", 2), 504ull << 20);
  EXPECT_EQ(openmp::cpuid_cache_bound(508ull << 20, "AuthenticAMD", 0), 508ull << 20);
  EXPECT_EQ(openmp::cpuid_cache_bound(0, "AuthenticAMD", 2), 0u);
}

Ceilings trial(double gbps, double f32, double f64) {
  Ceilings c;
  c.copy_gbps = c.triad_gbps = gbps;
  c.f32_gflops = f32;
  c.f64_gflops = f64;
  c.backend = "fake";
  return c;
}

TEST(CeilingTrials, TheBestStandsOnlyWhereASecondTrialConfirmsIt) {
  // The issue's host: f64 trials of 47, 40 and 6.6 GFLOP/s. The best, 47, is confirmed by 40.
  EXPECT_EQ(unconfirmed_ceilings({trial(30, 90, 47), trial(31, 91, 40), trial(30, 92, 6.6)}), "");
  const Ceilings c = combine_trials({trial(30, 90, 47), trial(31, 91, 40), trial(30, 92, 6.6)});
  EXPECT_EQ(c.f64_gflops, 47);
  EXPECT_EQ(c.worst_f64_gflops, 6.6);
  EXPECT_EQ(c.worst_bandwidth_gbps, 30);
  EXPECT_EQ(c.trials, 3);
  // One lucky trial far above the others is not a ceiling.
  const std::string why = unconfirmed_ceilings({trial(30, 90, 47), trial(31, 91, 20), trial(30, 92, 21)});
  EXPECT_THAT(why, HasSubstr("f64 47.0, 20.0, 21.0 GFLOP/s"));
  EXPECT_THAT(why, Not(HasSubstr("f32")));
  EXPECT_THAT(unconfirmed_ceilings({trial(90, 90, 47), trial(30, 91, 46), trial(31, 92, 45)}), HasSubstr("bandwidth"));
}

// A probe whose trials never agree: after ceiling_max_trials its best is stored marked UNCONFIRMED,
// and the table says so; one whose trials agree is stored unmarked, with the machine it was
// measured on.
TEST(CeilingTrials, UnconfirmedCeilingsAreRemeasuredThenMarked) {
  static int calls = 0;
  static double f64 = 0;
  register_ceiling_probe("fake_unsteady", [](const DeviceInfo&, std::ostream&) {
    ++calls;
    return trial(30, 90, calls == 1 ? 100 : f64);
  });
  DeviceInfo d;
  d.backend = "fake_unsteady";
  d.name = "an unsteady device";
  d.api = "fake";
  const fs::path dir = temp_dir("unsteady_db");
  TuningDb db(dir.string());
  std::ostringstream log;
  f64 = 10;
  const auto c = device_ceilings(d, &db, false, log);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->f64_gflops, 100);
  EXPECT_EQ(calls, ceiling_max_trials);
  EXPECT_THAT(log.str(), HasSubstr("were not confirmed in 6 trials (f64 100.0, 10.0"));
  ASSERT_TRUE(db.ceilings(d).has_value());
  EXPECT_THAT(db.ceilings(d)->unconfirmed, HasSubstr("f64 100.0, 10.0, 10.0"));
  RunReport report;
  report.points.push_back(PointResult{});
  PointResult& p = report.points.back();
  p.id.suite = "cg";
  p.id.backend = "fake_unsteady";
  p.id.device = d;
  p.repetitions.push_back({1e-3, 1, true, "ok", nlohmann::json::object()});
  p.median_seconds_per_iteration = 1e-3;
  p.ceilings = *db.ceilings(d);
  std::ostringstream table;
  write_table(report, table, "", false);
  EXPECT_THAT(table.str(), HasSubstr("UNCONFIRMED ceilings"));
  EXPECT_THAT(table.str(), HasSubstr("fake_unsteady:0: f64 100.0, 10.0"));

  calls = 0;
  f64 = 99;  // the second trial confirms the first
  std::ostringstream steady;
  const auto stored = device_ceilings(d, &db, true, steady);
  EXPECT_EQ(calls, ceiling_trials);
  ASSERT_TRUE(db.ceilings(d).has_value()) << steady.str();
  EXPECT_EQ(db.ceilings(d)->host, this_host());
  EXPECT_EQ(db.ceilings(d)->unconfirmed, "");
  fs::remove_all(dir);
}

PointResult point_with_ceilings(const std::string& host) {
  PointResult p;
  p.id.suite = "cg";
  p.id.problem = "poisson2d:64";
  p.id.backend = "openmp";
  p.id.variant = "classic";
  p.id.device.backend = "openmp";
  p.id.device.name = "host";
  p.repetitions.push_back({1e-3, 1, true, "ok", nlohmann::json::object()});
  p.median_seconds_per_iteration = 1e-3;
  p.flops_per_iteration = p.bytes_per_iteration = 1e6;
  Ceilings c = trial(30, 90, 45);
  c.backend = "openmp";
  c.date = "2026-11-20T00:00:00+0000";
  c.host = host;
  p.ceilings = c;
  return p;
}

TEST(CeilingTrials, TheTableSaysWhichMachineMeasuredThemAndWarnsWhenNotThisOne) {
  RunReport here, elsewhere, unknown;
  here.points.push_back(point_with_ceilings(this_host()));
  elsewhere.points.push_back(point_with_ceilings("a-2-core-pocl-vm"));
  unknown.points.push_back(point_with_ceilings(""));
  std::ostringstream a, b, c;
  write_table(here, a, "", false);
  write_table(elsewhere, b, "", false);
  write_table(unknown, c, "", false);
  EXPECT_THAT(a.str(), HasSubstr("on " + this_host() + " with openmp kernels"));
  EXPECT_THAT(a.str(), Not(HasSubstr("WARNING")));
  EXPECT_THAT(b.str(), HasSubstr("WARNING: ceilings measured on another machine than this one"));
  EXPECT_THAT(b.str(), HasSubstr("openmp:0 (a-2-core-pocl-vm)"));
  EXPECT_THAT(c.str(), HasSubstr("the machine was not recorded"));
}

// ------------------------------------------------------------------ item 9: address-space limits

// Under `ulimit -v` (KiB), with a tuning database of its own (so that the probes run under the
// limit too): the command's exit code, or 124 when it did not end within the time limit.
test::Result limited(const std::string& kib, const std::string& args, const std::string& db) {
  return test::gpubench(args, "GPUBENCH_TUNING_DB=" + db + " sh -c 'ulimit -v " + kib + "; exec timeout 300 \"$0\" \"$@\"' ");
}

TEST(AddressSpaceLimit, NothingHangsAndTheBlasIsLoadedOnlyWhenCalled) {
  const std::string ldd = [] {
    std::string out;
    FILE* pipe = ::popen(("ldd " + test::gpubench_binary()).c_str(), "r");
    char buf[512];
    while (pipe && std::fgets(buf, sizeof buf, pipe)) out += buf;
    if (pipe) ::pclose(pipe);
    return out;
  }();
  EXPECT_THAT(ldd, Not(HasSubstr("libopenblas")));
  EXPECT_THAT(ldd, Not(HasSubstr("liblapack")));
  EXPECT_THAT(ldd, Not(HasSubstr("libcudart")));
  EXPECT_THAT(ldd, Not(HasSubstr("libcublas")));

  const fs::path db = temp_dir("limited_db");
  for (const std::string kib : {"1500000", "2600000"}) {
    const auto version = limited(kib, "--version", db.string());
    EXPECT_EQ(version.exit_code, 0) << kib << ": " << version.output;
    // The first run measures the ceilings under the limit: its arrays fit what the limit leaves.
    const auto run = limited(kib, "--suite gemm --backend openmp --problem 64 --repetitions 2", db.string());
    EXPECT_EQ(run.exit_code, 0) << kib << ": " << run.output;
    EXPECT_THAT(run.output, Not(HasSubstr("found no"))) << run.output;
    const auto vendor =
        limited(kib, "--suite gemm --backend openmp --problem 64 --variant vendor --repetitions 2", db.string());
    EXPECT_THAT(vendor.exit_code, testing::AnyOf(0, 4)) << kib << ": " << vendor.output;  // never a hang (124)
    if (vendor.exit_code == 4) {
      EXPECT_THAT(vendor.output, HasSubstr("memory")) << vendor.output;
    }
    fs::remove_all(db);
    fs::create_directories(db);
  }
  fs::remove_all(db);
}

nlohmann::json run_json(const std::string& args, test::Result* result);

// The host BLAS a vendor point ran is in its records: which OpenBLAS, its core, its threads.
TEST(AddressSpaceLimit, TheVendorPointsRecordTheBlasThatRan) {
  test::Result r;
  const auto j = run_json("--suite gemm --backend openmp --problem 64 --variant vendor --repetitions 2", &r);
  if (r.output.find("no BLAS library was found") != std::string::npos) GTEST_SKIP() << "no OpenBLAS in this build";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gpubench: the host BLAS: OpenBLAS"));
  int entries = 0;
  for (const auto& b : j.at("benchmarks"))
    if (b.at("run_type") == "iteration") {
      ++entries;
      EXPECT_THAT(b.value("library_mode", std::string()), testing::AllOf(HasSubstr("OpenBLAS"), HasSubstr(", core ")));
    }
  EXPECT_EQ(entries, 2);
}

// --------------------------------------------------- item 10: devices of several backends, filter

nlohmann::json run_json(const std::string& args, test::Result* result) {
  const fs::path dir = temp_dir("run_json");
  const std::string out = (dir / "run.json").string();
  const test::Result r = test::gpubench(args + " --format json --out " + out);
  if (result) *result = r;
  nlohmann::json j;
  if (std::ifstream f(out); f) j = nlohmann::json::parse(f, nullptr, false);
  fs::remove_all(dir);
  return j;
}

std::set<std::string> point_names(const nlohmann::json& j) {
  std::set<std::string> names;
  if (!j.is_object()) return names;
  for (const auto& b : j.value("benchmarks", nlohmann::json::array())) names.insert(b.at("run_name").get<std::string>());
  return names;
}

TEST(SeveralBackends, EachNamedDeviceIsAPointOfItsOwn) {
  test::Result r;
  const auto j = run_json("--suite ep --problem S --variant reduce --repetitions 2 --backend openmp:0,opencl:0", &r);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(point_names(j), (std::set<std::string>{"ep/npb:S/openmp:0/reduce/f64", "ep/npb:S/opencl:0/reduce/f64"}))
      << r.output;
  const auto bad = test::gpubench("--suite ep --problem S --backend openmp:7");
  EXPECT_EQ(bad.exit_code, 4) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("no device 7 on backend 'openmp'"));
  const auto both = test::gpubench("--suite ep --problem S --backend openmp:0 --device 0");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_THAT(both.output, HasSubstr("names its devices"));
  const auto twice = test::gpubench("--suite ep --problem S --backend openmp:0,openmp:0");
  EXPECT_EQ(twice.exit_code, 2) << twice.output;
  EXPECT_THAT(twice.output, HasSubstr("names openmp:0 twice"));
  const auto listed = test::gpubench("--list-devices --backend openmp:0");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_THAT(listed.output, HasSubstr("[0]"));
  const auto roof = test::gpubench("roofline --backend openmp:0");
  EXPECT_EQ(roof.exit_code, 0) << roof.output;
}

TEST(PointFilter, RunsOnlyTheMatchingPointsAndNamesThePlannedOnesWhenNoneMatches) {
  test::Result r;
  const auto j = run_json("--suite ep --problem S --backend openmp --repetitions 2 --filter 'par.*s/f64$'", &r);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(point_names(j), (std::set<std::string>{"ep/npb:S/openmp:0/partials/f64"})) << r.output;
  const auto none = test::gpubench("--suite ep --problem S --backend openmp --filter nothing-like-this");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_THAT(none.output, HasSubstr("matches none of the planned points"));
  EXPECT_THAT(none.output, HasSubstr("ep/npb:S/openmp:0/serial/f64"));
  const auto bad = test::gpubench("--suite ep --problem S --filter '('");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("is not a regular expression"));
}

// -------------------------------------------------------------------------- item 11: progress

TEST(Progress, ALongStepIsSaidWhileItRunsAndWhenItEnds) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  progress::set_subject("cg/poisson2d:4096/openmp:0/form1/f64");
  {
    const progress::Phase quick("a short step");
  }
  {
    const progress::Phase phase("setting up");
    std::this_thread::sleep_for(std::chrono::duration<double>(progress::quiet_s + 1.5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  std::cerr.rdbuf(old);
  const std::string text = captured.str();
  EXPECT_THAT(text, Not(HasSubstr("a short step")));
  EXPECT_THAT(text, HasSubstr("gpubench:   cg/poisson2d:4096/openmp:0/form1/f64: setting up ("));
  EXPECT_THAT(text, HasSubstr(" s so far)"));
  EXPECT_THAT(text, HasSubstr("setting up done in"));
}

TEST(Progress, ASweepsTotalStaysAsItGoes) {
  const fs::path db = temp_dir("sweep_db");
  const auto r = test::gpubench("sweep --suite cg --backend opencl --problem poisson2d:64 --kernel axpy --tuning off",
                                "GPUBENCH_TUNING_DB=" + db.string());
  fs::remove_all(db);
  if (r.output.find("no devices") != std::string::npos) GTEST_SKIP() << "no OpenCL device: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::regex counter(R"(axpy \[(\d+)/(\d+))");
  std::set<std::string> totals;
  int lines = 0;
  for (std::sregex_iterator m(r.output.begin(), r.output.end(), counter), end; m != end; ++m, ++lines)
    totals.insert((*m)[2].str());
  ASSERT_GT(lines, 3) << r.output;
  EXPECT_EQ(totals.size(), 1u) << "the sweep's total changed as it went:\n" << r.output;
}

}  // namespace
}  // namespace gpubench
