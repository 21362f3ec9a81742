// The sweeper's search, bookkeeping and --param parsing, on a fake kernel whose time per
// configuration is a known function: what it visits and what it reports can be checked exactly.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

#include <unistd.h>

#include "common/errors.hpp"
#include "bench/sweep.hpp"
#include "kernels/launch_grid.hpp"

namespace gpubench {
namespace {

using testing::HasSubstr;

class FakeKernel final : public TunableKernel {
 public:
  // `time(wg, per_cu)`: seconds per call; a negative value throws `failure(wg, per_cu)`.
  std::function<double(int, int)> time;
  std::function<void(int, int)> failure = [](int, int) {};
  std::vector<Params> visited;
  bool per_cu = true;

  std::string name() const override { return "fake"; }
  TunableSpace tunables() const override {
    TunableSpace t{{Tunable::powers_of_two("work_group_size", 32, 256)}, {}};
    if (per_cu) {  // as CG's kernels declare it: walked by default
      t.params.push_back(Tunable::range("work_groups_per_cu", 1, 20));
      t.strategy = "walk";
    }
    return t;
  }
  Params heuristic() const override { return per_cu ? Params{{"work_group_size", 64}, {"work_groups_per_cu", 8}} : Params{{"work_group_size", 64}}; }
  TuningKey key() const override { return {"test", "fake", Precision::f64, {{"rows", 10}, {"nnz", 12}}}; }
  double flops_per_call() const override { return 2e6; }
  double bytes_per_call() const override { return 8e6; }
  KernelTiming measure(const Params& p, double) override {
    visited.push_back(p);
    const int wg = p.at("work_group_size");
    const int n = per_cu ? p.at("work_groups_per_cu") : 0;
    failure(wg, n);
    const double t = time(wg, n);
    return {t, {t, t, t}};
  }
};

SweepTarget target_of(std::unique_ptr<FakeKernel> k) {
  SweepTarget t;
  t.device.backend = "fake";
  t.device.name = "fake device";
  t.problem = "fake:1";
  t.kernels.push_back(std::move(k));
  return t;
}

SweepReport run(SweepTarget& t, SweepOptions o = {}) {
  std::ostringstream log;
  return sweep(t, o, std::nullopt, log, false);
}

TEST(Sweep, StopsWalkingWorkGroupsPerCuOnceStepsStopImproving) {
  auto k = std::make_unique<FakeKernel>();
  // Improves up to 5 WG/CU, then flat: 5 + patience (3) steps per size.
  k->time = [](int wg, int n) { return 1e-3 / std::min(n, 5) + wg * 1e-9; };
  FakeKernel* fake = k.get();
  auto t = target_of(std::move(k));
  const SweepReport r = run(t);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(fake->visited.size(), 4u * 8u);  // sizes 32, 64, 128, 256; WG/CU 1..8 each
  const auto& ks = r.kernels[0];
  ASSERT_GE(ks.best, 0);
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.best)].params, (Params{{"work_group_size", 32}, {"work_groups_per_cu", 5}}));
  ASSERT_GE(ks.baseline, 0);
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.baseline)].params,
            (Params{{"work_group_size", 32}, {"work_groups_per_cu", 1}}));
  const double t1 = 1e-3 + 32e-9, tb = 1e-3 / 5 + 32e-9;
  EXPECT_NEAR(ks.reduction_pct(), 100 * (t1 - tb) / t1, 1e-9);
}

TEST(Sweep, ImprovementsWithinNoiseDoNotKeepTheWalkGoing) {
  auto k = std::make_unique<FakeKernel>();
  k->time = [](int, int n) { return 1e-3 * (1 - 0.001 * n); };  // 0.1% per step: noise (1%)
  FakeKernel* fake = k.get();
  auto t = target_of(std::move(k));
  SweepOptions o;
  o.params = {{"work_group_size", {64}}};
  run(t, o);
  EXPECT_EQ(fake->visited.size(), 4u);  // 1, then three steps within noise
}

