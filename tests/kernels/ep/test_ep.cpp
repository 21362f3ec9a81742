#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "bench/suite.hpp"
#include "kernels/ep/ep.hpp"
#include "kernels/ep/operations.hpp"
#include "kernels/ep/pair_math.h"
#include "tests/test_paths.hpp"

namespace gpubench::ep {
namespace {

// NAS's randlc, as NAS writes it: the state and the multiplier split into 23-bit halves held in
// doubles. The integer generator of ep.hpp must match it bit for bit.
double nas_randlc(double& x, double a) {
  const double r23 = std::pow(0.5, 23), r46 = r23 * r23, t23 = std::pow(2.0, 23), t46 = t23 * t23;
  double t1 = r23 * a;
  const double a1 = static_cast<double>(static_cast<long long>(t1)), a2 = a - t23 * a1;
  t1 = r23 * x;
  const double x1 = static_cast<double>(static_cast<long long>(t1)), x2 = x - t23 * x1;
  t1 = a1 * x2 + a2 * x1;
  const double t2 = static_cast<double>(static_cast<long long>(r23 * t1));
  const double z = t1 - t23 * t2;
  const double t3 = t23 * z + a2 * x2;
  const double t4 = static_cast<double>(static_cast<long long>(r46 * t3));
  x = t3 - t46 * t4;
  return r46 * x;
}

TEST(EpGenerator, MatchesNasRandlcBitForBit) {
  double nas = static_cast<double>(seed);
  std::uint64_t x = seed;
  for (int i = 0; i < 100000; ++i) {
    const double u = nas_randlc(nas, static_cast<double>(multiplier));
    x = (x * multiplier) & modulus_mask;
    ASSERT_EQ(static_cast<double>(x), nas) << "step " << i;
    ASSERT_EQ(static_cast<double>(x) * two_to_minus_46, u) << "step " << i;
  }
}

TEST(EpGenerator, SkipAheadLandsWhereSteppingDoes) {
  std::uint64_t x = seed;
  for (std::uint64_t pair = 0; pair < 5000; ++pair) {
    ASSERT_EQ(state_before_pair(pair), x) << "pair " << pair;
    x = (x * multiplier) & modulus_mask;
    x = (x * multiplier) & modulus_mask;
  }
  // NAS's own skip-ahead: an = a^(2^(MK+1)) by MK + 1 squarings, MK = 16.
  double an = static_cast<double>(multiplier);
  for (int i = 0; i < 17; ++i) nas_randlc(an, an);
  EXPECT_EQ(static_cast<double>(lcg_power(multiplier, std::uint64_t{1} << 17)), an);
}

TEST(EpReference, SplittingTheStreamChangesOnlyTheOrderOfTheSums) {
  const Tally whole = host_tally(0, 1 << 16);
  Tally parts;
  for (std::uint64_t first = 0; first < (1 << 16); first += 1000) {
    const Tally t = host_tally(first, std::min<std::uint64_t>(1000, (1 << 16) - first));
    parts.sx += t.sx;
    parts.sy += t.sy;
    for (std::size_t l = 0; l < annuli; ++l) parts.q[l] += t.q[l];
  }
  EXPECT_NEAR(parts.sx, whole.sx, 1e-9 * std::abs(whole.sx));
  EXPECT_NEAR(parts.sy, whole.sy, 1e-9 * std::abs(whole.sy));
  for (std::size_t l = 0; l < annuli; ++l) EXPECT_EQ(parts.q[l], whole.q[l]) << "q[" << l << "]";
  // About pi/4 of the pairs fall in the unit circle.
  EXPECT_NEAR(whole.pairs_accepted() / (1 << 16), acceptance, 0.01);
}

// Error of `got` against the exact `want`, in units in the last place of `want` (as a double).
double ulps(double got, long double want) {
  const double w = static_cast<double>(want);
  const double ulp = std::nextafter(std::abs(w), INFINITY) - std::abs(w);
  return static_cast<double>(std::abs(static_cast<long double>(got) - want) / ulp);
}

// The r values EP feeds the factor: x1^2 + x2^2 <= 1 from the generator's stream, and the edges
// of the mantissa reduction and of the range.
std::vector<double> radii() {
  std::vector<double> r = {1.0, std::nextafter(1.0, 0.0), 0.5, std::sqrt(0.5), std::nextafter(std::sqrt(0.5), 0.0),
                           std::nextafter(std::sqrt(0.5), 1.0), 0x1p-90, 0x1.fffffp-45, 0.75};
  std::uint64_t x = seed;
  while (r.size() < 400000) {
    x = (x * multiplier) & modulus_mask;
    const double x1 = 2.0 * (static_cast<double>(x) * two_to_minus_46) - 1.0;
    x = (x * multiplier) & modulus_mask;
    const double x2 = 2.0 * (static_cast<double>(x) * two_to_minus_46) - 1.0;
    const double t = x1 * x1 + x2 * x2;
    if (t <= 1.0) r.push_back(t);
    if (r.size() % 16 == 0) r.push_back(std::ldexp(1.0 + static_cast<double>(x) * two_to_minus_46, -1 - static_cast<int>(x % 90)));
  }
  return r;
}

TEST(EpPairMath, MinusTwoLogIsWithinFourUlps) {
  double worst = 0, worst_r = 0;
  for (const double r : radii()) {
    const long double want = -2.0L * std::log(static_cast<long double>(r));
    const double got = ep_minus_two_log(r);
    if (r == 1.0) {
      EXPECT_EQ(got, 0.0);
      continue;
    }
    if (ulps(got, want) > worst) worst = ulps(got, want), worst_r = r;
  }
  EXPECT_LE(worst, 4.0) << "at r = " << worst_r;
}

TEST(EpPairMath, GaussFactorIsWithinFourUlps) {
  double worst = 0, worst_r = 0;
  for (const double r : radii()) {
    const long double lr = r;
    const double got = ep_gauss_factor(r);
    if (r == 1.0) {
      EXPECT_EQ(got, 0.0);  // not 0 x infinity
      continue;
    }
    const long double want = std::sqrt(-2.0L * std::log(lr) / lr);
    if (ulps(got, want) > worst) worst = ulps(got, want), worst_r = r;
  }
  EXPECT_LE(worst, 4.0) << "at r = " << worst_r;
}

TEST(EpPairMath, AnnulusIsTheFloorOfTheLargerMagnitude) {
  EXPECT_EQ(ep_annulus(0.3, -0.9), 0u);
  EXPECT_EQ(ep_annulus(-1.0, 0.2), 1u);
  EXPECT_EQ(ep_annulus(0.5, -2.9999999999), 2u);
  EXPECT_EQ(ep_annulus(9.999, 3.0), 9u);
  EXPECT_EQ(ep_annulus(10.0, 0.0), EP_COUNT_ROWS - 1);  // the row that is not counted
  EXPECT_EQ(ep_annulus(0.0, -11.2), EP_COUNT_ROWS - 1);
}

// The devices' loop, run here, against NAS's formula (host_tally): the same pairs fall in the
// same annuli, and the sums agree to rounding.
TEST(EpPairMath, DeviceLoopMatchesTheReference) {
  static_assert(EP_BATCH_PAIRS == 1u << batch_log2 && EP_MULTIPLIER == multiplier && EP_SEED == seed &&
                EP_MASK46 == modulus_mask && EP_COUNT_ROWS == annuli + 1);
  // The devices' start state (pair_math.h) is the reference's, up to the largest pair of class E.
  for (const std::uint64_t pair : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{12345} << batch_log2,
                                   (std::uint64_t{1} << 40) - 1})
    EXPECT_EQ(ep_state_before_pair(pair), state_before_pair(pair)) << "pair " << pair;
  for (const std::uint64_t first_batch : {std::uint64_t{0}, std::uint64_t{12345}}) {
    const std::uint64_t batches = 48;
    double sx = 0, sy = 0;
    ep_u32 counts[EP_COUNT_ROWS] = {};
    ep_tally_batches(ep_state_before_pair(first_batch << batch_log2), batches, &sx, &sy, counts, 1);
    const Tally want = host_tally(first_batch << batch_log2, batches << batch_log2);
    EXPECT_NEAR(sx, want.sx, 1e-12 * std::abs(want.sx)) << "from batch " << first_batch;
    EXPECT_NEAR(sy, want.sy, 1e-12 * std::abs(want.sy)) << "from batch " << first_batch;
    for (std::size_t l = 0; l < annuli; ++l) EXPECT_EQ(counts[l], want.q[l]) << "q[" << l << "] from batch " << first_batch;
    EXPECT_EQ(counts[annuli], 0u);
  }
}

TEST(EpClasses, NasSizesAndUnknownNames) {
  EXPECT_EQ(ep_class("S").m, 24);
  EXPECT_EQ(ep_class("w").m, 25);
  EXPECT_EQ(ep_class("D").m, 36);
  EXPECT_EQ(ep_class("E").m, 40);
  try {
    ep_class("Q");
    FAIL() << "no error for class Q";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'Q'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("S, W, A, B, C, D, E"), std::string::npos) << e.what();
  }
}

