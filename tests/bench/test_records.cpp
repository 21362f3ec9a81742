#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "bench/harness.hpp"
#include "bench/records.hpp"

namespace gpubench {
namespace {

Outcome repetition(double seconds, const std::string& summary) {
  Outcome o;
  o.seconds = seconds;
  o.iterations = 1;
  o.verified = true;
  o.fields = {{"summary", summary}};
  return o;
}

// A suite's summary can hold a time (NAS EP's block does): the table must show the one of the
// repetition whose time is the row's median, not whichever ran last.
TEST(RecordsTable, SummaryIsTheMedianRepetitions) {
  PointResult p;
  p.id.suite = "ep";
  p.id.problem = "npb:S";
  p.id.backend = "openmp";
  p.id.variant = "reduce";
  p.id.device.name = "test device";
  p.repetitions = {repetition(0.30, "run at 0.30 s"), repetition(0.20, "run at 0.20 s"),
                   repetition(0.10, "run at 0.10 s")};
  p.median_seconds_per_iteration = 0.20;
  RunReport report;
  report.points.push_back(p);
  std::ostringstream out;
  write_table(report, out);
  EXPECT_NE(out.str().find("run at 0.20 s"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("run at 0.10 s"), std::string::npos) << out.str();
}

// The per-kernel "launch" column prints whatever parameters the kernel was launched with.
TEST(RecordsTable, LaunchColumnPrintsEveryParameter) {
  PointResult p;
  p.id.suite = "gemm";
  p.id.problem = "square:1024";
  p.id.backend = "opencl";
  p.id.variant = "tiled";
  p.id.device.name = "test device";
  p.id.params["launch"]["gemm_tiled"] = {{"tile", 16}, {"work_group_size", 256}, {"from", "tuned"}, {"detail", "x"}};
  p.repetitions = {repetition(0.1, "")};
  p.median_seconds_per_iteration = 0.1;
  p.kernels = {{"gemm_tiled", 1, 0.09, 2e9, 1e7}};
  RunReport report;
  report.points.push_back(p);
  std::ostringstream out;
  write_table(report, out, {}, true);
  EXPECT_NE(out.str().find("tile=16 work_group_size=256: tuned\n"), std::string::npos) << out.str();
  std::ostringstream summary;
  write_table(report, summary);
  EXPECT_EQ(summary.str().find("gemm_tiled"), std::string::npos) << "the breakdown is behind --breakdown";
}

}  // namespace
}  // namespace gpubench