TEST(Sweep, ExhaustiveWalksTheWholeRange) {
  auto k = std::make_unique<FakeKernel>();
  k->time = [](int, int) { return 1e-3; };
  FakeKernel* fake = k.get();
  auto t = target_of(std::move(k));
  SweepOptions o;
  o.strategy = "exhaustive";
  run(t, o);
  EXPECT_EQ(fake->visited.size(), 4u * 20u);
}

TEST(Sweep, ExplicitValuesAreAllVisited) {
  auto k = std::make_unique<FakeKernel>();
  k->time = [](int, int) { return 1e-3; };
  FakeKernel* fake = k.get();
  auto t = target_of(std::move(k));
  SweepOptions o;
  o.params = {parse_param("work_group_size=64,256"), parse_param("work_groups_per_cu=2:4,9,15")};
  run(t, o);
  ASSERT_EQ(fake->visited.size(), 10u);
  EXPECT_EQ(fake->visited[4], (Params{{"work_group_size", 64}, {"work_groups_per_cu", 15}}));
  EXPECT_EQ(fake->visited[5], (Params{{"work_group_size", 256}, {"work_groups_per_cu", 2}}));
}

TEST(Sweep, FailuresAreRecordedWithTheirReasonAndTheSweepGoesOn) {
  auto k = std::make_unique<FakeKernel>();
  k->time = [](int wg, int n) { return 1e-3 / n + wg * 1e-9; };
  k->failure = [](int wg, int n) {
    if (wg == 256) throw DeviceError("kernel fake: work-group size 256 exceeds the largest");
    if (wg == 64 && n == 2) throw VerificationError("fake output 0: max relative error 1e-2");
    if (wg == 128 && n == 3) throw Error(ExitCode::point_failed, "one call took 3 s, over the time limit of 2 s");
  };
  FakeKernel* fake = k.get();
  auto t = target_of(std::move(k));
  SweepOptions o;
  o.params = {parse_param("work_groups_per_cu=1:4")};
  const SweepReport r = run(t, o);
  // 32, 64 and 128 walk 1..4; 256 fails at 1 WG/CU and is not walked further.
  EXPECT_EQ(fake->visited.size(), 13u);
  std::map<std::string, int> statuses;
  for (const auto& c : r.kernels[0].configs) {
    ++statuses[c.status];
    if (!c.ok()) {
      EXPECT_FALSE(c.reason.empty());
    }
  }
  EXPECT_EQ(statuses["verified"], 10);
  EXPECT_EQ(statuses["launch failed"], 1);
  EXPECT_EQ(statuses["wrong result"], 1);
  EXPECT_EQ(statuses["time limit"], 1);
  std::ostringstream table;
  write_sweep_table({r}, table);
  EXPECT_THAT(table.str(), HasSubstr("work_group_size=64 work_groups_per_cu=2: wrong result: fake output 0"));
  EXPECT_THAT(table.str(), HasSubstr("work_group_size=256 work_groups_per_cu=1: launch failed"));
  const auto j = sweep_json({r});
  EXPECT_EQ(j[0]["kernels"][0]["configs"].size(), 13u);
}

TEST(Sweep, WithoutWorkGroupsPerCuTheBaselineIsTheHeuristic) {
  auto k = std::make_unique<FakeKernel>();
  k->per_cu = false;
  k->time = [](int wg, int) { return 1e-3 * 64 / wg; };
  auto t = target_of(std::move(k));
  const SweepReport r = run(t);
  const auto& ks = r.kernels[0];
  ASSERT_EQ(ks.configs.size(), 4u);
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.best)].params.at("work_group_size"), 256);
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.baseline)].params.at("work_group_size"), 64);
  EXPECT_NEAR(ks.reduction_pct(), 75, 1e-9);
  const auto entries = best_entries(r, "2026-11-23", "abc");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].params, (nlohmann::json{{"work_group_size", 256}}));
  EXPECT_NEAR(entries[0].seconds, 0.25e-3, 1e-12);
  EXPECT_NEAR(entries[0].baseline_seconds, 1e-3, 1e-12);
  EXPECT_EQ(entries[0].key.text(), TuningKey({"test", "fake", Precision::f64, {{"rows", 10}, {"nnz", 12}}}).text());
}