TEST(EpClasses, VerificationRejectsAWrongSum) {
  Tally t;
  t.sx = ep_class("S").sx_verify;
  t.sy = ep_class("S").sy_verify;
  EXPECT_TRUE(verify(ep_class("S"), t).passed);
  t.sy *= 1 + 2e-8;
  EXPECT_FALSE(verify(ep_class("S"), t).passed);
  t.sy = NAN;
  EXPECT_FALSE(verify(ep_class("S"), t).passed);
}

struct Case {
  std::string backend;
  Variant variant;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.backend << " " << to_string(c.variant); }

std::vector<Case> cases() {
  std::vector<Case> result;
  for (const char* b : {"openmp", "opencl", "cuda"})
    if (find_operations(b) != nullptr)
      for (Variant v : variant_table().values())
        if (v != Variant::serial || std::string(b) == "openmp") result.push_back({b, v});
  return result;
}

class EpOperations : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    if (find_backend(c.backend).devices().empty()) GTEST_SKIP() << "backend " << c.backend << " has no device here";
    ops_ = (*find_operations(c.backend))(find_device(c.backend, -1));
  }
  Tally run(const EpClass& k, const Params& launch = {}) {
    const TallyRun r = ops_->tally(std::uint64_t{1} << k.m, GetParam().variant, launch);
    EXPECT_GT(r.tally_seconds, 0);
    return Tally::from_values(r.values.data());
  }
  std::unique_ptr<Operations> ops_;
};

