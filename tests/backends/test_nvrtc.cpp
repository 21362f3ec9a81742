// NVRTC compiles every CUDA kernel of every suite, without a device (NVRTC needs none), for
// Hopper (sm_90): each suite's run-time compiled source under each set of defines its CUDA code
// builds it with, and every `extern "C" __global__` kernel the source declares is in one of the
// images. (GEMM's tuned space is compiled in tests/kernels/gemm/test_gemm_nvrtc.cpp.)
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "backends/cuda/rtc.hpp"

namespace gpubench::cuda {
namespace {

struct SuiteSource {
  const char* path;
  std::vector<Defines> builds;  // every configuration but the tunable ones
  // What follows the file when it is compiled: a user's body after spec/portable.cu, the macros
  // users' portable kernels are written with (docs/spec.md), which declares no kernel itself.
  std::string after = {};
};

std::vector<SuiteSource> suite_sources() {
  return {
      {"cg/nvrtc.cu", {{{"real", "float"}}, {{"real", "double"}}}},
      {"ep/nvrtc.cu", {{}}},
      {"ft/nvrtc.cu",
       {{{"SUM_BLOCK", "256"}},
        {{"SUM_BLOCK", "256"}, {"RADIX", "4"}}, {{"SUM_BLOCK", "256"}, {"RADIX", "8"}}, {{"SUM_BLOCK", "256"}, {"RADIX", "16"}}}},
      {"spec/portable.cu", {{{"real", "float"}}, {{"real", "double"}}},
       "extern \"C\" __global__ void body(GB_GLOBAL real* GB_RESTRICT out) {\n  GB_LOCAL real s[32];\n"
       "  s[GB_LOCAL_ID(0)] = GB_GROUP_ID(1) + GB_LOCAL_SIZE(2) + GB_NUM_GROUPS(0);\n  GB_BARRIER();\n"
       "  out[GB_GLOBAL_ID(0)] = s[31 - GB_LOCAL_ID(0)];\n}\n"},
      {"lu/nvrtc.cu", {{{"real", "float"}, {"LU_GROUP", "256"}}, {{"real", "double"}, {"LU_GROUP", "256"}}}},
      {"gemm/nvrtc.cu",
       {{{"real", "float"}, {"GEMM_KERNEL", "1"}},
        {{"real", "double"}, {"GEMM_KERNEL", "2"}, {"TILE", "16"}},
        {{"real", "double"}, {"GEMM_KERNEL", "3"}, {"BM", "64"}, {"BN", "64"}, {"BK", "8"}, {"TM", "4"}, {"TN", "4"}, {"VW", "2"}},
        {{"real", "double"}, {"GEMM_KERNEL", "4"}, {"BM", "128"}, {"BN", "128"}, {"BK", "32"}, {"STAGES", "3"},
         {"WM", "2"}, {"WN", "4"}, {"UNROLL", "1"}, {"MINB", "1"}}}},
  };
}

// The kernels `source` declares: extern "C" __global__ void NAME(, a __launch_bounds__(...) before or after void.
std::set<std::string> declared_kernels(const std::string& source) {
  static const std::regex declaration(
      R"re(extern\s+"C"\s+__global__\s+(?:__launch_bounds__\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)?void\s+(?:__launch_bounds__\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)?(\w+)\s*\()re");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), declaration); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

TEST(Nvrtc, EverySuiteKernelCompilesForHopperWithoutADevice) {
  for (const SuiteSource& s : suite_sources()) {
    const std::string source = rtc_source(s.path) + s.after;
    const std::set<std::string> declared = declared_kernels(source);
    EXPECT_FALSE(declared.empty()) << s.path;
    std::set<std::string> built;
    for (const Defines& d : s.builds) {
      std::string image;
      ASSERT_NO_THROW(image = rtc_compile(source, d, 90, s.path)) << s.path;
      for (const std::string& name : declared)
        if (image.find(name + '\0') != std::string::npos) built.insert(name);
    }
    EXPECT_EQ(built, declared) << s.path << ": kernels declared but in no image";
  }
}

}  // namespace
}  // namespace gpubench::cuda