TEST(Sweep, NoEntryForAKernelWithoutAVerifiedConfiguration) {
  auto k = std::make_unique<FakeKernel>();
  k->time = [](int, int) { return 1e-3; };
  k->failure = [](int, int) { throw VerificationError("always wrong"); };
  auto t = target_of(std::move(k));
  SweepOptions o;
  o.params = {parse_param("work_group_size=32"), parse_param("work_groups_per_cu=1")};
  const SweepReport r = run(t, o);
  EXPECT_EQ(r.kernels[0].best, -1);
  EXPECT_TRUE(best_entries(r, "", "").empty());
}

TEST(Sweep, RefusesParamsOutsideTheLegalRangeOrUnknown) {
  auto k = std::make_unique<FakeKernel>();
  k->time = [](int, int) { return 1e-3; };
  auto t = target_of(std::move(k));
  SweepOptions o;
  o.params = {parse_param("work_group_size=48")};
  EXPECT_THROW(run(t, o), UsageError);
  o.params = {parse_param("work_group_size=512")};
  EXPECT_THROW(run(t, o), UsageError);
  o.params = {parse_param("work_groups_per_cu=0:3")};
  EXPECT_THROW(run(t, o), UsageError);
  o.params = {parse_param("tile=4")};
  try {
    run(t, o);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("work_group_size, work_groups_per_cu"));
  }
}

// A kernel with three parameters and a constraint between two (a tiled kernel's shape), and
// optionally a wide fourth; its time is a smooth function of them with one optimum, and each
// measurement costs `cost` seconds of a fake clock.
class TiledKernel final : public TunableKernel {
 public:
  bool wide = false;  // adds unroll 1..64: 1728 legal configurations, beyond the whole-space limit
  double clock = 0, cost = 1;
  std::vector<Params> visited;

  static TunableSpace space(bool wide) {
    TunableSpace s{{Tunable::list("tile", {8, 16, 32}), Tunable::powers_of_two("work_group_size", 32, 1024),
                    Tunable::list("vector_width", {1, 2, 4})},
                   {{"tile * tile <= work_group_size",
                     [](const Params& p) { return p.at("tile") * p.at("tile") <= p.at("work_group_size"); }}}};
    if (wide) s.params.push_back(Tunable::range("unroll", 1, 64));
    return s;
  }
  std::string name() const override { return "tiled"; }
  TunableSpace tunables() const override { return space(wide); }
  Params heuristic() const override {
    Params p{{"tile", 8}, {"work_group_size", 64}, {"vector_width", 1}};
    if (wide) p["unroll"] = 1;
    return p;
  }
  TuningKey key() const override { return TuningKey::of_sizes("test", "tiled", Precision::f32, {{"n", 1024}}); }
  double flops_per_call() const override { return 1e6; }
  double bytes_per_call() const override { return 1e6; }
  KernelTiming measure(const Params& p, double) override {
    visited.push_back(p);
    clock += cost;
    const double t = time(p);
    return {t, {t, t, t}};
  }
  // Smallest at tile 16, work-group 256, vector width 4, unroll 40; every step towards it gains
  // more than the sweeper's 1% noise.
  static double time(const Params& p) {
    const auto log2 = [](int v) { return std::log2(static_cast<double>(v)); };
    double t = 1 + 0.2 * std::abs(log2(p.at("work_group_size")) - 8) + 0.2 * std::abs(log2(p.at("tile")) - 4) +
               0.2 * std::abs(log2(p.at("vector_width")) - 2);
    if (p.count("unroll")) t += 0.1 * std::abs(p.at("unroll") - 40);
    return 1e-3 * t;
  }
};