TEST_P(EpOperations, ClassesSAndWVerify) {
  for (const char* name : {"S", "W"}) {
    const EpClass& k = ep_class(name);
    const Tally t = run(k);
    const Verdict v = verify(k, t);
    EXPECT_TRUE(v.passed) << "class " << name << ": " << v.detail;
    EXPECT_NEAR(t.pairs_accepted() / static_cast<double>(std::uint64_t{1} << k.m), acceptance, 1e-3);
    if (k.name == 'S') {  // NAS checks only the sums; the counts must be the reference's too
      const Tally want = host_tally(0, std::uint64_t{1} << k.m);
      for (std::size_t l = 0; l < annuli; ++l) EXPECT_EQ(t.q[l], want.q[l]) << "class S q[" << l << "]";
    }
  }
}

TEST_P(EpOperations, EveryLaunchGivesTheSameCounts) {
  if (!takes_launch_parameters(GetParam().backend)) GTEST_SKIP() << GetParam().backend << " takes no launch parameters";
  const EpClass& k = ep_class("S");
  const Tally base = run(k);
  const int largest = ops_->largest_group();
  // A single small group, odd sizes (the tree reductions fold any size), more items than batches.
  for (const Params& launch : {grid::params(1, 1), grid::params(std::min(96, largest), 3),
                                grid::params(std::min(7, largest), 64), grid::params(largest, 1)}) {
    const Tally t = run(k, launch);
    EXPECT_TRUE(verify(k, t).passed) << format_params(launch);
    for (std::size_t l = 0; l < annuli; ++l) EXPECT_EQ(t.q[l], base.q[l]) << "q[" << l << "] with " << format_params(launch);
  }
}

