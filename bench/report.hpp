// `gpubench report ...` (tables and figures from result records) and `gpubench track ...` (the
// performance history) are Python programs under reports/ (Debian's python3, python3-matplotlib,
// python3-scipy); this process becomes that program.
#pragma once

#include <string>
#include <vector>

namespace gpubench {

// Replaces this process with reports/<program> given `args` (the words after the command);
// returns only when that cannot start, throwing InputError naming what is missing.
[[noreturn]] void exec_reports_program(const std::string& program, const std::vector<std::string>& args);

}  // namespace gpubench
