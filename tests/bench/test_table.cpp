// Issue 12, section 2: tables a person can use. The overhead row is never negative, "% roof"
// above 100 is marked and explained, time-to-solution speedups under a tolerance, columns sized
// to their contents, and the ceilings measured in several trials with their spread.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "backends/ceilings.hpp"
#include "bench/format.hpp"
#include "bench/harness.hpp"
#include "bench/records.hpp"
#include "bench/roofline.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"

namespace gpubench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The one point of the fake suite below. (Not inlined, and the warning off here: GCC 12 warns,
// wrongly, of an overlapping memcpy in the string assignments below.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
[[gnu::noinline]] PointId fake_id() {
  PointId id;
  id.suite = "fake";
  id.problem = "p";
  id.backend = "openmp";
  id.variant = "v";
  id.device.backend = "openmp";
  id.device.name = "test host";
  return id;
}
#pragma GCC diagnostic pop

// A point whose profiled pass is told what its kernels and the pass took.
class ProfiledPoint final : public Point {
 public:
  ProfiledPoint(Profile profile, double timed_seconds) : Point(fake_id()), profile_(std::move(profile)), timed_(timed_seconds) {}
  void prepare() override {}
  Outcome run() override { return {timed_, 1, true, "exact", nlohmann::json::object()}; }
  Profile profile() override { return profile_; }
  double flops_per_iteration() const override { return 1e6; }
  double bytes_per_iteration() const override { return 1e6; }
  std::string time_includes() const override { return "nothing"; }
  void release() override {}

 private:
  Profile profile_;
  double timed_;
};

double overhead_of(Profile profile, double timed) {
  Plan plan;
  plan.points.push_back(std::make_unique<ProfiledPoint>(std::move(profile), timed));
  std::ostringstream log;
  const RunReport report = run_plan(plan, 2, {}, log);
  const auto& kernels = report.points.at(0).kernels;
  EXPECT_EQ(kernels.back().kernel, "overhead");
  return kernels.back().seconds_per_iteration;
}

// The overhead is the profiled pass's own time outside its kernels, not the timed iteration's:
// kernels timed alone can take longer than the timed iteration (PoCL form2 read -24%), and that
// cannot make the overhead negative.
TEST(Table, OverheadIsThePassOutsideItsKernelsAndNeverNegative) {
  const std::vector<KernelRow> kernels = {{"spmv", 1, 4e-3, 0, 0}, {"dot", 2, 2e-3, 0, 0}};
  EXPECT_NEAR(overhead_of({kernels, 7e-3}, 5e-3), 1e-3, 1e-12);  // the timed iteration is faster
  EXPECT_NEAR(overhead_of({kernels, 6e-3}, 9e-3), 0, 1e-12);
  EXPECT_EQ(overhead_of({kernels, 5.9e-3}, 9e-3), 0);  // device events a hair past the host clock
}

PointResult verified_point(const std::string& variant, double seconds_per_iteration, int iterations) {
  PointResult p;
  p.id.suite = "cg";
  p.id.problem = "poisson2d:64";
  p.id.backend = "openmp";
  p.id.variant = variant;
  p.id.device.name = "a device whose name is much longer than any column would have guessed";
  p.id.device.backend = "openmp";
  p.id.device.cache_bytes = 32u << 20;
  for (int r = 0; r < 3; ++r)
    p.repetitions.push_back({seconds_per_iteration * iterations, iterations, true, "ok", nlohmann::json::object()});
  p.median_seconds_per_iteration = seconds_per_iteration;
  p.flops_per_iteration = 1e6;
  p.bytes_per_iteration = 8e6;
  return p;
}

// With --tolerance, variants converge in different iteration counts: a variant that is faster
// per iteration can be slower to the solution, and the speedup says which is faster to solve.
TEST(Table, SpeedupIsByTimeToSolutionWhenIterationCountsDiffer) {
  RunReport report;
  report.points.push_back(verified_point("classic", 1e-3, 100));  // 100 ms to the solution
  report.points.push_back(verified_point("form1", 0.5e-3, 400));  // faster per iteration, 200 ms
  std::ostringstream out;
  write_table(report, out);
  EXPECT_THAT(out.str(), HasSubstr("by time to solution: the variants took different iteration counts"));
  std::istringstream lines(out.str());
  std::string form1;
  for (std::string line; std::getline(lines, line);)
    if (line.find(" form1 ") != std::string::npos) form1 = line;
  EXPECT_THAT(form1, HasSubstr(" 400 "));
  EXPECT_THAT(form1, HasSubstr("0.50x"));  // not the 2.00x of time per iteration

  RunReport same;
  same.points.push_back(verified_point("classic", 1e-3, 100));
  same.points.push_back(verified_point("form1", 0.5e-3, 100));
  std::ostringstream per_iteration;
  write_table(same, per_iteration);
  EXPECT_THAT(per_iteration.str(), HasSubstr("2.00x"));
  EXPECT_THAT(per_iteration.str(), Not(HasSubstr("time to solution")));
}

// Issue 58 item 6: a 0.0017x speedup said as that, not "0.00x".
TEST(Table, ASmallSpeedupKeepsTwoSignificantDigits) {
  EXPECT_EQ(ratio(2.0), "2.00x");
  EXPECT_EQ(ratio(0.123), "0.12x");
  EXPECT_EQ(ratio(0.0017), "0.0017x");
  EXPECT_EQ(ratio(0.05), "0.050x");
  RunReport report;
  report.points.push_back(verified_point("classic", 1e-3, 100));
  report.points.push_back(verified_point("form1", 1e-3 / 0.0017, 100));
  std::ostringstream out;
  write_table(report, out);
  EXPECT_THAT(out.str(), HasSubstr(" 0.0017x "));
  EXPECT_THAT(out.str(), Not(HasSubstr("0.00x")));
}

// A cache-resident problem can beat the DRAM roof: marked and explained, never a bare "648.0".
TEST(Table, AboveTheRoofIsMarkedAndExplained) {
  RunReport report;
  PointResult p = verified_point("classic", 1e-3, 10);  // 8 GB/s of declared traffic
  Ceilings c;
  c.copy_gbps = c.triad_gbps = 4;  // a roof at half of it
  c.f32_gflops = c.f64_gflops = 1000;
  c.trials = 3;
  c.worst_bandwidth_gbps = 2.5;
  c.backend = "openmp";
  p.ceilings = c;
  report.points.push_back(p);
  std::ostringstream out;
  write_table(report, out);
  EXPECT_THAT(out.str(), HasSubstr("200.0*"));
  EXPECT_THAT(out.str(), HasSubstr("8.00 MB moved per iteration, within the device's 34 MB last-level cache"));
  EXPECT_THAT(out.str(), HasSubstr("best of 3 (worst 2.5 GB/s)"));
  // The long device name is whole, and the next column starts after it.
  EXPECT_THAT(out.str(), HasSubstr("a device whose name is much longer than any column would have guessed  classic"));
}

// Issue 56 item 5: a point that takes a slower path than another API's says so, and what forces
// it, under the table (each cause once, though every repetition carries it).
TEST(Table, SlowerPathsThanAnotherApisAreSaidWithWhatForcesThem) {
  RunReport report;
  PointResult p = verified_point("form1", 1e-3, 10);
  for (Outcome& o : p.repetitions)
    o.fields["gap_causes"] = nlohmann::json::array({gap_cause("api", "slices of x in 48 KiB of local memory"),
                                                    gap_cause("gpubench", "no subgroup shuffles")});
  report.points.push_back(p);
  report.points.push_back(verified_point("classic", 1e-3, 10));
  std::ostringstream out;
  write_table(report, out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("slower paths than another API's on the device (gpubench report models: the ledger):\n"
                              "  openmp:0 form1: slices of x in 48 KiB of local memory [forced by the api]\n"
                              "  openmp:0 form1: no subgroup shuffles [gpubench's choice]\n"));
  EXPECT_EQ(text.find("[forced by the api]"), text.rfind("[forced by the api]"));
  EXPECT_THROW(gap_cause("vendor", "x"), Error);

  RunReport none;
  none.points.push_back(verified_point("classic", 1e-3, 10));
  std::ostringstream plain;
  write_table(none, plain);
  EXPECT_THAT(plain.str(), Not(HasSubstr("slower paths")));
}

TEST(Table, TextTableSizesColumnsToTheirContents) {
  TextTable t({"backend", "GB/s"}, {false, true});
  t.add({"viennacl_host:0", "35.8"});
  t.add({"cuda:0", "3012.4"});
  std::ostringstream out;
  t.print(out);
  EXPECT_EQ(out.str(), "backend            GB/s\nviennacl_host:0    35.8\ncuda:0           3012.4\n");
}

// The ceilings are the best of several whole probes, with the worst trial kept as the spread.
TEST(Table, CeilingsAreTheBestOfSeveralTrials) {
  static int call = 0;
  static const double bandwidths[] = {36.9, 42.2, 16.4};  // the best, 42.2, confirmed by 36.9
  register_ceiling_probe("trials-test", [](const DeviceInfo&, std::ostream&) {
    Ceilings c;
    c.copy_gbps = bandwidths[call % 3];
    c.triad_gbps = bandwidths[call % 3] - 1;
    c.f32_gflops = 100 + call;
    c.f64_gflops = 50 + call;
    c.backend = "trials-test";
    ++call;
    return c;
  });
  DeviceInfo d;
  d.backend = "trials-test";
  d.name = "probe test";
  std::ostringstream log;
  const auto c = device_ceilings(d, nullptr, true, log);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(call, ceiling_trials);
  EXPECT_EQ(c->trials, ceiling_trials);
  EXPECT_DOUBLE_EQ(c->copy_gbps, 42.2);
  EXPECT_DOUBLE_EQ(c->worst_bandwidth_gbps, 16.4);
  EXPECT_DOUBLE_EQ(c->f32_gflops, 102);
  EXPECT_EQ(trials_text(*c), "best of 3 (worst 16.4 GB/s)");
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

// A point whose runs take the times given, in turn (the last repeated), counting its runs.
class ScriptedPoint final : public Point {
 public:
  explicit ScriptedPoint(std::vector<double> seconds) : Point(fake_id()), seconds_(std::move(seconds)) {}
  void prepare() override {}
  Outcome run() override {
    const double s = seconds_[std::min(runs, seconds_.size() - 1)];
    ++runs;
    return {s, 1, true, "exact", nlohmann::json::object()};
  }
  Profile profile() override { return {}; }
  double flops_per_iteration() const override { return 1e6; }
  double bytes_per_iteration() const override { return 1e6; }
  std::string time_includes() const override { return "nothing"; }
  void release() override {}
  std::size_t runs = 0;

 private:
  std::vector<double> seconds_;
};

// Issue 31 item 7: one repetition at 11.9 ms among others at 0.06 ms is shown, not hidden behind
// the median.
TEST(Table, ShowsTheSpreadAndFlagsOutliers) {
  std::vector<double> times = {6.0e-5, 6.1e-5, 5.9e-5, 11.9e-3, 6.0e-5, 6.2e-5, 5.9e-5, 6.05e-5, 5.95e-5};
  Plan plan;
  plan.points.push_back(std::make_unique<ScriptedPoint>(times));
  std::ostringstream log, table;
  const RunReport report = run_plan(plan, 9, {}, log);
  const PointResult& p = report.points.at(0);
  ASSERT_EQ(p.outlier_seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(p.outlier_seconds[0], 11.9e-3);
  EXPECT_GT(p.iqr_fraction, 0);
  EXPECT_LT(p.iqr_fraction, 0.1);
  write_table(report, table, "", false);
  EXPECT_THAT(table.str(), HasSubstr("spread"));
  EXPECT_THAT(table.str(), HasSubstr("1 outlier* (11.9 ms)"));
  EXPECT_THAT(table.str(), HasSubstr("hyperfine's rule"));
  // The records carry them too.
  std::ostringstream json;
  write_json(report, json);
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j.at("benchmarks").at(0).at("outliers"), 1);

  // Steady repetitions: no outlier, no footnote.
  Plan steady;
  steady.points.push_back(std::make_unique<ScriptedPoint>(std::vector<double>{6e-5, 6.1e-5, 5.9e-5, 6e-5}));
  std::ostringstream quiet;
  write_table(run_plan(steady, 4, {}, log), quiet, "", false);
  EXPECT_THAT(quiet.str(), Not(HasSubstr("outlier")));
}

// --warmup N runs each point N times untimed first; --min-time S repeats a repetition's run until it
// has taken S seconds, and the time per iteration is over all of them.
TEST(Table, WarmupAndMinTime) {
  Plan plan;
  auto owned = std::make_unique<ScriptedPoint>(std::vector<double>{1.0, 1.0, 1.0, 0.01});
  ScriptedPoint* point = owned.get();
  plan.points.push_back(std::move(owned));
  std::ostringstream log, table;
  const RunReport report = run_plan(plan, Timing{2, 3, 0.045}, {}, log);
  // 3 warm-up runs (1 s each, untimed); then each repetition takes 0.01 s runs until 0.045 s: 5 runs.
  EXPECT_EQ(point->runs, 3u + 2u * 5u);
  const PointResult& p = report.points.at(0);
  ASSERT_EQ(p.repetitions.size(), 2u);
  EXPECT_EQ(p.repetitions[0].iterations, 5);
  EXPECT_NEAR(p.median_seconds_per_iteration, 0.01, 1e-12);
  EXPECT_EQ(p.repetitions[0].fields.at("runs_in_repetition"), 5);
  EXPECT_EQ(report.context.at("warmup_runs"), 3);
  write_table(report, table, "", false);
  EXPECT_THAT(table.str(), HasSubstr("median of 2 repetitions, each at least 0.045 s of runs after 3 warm-up runs"));
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

// Issue 32 item 1: every rate is its own time's. Two repetitions of 1 and 3 ms: the median time is
// 2 ms, whose rate is 0.5 GFLOP/s (not the median of the rates, 0.667); each repetition's % roof
// is its own.
TEST(Table, EveryRateIsTheRateOfTheTimeBesideIt) {
  Plan plan;
  plan.points.push_back(std::make_unique<ScriptedPoint>(std::vector<double>{1e-3, 3e-3}));
  Ceilings c;
  c.copy_gbps = c.triad_gbps = 100;
  c.f32_gflops = c.f64_gflops = 1000;
  std::ostringstream log, json;
  const RunReport report = run_plan(plan, 2, {{"openmp:0", c}}, log);
  write_json(report, json);
  const auto j = nlohmann::json::parse(json.str());
  std::map<std::string, nlohmann::json> by;
  std::vector<double> roof;
  for (const auto& b : j.at("benchmarks")) {
    if (b.at("run_type") == "aggregate") by[b.at("aggregate_name")] = b;
    else roof.push_back(b.at("roofline_pct").get<double>());
  }
  EXPECT_NEAR(by.at("median").at("real_time").get<double>(), 2e6, 1e-3);
  EXPECT_NEAR(by.at("median").at("gflops").get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(by.at("mean").at("gflops").get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(by.at("median").at("gbps").get<double>(), 0.5, 1e-12);
  ASSERT_EQ(roof.size(), 2u);
  EXPECT_NEAR(roof[0], 3 * roof[1], 1e-9);  // 1 ms is 3x the rate of 3 ms
  EXPECT_NEAR(by.at("median").at("roofline_pct").get<double>(), 1.5 * roof[1], 1e-9);  // 2 ms: 1.5x 3 ms's rate
}

}  // namespace
}  // namespace gpubench
