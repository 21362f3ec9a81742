// Energy per point (issue 38): the energy pass's arithmetic against a planted meter (the test-only
// hook GPUBENCH_PLANTED_POWER), RAPL where this machine exposes it, the cache levels' plateaus and
// the placement of a kernel above the DRAM roof, the settings a ceiling was measured at, the
// tuner's objectives, and a whole run's records and table with --energy.
#include <gtest/gtest.h>


#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "backends/ceilings_common.hpp"
#include "bench/energy.hpp"
#include "bench/records.hpp"
#include "bench/roofline.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "tests/test_paths.hpp"

namespace gpubench {
namespace {

// A hook set for one test, unset after it.
struct Hook {
  Hook(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~Hook() { ::unsetenv(name_); }
  const char* name_;
};

// A device of its own per test: meters are kept per device for the process.
DeviceInfo device(int index, const std::string& type = "gpu") {
  DeviceInfo d;
  d.backend = "test";
  d.index = index;
  d.type = type;
  d.vendor = "NVIDIA";
  d.name = "planted";
  return d;
}

// 10 ms of "device time" per batch of 2 iterations.
TimedBatch sleep_batch() {
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return {0.010, 2};
}

TEST(Energy, PlantedCounterGivesItsPowerAndTheEnergyOfAnIteration) {
  Hook hook("GPUBENCH_PLANTED_POWER", "250");
  std::string why;
  EnergyMeter* meter = energy_meter(device(1001), why);
  ASSERT_NE(meter, nullptr) << why;
  EXPECT_EQ(meter->counter_source(), "planted counter");
  // A pass of 1 s: beside a second test suite on 2 cores, the sampler's and the clock's reads
  // drift apart by milliseconds (a 0.3 s pass read 246 W there); within 2% at 1 s.
  const nlohmann::json e = energy_pass(*meter, sleep_batch, 4e9, 1.0);
  EXPECT_EQ(e.at("source"), "planted counter");
  EXPECT_NEAR(e.at("watts").get<double>(), 250.0, 5.0);
  EXPECT_GE(e.at("pass_s").get<double>(), 1.0);
  // 250 W x 5 ms per iteration (10 ms per batch of 2) = 1.25 J; the duty slightly under 1 (the
  // sleeps' overshoot is host time), so the pass's power stands for the device's.
  const double duty = e.at("duty").get<double>();
  EXPECT_GT(duty, 0.5);
  EXPECT_LE(duty, 1.0);
  EXPECT_NEAR(e.at("joules_per_iteration").get<double>(), 250.0 * 0.005, 0.025);
  EXPECT_NEAR(e.at("gflops_per_joule").get<double>(), 4.0 / 1.25, 0.064);
  // The samples (250 W flat) agree with the counter.
  EXPECT_NEAR(e.at("watts_from_samples").get<double>(), 250.0, 5.0);
  EXPECT_LT(std::abs(e.at("samples_vs_counter").get<double>()), 0.02);
  EXPECT_GT(e.at("samples").get<int>(), 10);
}

TEST(Energy, WithoutACounterThePowerSamplesGiveTheEnergy) {
  Hook hook("GPUBENCH_PLANTED_POWER", "80:samples");
  std::string why;
  EnergyMeter* meter = energy_meter(device(1002), why);
  ASSERT_NE(meter, nullptr) << why;
  EXPECT_EQ(meter->counter_source(), "");
  const nlohmann::json e = energy_pass(*meter, sleep_batch, 0, 0.2);
  EXPECT_EQ(e.at("source"), "planted samples");
  EXPECT_NEAR(e.at("watts").get<double>(), 80.0, 1.0);
  EXPECT_NEAR(e.at("joules_per_iteration").get<double>(), 80.0 * 0.005, 0.01);
  EXPECT_FALSE(e.contains("gflops_per_joule"));  // no FLOPs declared
  EXPECT_FALSE(e.contains("samples_vs_counter"));
}

TEST(Energy, AMalformedPlantedPowerIsRefusedByName) {
  Hook hook("GPUBENCH_PLANTED_POWER", "lots");
  std::string why;
  EXPECT_EQ(energy_meter(device(1003), why), nullptr);  // no figure, and the run goes on
  EXPECT_NE(why.find("GPUBENCH_PLANTED_POWER: 'lots' is not WATTS"), std::string::npos) << why;
}

TEST(Energy, ADeviceWithoutAMeterSaysWhy) {
  std::string why;
  DeviceInfo d = device(1004, "accelerator");
  d.vendor = "Acme";
  EXPECT_EQ(energy_meter(d, why), nullptr);
  EXPECT_NE(why.find("no energy reader"), std::string::npos) << why;
}

TEST(Energy, RaplOnTheHostOrWhyNot) {
  std::string why;
  EnergyMeter* meter = energy_meter(device(1005, "cpu"), why);
  if (!meter) {
    // This machine's reason, said: no /sys/class/powercap, or a counter only root may read.
    EXPECT_TRUE(why.find("RAPL") != std::string::npos) << why;
    GTEST_SKIP() << "no RAPL reading here: " << why;
  }
  const double a = meter->joules();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double b = meter->joules();
  EXPECT_GT(b, a) << "RAPL's package energy did not move in 200 ms";
  EXPECT_LT((b - a) / 0.2, 5000.0) << "more than 5 kW: the counter's wrap or unit is misread";
}

TEST(Energy, SettingsThatDifferAreSaid) {
  const nlohmann::json then = {{"power_limit_w", 700.0}, {"sm_clock_mhz", 1980}};
  EXPECT_EQ(settings_difference(then, then), "");
  EXPECT_EQ(settings_difference(then, nlohmann::json::object()), "");  // not known now: nothing to say
  const std::string d = settings_difference(then, {{"power_limit_w", 500.0}, {"sm_clock_mhz", 1980}});
  EXPECT_NE(d.find("power limit 700 W then, 500 W now"), std::string::npos) << d;
}

TEST(Energy, ObjectivesAndTheirCosts) {
  EXPECT_EQ(parse_objective("edp"), Objective::edp);
  EXPECT_THROW(parse_objective("speed"), UsageError);
  KernelTiming t;
  t.seconds = 0.002;
  t.joules = 0.5;
  EXPECT_DOUBLE_EQ(cost(t, Objective::time), 0.002);
  EXPECT_DOUBLE_EQ(cost(t, Objective::energy), 0.5);
  EXPECT_DOUBLE_EQ(cost(t, Objective::edp), 0.001);
}

TEST(Energy, TheTunerMeasuresEnergyUnderAnEnergyObjective) {
  Hook hook("GPUBENCH_PLANTED_POWER", "100");
  const DeviceInfo d = device(1006);
  measure_energy_on(&d);
  const KernelTiming t = time_batches(
      [](int calls) {
        std::this_thread::sleep_for(std::chrono::microseconds(500 * calls));
        return 0.0005 * calls;
      },
      1.0);
  measure_energy_on(nullptr);
  EXPECT_NEAR(t.joules, 100 * 0.0005, 0.005);  // 100 W x 0.5 ms
  const KernelTiming plain = time_batches([](int calls) { return 0.0005 * calls; }, 1.0);
  EXPECT_EQ(plain.joules, 0);
}

// ---- the memory hierarchy ----

TEST(CacheLevels, PlateausAreRunsOfNeighboursWithin15Percent) {
  // L1 ~ 20 TB/s, then L2 ~ 8 TB/s, then DRAM ~ 3 TB/s.
  const std::vector<std::pair<double, double>> sweep = {
      {4e6, 7800}, {8e6, 8200}, {16e6, 8000}, {32e6, 7600}, {64e6, 3100}, {128e6, 2950}, {256e6, 3000}};
  const auto found = ceilings::plateaus(sweep);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], std::make_pair(std::size_t{0}, std::size_t{3}));
  EXPECT_EQ(found[1], std::make_pair(std::size_t{4}, std::size_t{6}));
  EXPECT_DOUBLE_EQ(ceilings::level_gbps(sweep, 50e6), 8200);  // the L2's: the fastest plateau within 50 MB
  EXPECT_DOUBLE_EQ(ceilings::level_gbps(sweep, 2e6), 0);      // none begins within 2 MB
  // A lone spike is a plateau only where no longer one is.
  const std::vector<std::pair<double, double>> spike = {{1, 100}, {2, 300}, {4, 110}, {8, 105}};
  EXPECT_DOUBLE_EQ(ceilings::level_gbps(spike), 110);
}

TEST(CacheLevels, TheSweepReadsWhatItsLaunchesSay) {
  ceilings::CacheLaunch l;
  l.slice = 300;  // float4: work-items 0..43 read 2, the others 1
  l.slices = 4;
  l.passes = 3;
  EXPECT_DOUBLE_EQ(l.expected(0), 4.0 * 2 * 3);
  EXPECT_DOUBLE_EQ(l.expected(43), 4.0 * 2 * 3);
  EXPECT_DOUBLE_EQ(l.expected(44), 4.0 * 1 * 3);
  EXPECT_DOUBLE_EQ(l.expected(256 + 44), 4.0 * 1 * 3);
  EXPECT_DOUBLE_EQ(l.bytes(), 16.0 * 300 * 4 * 3);
}

TEST(CacheLevels, AKernelAboveTheDramRoofIsPlacedAgainstTheLevelThatServedIt) {
  Ceilings c;
  c.copy_gbps = 3000;
  c.triad_gbps = 3000;
  c.f64_gflops = 60000;
  // 1 GFLOP over 8 GB (0.125 FLOP/B) in 1 ms: 8000 GB/s, above DRAM's 3000.
  RooflinePlace r = place(1e9, 8e9, 1e-3, c, Precision::f64);
  EXPECT_GT(r.roofline_pct, 100);
  EXPECT_EQ(r.level, "");  // no level measured: nothing to place it against
  c.l2_gbps = 10000;
  c.l1_gbps = 30000;
  r = place(1e9, 8e9, 1e-3, c, Precision::f64);
  EXPECT_EQ(r.level, "L2");
  EXPECT_NEAR(r.level_pct, 80.0, 1e-9);
  EXPECT_EQ(r.to_json().at("served_by"), "L2");
  // 20000 GB/s: above the L2 too, within the L1.
  r = place(1e9, 8e9, 0.4e-3, c, Precision::f64);
  EXPECT_EQ(r.level, "L1");
  EXPECT_NEAR(r.level_pct, 100.0 * 20000 / 30000, 1e-9);
  // Under the DRAM roof: no level.
  r = place(1e9, 8e9, 4e-3, c, Precision::f64);
  EXPECT_EQ(r.level, "");
  EXPECT_FALSE(r.to_json().contains("served_by"));
}

TEST(CacheLevels, TheLevelsAreConfirmedByASecondTrialLikeTheOtherCeilings) {
  Ceilings a, b;
  a.copy_gbps = b.copy_gbps = 3000;
  a.f32_gflops = b.f32_gflops = 60000;
  a.l2_gbps = 10000, b.l2_gbps = 9500;
  a.l1_gbps = 25000, b.l1_gbps = 12000;  // the second trial far off: not confirmed
  EXPECT_EQ(unconfirmed_ceilings({a, b}), "L1/shared 25000.0, 12000.0 GB/s");
  const Ceilings best = combine_trials({b, a});
  EXPECT_EQ(best.l2_gbps, 10000);
  EXPECT_EQ(best.l1_gbps, 25000);
}

TEST(Energy, CeilingsMeasuredAtOtherSettingsAreMarkedInTheTable) {
  PointResult p;
  p.id.suite = "ep";
  p.id.problem = "npb:S";
  p.id.backend = "cuda";
  p.id.variant = "reduce";
  p.id.device.backend = "cuda";
  p.id.device.name = "GPU";
  p.median_seconds_per_iteration = 0.01;
  p.repetitions = {Outcome{0.01, 1, true, "", {}}};
  Ceilings c;
  c.copy_gbps = c.triad_gbps = 3000;
  c.f32_gflops = c.f64_gflops = 30000;
  c.host = this_host();
  c.settings_differ = settings_difference({{"power_limit_w", 700.0}}, {{"power_limit_w", 450.0}});
  p.ceilings = c;
  RunReport report;
  report.points.push_back(p);
  std::ostringstream table;
  write_table(report, table);
  EXPECT_NE(table.str().find("SETTINGS DIFFER: ceilings measured at other settings than this run's (cuda:0: power "
                             "limit 700 W then, 450 W now)"),
            std::string::npos)
      << table.str();
}

// ---- a whole run ----

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Energy, ARunsRecordsCarryTheEnergyAndTheTableShowsItWithEnergy) {
  const std::string dir = ::testing::TempDir() + "/energy_run";
  std::filesystem::create_directories(dir);
  const std::string json = dir + "/run.json", csv = dir + "/run.csv";
  const std::string point = "run --suite ep --backend openmp --problem S --precision f64 --repetitions 3";
  const std::string planted = "GPUBENCH_PLANTED_POWER=150";
  const test::Result j = test::gpubench(point + " --format json --out " + json, planted);
  ASSERT_EQ(j.exit_code, 0) << j.output;
  const test::Result c = test::gpubench(point + " --format csv --out " + csv, planted);
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const test::Result t = test::gpubench(point + " --energy", planted);
  ASSERT_EQ(t.exit_code, 0) << t.output;
  const nlohmann::json records = nlohmann::json::parse(slurp(json));
  const nlohmann::json& entry = records.at("benchmarks").at(0);
  const nlohmann::json& energy = entry.at("energy");
  EXPECT_EQ(energy.at("source"), "planted counter");
  EXPECT_NEAR(energy.at("watts").get<double>(), 150.0, 3.0);
  // J/iter = the pass's power x its time per iteration; that time is near the repetitions'.
  const double seconds = entry.at("real_time").get<double>() * 1e-9;
  EXPECT_GT(energy.at("joules_per_iteration").get<double>(), 0.3 * 150 * seconds);
  EXPECT_LT(energy.at("joules_per_iteration").get<double>(), 3.0 * 150 * seconds);
  EXPECT_GT(energy.at("duty").get<double>(), 0.5);
  EXPECT_GE(energy.at("pass_s").get<double>(), 1.0);
  EXPECT_EQ(entry.at("device_state").at("start").at("power_limit_w"), 1000.0);
  EXPECT_TRUE(records.at("context").at("test_hooks").contains("GPUBENCH_PLANTED_POWER"));
  // The CSV has the columns always; the table only with --energy.
  const std::string csv_text = slurp(csv);
  EXPECT_NE(csv_text.find("joules_per_iteration"), std::string::npos);
  EXPECT_NE(csv_text.find("planted counter"), std::string::npos);
  EXPECT_NE(t.output.find("J/iter"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("GFLOP/J"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("TEST HOOKS SET"), std::string::npos) << t.output;
  EXPECT_EQ(j.output.find("J/iter"), std::string::npos) << j.output;  // its table, without --energy
}

TEST(Energy, WithoutAMeterTheRecordsSayWhy) {
  std::string why;
  if (energy_meter(device(1007, "cpu"), why)) GTEST_SKIP() << "this machine reads RAPL: the run has a figure";
  const std::string dir = ::testing::TempDir() + "/energy_none";
  std::filesystem::create_directories(dir);
  const std::string json = dir + "/run.json";
  const test::Result r = test::gpubench("run --suite ep --backend openmp --problem S --precision f64 --repetitions 3 "
                                        "--energy --format json --out " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json records = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(records.at("benchmarks").at(0).at("energy").at("none"), why);
  EXPECT_NE(r.output.find("no energy figure: " + why), std::string::npos) << r.output;
}

TEST(Energy, ASweepByEnergyStoresWhichObjectiveChoseItsBest) {
  const std::string dir = ::testing::TempDir() + "/energy_sweep";
  std::filesystem::remove_all(dir);
  const std::string sweep = "sweep --suite gemm --backend openmp --kernel tiled --problem 64 --precision f64 "
                            "--param tile=8,16 --format json --out " + dir + "/sweep.json --tuning-db " + dir + "/db";
  std::filesystem::create_directories(dir);
  std::string why;
  if (!energy_meter(device(1008, "cpu"), why)) {  // no meter here: refused before anything is measured
    const test::Result refused = test::gpubench(sweep + " --objective energy");
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("--objective energy needs the energy of openmp:0"), std::string::npos) << refused.output;
    EXPECT_EQ(refused.output.find("measuring"), std::string::npos) << refused.output;
  }
  const test::Result r = test::gpubench(sweep + " --objective edp", "GPUBENCH_PLANTED_POWER=120");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mJ per call (--objective edp)"), std::string::npos) << r.output;
  const nlohmann::json report = nlohmann::json::parse(slurp(dir + "/sweep.json"));
  const nlohmann::json& kernel = report.at("sweeps").at(0).at("kernels").at(0);
  EXPECT_EQ(kernel.at("objective"), "edp");
  for (const auto& c : kernel.at("configs"))  // 120 W x the configuration's own time, within the pass's noise
    EXPECT_GT(c.at("joules").get<double>(), 0) << c.dump();
  const auto file = std::filesystem::directory_iterator(dir + "/db")->path();
  const nlohmann::json db = nlohmann::json::parse(slurp(file.string()));
  EXPECT_EQ(db.at("entries").at(0).at("objective"), "edp");
  EXPECT_GT(db.at("entries").at(0).at("joules").get<double>(), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