// The sweep of one TiledKernel, kept with the kernel (the target owns it).
struct TiledRun {
  SweepTarget target;
  TiledKernel* fake = nullptr;
  SweepReport report;
};

TiledRun run_tiled(bool wide, SweepOptions o = {}) {
  TiledRun r;
  auto k = std::make_unique<TiledKernel>();
  k->wide = wide;
  r.fake = k.get();
  o.clock = [fake = r.fake] { return fake->clock; };
  r.target.device.backend = "fake";
  r.target.device.name = "fake device";
  r.target.problem = "fake:1";
  r.target.kernels.push_back(std::move(k));
  std::ostringstream log;
  r.report = sweep(r.target, o, std::nullopt, log, false);
  return r;
}

TEST(Sweep, ASmallSpaceIsWalkedWholeAndIllegalConfigurationsAreNeverMeasured) {
  const TiledRun run = run_tiled(false);
  const TiledKernel* fake = run.fake;
  const SweepReport& r = run.report;
  // Legal: tile 8 with work-groups 64..1024 (5), 16 with 256..1024 (3), 32 with 1024 (1); x 3 widths.
  EXPECT_EQ(fake->visited.size(), 27u);
  const TunableSpace space = TiledKernel::space(false);
  EXPECT_EQ(space.size(), 54u);
  std::set<Params> distinct;
  for (const Params& p : fake->visited) {
    EXPECT_TRUE(space.legal(p)) << format_params(p);
    distinct.insert(p);
  }
  EXPECT_EQ(distinct.size(), 27u);
  const auto& ks = r.kernels[0];
  EXPECT_EQ(ks.strategy, "auto: exhaustive");
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.best)].params,
            (Params{{"tile", 16}, {"work_group_size", 256}, {"vector_width", 4}}));
  // Without WG/CU the baseline is the heuristic; the table names every parameter of the best.
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.baseline)].params, fake->heuristic());
  std::ostringstream table;
  write_sweep_table({r}, table);
  EXPECT_THAT(table.str(), HasSubstr("tile=16 vector_width=4 work_group_size=256"));
  EXPECT_THAT(table.str(), HasSubstr("best parameters"));
  const auto j = sweep_json({r});
  EXPECT_EQ(j[0]["kernels"][0]["best"], (nlohmann::json{{"tile", 16}, {"vector_width", 4}, {"work_group_size", 256}}));
  EXPECT_EQ(best_entries(r, "", "")[0].params["tile"], 16);
}

TEST(Sweep, ALargeSpaceIsSearchedWithinItsTimeBudget) {
  SweepOptions o;
  o.time_budget_s = 20;  // each measurement costs 1 s of the fake clock
  const TiledRun run = run_tiled(true, o);
  const TiledKernel* fake = run.fake;
  const SweepReport& r = run.report;
  EXPECT_EQ(r.kernels[0].strategy, "auto: bayes");
  EXPECT_TRUE(r.kernels[0].budget_spent);
  EXPECT_EQ(fake->visited.size(), 20u);  // every one started within the budget, and no more
  for (const Params& p : fake->visited) EXPECT_TRUE(TiledKernel::space(true).legal(p)) << format_params(p);
  EXPECT_EQ(fake->visited.front(), fake->heuristic());
  std::ostringstream table;
  write_sweep_table({r}, table);
  EXPECT_THAT(table.str(), HasSubstr("tiled: the budget (--max-evals, --time-budget) ran out"));
}

// A small space whose every configuration is slow (a large problem) is searched within the
// budget too: the heuristic's time says the whole walk would not fit.
TEST(Sweep, ASmallSpaceThatWouldOverrunTheBudgetIsSearchedWithinIt) {
  SweepOptions o;
  o.time_budget_s = 10;  // each measurement costs 1 s of the fake clock: 27 would take 27 s
  const TiledRun run = run_tiled(false, o);
  const auto& ks = run.report.kernels[0];
  EXPECT_EQ(ks.strategy, "auto: bayes");
  EXPECT_TRUE(ks.budget_spent);
  EXPECT_EQ(run.fake->visited.front(), run.fake->heuristic());
  EXPECT_EQ(run.fake->visited.size(), 10u);
  std::set<Params> distinct(run.fake->visited.begin(), run.fake->visited.end());
  EXPECT_EQ(distinct.size(), run.fake->visited.size());  // the heuristic is not measured twice
}

