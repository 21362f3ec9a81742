// `gpubench report ...`: tables and figures from result records, made by reports/report.py
// (Debian's python3, python3-matplotlib); this process becomes that program.
#pragma once

#include <string>
#include <vector>

namespace gpubench {

// Replaces this process with reports/report.py given `args` (the words after "report");
// returns only when that cannot start, throwing InputError naming what is missing.
[[noreturn]] void exec_report(const std::vector<std::string>& args);

}  // namespace gpubench
