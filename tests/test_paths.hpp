// Where the tests find their data and the gpubench binary. The build bakes in this checkout's
// paths; environment variables override them, so the test binary also runs from a bundle on
// another machine (scripts/device-bundle sets them).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench::test {

inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
// tests/data/matrices: real Matrix Market files (their source and licence in tests/data/README.md).
inline std::string matrix_dir() { return env_or("GPUBENCH_MATRIX_DIR", GPUBENCH_MATRIX_DIR); }
// tests/data: small malformed and edge-case inputs.
inline std::string test_data_dir() { return env_or("GPUBENCH_TEST_DATA", GPUBENCH_TEST_DATA); }
inline std::string gpubench_binary() { return env_or("GPUBENCH_BINARY", GPUBENCH_BINARY); }
// The checkout (reports/'s programs).
inline std::string source_dir() { return env_or("GPUBENCH_SOURCE_DIR", GPUBENCH_SOURCE_DIR); }

// One run of the gpubench binary: its exit code and its stdout and stderr together.
struct Result {
  int exit_code = -1;
  std::string output;
};

// `env`: assignments for this run only, e.g. "GPUBENCH_FAULT=abort@form1".
inline Result gpubench(const std::string& args, const std::string& env = {}) {
  const std::string cmd = (env.empty() ? "" : "env " + env + " ") + gpubench_binary() + " " + args + " 2>&1";
  Result r;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe.get())) r.output += buf.data();
  const int status = pclose(pipe.release());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A path in the temporary directory, named for this process (each test runs in its own).
inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpubench_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

// The JSON file at `path` (an exception, which fails the test, where it is not JSON).
inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

}  // namespace gpubench::test
