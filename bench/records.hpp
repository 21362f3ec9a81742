// Writers for a run's results: Google Benchmark JSON, flat CSV, and the readable table.
#pragma once

#include <ostream>
#include <string>

#include "bench/harness.hpp"

namespace gpubench {

// Google Benchmark's JSON layout: "context" and "benchmarks" (the verified points' repetitions
// and aggregates), and "failed_benchmarks": the failed points' entries, marked as Google Benchmark
// marks errors (error_occurred, error_message), without times.
void write_json(const RunReport& report, std::ostream& out);
void write_csv(const RunReport& report, std::ostream& out);
// One row per point with speedup against the first verified row, then each point's per-kernel
// breakdown, then the failures with their reasons.
// `baseline` ("BACKEND[:DEVICE]:VARIANT", empty for the first verified row) picks the row each
// speedup divides; with several precisions, the baseline of the row's own precision.
void write_table(const RunReport& report, std::ostream& out, const std::string& baseline = {});

// Throws UsageError when `baseline` is malformed or matches none of `points` (listing those).
void check_baseline(const std::string& baseline, const std::vector<PointId>& points);

// Throws UsageError, before a run, when --out `path` could not be written after it: a missing
// directory, a directory, no permission.
void check_writable(const std::string& path);

// A regular file (or none) through a temporary file and a rename, so a failure never leaves
// half a file behind; a symlink's target, not the link; a FIFO or device written in place.
// Throws InputError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace gpubench
