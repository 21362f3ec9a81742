#include "bench/report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/errors.hpp"

namespace gpubench {

void exec_reports_program(const std::string& program, const std::vector<std::string>& args) {
  // The source tree this gpubench was built from, or where it has been moved to (GPUBENCH_SOURCE_DIR).
  const char* moved = std::getenv("GPUBENCH_SOURCE_DIR");
  const std::string script = std::string(moved && *moved ? moved : GPUBENCH_SOURCE_DIR) + "/reports/" + program;
  const std::string python = "/usr/bin/python3";  // Debian's, where python3-matplotlib and -scipy install
  if (!std::filesystem::exists(script))
    throw InputError("this command needs " + script + " (the source tree this gpubench was built from)");
  if (access(python.c_str(), X_OK) != 0)
    throw InputError("this command needs " + python + " (Debian's python3; scripts/setup installs it)");
  // A study's --run runs this gpubench.
  std::error_code error;
  if (const auto self = std::filesystem::read_symlink("/proc/self/exe", error); !error)
    setenv("GPUBENCH_BINARY", self.c_str(), 0);
  std::vector<std::string> words = {python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv(python.c_str(), argv.data());
  throw InputError("could not start " + python + " " + script + ": " + std::strerror(errno));
}

}  // namespace gpubench
