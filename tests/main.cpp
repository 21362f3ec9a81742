// Every test program's main (gtest_main's, plus two things).
//
// A program that does not link a module's objects (gpubench_tests) loads the module the way
// gpubench does, from lib/gpubench, so that a test process that does not need it does not pay for
// it (the CUDA module's libraries take 0.5-1 s to load and initialise, and ctest starts one process
// per test). Tests reach a module's backend through the registry, whose stand-in loads it when its
// devices are asked for; but the lists that parameterized tests are made from are built before any
// test runs (find_operations("cuda") is empty until the module is in), so the module is loaded here
// first, unless the filter names only tests none of which can be the module's: a list of exact
// names (ctest runs each test as one) none of which mentions the module ("cuda", "Cuda",
// "omp_target", "OmpTarget").
//
// A filter of exact names that matches no test is an error (exit 1), not an empty pass: a test
// that ctest found but this process did not make would otherwise pass without running.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "backends/registry.hpp"

namespace {

// The filter gtest will read: the last --gtest_filter= (or -gtest_filter=), else GTEST_FILTER.
std::string filter_of(int argc, char** argv) {
  std::string filter;
  if (const char* env = std::getenv("GTEST_FILTER")) filter = env;
  for (int i = 1; i < argc; ++i)
    for (const char* prefix : {"--gtest_filter=", "-gtest_filter="})
      if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) filter = argv[i] + std::strlen(prefix);
  return filter;
}

// Lower case, without '_': "omp_target" and "OmpTarget" both read "omptarget".
std::string folded(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool exact_names(const std::string& filter) {
  return !filter.empty() && filter.find_first_of("*?-") == std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string filter = filter_of(argc, argv);
  for (const gpubench::Backend& backend : gpubench::backends())
    if (!exact_names(filter) || folded(filter).find(folded(backend.name)) != std::string::npos)
      gpubench::load_backend(backend.name);  // "" for one linked in; a failure is the stand-in's to say
  testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  if (result == 0 && exact_names(filter) && testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    std::cerr << "no test is named " << filter << " in this program" << std::endl;
    return 1;
  }
  return result;
}
