// The search strategies (bench/strategy.hpp) on synthetic spaces whose optimum is known: each
// finds it, honours its budget, and repeats itself for the same seed. Then the sweep cache: what a
// sweep appends, a second sweep takes instead of measuring, and a replay answers from it.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "bench/replay.hpp"
#include "bench/strategy.hpp"
#include "bench/sweep.hpp"
#include "bench/sweep_cache.hpp"
#include "common/errors.hpp"

namespace gpubench {
namespace {

using testing::HasSubstr;

// A synthetic space: parameters, constraints, a time per configuration (negative: it fails).
struct Landscape {
  std::string name;
  TunableSpace space;
  std::function<double(const Params&)> time;
  Params heuristic;
};

// A smooth bowl over two ranges with a constraint, optimum at x=11, y=4.
Landscape bowl() {
  Landscape l;
  l.name = "bowl";
  l.space.params = {Tunable::range("x", 0, 15), Tunable::range("y", 0, 15)};
  l.space.constraints.push_back({"x + y <= 25", [](const Params& p) { return p.at("x") + p.at("y") <= 25; }});
  l.time = [](const Params& p) {
    const double dx = p.at("x") - 11, dy = p.at("y") - 4;
    return 1e-3 * (1 + 0.02 * dx * dx + 0.03 * dy * dy + 0.004 * dx * dy);
  };
  l.heuristic = {{"x", 2}, {"y", 2}};
  return l;
}

// GEMM-like: tiles in powers of two, a product term, a failing corner (too many "threads"), and
// the optimum next to it: bm=128 bn=64 vw=4.
Landscape tiles() {
  Landscape l;
  l.name = "tiles";
  l.space.params = {Tunable::list("bm", {16, 32, 64, 128, 256}), Tunable::list("bn", {16, 32, 64, 128, 256}),
                    Tunable::list("vw", {1, 2, 4})};
  l.space.constraints.push_back({"bm bn >= 512", [](const Params& p) { return p.at("bm") * p.at("bn") >= 512; }});
  l.time = [](const Params& p) {
    if (p.at("bm") * p.at("bn") > 128 * 128) return -1.0;  // fails to launch
    const double m = std::log2(p.at("bm")) - 7, n = std::log2(p.at("bn")) - 6, v = std::log2(p.at("vw")) - 2;
    return 1e-3 * (1 + 0.3 * m * m + 0.2 * n * n + 0.1 * v * v + 0.05 * std::abs(m * n));
  };
  l.heuristic = {{"bm", 32}, {"bn", 32}, {"vw", 1}};
  return l;
}

// A walk's landscape (the thesis's): for each work-group size, time falls as groups per unit rise,
// then levels; the best is wg=128 at 9 per unit.
Landscape walkable() {
  Landscape l;
  l.name = "walkable";
  l.space.params = {Tunable::powers_of_two("wg", 32, 512), Tunable::range("per_cu", 1, 24)};
  l.space.strategy = "walk";
  l.time = [](const Params& p) {
    const double wg = std::abs(std::log2(p.at("wg")) - 7);
    const double per_cu = p.at("per_cu") <= 9 ? 1.0 / p.at("per_cu") : 1.0 / 9 + 0.002 * (p.at("per_cu") - 9);
    return 1e-3 * (1 + 0.1 * wg) * per_cu;
  };
  l.heuristic = {{"wg", 256}, {"per_cu", 8}};
  return l;
}

std::vector<Landscape> landscapes() { return {bowl(), tiles(), walkable()}; }

double optimum_of(const Landscape& l) {
  double best = std::numeric_limits<double>::infinity();
  for (const Params& p : l.space.enumerate())
    if (const double t = l.time(p); t > 0) best = std::min(best, t);
  return best;
}

struct Result {
  std::vector<Params> visited;
  double best = std::numeric_limits<double>::infinity();
  std::size_t calls = 0;
};

Result search(const Landscape& l, const std::string& strategy, std::uint64_t seed, SearchBudget budget = {}) {
  Result r;
  double clock = 0;
  auto measure = [&](const Params& p) {
    EXPECT_TRUE(l.space.legal(p)) << strategy << " measured an illegal " << format_params(p);
    ++r.calls;
    clock += 1;
    r.visited.push_back(p);
    Measured m;
    const double t = l.time(p);
    m.ok = t > 0;
    m.not_launched = !m.ok;
    m.seconds = m.ok ? t : 0;
    if (m.ok) r.best = std::min(r.best, t);
    return m;
  };
  Search s(l.space, l.heuristic, measure, budget, [&] { return clock; }, seed);
  try {
    strategy_named(strategy).run(s);
  } catch (const BudgetSpent&) {
  }
  return r;
}

TEST(Strategies, EveryOneIsListedWithHelpAndUnknownNamesAreRefused) {
  std::set<std::string> names;
  for (const auto& s : strategies()) {
    names.insert(s.name);
    EXPECT_FALSE(s.help.empty()) << s.name;
  }
  for (const char* n : {"auto", "exhaustive", "random", "walk", "climb", "annealing", "genetic", "bayes"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(strategies().front().name, "auto");
  EXPECT_THROW(strategy_named("gradient"), UsageError);
}

TEST(Strategies, EachFindsTheOptimumOfEverySyntheticSpaceGivenTheWholeSpace) {
  for (const Landscape& l : landscapes()) {
    const double optimum = optimum_of(l);
    const std::size_t legal = l.space.enumerate().size();
    for (const auto& s : strategies()) {
      if (s.name == "walk" && l.name != "walkable") continue;  // the walk is for its own landscape
      for (std::uint64_t seed : {1, 2, 3}) {
        const Result r = search(l, s.name, seed, {legal, std::nullopt});
        EXPECT_DOUBLE_EQ(r.best, optimum) << s.name << " on " << l.name << " seed " << seed;
        std::set<Params> distinct(r.visited.begin(), r.visited.end());
        EXPECT_EQ(distinct.size(), r.visited.size()) << s.name << " measured a configuration twice";
      }
    }
  }
}

TEST(Strategies, EachEndsOnSpacesOfOneToThreeConfigurations) {
  for (int n : {1, 2, 3}) {
    Landscape l;
    l.space.params = {Tunable::range("tile", 1, n)};
    l.time = [](const Params& p) { return 1e-3 * (1 + std::abs(p.at("tile") - 2)); };
    l.heuristic = {{"tile", 1}};
    for (const auto& s : strategies()) {
      const Result r = search(l, s.name, 1);
      EXPECT_DOUBLE_EQ(r.best, optimum_of(l)) << s.name << " on " << n;
      EXPECT_LE(r.calls, static_cast<std::size_t>(n)) << s.name << " on " << n;
    }
  }
}

TEST(Strategies, TheSearchesFindTheOptimumInAFractionOfTheSpace) {
  // Within half the space on the bowl (256 - 10 legal), every seed of the model-free and model-based searches.
  const Landscape l = bowl();
  const double optimum = optimum_of(l);
  for (const char* name : {"climb", "annealing", "genetic", "bayes", "auto"})
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Result r = search(l, name, seed, {std::size_t{120}, std::nullopt});
      EXPECT_GE(optimum / r.best, 0.97) << name << " seed " << seed;
    }
  // The model learns: bayes within 40 evaluations (a sixth of the space) on every seed.
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_GE(optimum / search(l, "bayes", seed, {std::size_t{40}, std::nullopt}).best, 0.99) << "seed " << seed;
}

TEST(Strategies, EachHonoursItsBudgetOfEvaluationsAndOfTime) {
  for (const Landscape& l : landscapes())
    for (const auto& s : strategies()) {
      const Result by_count = search(l, s.name, 1, {std::size_t{7}, std::nullopt});
      EXPECT_LE(by_count.calls, 7u) << s.name << " on " << l.name;
      EXPECT_GE(by_count.calls, 1u) << s.name << " on " << l.name;
      // Each measurement takes 1 s of the fake clock: none starts after 5 s.
      const Result by_time = search(l, s.name, 1, {std::nullopt, 5.0});
      EXPECT_LE(by_time.calls, 5u) << s.name << " on " << l.name;
    }
}

TEST(Strategies, TheSameSeedGivesTheSameSearchAndAnotherSeedAnother) {
  for (const Landscape& l : landscapes())
    for (const auto& s : strategies()) {
      const SearchBudget budget{std::size_t{30}, std::nullopt};
      const Result a = search(l, s.name, 11, budget), b = search(l, s.name, 11, budget);
      EXPECT_EQ(a.visited, b.visited) << s.name << " on " << l.name;
    }
  const SearchBudget budget{std::size_t{30}, std::nullopt};
  for (const char* name : {"random", "climb", "annealing", "genetic", "bayes"})
    EXPECT_NE(search(bowl(), name, 1, budget).visited, search(bowl(), name, 2, budget).visited) << name;
}

TEST(Strategies, AutoWalksAKernelThatAsksForItAndSearchesALargeSpaceUnderABudget) {
  const Landscape w = walkable();
  double clock = 0;
  auto measure = [&](const Params& p) {
    clock += 1;
    return Measured{true, w.time(p), 0.01, false};
  };
  Search walk(w.space, w.heuristic, measure, {}, [&] { return clock; }, 1);
  strategy_named("auto").run(walk);
  EXPECT_EQ(walk.used, "walk");
  Search budgeted(w.space, w.heuristic, measure, {std::size_t{20}, std::nullopt}, [&] { return clock; }, 1);
  try {
    strategy_named("auto").run(budgeted);
  } catch (const BudgetSpent&) {
  }
  EXPECT_EQ(budgeted.used, "bayes");  // 120 legal, 20 allowed: not the whole space, not a walk
  const Landscape b = bowl();
  auto measure_bowl = [&](const Params& p) {
    clock += 1;
    return Measured{true, b.time(p), 0.01, false};
  };
  Search small(b.space, b.heuristic, measure_bowl, {}, [&] { return clock; }, 1);
  strategy_named("auto").run(small);
  EXPECT_EQ(small.used, "exhaustive");  // 246 legal: measured whole
}

// --- The sweep cache and replay ------------------------------------------------------------

class CountingKernel final : public TunableKernel {
 public:
  Landscape l = tiles();
  int measured = 0;
  std::string source = "v1";  // what a spec's SHA-256 stands for
  std::string name() const override { return "tiles"; }
  nlohmann::json provenance() const override { return {{"source", source}}; }
  TunableSpace tunables() const override { return l.space; }
  Params heuristic() const override { return l.heuristic; }
  TuningKey key() const override { return {"test", "tiles", Precision::f32, {{"n", 8}}}; }
  double flops_per_call() const override { return 1e9; }
  double bytes_per_call() const override { return 1e6; }
  KernelTiming measure(const Params& p, double) override {
    ++measured;
    const double t = l.time(p);
    if (t < 0) throw DeviceError("too many threads for this fake device");
    return {t, {t, t * 1.001, t}};
  }
};

struct TempFile {
  std::string path = std::filesystem::temp_directory_path() /
                     ("gpubench-cache-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".jsonl");
  static inline int counter = 0;
  ~TempFile() { std::filesystem::remove(path); }
};

SweepReport sweep_with(CountingKernel*& fake, const std::string& cache, SweepOptions o = {}, const std::string& source = "v1",
                       std::ostream* said = nullptr) {
  SweepTarget t;
  t.device.backend = "fake";
  t.device.name = "fake device";
  t.problem = "fake:8";
  t.precision = Precision::f32;
  auto k = std::make_unique<CountingKernel>();
  k->source = source;
  fake = k.get();
  t.kernels.push_back(std::move(k));
  o.cache = cache;
  std::ostringstream log;
  auto r = sweep(t, o, std::nullopt, log, false);
  if (said) *said << log.str();
  return r;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The ID the cache gave the fake kernel (its first line's).
std::string cached_id(const std::string& path) { return read_sweep_cache(path).at(0).id(); }

TEST(SweepCache, ASecondSweepTakesWhatTheCacheHoldsAndContinuesWhereTheFirstStopped) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions first;
  first.strategy = "exhaustive";
  first.max_evals = 30;  // stopped part way
  sweep_with(fake, f.path, first);
  EXPECT_EQ(fake->measured, 30);
  const std::size_t legal = tiles().space.enumerate().size();
  SweepOptions rest;
  rest.strategy = "exhaustive";
  const SweepReport r = sweep_with(fake, f.path, rest);
  EXPECT_EQ(fake->measured, static_cast<int>(legal) - 30);  // only what the first left
  EXPECT_EQ(r.kernels[0].from_cache, 30u);
  EXPECT_EQ(r.kernels[0].configs.size(), legal);
  sweep_with(fake, f.path, rest);
  EXPECT_EQ(fake->measured, 0);  // everything from the cache
  const auto cached = read_sweep_cache(f.path);
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached[0].configs.size(), legal);
  std::size_t failed = 0;
  for (const auto& [p, c] : cached[0].configs)
    if (!c.ok()) {
      ++failed;
      EXPECT_EQ(c.status, "launch failed");
      EXPECT_THAT(c.reason, HasSubstr("too many threads"));
    }
  EXPECT_GT(failed, 0u);
}

TEST(SweepCache, ALineCutShortIsLeftOutAndAMalformedOneNamed) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.strategy = "random";
  o.max_evals = 10;
  sweep_with(fake, f.path, o);
  {
    std::ofstream out(f.path, std::ios::app);
    out << R"({"of": ")" << cached_id(f.path) << R"(", "params": {"bm": 1)";  // a sweep stopped mid-line
  }
  std::ostringstream log;
  EXPECT_EQ(read_sweep_cache(f.path, &log)[0].configs.size(), 10u);
  EXPECT_THAT(log.str(), HasSubstr("cut short"));
  {
    std::ofstream out(f.path, std::ios::app);
    out << "\n{\"of\": \"" << cached_id(f.path) << "\", \"params\": {\"bm\": 7, \"bn\": 64, \"vw\": 1}, "
           "\"status\": \"verified\", \"seconds\": 1}\n";
  }
  try {
    read_sweep_cache(f.path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 12"));  // the cut line, then this one
  }
}

// Issue 55 item 1: a cached sweep of a kernel of the same name but another source (a spec's
// SHA-256), build or driver is not reused, and the sweep says why.
TEST(SweepCache, Issue55_1_AnotherSourcesMeasurementsAreNotReusedAndWhyIsSaid) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.strategy = "exhaustive";
  sweep_with(fake, f.path, o, "v1");
  const int legal = fake->measured;
  std::ostringstream said;
  const SweepReport r = sweep_with(fake, f.path, o, "v2-writes-nan", &said);
  EXPECT_EQ(fake->measured, legal);  // all measured again
  EXPECT_EQ(r.kernels[0].from_cache, 0u);
  EXPECT_THAT(said.str(), HasSubstr("not reused"));
  EXPECT_THAT(said.str(), HasSubstr("source \"v1\" (now \"v2-writes-nan\")"));
  // Both sweeps stay in the file, each under its own fingerprint; the first is reused when it comes back.
  EXPECT_EQ(read_sweep_cache(f.path).size(), 2u);
  sweep_with(fake, f.path, o, "v1");
  EXPECT_EQ(fake->measured, 0);
}

// Issue 55 item 2: a sweep resumed after a cut-off last line removes it before appending (the file
// stays readable), and a file that is not a sweep cache is refused, not appended to.
TEST(SweepCache, Issue55_2_ACutLastLineIsRemovedBeforeAppendingAndABinaryFileIsRefused) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.strategy = "random";
  o.max_evals = 5;
  sweep_with(fake, f.path, o);
  {
    std::ofstream out(f.path, std::ios::app);
    out << R"({"of": ")" << cached_id(f.path) << R"(", "params": {"bm": 1)";
  }
  o.max_evals = 10;
  std::ostringstream said;
  sweep_with(fake, f.path, o, "v1", &said);
  EXPECT_THAT(said.str(), HasSubstr("cut-short last line removed"));
  const std::string text = file_text(f.path);
  EXPECT_EQ(text.back(), '\n');
  std::ostringstream log;
  EXPECT_EQ(read_sweep_cache(f.path, &log)[0].configs.size(), 10u);  // every line whole
  EXPECT_EQ(log.str(), "");

  TempFile binary;
  const std::string bytes("\x7f" "ELF\x02\x01\x01\x00\x00\x00garbage", 19);
  { std::ofstream(binary.path, std::ios::binary) << bytes; }
  EXPECT_THROW(sweep_with(fake, binary.path, o), InputError);
  EXPECT_EQ(file_text(binary.path), bytes);  // not appended to
  TempFile text_file;
  { std::ofstream(text_file.path) << "#!/bin/sh\necho hello"; }
  EXPECT_THROW(sweep_with(fake, text_file.path, o), InputError);
  EXPECT_EQ(file_text(text_file.path), "#!/bin/sh\necho hello");
  EXPECT_THROW(sweep_with(fake, std::filesystem::temp_directory_path().string(), o), InputError);  // a directory
  EXPECT_THROW(read_sweep_cache("/dev/zero"), InputError);
}

// Issue 55 item 3: values that are not the integers a tunable takes, and a legal configuration
// listed twice, are refused by line instead of being read as another configuration.
TEST(SweepCache, Issue55_3_ValuesOutOfRangeFractionsAndDuplicatedLegalRowsAreRefused) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.strategy = "exhaustive";
  o.max_evals = 3;
  sweep_with(fake, f.path, o);
  const std::string good = file_text(f.path);
  const std::string id = cached_id(f.path);
  const auto refused = [&](const std::string& text, const std::string& why) {
    { std::ofstream(f.path, std::ios::binary) << text; }
    try {
      read_sweep_cache(f.path);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr(why));
    }
  };
  auto config = [&](const std::string& bm) {
    return good + "{\"of\": \"" + id + "\", \"params\": {\"bm\": " + bm +
           ", \"bn\": 64, \"vw\": 1}, \"status\": \"verified\", \"seconds\": 1e-9}\n";
  };
  refused(config("4294967312"), "4294967312");  // 2^32 + 16: read as 16 before
  refused(config("16.7"), "16.7");
  refused(config("\"16\""), "\"16\"");
  refused(config("-16"), "its parameters");
  // A kernel line whose legal list holds a row twice.
  nlohmann::json header = nlohmann::json::parse(good.substr(0, good.find('\n')));
  header["legal"].push_back(header["legal"][0]);
  refused(header.dump() + "\n", "listed twice");
  header = nlohmann::json::parse(good.substr(0, good.find('\n')));
  header["legal"][0][0] = 4294967312LL;
  refused(header.dump() + "\n", "4294967312");
  refused(good + "{\"of\": \"" + id + "\", \"params\": {\"bm\": 16, \"bn\": 64, \"vw\": 1}, \"status\": \"verified\", "
                 "\"seconds\": 1e-9, \"samples\": [-1]}\n",
          "not a time");
}

