// NVRTC builds GEMM's CUDA kernels without a device (it needs none): every kernel the CUDA
// backend compiles at run time, for Hopper (sm_90), and a planted error is refused with the
// compiler's log.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <string>

#include "backends/cuda/rtc.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {
namespace {

using testing::HasSubstr;

cuda::Defines tuned_defines(const Params& p, const char* real) {
  cuda::Defines d = {{"real", real}, {"GEMM_KERNEL", "3"}};
  for (auto& define : compile_defines(p)) d.push_back(std::move(define));
  return d;
}

DeviceInfo hopper() {
  DeviceInfo d;
  d.max_work_group_size = 1024;
  d.local_mem_bytes = 48 * 1024;  // static shared memory per block
  return d;
}

TEST(GemmNvrtc, NaiveTiledAndTunedCompileForHopperWithoutADevice) {
  const std::string source = cuda::rtc_source("gemm/nvrtc.cu");
  for (const char* real : {"float", "double"}) {
    EXPECT_FALSE(cuda::rtc_compile(source, {{"real", real}, {"GEMM_KERNEL", "1"}}, 90, "naive").empty());
    for (const char* tile : {"8", "16", "32"})
      EXPECT_FALSE(cuda::rtc_compile(source, {{"real", real}, {"GEMM_KERNEL", "2"}, {"TILE", tile}}, 90, "tiled").empty());
  }
  // The tuned space's first, middle and last legal configurations of each precision.
  for (Precision p : {Precision::f32, Precision::f64}) {
    const auto legal = tuned_space(hopper(), p).enumerate();
    ASSERT_GT(legal.size(), 100u);
    for (std::size_t i : {std::size_t{0}, legal.size() / 2, legal.size() - 1})
      EXPECT_FALSE(cuda::rtc_compile(source, tuned_defines(legal[i], p == Precision::f32 ? "float" : "double"), 90,
                                     "tuned " + format_params(legal[i]))
                       .empty());
  }
}

TEST(GemmNvrtc, APlantedCompileErrorIsRefusedByNameWithTheLog) {
  const std::string broken = cuda::rtc_source("gemm/nvrtc.cu") + "\nextern \"C\" __global__ void planted() { undeclared_name = 1; }\n";
  try {
    cuda::rtc_compile(broken, {{"real", "float"}, {"GEMM_KERNEL", "1"}}, 90, "GEMM planted");
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    EXPECT_THAT(e.what(), HasSubstr("GEMM planted does not compile"));
    EXPECT_THAT(e.what(), HasSubstr("undeclared_name"));  // NVRTC's log
    EXPECT_THAT(e.what(), HasSubstr("--gpu-architecture=sm_90"));
  }
  // A configuration the kernel body cannot take (a 64-byte vector) fails the same way.
  EXPECT_THROW(cuda::rtc_compile(cuda::rtc_source("gemm/nvrtc.cu"),
                                 tuned_defines({{"bm", 64}, {"bn", 64}, {"bk", 8}, {"tm", 4}, {"tn", 4}, {"vw", 8}}, "double"),
                                 90, "tuned vw=8"),
               DeviceError);
}

TEST(GemmNvrtc, ASpreadOfTheTunedSpaceCompiles) {
  // Every 40th legal configuration of each precision (the whole space takes minutes on 2 cores:
  // an exhaustive sweep on a GPU compiles it all, and its cache records any that fail).
  const std::string source = cuda::rtc_source("gemm/nvrtc.cu");
  for (Precision p : {Precision::f32, Precision::f64}) {
    const auto legal = tuned_space(hopper(), p).enumerate();
    for (std::size_t i = 7; i < legal.size(); i += 40)
      EXPECT_NO_THROW(cuda::rtc_compile(source, tuned_defines(legal[i], p == Precision::f32 ? "float" : "double"), 90,
                                        "tuned " + format_params(legal[i])));
  }
}

}  // namespace
}  // namespace gpubench::gemm
