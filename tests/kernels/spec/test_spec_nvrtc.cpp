// The examples' CUDA sources and a portable body compile for sm_90 with NVRTC at their default
// configuration and at the reference's, in both precisions: what a GPU run builds, checked where
// there is no GPU (NVRTC needs none).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "backends/cuda/rtc.hpp"
#include "bench/tunable.hpp"
#include "kernels/spec/spec.hpp"
#include "tests/test_paths.hpp"

namespace {

namespace fs = std::filesystem;

gpubench::cuda::Defines defines(const gpubench::Params& p, const char* real) {
  gpubench::cuda::Defines d = {{"real", real}};
  for (const auto& [n, v] : gpubench::compile_defines(p)) d.emplace_back(n, v);
  return d;
}

TEST(SpecNvrtc, TheExamplesCudaSourcesCompileForSm90) {
  for (const char* name : {"transpose", "reduction", "jacobi2d"}) {
    const auto spec = gpubench::spec::load(gpubench::test::source_dir() + "/examples/" + name + "/" + name + ".json");
    ASSERT_FALSE(spec.cuda_source.empty()) << name;
    for (const char* real : {"float", "double"})
      for (const auto& params : {spec.defaults, spec.verify.reference_params})
        EXPECT_NO_THROW(gpubench::cuda::rtc_compile(spec.cuda_source, defines(params, real), 90, spec.name))
            << name << " " << real;
  }
}

TEST(SpecNvrtc, APortableBodyCompilesWithItsPrelude) {
  const fs::path dir = fs::temp_directory_path() / ("gpubench_spec_nvrtc_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "k.h") << R"(GB_KERNEL void k(GB_GLOBAL real* GB_RESTRICT out, int n) {
  GB_LOCAL real s[GROUP];
  const long i = GB_GLOBAL_ID(0);
  s[GB_LOCAL_ID(0)] = (real)GB_GROUP_ID(0) + GB_NUM_GROUPS(0) + GB_LOCAL_SIZE(0);
  GB_BARRIER();
  if (i < n) out[i] = s[GB_LOCAL_ID(0)];
}
)";
  std::ofstream(dir / "k.json") << R"({"schema": "gpubench-kernel-spec", "version": 1, "name": "k",
    "sources": {"portable": "k.h"}, "sizes": {"n": 64},
    "buffers": {"out": {"type": "real", "length": "n", "output": true}},
    "tunables": {"group": [32]},
    "steps": [{"kernel": "k", "args": ["out", {"int": "n"}], "global": ["n"], "local": ["group"]}],
    "work": {"flops": 0, "bytes": "n * real_bytes"},
    "verify": {"reference": {"steps": [{"kernel": "k", "args": ["out", {"int": "n"}], "global": ["n"], "local": ["group"]}]},
               "tolerance": {"abs": 0, "rel": 0}}})";
  const auto spec = gpubench::spec::load((dir / "k.json").string());
  EXPECT_TRUE(spec.portable);
  const std::string source = gpubench::cuda::rtc_source("spec/portable.cu") + spec.cuda_source;
  EXPECT_NO_THROW(gpubench::cuda::rtc_compile(source, defines({{"group", 32}}, "double"), 90, "k"));
  // A compile error is the compiler's log, with the build named.
  try {
    gpubench::cuda::rtc_compile(source + "\nGB_KERNEL void bad() { undefined_name = 1; }\n",
                                defines({{"group", 32}}, "float"), 90, "k (real=f32 group=32)");
    FAIL() << "undefined_name compiled";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("undefined_name"));
    EXPECT_THAT(e.what(), testing::HasSubstr("k (real=f32 group=32)"));
  }
  fs::remove_all(dir);
}

}  // namespace