TEST(SweepCache, ACacheOfAnotherSpaceIsRefusedAndASecondWriterToo) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.max_evals = 5;
  sweep_with(fake, f.path, o);
  SweepTarget t;
  t.device.backend = "fake";
  t.device.name = "fake device";
  t.problem = "fake:8";
  t.precision = Precision::f32;
  auto k = std::make_unique<CountingKernel>();
  k->l.space.params[2] = Tunable::list("vw", {1, 2});  // another build's space
  t.kernels.push_back(std::move(k));
  o.cache = f.path;
  std::ostringstream log;
  EXPECT_THROW(sweep(t, o, std::nullopt, log, false), InputError);
  SweepCache holder(f.path);
  EXPECT_THROW(SweepCache second(f.path), UsageError);
}

TEST(Replay, AnswersEveryStrategyFromTheCacheWithNoDevice) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.strategy = "exhaustive";
  sweep_with(fake, f.path, o);
  ReplayOptions r;
  for (const auto& s : strategies()) r.strategies.push_back(s.name);
  r.seeds = 20;
  std::ostringstream log;
  const auto kernels = replay({f.path}, r, log);
  ASSERT_EQ(kernels.size(), 1u);
  const auto& k = kernels[0];
  EXPECT_EQ(k.measured, k.declared);
  EXPECT_DOUBLE_EQ(k.optimum_s, optimum_of(tiles()));
  EXPECT_EQ(k.optimum, (Params{{"bm", 128}, {"bn", 64}, {"vw", 4}}));
  const auto budgets = target_budgets(k.measured);
  EXPECT_EQ(k.runs.size(), strategies().size() * budgets.size());
  for (const auto& run : k.runs) {
    EXPECT_EQ(run.median.size(), run.budget);
    for (std::size_t e = 1; e < run.median.size(); ++e) EXPECT_GE(run.median[e], run.median[e - 1]);  // a best so far
    EXPECT_LE(run.final_p10, run.final_median);
    EXPECT_LE(run.final_median, 1.0);
  }
  std::ostringstream table;
  write_replay_table(kernels, r, table);
  EXPECT_THAT(table.str(), HasSubstr("optimum"));
  EXPECT_THAT(table.str(), HasSubstr("bayes"));
  const auto j = replay_json(kernels, r);
  EXPECT_EQ(j[0]["runs"].size(), k.runs.size());
}