TEST_P(EpOperations, ImpossibleLaunchesAreUsageErrors) {
  if (!takes_launch_parameters(GetParam().backend)) GTEST_SKIP() << GetParam().backend << " takes no launch parameters";
  const std::uint64_t pairs = std::uint64_t{1} << 24;
  EXPECT_THROW(ops_->tally(pairs, GetParam().variant, grid::params(ops_->largest_group() + 1, 1)), UsageError);
  EXPECT_THROW(ops_->tally(pairs, GetParam().variant, grid::params(0, 1)), UsageError);
  EXPECT_THROW(ops_->tally(pairs, GetParam().variant, grid::params(32, 0)), UsageError);
  EXPECT_THROW(ops_->tally(pairs, GetParam().variant, {{"lanes", 4}}), UsageError);  // no such parameter
  EXPECT_THROW(ops_->tally(pairs + 1, GetParam().variant, {}), UsageError);  // not whole batches
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.backend + "_" + to_string(info.param.variant);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, EpOperations, ::testing::ValuesIn(cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EpOperations);

TEST(EpSuite, IsDoublePrecisionOnlyAndHasNoIterations) {
  auto suite = make_suite("ep");
  RunOptions o;
  o.suite = "ep";
  o.backends = {"openmp"};
  o.problem = "S";
  o.precisions = {Precision::f32};
  try {
    suite->plan(o);
    FAIL() << "f32 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("double precision only"), std::string::npos) << e.what();
  }
  o.precisions = {Precision::f64};
  o.suite_options["iterations"] = "5";  // CG's option: the command line names the suite that has it
  EXPECT_THROW(check_suite_options(*suite, o), UsageError);
  o.suite_options.clear();
  o.problem = "npb:Z";
  EXPECT_THROW(suite->plan(o), InputError);
  o.problem = "npb:S";
  EXPECT_EQ(suite->plan(o).points.size(), 3u);  // reduce, partials and serial
  if (find_operations("opencl")) {
    o.backends = {"opencl"};
    o.variants = {"serial"};
    const Plan plan = suite->plan(o);
    EXPECT_TRUE(plan.points.empty());
    ASSERT_EQ(plan.unavailable.size(), 1u);
    EXPECT_NE(plan.unavailable[0].find("serial on opencl"), std::string::npos) << plan.unavailable[0];
  }
}

TEST(EpSuite, SerialRunsOnlyOnTheHost) {
  EXPECT_NO_THROW(check_runs("openmp", Variant::serial));
  EXPECT_THROW(check_runs("opencl", Variant::serial), UsageError);
  EXPECT_THROW(check_runs("cuda", Variant::serial), UsageError);
  EXPECT_NO_THROW(check_runs("cuda", Variant::reduce));
}

// The whole program: both device variants on openmp and OpenCL (PoCL in CI) against NAS's serial
// code, class S, verified, with NAS's fields in the records.
TEST(EpEndToEnd, ClassSVerifiesOnEveryHostBackendAgainstTheSerialBaseline) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("gpubench_ep_" + std::to_string(getpid()) + ".json")).string();
  const test::Result r = test::gpubench("--suite ep --backend openmp,opencl --problem S --repetitions 1 "
                                        "--baseline openmp:serial --format json --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("class S (2^24 pairs): verified"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("serial on opencl"), std::string::npos) << r.output;  // listed, not failed
  std::ifstream f(out);
  const nlohmann::json records = nlohmann::json::parse(f);
  std::filesystem::remove(out);
  int points = 0;
  for (const auto& b : records["benchmarks"]) {
    if (b.value("run_type", "") != "iteration") continue;
    ++points;
    EXPECT_TRUE(b["verified"].get<bool>()) << b["name"];
    EXPECT_NEAR(b["sx"].get<double>(), ep_class("S").sx_verify, 1e-8 * std::abs(ep_class("S").sx_verify)) << b["name"];
    EXPECT_EQ(b["npb_class"], "S");
    EXPECT_EQ(b["q"].size(), 10u);
  }
  EXPECT_EQ(points, 5);  // openmp reduce, partials, serial; opencl reduce, partials
}

TEST(EpEndToEnd, SinglePrecisionIsAUsageError) {
  const test::Result r = test::gpubench("--suite ep --backend openmp --problem S --precision f32");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("double precision only"), std::string::npos) << r.output;
}

// A small sweep on OpenCL (PoCL in CI) stores an entry for the tally kernel, and the next run
// launches with it.
TEST(EpEndToEnd, SweepStoresAnEntryThatTheNextRunUses) {
  if (find_backend("opencl").devices().empty()) GTEST_SKIP() << "no OpenCL device here";
  const std::string db =
      (std::filesystem::temp_directory_path() / ("gpubench_ep_db_" + std::to_string(getpid()))).string();
  const test::Result sweep = test::gpubench("sweep --suite ep --backend opencl --problem S --kernel tally "
                                            "--param work_group_size=32,64 --param work_groups_per_cu=1:2 --tuning-db " + db);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_NE(sweep.output.find("tally"), std::string::npos) << sweep.output;
  const std::string out = db + "/run.json";
  const test::Result run = test::gpubench("--suite ep --backend opencl --problem S --variant reduce --repetitions 1 "
                                          "--format json --out " + out + " --tuning-db " + db);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream f(out);
  const nlohmann::json records = nlohmann::json::parse(f);
  std::filesystem::remove_all(db);
  bool seen = false;
  for (const auto& b : records["benchmarks"]) {
    if (b.value("run_type", "") != "iteration") continue;
    const auto& launch = b["params"]["launch"]["tally"];
    EXPECT_EQ(launch["from"], "tuned") << launch.dump();
    EXPECT_LE(launch["work_group_size"].get<int>(), 64);
    EXPECT_LE(launch["work_groups_per_cu"].get<int>(), 2);
    seen = true;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace gpubench::ep
