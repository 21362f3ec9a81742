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
// One row per point and repetition (failed ones with their error and no figures), with the
// date, commit, host and device of the run; no aggregates: a spreadsheet computes its own.
void write_csv(const RunReport& report, std::ostream& out);
// The per-kernel breakdown of the profiled passes as a long table: one row per point and kernel.
void write_kernel_csv(const RunReport& report, std::ostream& out);
// Where write_kernel_csv goes beside a CSV --out: "run.csv" -> "run.kernels.csv".
std::string kernel_csv_path(const std::string& out);
// One row per point with its speedup, the devices' ceilings, then (with `breakdown`) each point's
// per-kernel rows, then the failures with their reasons. Columns are as wide as their contents.
// `baseline` ("BACKEND[:DEVICE]:VARIANT", empty for the first verified row) picks the row each
// speedup divides; with several precisions, the baseline of the row's own precision. When rows of
// a precision took different iteration counts (--tolerance), speedups are by time to solution.
// With `energy` (--energy), the energy pass's columns (J/iter, W, GFLOP/J) and their footnotes.
void write_table(const RunReport& report, std::ostream& out, const std::string& baseline = {}, bool breakdown = false,
                 bool energy = false);

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
