#include "bench/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/errors.hpp"
#include "common/executable.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

bool holds_data(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / "reports" / "report.py", error);
}

}  // namespace

std::string data_dir() {
  if (const char* moved = std::getenv("GPUBENCH_SOURCE_DIR"); moved && *moved) {
    if (!holds_data(moved))
      throw InputError(std::string("GPUBENCH_SOURCE_DIR=") + moved + " has no reports/report.py");
    return moved;
  }
  const fs::path installed = executable_path().parent_path() / ".." / "share" / "gpubench";
  if (holds_data(installed)) return fs::weakly_canonical(installed).string();
  if (holds_data(GPUBENCH_SOURCE_DIR)) return GPUBENCH_SOURCE_DIR;
  throw InputError("gpubench's data (reports/, tuning-db/) is neither at " + installed.lexically_normal().string() +
                   " (an installed gpubench) nor at " + GPUBENCH_SOURCE_DIR +
                   " (the source tree it was built from); set GPUBENCH_SOURCE_DIR to where it is");
}

}  // namespace gpubench