TEST(Replay, APartialCacheIsReplayedOverWhatItHolds) {
  TempFile f;
  CountingKernel* fake = nullptr;
  SweepOptions o;
  o.strategy = "random";
  o.max_evals = 25;
  sweep_with(fake, f.path, o);
  ReplayOptions r;
  r.strategies = {"bayes", "annealing"};
  r.seeds = 5;
  std::ostringstream log;
  const auto k = replay({f.path}, r, log).at(0);
  EXPECT_EQ(k.measured, 25u);
  EXPECT_GT(k.declared, k.measured);
  std::ostringstream table;
  write_replay_table({k}, r, table);
  EXPECT_THAT(table.str(), HasSubstr("partial cache"));
}

// The study's caches (reports/data/tuner/, measured on the H100): each whole (every declared
// legal configuration measured, or its failure recorded), and each replays every strategy.
TEST(Replay, TheCommittedStudyCachesAreWholeAndReplay) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GPUBENCH_SOURCE_DIR) + "/reports/data/tuner"))
    if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u);
  ReplayOptions r;
  for (const auto& s : strategies()) r.strategies.push_back(s.name);
  r.seeds = 2;
  std::ostringstream log;
  const auto kernels = replay(files, r, log);
  EXPECT_GE(kernels.size(), 16u);
  for (const auto& k : kernels) {
    EXPECT_EQ(k.measured, k.declared) << k.id;
    for (const auto& run : k.runs) {
      if (run.strategy == "exhaustive" && run.budget == k.measured) {
        EXPECT_DOUBLE_EQ(run.final_median, 1.0) << k.id;
      }
    }
  }
}

}  // namespace
}  // namespace gpubench
