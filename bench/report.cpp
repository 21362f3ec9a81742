#include "bench/report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bench/data_dir.hpp"
#include "common/errors.hpp"
#include "common/executable.hpp"

namespace gpubench {

void exec_reports_program(const std::string& program, const std::vector<std::string>& args) {
  // Installed under <prefix>/share/gpubench, else the source tree (bench/data_dir.hpp).
  const std::string script = data_dir() + "/reports/" + program;
  // Debian's python3, where python3-matplotlib and -scipy install; $GPUBENCH_PYTHON names another.
  const char* chosen = std::getenv("GPUBENCH_PYTHON");
  const std::string python = chosen && *chosen ? chosen : "/usr/bin/python3";
  if (!std::filesystem::exists(script)) throw InputError("this command needs " + script);
  if (access(python.c_str(), X_OK) != 0)
    throw InputError("this command needs " + python + " (Debian's python3 with python3-matplotlib and python3-scipy; "
                     "scripts/setup installs them; GPUBENCH_PYTHON names another)");
  // A study's --run runs this gpubench.
  if (const auto self = executable_path(); !self.empty()) setenv("GPUBENCH_BINARY", self.c_str(), 0);
  std::vector<std::string> words = {python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv(python.c_str(), argv.data());
  throw InputError("could not start " + python + " " + script + ": " + std::strerror(errno));
}

}  // namespace gpubench