TEST(Sweep, TheSearchFindsTheOptimumOfASmoothLandscapeWithoutWalkingItAll) {
  SweepOptions o;
  o.time_budget_s = 1e9;
  const TiledRun run = run_tiled(true, o);
  const TiledKernel* fake = run.fake;
  const SweepReport& r = run.report;
  const auto& ks = r.kernels[0];
  EXPECT_FALSE(ks.budget_spent);
  EXPECT_EQ(ks.configs[static_cast<std::size_t>(ks.best)].params,
            (Params{{"tile", 16}, {"work_group_size", 256}, {"vector_width", 4}, {"unroll", 40}}));
  EXPECT_LT(fake->visited.size(), 1728u / 4);
  std::set<Params> distinct(fake->visited.begin(), fake->visited.end());
  EXPECT_EQ(distinct.size(), fake->visited.size());  // nothing measured twice

  // The same seed visits the same configurations; another seed draws another sample.
  EXPECT_EQ(run_tiled(true, o).fake->visited, fake->visited);
  o.seed = 2;
  EXPECT_NE(run_tiled(true, o).fake->visited, fake->visited);
}

TEST(Sweep, ExhaustiveWalksALargeSpaceWhole) {
  SweepOptions o;
  o.strategy = "exhaustive";
  o.params = {parse_param("unroll=1:20")};  // 27 x 20 legal configurations
  const TiledRun run = run_tiled(true, o);
  EXPECT_EQ(run.report.kernels[0].strategy, "exhaustive");
  EXPECT_EQ(run.fake->visited.size(), 540u);
}

TEST(Sweep, AParamValueNoLegalConfigurationTakesNamesTheConstraint) {
  SweepOptions o;
  o.params = {parse_param("tile=32"), parse_param("work_group_size=64,256")};
  try {
    run_tiled(false, o);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tile=32"));
    EXPECT_THAT(e.what(), HasSubstr("tile * tile <= work_group_size"));
  }
  o.params = {parse_param("tile=16"), parse_param("work_group_size=256,512")};
  EXPECT_EQ(run_tiled(false, o).fake->visited.size(), 6u);
  o.params = {parse_param("tile=16"), parse_param("work_group_size=64,256")};  // 64 cannot take tile 16
  EXPECT_THROW(run_tiled(false, o), UsageError);
}

