// The gpubench command line.
#pragma once

#include <string>
#include <vector>

#include "bench/suite.hpp"

namespace gpubench {

enum class Format { table, json, csv };

struct CliOptions {
  RunOptions run;
  Format format = Format::table;
  std::string out;  // empty: stdout
  std::string baseline;  // BACKEND[:DEVICE]:VARIANT; empty: speedups against the first row
  bool list_devices = false;
  bool help = false;
};

// Throws UsageError naming the bad option or value and listing the valid ones.
CliOptions parse_cli(const std::vector<std::string>& args);
std::string usage();

}  // namespace gpubench
