#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "bench/harness.hpp"
#include "bench/record_fields.hpp"
#include "bench/result_json.hpp"
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

// A point of `suite` on a test device, with no results yet.
PointResult point(const char* suite, const char* problem, const char* backend, const char* variant) {
  PointResult p;
  p.id.suite = suite;
  p.id.problem = problem;
  p.id.backend = backend;
  p.id.variant = variant;
  p.id.device.name = "test device";
  return p;
}

// A suite's summary can hold a time (NAS EP's block does): the table must show the one of the
// repetition whose time is the row's median, not whichever ran last.
TEST(RecordsTable, SummaryIsTheMedianRepetitions) {
  PointResult p = point("ep", "npb:S", "openmp", "reduce");
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
  PointResult p = point("gemm", "square:1024", "opencl", "tiled");
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


// The published schema (reports/records.schema.json, which the Python reader follows) is the one
// table of record fields: a field added there and not republished (gpubench schema > the file)
// fails here.
TEST(RecordSchema, PublishedSchemaIsTheFieldTable) {
  const std::string path = std::string(GPUBENCH_SOURCE_DIR) + "/reports/gpubench_reports/records.schema.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const nlohmann::json published = nlohmann::json::parse(in);
  EXPECT_EQ(published, records_schema()) << "regenerate it: gpubench schema > reports/gpubench_reports/records.schema.json";
}

// Every field reaches what it names: JSON entries (a point's on every entry, a repetition's on its
// own), CSV columns (in the table's order) and the table's columns.
TEST(RecordSchema, WritersIterateTheFieldTable) {
  PointResult p = point("ep", "npb:S", "openmp", "reduce");
  p.flops_per_iteration = 2e9;
  p.bytes_per_iteration = 1e9;
  p.repetitions = {repetition(0.5, ""), repetition(0.25, "")};
  p.median_seconds_per_iteration = 0.375;
  p.measured = {{"energy", {{"source", "planted counter"}, {"joules_per_iteration", 75.0}, {"watts", 200.0}}},
                {"device_state", {{"start", {{"sm_mhz", 1980}}}}},
                {"machine_load", {{"others_cpu_fraction", 0.1}, {"cpus", 2}, {"seconds", 1.0}, {"busy", false}}}};
  RunReport report;
  report.context = {{"date", "2026-11-26"}, {"host_name", "h"}, {"gpubench_commit", "abc"}};
  report.points.push_back(p);

  std::ostringstream csv;
  write_csv(report, csv);
  std::string header = csv.str().substr(0, csv.str().find('\n'));
  std::string expected;
  for (const auto& f : record_fields())
    if (!f.csv.empty()) expected += (expected.empty() ? "" : ",") + f.csv;
  EXPECT_EQ(header, expected);

  std::ostringstream table, without_energy;
  write_table(report, table, {}, false, true);
  write_table(report, without_energy);
  for (const auto& f : record_fields())
    if (!f.column.empty()) {
      EXPECT_NE(table.str().find(f.column), std::string::npos) << f.column << "\n" << table.str();
      if (f.energy_column) {  // only with --energy
        EXPECT_EQ(without_energy.str().find(" " + f.column + " "), std::string::npos) << f.column << "\n" << without_energy.str();
      }
    }
  EXPECT_NE(table.str().find("75.0000"), std::string::npos) << table.str();

  const nlohmann::json point = point_json(report.points[0]);
  for (const RecordField* f : record_fields(RecordField::Scope::point))
    if (!f->json.empty()) {
      EXPECT_TRUE(point.contains(f->json)) << f->json;
    }
}


// A harness-wide measured value travels from the worker to the writer with the point, whole.
TEST(RecordSchema, MeasuredValuesCrossTheWorkersHandOff) {
  PointResult p;
  p.id.suite = "cg";
  p.measured = {{"kernel_count", 4}, {"joules_per_iteration", 0.25}};
  const PointResult back = nlohmann::json(p).get<PointResult>();
  EXPECT_EQ(back.measured, p.measured);
}

}  // namespace
}  // namespace gpubench
