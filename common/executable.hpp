// This process's own executable (/proc/self/exe): an installed gpubench finds what it ships
// (share/gpubench, lib/gpubench) from it, and a report program it starts runs it again.
#pragma once

#include <filesystem>
#include <system_error>

namespace gpubench {

// Empty where it cannot be read.
inline std::filesystem::path executable_path() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : self;
}

}  // namespace gpubench
