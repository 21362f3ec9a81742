// The GEMM suite's device kernels (opencl, cuda; ViennaCL's prod on its two backends) verify in both precisions and layouts, on square,
// rectangular and odd shapes that no tile divides: every variant, the study's three tiles, and
// the tuned kernel in every configuration CUDA compiles (on OpenCL, the same ones, built at run
// time), against the host reference with random inputs and bit for bit with small integers.
#include <gtest/gtest.h>

#include <array>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemv.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {
namespace {

struct Case {
  std::string backend;
  Variant variant;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.backend << " " << to_string(c.variant); }

std::vector<Case> cases() {
  std::vector<Case> result;
  for (const char* b : {"opencl", "cuda", "viennacl", "viennacl_host"})
    if (find_operations(b) != nullptr)
      for (Variant v : backend_traits(b)->variants) result.push_back({b, v});
  return result;
}

std::vector<double> as_held(std::vector<double> v, Precision p) {
  if (p == Precision::f32)
    for (auto& x : v) x = static_cast<float>(x);
  return v;
}

// The degenerate shapes' kernels (gemv.h) that tuned and tensor run there (issue 59 item 3): the
// smallest and largest groups, one reduction and many chunks.
std::vector<Params> gemv_sets() {
  return {{{"group", 64}, {"waves", 1}}, {{"group", 256}, {"waves", 4}}, {{"group", 512}, {"waves", 8}},
          {{"group", 128}, {"waves", 2}}};
}

// The parameter sets a variant is checked with on `device` (gemv_sets' on degenerate shapes only).
std::vector<Params> params_of(Variant v, Precision p, const DeviceInfo& device) {
  if (v == Variant::tiled) return {{{"tile", 8}}, {{"tile", 16}}, {{"tile", 32}}};
  if (v == Variant::tensor) {
    // The first kernel's shape, small blocks, deep slices, unrolled, and K split; then shapes
    // within the 48 KB of NVIDIA's OpenCL (two stages, narrow blocks, split 3 and 8). Each where
    // its stages fit the device's shared memory (tensor_shared_limit).
    std::vector<Params> sets = {{}};
    for (Params& g : gemv_sets()) sets.push_back(std::move(g));
    for (const auto& [bm, bn, bk, stages, wm, wn, unroll, minb, splitk] :
         std::vector<std::array<int, 9>>{{128, 128, 32, 3, 2, 4, 1, 1, 1}, {64, 64, 16, 4, 2, 2, 1, 2, 1},
                                         {64, 64, 16, 3, 2, 2, 1, 3, 1}, {64, 32, 64, 2, 2, 1, 4, 1, 1},
                                         {128, 64, 32, 3, 4, 2, 2, 1, 3}, {32, 128, 16, 6, 1, 4, 1, 1, 8},
                                         {64, 64, 32, 2, 2, 2, 1, 2, 1}, {64, 64, 16, 2, 2, 2, 1, 1, 1},
                                         {32, 64, 16, 3, 1, 4, 1, 1, 3}, {32, 32, 32, 2, 1, 2, 2, 1, 1},
                                         {32, 32, 16, 4, 1, 2, 1, 1, 8}, {128, 64, 16, 2, 4, 2, 1, 1, 1}}) {
      const Params q{{"bm", bm}, {"bn", bn}, {"bk", bk}, {"stages", stages}, {"wm", wm}, {"wn", wn},
                     {"unroll", unroll}, {"minb", minb}, {"splitk", splitk}};
      EXPECT_TRUE(tensor_space().legal(q) || splitk == 3) << format_params(q);
      if (tensor_block_bytes(device, tensor_config(q)) <= tensor_shared_limit(device)) sets.push_back(q);
    }
    return sets;
  }
  if (v != Variant::tuned) return {{}};
  std::vector<Params> sets = gemv_sets();
  // Shapes of every kind (square and not, each per-item tile, each vector width), where legal for p.
  const std::size_t element = bytes_of(p);
  for (const TunedConfig& c : std::vector<TunedConfig>{{128, 128, 8, 8, 8, 4}, {128, 128, 16, 8, 8, 2},
                                                       {64, 64, 8, 4, 4, 2}, {32, 32, 8, 4, 4, 1},
                                                       {128, 64, 16, 8, 4, 4}, {64, 128, 8, 4, 8, 2},
                                                       {256, 128, 8, 8, 8, 2}, {32, 64, 16, 4, 4, 2}})
    if (c.whole_vectors() && static_cast<std::size_t>(c.vw) * element <= 16 && c.local_bytes(element) <= 48 * 1024)
      sets.push_back({{"bm", c.bm}, {"bn", c.bn}, {"bk", c.bk}, {"tm", c.tm}, {"tn", c.tn}, {"vw", c.vw}});
  // K split (a thin C's space): shares adding into C with atomics, some of them empty where K is
  // short for the split (67x45x91 in 8 shares of 16), the thin heuristic's 64 x 128 blocks.
  for (const auto& [c, splitk] : std::vector<std::pair<TunedConfig, int>>{
           {{64, 128, 8, 8, 8, 2}, 4}, {{32, 32, 8, 4, 4, 1}, 8}, {{128, 64, 16, 8, 4, 2}, 2}})
    sets.push_back({{"bm", c.bm}, {"bn", c.bn}, {"bk", c.bk}, {"tm", c.tm}, {"tn", c.tn}, {"vw", c.vw}, {"splitk", splitk}});
  return sets;
}

class GemmDevice : public testing::TestWithParam<Case> {};

TEST_P(GemmDevice, EveryConfigurationVerifiesOnOddShapesInBothLayouts) {
  const Case& c = GetParam();
  if (find_backend(c.backend).devices().empty()) GTEST_SKIP() << "backend " << c.backend << " has no device here";
  const DeviceInfo device = find_device(c.backend, -1);
  std::string refused;  // why a precision does not run here
  bool ran = false;
  for (Precision p : {Precision::f32, Precision::f64}) {
    const auto* traits = backend_traits(c.backend);
    if (const std::string why = traits->refuses ? traits->refuses(device, c.variant, p) : ""; !why.empty()) {
      refused += std::string(refused.empty() ? "" : "; ") + to_string(p) + ": " + why;
      continue;
    }
    if (p == Precision::f64 && !device.fp64) {
      refused += (refused.empty() ? "" : "; ") + std::string("f64: the device has no fp64");
      continue;
    }
    ran = true;
    auto ops = (*find_operations(c.backend))(device, p);
    // Square, odd, thin (k or n small) and degenerate: a matrix-vector product each way in each
    // layout, a dot product, one split over many chunks (2 x 1 x 5000), outer products.
    for (const char* spec : {"1", "33", "67x45x91", "67x45x91:TN", "128x5x200:TN", "130x257x19", "256", "1x300x200",
                             "1x300x200:TN", "300x1x200", "300x1x200:TN", "2x1x5000", "1x1x500", "300x250x1",
                             "300x250x1:TN", "170x150x3"}) {
      const Shape s = parse_shape(spec);
      const auto a = as_held(make_input(s.a_elements(), 21, false), p);
      const auto b = as_held(make_input(s.b_elements(), 22, false), p);
      const auto c0 = as_held(make_input(s.c_elements(), 23, false), p);
      const auto ia = make_input(s.a_elements(), 31, true), ib = make_input(s.b_elements(), 32, true);
      const auto ic = make_input(s.c_elements(), 33, true);
      std::vector<double> exact = ic;
      reference_gemm(s, 2.0, ia, ib, -1.0, exact);
      for (const Params& params : params_of(c.variant, p, device)) {
        if (is_gemv(params) && !degenerate(s)) continue;  // the suite gives them degenerate shapes only
        const std::string what = std::string(spec) + " " + to_string(p) + " " + format_params(params);
        ops->upload(s, a, b, c0);
        try {
          EXPECT_GT(ops->run(c.variant, params, 0.75, 0.5), 0) << what;
        } catch (const DeviceError& e) {
          // A configuration the device's compiler gives too many registers for its work-group
          // (NVIDIA's OpenCL: 512 items at most 256): refused by name, which the sweeper records.
          if (std::string(e.what()).find("the device runs this kernel with at most") == std::string::npos) throw;
          std::cout << "  not launchable here: " << e.what() << "\n";
          continue;
        }
        const Verdict v = verify(s, p, 0.75, a, b, 0.5, c0, ops->result());
        EXPECT_TRUE(v.passed) << what << ": " << v.detail;
        ops->upload(s, ia, ib, ic);
        ops->run(c.variant, params, 2.0, -1.0);
        EXPECT_EQ(ops->result(), exact) << what << " (small integers)";
      }
    }
  }
  if (!ran) GTEST_SKIP() << to_string(c.variant) << " runs in no precision on " << device.label() << ": " << refused;
}

// The tensor kernel on OpenCL (issue 56 item 3): its space there holds only configurations whose
// stages fit the device's local memory (NVIDIA's 48 KB), minb 1 (OpenCL has no launch bounds),
// and the heuristic's choice for any shape lies in it; CUDA's space is unchanged by it.
TEST(GemmTensorSpace, OnOpenclItFitsTheDevicesLocalMemoryAndTheHeuristicIsInIt) {
  DeviceInfo nvidia_opencl;
  nvidia_opencl.backend = "opencl";
  nvidia_opencl.compute_units = 132;
  nvidia_opencl.local_mem_bytes = 48 * 1024;
  const TunableSpace space = tensor_space(nvidia_opencl);
  const auto legal = space.enumerate();
  ASSERT_GT(legal.size(), 20u);
  for (const Params& q : legal) {
    EXPECT_LE(tensor_config(q).local_bytes(), 48 * 1024) << format_params(q);
    EXPECT_EQ(q.at("minb"), 1) << format_params(q);
    EXPECT_TRUE(tensor_space().legal(q)) << format_params(q);  // within CUDA's: one database names both
  }
  EXPECT_FALSE(space.legal({{"bm", 128}, {"bn", 128}, {"bk", 32}, {"stages", 3}, {"wm", 2}, {"wn", 4}, {"unroll", 1},
                            {"minb", 1}, {"splitk", 1}}));  // CUDA's first shape: 96 KiB unpadded
  EXPECT_TRUE(space.legal({{"bm", 64}, {"bn", 64}, {"bk", 16}, {"stages", 3}, {"wm", 2}, {"wn", 2}, {"unroll", 1},
                           {"minb", 1}, {"splitk", 1}}));  // 48 KiB unpadded: a third stage
  // A degenerate shape (1x1x1, 8000x1x8000) takes the degenerate kernels' space (gemv.hpp) instead.
  for (const char* problem : {"8192", "4097x129x1023", "64x8x4096", "1x1x1", "16384x16384x256", "8192:TN", "8000x1x8000"}) {
    const Shape s = parse_shape(problem);
    const Params h = own_launch(nullptr, nvidia_opencl, Variant::tensor, s, Precision::f64).params;
    EXPECT_TRUE(degenerate(s) ? gemv_space().legal(h) : space.legal(h)) << problem << ": " << format_params(h);
  }
  EXPECT_EQ(own_launch(nullptr, nvidia_opencl, Variant::tensor, parse_shape("256x256x8192"), Precision::f64).params.at("splitk"), 8);
  EXPECT_EQ(own_launch(nullptr, nvidia_opencl, Variant::tensor, parse_shape("8192"), Precision::f64).params.at("bm"), 128);
  EXPECT_EQ(own_launch(nullptr, nvidia_opencl, Variant::tensor, parse_shape("8192"), Precision::f64).params.at("bk"), 16);
  DeviceInfo cuda;
  cuda.backend = "cuda";
  cuda.compute_units = 132;
  cuda.local_mem_bytes = 48 * 1024;  // CUDA's kernel opts in to more: its limit is not this
  EXPECT_EQ(tensor_shared_limit(cuda), gemm_tc::max_shared);
  EXPECT_EQ(own_launch(nullptr, cuda, Variant::tensor, parse_shape("8192"), Precision::f64).params.at("bm"), 128);
}

INSTANTIATE_TEST_SUITE_P(DeviceBackends, GemmDevice, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& i) { return i.param.backend + "_" + to_string(i.param.variant); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmDevice);

}  // namespace
}  // namespace gpubench::gemm
