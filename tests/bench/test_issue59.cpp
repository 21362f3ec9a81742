// Issue 59 item 5: the tensor cores' ceilings. A kernel that runs on a unit other than the FMA pipes
// (the point's compute_unit) is placed against that unit's measured peak; where the ceilings hold
// none, the FMA peak stands in and the place, the record and the table's footnote say so. The
// peaks travel through the tuning database's JSON and merge across backends as the others do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "bench/records.hpp"
#include "bench/roofline.hpp"
#include "bench/tuning_db_file.hpp"

namespace gpubench {
namespace {

using testing::HasSubstr;
using testing::Not;

// An H100-like roof: 3000 GB/s, FMA 60/30 TFLOP/s, with or without the FP64 tensor cores' 60.
Ceilings h100(bool tensor) {
  Ceilings c;
  c.copy_gbps = c.triad_gbps = 3000;
  c.f32_gflops = 60000;
  c.f64_gflops = 30000;
  c.backend = "cuda";
  c.date = "2026-12-07T00:00:00+0000";
  c.commit = "test";
  if (tensor) c.unit_gflops = {{"f64 tensor", 60000}, {"tf32 tensor", 370000}};
  return c;
}

// DGEMM 4096: 2 n^3 FLOPs over 3 n^2 doubles in 2.75 ms, about 50 TFLOP/s.
constexpr double n = 4096, flops = 2 * n * n * n, bytes = 3 * n * n * 8, seconds = 2.75e-3;

TEST(TensorCeilings, AKernelOnTheTensorCoresIsPlacedAgainstTheirPeak) {
  const RooflinePlace fma = place(flops, bytes, seconds, h100(true), Precision::f64);
  EXPECT_GT(fma.roofline_pct, 160);  // against the FMA chains' 30 TFLOP/s, as before
  EXPECT_TRUE(fma.unit.empty());
  const RooflinePlace tc = place(flops, bytes, seconds, h100(true), Precision::f64, "f64 tensor");
  EXPECT_NEAR(tc.roofline_pct, 100 * flops / seconds / 1e9 / 60000, 1e-9);
  EXPECT_LT(tc.roofline_pct, 100);
  EXPECT_EQ(tc.unit, "f64 tensor");
  EXPECT_FALSE(tc.unit_unmeasured);
  EXPECT_EQ(tc.peak_gflops, 60000);
  const nlohmann::json j = tc.to_json();
  EXPECT_EQ(j.at("compute_unit"), "f64 tensor");
  EXPECT_FALSE(j.contains("compute_unit_ceiling"));
  // Low intensity: the bandwidth side holds, whatever the unit.
  const RooflinePlace thin = place(2 * n * n, 8 * n * n, 1e-3, h100(true), Precision::f64, "f64 tensor");
  EXPECT_NEAR(thin.attainable_gflops, 3000 * 0.25, 1e-9);
}

TEST(TensorCeilings, WithoutTheUnitsPeakTheFmaPeakStandsInAndSaysSo) {
  const RooflinePlace r = place(flops, bytes, seconds, h100(false), Precision::f64, "f64 tensor");
  EXPECT_TRUE(r.unit_unmeasured);
  EXPECT_EQ(r.peak_gflops, 30000);
  EXPECT_GT(r.roofline_pct, 160);
  EXPECT_EQ(r.to_json().at("compute_unit_ceiling"), "not measured: placed against the FMA peak");
  // A unit that the ceilings hold for another input type is no stand-in.
  EXPECT_TRUE(place(flops, bytes, seconds, h100(true), Precision::f32, "f16 tensor").unit_unmeasured);
}

TEST(TensorCeilings, TheFootnoteNamesTheUnitAndWhatStoodIn) {
  RunReport report;
  for (bool tensor : {true, false}) {
    PointResult p;
    p.id.suite = "gemm";
    p.id.problem = "4096";
    p.id.backend = "cuda";
    p.id.variant = tensor ? "tensor" : "vendor";
    p.id.precision = Precision::f64;
    p.flops_per_iteration = flops;
    p.bytes_per_iteration = bytes;
    p.median_seconds_per_iteration = tensor ? 1.0e-3 : seconds;  // 137 TFLOP/s: above even the tensor peak
    p.compute_unit = "f64 tensor";
    p.ceilings = h100(tensor);
    report.points.push_back(p);
  }
  std::ostringstream out;
  write_table(report, out);
  EXPECT_THAT(out.str(), HasSubstr("faster than the probe's f64 tensor peak (60000 GFLOP/s)")) << out.str();
  EXPECT_THAT(out.str(), HasSubstr("it runs on the f64 tensor unit, whose peak these ceilings (measured with cuda "
                                   "kernels) do not hold: placed against the FMA-chain probe's peak (30000 GFLOP/s)"))
      << out.str();
}

TEST(TensorCeilings, ThePeaksRoundTripTheDatabasesJsonAndMalformedOnesAreRefusedByName) {
  const Ceilings c = ceilings_of_json(ceilings_json(h100(true)));
  EXPECT_EQ(c.unit_gflops, h100(true).unit_gflops);
  EXPECT_TRUE(ceilings_of_json(ceilings_json(h100(false))).unit_gflops.empty());  // files of before: none
  nlohmann::json j = ceilings_json(h100(true));
  EXPECT_FALSE(ceilings_json(h100(false)).contains("unit_gflops"));
  j["unit_gflops"]["f16 tensor"] = -1;
  try {
    ceilings_of_json(j);
    ADD_FAILURE() << "a negative peak was read";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"unit_gflops\" holds \"f16 tensor\": -1, not a positive number"));
  }
  j["unit_gflops"] = 5;
  EXPECT_THROW(ceilings_of_json(j), std::runtime_error);
}

TEST(TensorCeilings, TrialsAndBackendsKeepEachUnitsBest) {
  Ceilings a = h100(true), b = h100(false);
  b.copy_gbps = b.triad_gbps = 3100;  // the better bandwidth: its ceilings lead the merge
  b.unit_gflops = {{"f64 tensor", 61000}};
  const Ceilings merged = merge_ceilings({a, b});
  EXPECT_EQ(merged.bandwidth_gbps(), 3100);
  EXPECT_EQ(merged.unit_gflops.at("f64 tensor"), 61000);
  EXPECT_EQ(merged.unit_gflops.at("tf32 tensor"), 370000);  // kept from the one that led before
  const Ceilings trials = combine_trials({h100(false), h100(true)});
  EXPECT_EQ(trials.unit_gflops.at("f64 tensor"), 60000);
}

TEST(TensorCeilings, TheRooflineListsEachUnitBesideItsDatasheetFigure) {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = "NVIDIA H100 80GB HBM3";
  d.driver = "580";
  std::ostringstream out;
  write_ceilings(d, h100(true), out);
  EXPECT_THAT(out.str(), HasSubstr("f64 tensor peak")) << out.str();
  EXPECT_THAT(out.str(), HasSubstr("datasheet 67000 GFLOP/s (90% of it)")) << out.str();
  EXPECT_THAT(out.str(), HasSubstr("wgmma, which no probe runs")) << out.str();
  std::ostringstream none;
  write_ceilings(d, h100(false), none);
  EXPECT_THAT(none.str(), Not(HasSubstr("tensor")));
}

}  // namespace
}  // namespace gpubench
