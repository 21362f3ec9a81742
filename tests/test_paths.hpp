// Where the tests find their data and the gpubench binary. The build bakes in this checkout's
// paths; environment variables override them, so the test binary also runs from a bundle on
// another machine (scripts/device-bundle sets them).
#pragma once

#include <cstdlib>
#include <string>

namespace gpubench::test {

inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
// ../shared/data/matrices: real Matrix Market files.
inline std::string matrix_dir() { return env_or("GPUBENCH_MATRIX_DIR", GPUBENCH_MATRIX_DIR); }
// tests/data: small malformed and edge-case inputs.
inline std::string test_data_dir() { return env_or("GPUBENCH_TEST_DATA", GPUBENCH_TEST_DATA); }
inline std::string gpubench_binary() { return env_or("GPUBENCH_BINARY", GPUBENCH_BINARY); }

}  // namespace gpubench::test
