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

TEST(GemmNvrtc, NaiveTiledTunedAndDegenerateCompileForHopperWithoutADevice) {
  const std::string source = cuda::rtc_source("gemm/nvrtc.cu");
  for (const char* real : {"float", "double"}) {
    EXPECT_FALSE(cuda::rtc_compile(source, {{"real", real}, {"GEMM_KERNEL", "1"}}, 90, "naive").empty());
    // The degenerate shapes' kernels (gemv.h), as CUDA builds them: gemm_outer, gemm_rowdot, gemm_colsum, gemm_finish.
    const std::string gemv = cuda::rtc_compile(source, {{"real", real}, {"GEMM_KERNEL", "5"}}, 90, "gemv");
    for (const char* name : {"gemm_outer", "gemm_rowdot", "gemm_colsum", "gemm_finish", "gemm_pad", "gemm_scale"})
      EXPECT_NE(gemv.find(name), std::string::npos) << name;
    for (const char* tile : {"8", "16", "32"})
      EXPECT_FALSE(cuda::rtc_compile(source, {{"real", real}, {"GEMM_KERNEL", "2"}, {"TILE", tile}}, 90, "tiled").empty());
  }
  // The tuned space's first, middle and last legal configurations of each precision, in a thin
  // C's space (the middle and last split K: atomics into C).
  for (Precision p : {Precision::f32, Precision::f64}) {
    const auto legal = tuned_space(hopper(), p, 8000).enumerate();
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

// The tensor kernel's space (kernels/gemm/tensor_shape.h): a spread of its legal configurations
// compiles for Hopper (NVRTC, no device; a sweep on a GPU builds the rest), one the kernel cannot
// take is refused by its static_assert, and the heuristic's choices lie in the space.
TEST(GemmNvrtc, ASpreadOfTheTensorSpaceCompilesAndItsHeuristicIsLegal) {
  const TunableSpace space = tensor_space();
  const auto legal = space.enumerate();
  ASSERT_GT(legal.size(), 200u) << legal.size();
  const std::string source = cuda::rtc_source("gemm/nvrtc.cu");
  auto defines = [](const Params& p) {
    cuda::Defines d = {{"real", "double"}, {"GEMM_KERNEL", "4"}};
    for (const char* name : {"bm", "bn", "bk", "stages", "wm", "wn", "unroll", "minb"}) {
      std::string macro = name;
      for (char& c : macro) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      d.push_back({macro, std::to_string(p.at(name))});
    }
    return d;
  };
  for (std::size_t i = 3; i < legal.size(); i += legal.size() / 6)
    EXPECT_NO_THROW(cuda::rtc_compile(source, defines(legal[i]), 90, "tensor " + format_params(legal[i])));
  // 16 wm must divide bm: 24-row warps have no whole m16 tiles.
  EXPECT_THROW(cuda::rtc_compile(source,
                                 defines({{"bm", 96}, {"bn", 64}, {"bk", 16}, {"stages", 2}, {"wm", 4}, {"wn", 2}, {"unroll", 1}, {"minb", 1}}),
                                 90, "tensor bm=96"),
               DeviceError);
  DeviceInfo h100;
  h100.compute_units = 132;
  for (const char* problem : {"8192", "4097x129x1023", "64x8x4096", "1x1x1", "16384x16384x256"}) {
    const Params h = own_launch(nullptr, h100, Variant::tensor, parse_shape(problem), Precision::f64).params;
    EXPECT_TRUE(space.legal(h)) << problem << ": " << format_params(h);
  }
  // Thin C: split K until the SMs have a block each.
  EXPECT_EQ(own_launch(nullptr, h100, Variant::tensor, parse_shape("4097x129x1023"), Precision::f64).params.at("splitk"), 1);
  EXPECT_EQ(own_launch(nullptr, h100, Variant::tensor, parse_shape("256x256x8192"), Precision::f64).params.at("splitk"), 8);
  EXPECT_EQ(own_launch(nullptr, h100, Variant::tensor, parse_shape("8192"), Precision::f64).params.at("bm"), 128);
}

}  // namespace
}  // namespace gpubench::gemm
