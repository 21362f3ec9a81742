#include "bench/report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/errors.hpp"

namespace gpubench {

void exec_report(const std::vector<std::string>& args) {
  const std::string script = GPUBENCH_SOURCE_DIR "/reports/report.py";
  const std::string python = "/usr/bin/python3";  // Debian's, where python3-matplotlib and -scipy install
  if (!std::filesystem::exists(script))
    throw InputError("gpubench report needs " + script + " (the source tree this gpubench was built from)");
  if (access(python.c_str(), X_OK) != 0)
    throw InputError("gpubench report needs " + python + " (Debian's python3; scripts/setup installs it)");
  std::vector<std::string> words = {python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv(python.c_str(), argv.data());
  throw InputError("gpubench report: could not start " + python + ": " + std::strerror(errno));
}

}  // namespace gpubench
