// The sweeper's search, bookkeeping and --param parsing, on a fake kernel whose time per
// configuration is a known function: what it visits and what it reports can be checked exactly.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <functional>
#include <sstream>

#include "common/errors.hpp"
#include "bench/sweep.hpp"

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
  std::vector<TunableRange> tunables() const override {
    std::vector<TunableRange> t = {{"work_group_size", 32, 256, true}};
    if (per_cu) t.push_back({"work_groups_per_cu", 1, 20, false});
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
  o.exhaustive = true;
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
  EXPECT_THAT(table.str(), HasSubstr("wg=64 wg/cu=2: wrong result: fake output 0"));
  EXPECT_THAT(table.str(), HasSubstr("wg=256 wg/cu=1: launch failed"));
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

TEST(Sweep, ParsesParamListsAndRanges) {
  EXPECT_EQ(parse_param("work_groups_per_cu=1:3,8").second, (std::vector<int>{1, 2, 3, 8}));
  EXPECT_EQ(parse_param("work_group_size=64").first, "work_group_size");
  for (const char* bad : {"work_group_size", "=4", "work_group_size=", "a=1,,2", "a=x", "a=3:1", "a=1:2:3", "a=1.5"})
    EXPECT_THROW(parse_param(bad), UsageError) << bad;
}

}  // namespace
}  // namespace gpubench