TEST(Tunables, DeclaredValuesEnumerationAndNeighbours) {
  EXPECT_EQ(Tunable::powers_of_two("w", 20, 100).values, (std::vector<int>{32, 64}));
  EXPECT_EQ(Tunable::range("n", 3, 5).values, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(Tunable::list("v", {4, 1, 2}).legal, "{4, 1, 2}");
  EXPECT_THROW(Tunable::powers_of_two("w", 5, 7), Error);
  const TunableSpace s = TiledKernel::space(false);
  const auto all = s.enumerate();
  ASSERT_EQ(all.size(), 27u);
  EXPECT_EQ(all.front(), (Params{{"tile", 8}, {"work_group_size", 64}, {"vector_width", 1}}));  // the first outermost
  EXPECT_EQ(all[1], (Params{{"tile", 8}, {"work_group_size", 64}, {"vector_width", 2}}));
  EXPECT_EQ(s.enumerate(4).size(), 4u);
  std::string why;
  EXPECT_FALSE(s.legal({{"tile", 32}, {"work_group_size", 512}, {"vector_width", 1}}, &why));
  EXPECT_THAT(why, HasSubstr("tile * tile <= work_group_size"));
  EXPECT_FALSE(s.legal({{"tile", 8}, {"work_group_size", 48}, {"vector_width", 1}}, &why));
  EXPECT_THAT(why, HasSubstr("powers of two in [32, 1024]"));
  EXPECT_FALSE(s.legal({{"tile", 8}, {"work_group_size", 64}}, &why));
  EXPECT_THAT(why, HasSubstr("vector_width has no value"));
  EXPECT_FALSE(s.legal({{"tile", 8}, {"work_group_size", 64}, {"vector_width", 1}, {"x", 1}}, &why));
  // One parameter, one step; none that breaks the constraint (tile 16 needs 256 items).
  const auto n = s.neighbours({{"tile", 8}, {"work_group_size", 64}, {"vector_width", 2}});
  EXPECT_EQ(n.size(), 3u);  // work-group 32 is illegal, 128 is not; widths 1 and 4
  EXPECT_EQ(std::count(n.begin(), n.end(), Params{{"tile", 8}, {"work_group_size", 128}, {"vector_width", 2}}), 1);
}

TEST(Tunables, TimeBatchesTimesFiveBatchesOfAboutTwoMilliseconds) {
  std::vector<int> calls;
  int batch = 0;
  const KernelTiming t = time_batches(
      [&](int n) {
        calls.push_back(n);
        return n * 1e-5 * (calls.size() == 1 ? 1 : 1 + 0.01 * (batch++ % 3));  // 10 us a call
      },
      1.0);
  EXPECT_EQ(calls, (std::vector<int>{1, 200, 200, 200, 200, 200}));
  ASSERT_EQ(t.samples.size(), 5u);
  EXPECT_NEAR(t.seconds, 1.01e-5, 1e-12);  // the median of 1, 1.01, 1.02, 1, 1.01 x 10 us
  // A call already timed stands for the first; a slow one fails the point.
  calls.clear();
  time_batches([&](int n) { calls.push_back(n); return n * 1e-3; }, 1.0, 1e-3);
  EXPECT_EQ(calls, (std::vector<int>{2, 2, 2, 2, 2}));
  try {
    time_batches([](int n) { return n * 3.0; }, 2.0);
    FAIL() << "no time limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::point_failed);
    EXPECT_THAT(e.what(), HasSubstr("over the time limit"));
  }
}

TEST(Tunables, TheGridReadsKnownParametersTakesTheDefaultsAndNamesAnUnknownOne) {
  const Params p = {{"work_group_size", 64}};
  EXPECT_EQ(grid::group_size_of(p), 64);
  EXPECT_EQ(grid::groups_per_cu_of(p), grid::default_groups_per_cu);
  EXPECT_EQ(grid::group_size_of({}), grid::default_group_size);
  EXPECT_NO_THROW(grid::check(grid::params(32, 5), "dot"));
  try {
    grid::check({{"tile", 16}}, "dot");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'tile'"));
    EXPECT_THAT(e.what(), HasSubstr("dot"));
  }
  EXPECT_THROW(grid::check(grid::params(0, 5), "dot"), UsageError);
}

// A tunable's declared default is the largest of its values not above it, so that a device's
// limits keep it legal; the space's defaults() are the heuristic of a kernel that declares them.
TEST(Tunables, DeclaredDefaultsStayLegalOnEveryDevice) {
  EXPECT_EQ(grid::group_size(1024).preferred.value_or(0), 256);
  EXPECT_EQ(grid::group_size(128).preferred.value_or(0), 128);  // a device that runs at most 128
  EXPECT_EQ(grid::group_size(100).preferred.value_or(0), 64);   // powers of two within 100
  EXPECT_EQ(Tunable::list("x", {48, 16, 32}).defaulting_to(40).preferred.value_or(0), 32);
  EXPECT_EQ(Tunable::list("x", {48, 16, 32}).defaulting_to(8).preferred.value_or(0), 16);  // all above: the smallest
  const TunableSpace space{{grid::group_size(512), grid::groups_per_cu()}, {}};
  EXPECT_EQ(space.defaults(), grid::params(256, 8));
  EXPECT_TRUE(space.legal(space.defaults()));
  EXPECT_THROW((TunableSpace{{Tunable::range("n", 1, 4)}, {}}.defaults()), Error);  // none declared
}

// A database entry is checked against the kernel's declaration, constraints included.
TEST(Tunables, ADatabaseEntryThatBreaksAConstraintIsAnInputErrorNamingIt) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpubench-tunables-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  DeviceInfo d;
  d.backend = "opencl";
  d.name = "fake device";
  d.compute_units = 4;
  const TunableSpace space = TiledKernel::space(false);
  const TuningKey key = TuningKey::of_sizes("test", "tiled", Precision::f32, {{"n", 1024}});
  const Params heuristic{{"tile", 8}, {"work_group_size", 64}, {"vector_width", 1}};
  TuningDb db(dir.string());
  auto store = [&](nlohmann::json params) {
    TuningEntry e;
    e.key = key;
    e.problem = "fake:1";
    e.params = std::move(params);
    e.seconds = 1e-3;
    db.record(d, {e});
  };
  store({{"tile", 16}, {"work_group_size", 512}, {"vector_width", 4}});
  const LaunchChoice good = choose_launch_params(&db, d, key, heuristic, space);
  EXPECT_EQ(good.params, (Params{{"tile", 16}, {"work_group_size", 512}, {"vector_width", 4}}));
  EXPECT_EQ(launch_json(good)["tile"], 16);
  EXPECT_EQ(launch_json(good)["from"], "tuned");

  store({{"tile", 32}, {"work_group_size", 512}, {"vector_width", 4}});
  try {
    choose_launch_params(&db, d, key, heuristic, space);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tile * tile <= work_group_size"));
    EXPECT_THAT(e.what(), HasSubstr(key.text()));
    EXPECT_THAT(e.what(), HasSubstr("fake device"));
  }
  store({{"tile", 16}, {"work_group_size", 384}, {"vector_width", 4}});
  EXPECT_THROW(choose_launch_params(&db, d, key, heuristic, space), InputError);
  // Borrowed from another key (here the device's default, set by the f32 entry) and not fitting
  // this one (f64's space allows vector width 2 at most): the heuristic runs, and says why.
  TunableSpace f64_space = space;
  f64_space.constraints.push_back({"vector_width <= 2", [](const Params& p) { return p.at("vector_width") <= 2; }});
  store({{"tile", 16}, {"work_group_size", 512}, {"vector_width", 4}});
  const TuningKey f64_key = TuningKey::of_sizes("test", "tiled", Precision::f64, {{"n", 1024}});
  const LaunchChoice borrowed = choose_launch_params(&db, d, f64_key, heuristic, f64_space);
  EXPECT_EQ(borrowed.params, heuristic);
  EXPECT_EQ(launch_json(borrowed)["from"], "heuristic");
  EXPECT_THAT(borrowed.choice.detail, HasSubstr("vector_width <= 2"));
  EXPECT_THAT(borrowed.choice.detail, HasSubstr("does not fit"));
  // --tuning off: the heuristic, which must itself be legal.
  EXPECT_EQ(choose_launch_params(nullptr, d, key, heuristic, space).params, heuristic);
  EXPECT_THROW(choose_launch_params(nullptr, d, key, {{"tile", 32}, {"work_group_size", 64}, {"vector_width", 1}}, space),
               Error);
  std::filesystem::remove_all(dir);
}

TEST(Sweep, ParsesParamListsAndRanges) {
  EXPECT_EQ(parse_param("work_groups_per_cu=1:3,8").second, (std::vector<int>{1, 2, 3, 8}));
  EXPECT_EQ(parse_param("work_group_size=64").first, "work_group_size");
  for (const char* bad : {"work_group_size", "=4", "work_group_size=", "a=1,,2", "a=x", "a=3:1", "a=1:2:3", "a=1.5"})
    EXPECT_THROW(parse_param(bad), UsageError) << bad;
}

}  // namespace
}  // namespace gpubench
