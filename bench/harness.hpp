// Runs planned points through Google Benchmark (manual time = device time per iteration,
// repetitions and their aggregates), after a warm-up and one per-kernel profiled pass each.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/suite.hpp"

namespace gpubench {

struct PointResult {
  PointId id;
  bool failed = false;         // an error, or a repetition that did not verify
  std::string error;           // the first error or verification failure
  std::vector<Outcome> repetitions;
  std::vector<KernelRow> kernels;  // from the profiled pass, plus an "overhead" row
  double flops_per_iteration = 0, bytes_per_iteration = 0;
  double median_seconds_per_iteration = 0;  // over verified repetitions

  double gflops() const;
  double gbps() const;
};

struct RunReport {
  nlohmann::json context;              // Google Benchmark's context block, with gpubench's fields
  nlohmann::json benchmarks;           // Google Benchmark entries (iterations and aggregates)
  std::vector<PointResult> points;
  std::vector<std::string> unavailable;  // from the plan: asked for, not runnable here
  bool any_failed() const;
};

// Progress goes to `log` (stderr in the CLI). Never throws for a point's failure: it is recorded.
RunReport run_plan(Plan& plan, int repetitions, std::ostream& log);

}  // namespace gpubench
