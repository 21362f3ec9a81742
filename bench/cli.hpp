// The gpubench command line.
#pragma once

#include <string>
#include <vector>

#include "bench/suite.hpp"
#include "bench/sweep.hpp"

namespace gpubench {

enum class Format { table, json, csv };

// gpubench [run] | sweep | roofline | tuning show
enum class Command { run, sweep, roofline, tuning_show };

struct CliOptions {
  Command command = Command::run;
  RunOptions run;
  bool tuning = true;        // --tuning on|off: runs take launch parameters from the database
  std::string tuning_db;     // --tuning-db DIR; empty: default_tuning_db_dir()
  std::string kernel;        // sweep --kernel NAME
  SweepOptions sweep;        // sweep --param, --strategy, --max-evals, --time-limit, --time-budget, --seed, --cache
  // sweep --replay FILE..: strategies answered from caches, no device (bench/replay.hpp)
  std::vector<std::string> replay;
  std::vector<std::string> strategies;  // --strategy for a replay: several, or all
  int seeds = 1;                        // --seeds N: a replay runs seeds seed .. seed + N - 1
  bool remeasure = false;    // roofline --remeasure
  Format format = Format::table;
  std::string out;  // empty: stdout
  std::string baseline;  // BACKEND[:DEVICE]:VARIANT; empty: speedups against the first row
  bool breakdown = false;
  bool energy = false;  // --energy: the table adds the energy pass's columns  // --breakdown: the table adds each point's per-kernel rows
  bool list_devices = false;    // with run.backends: the backends asked for (all by default)
  bool help = false;
  std::string help_text;        // the chosen command's help (--help), or the usage (no arguments)
  bool version = false;
  // tuning show: only these (empty: all)
  std::string backend_filter, device_filter, suite_filter, kernel_filter;
  bool isolate = true;          // --isolate on|off: points run in a worker process (bench/isolation.hpp)
  double point_timeout_s = 600; // --point-timeout S: a unit without progress for this long is a hang
  double busy_timeout_s = 30;   // --busy-timeout S: how long a database write waits for another's lock
  bool replace = false;         // sweep --replace: a sweep's best replaces a faster stored entry
};

// Parsed with CLI11: `gpubench [run] | sweep | roofline | tuning show`, each command with its own
// options and --help. Throws UsageError naming the bad option or value and listing the valid ones.
// No arguments at all: help, with the usage as its text.
CliOptions parse_cli(const std::vector<std::string>& args);
// The commands, then the run's options and each suite's problems, variants and options.
std::string usage();

}  // namespace gpubench
