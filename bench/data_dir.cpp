#include "bench/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/errors.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

// The folder of this process's executable (/proc/self/exe), empty when it cannot be read.
fs::path executable_dir() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self.parent_path();
}

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
  const fs::path installed = executable_dir() / ".." / "share" / "gpubench";
  if (holds_data(installed)) return fs::weakly_canonical(installed).string();
  if (holds_data(GPUBENCH_SOURCE_DIR)) return GPUBENCH_SOURCE_DIR;
  throw InputError("gpubench's data (reports/, tuning-db/) is neither at " + installed.lexically_normal().string() +
                   " (an installed gpubench) nor at " + GPUBENCH_SOURCE_DIR +
                   " (the source tree it was built from); set GPUBENCH_SOURCE_DIR to where it is");
}

}  // namespace gpubench
