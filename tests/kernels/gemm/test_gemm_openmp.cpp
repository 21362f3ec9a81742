// The GEMM suite's host kernels verify in both precisions and layouts, on odd shapes that no
// tile divides, with every tile of the study, in parallel and on one thread.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/openmp_kernels.hpp"

namespace gpubench::gemm {
namespace {

template <typename T>
std::vector<double> run(HostLoop loop, const Shape& s, int tile, int threads, double alpha,
                        const std::vector<double>& a, const std::vector<double>& b, double beta,
                        const std::vector<double>& c0) {
  const std::vector<T> ta(a.begin(), a.end()), tb(b.begin(), b.end());
  std::vector<T> tc(c0.begin(), c0.end());
  host_gemm<T>(loop, whole(s), tile, threads, static_cast<T>(alpha), ta.data(), tb.data(), static_cast<T>(beta), tc.data());
  return {tc.begin(), tc.end()};
}

std::vector<double> as_device_holds(std::vector<double> v, Precision p) {
  if (p == Precision::f32)
    for (auto& x : v) x = static_cast<float>(x);
  return v;
}

class HostGemm : public testing::TestWithParam<std::tuple<HostLoop, int, Precision, const char*>> {};

TEST_P(HostGemm, Verifies) {
  const auto [loop, tile, p, spec] = GetParam();
  const Shape s = parse_shape(spec);
  const auto a = as_device_holds(make_input(s.a_elements(), 21, false), p);
  const auto b = as_device_holds(make_input(s.b_elements(), 22, false), p);
  const auto c0 = as_device_holds(make_input(s.c_elements(), 23, false), p);
  for (int threads : {0, 1}) {
    const auto c = p == Precision::f32 ? run<float>(loop, s, tile, threads, 0.75, a, b, 0.5, c0)
                                       : run<double>(loop, s, tile, threads, 0.75, a, b, 0.5, c0);
    const Verdict v = verify(s, p, 0.75, a, b, 0.5, c0, c);
    EXPECT_TRUE(v.passed) << spec << " tile " << tile << " threads " << threads << ": " << v.detail;
    // Freivalds' check and the sampled elements pass the same result.
    EXPECT_TRUE(verify(s, p, 0.75, a, b, 0.5, c0, c, 0).passed) << spec;
  }
  // Small integers: every precision holds the result exactly.
  const auto ia = make_input(s.a_elements(), 31, true), ib = make_input(s.b_elements(), 32, true);
  const auto ic = make_input(s.c_elements(), 33, true);
  std::vector<double> reference = ic;
  reference_gemm(s, 2.0, ia, ib, -1.0, reference);
  const auto exact = p == Precision::f32 ? run<float>(loop, s, tile, 0, 2.0, ia, ib, -1.0, ic)
                                         : run<double>(loop, s, tile, 0, 2.0, ia, ib, -1.0, ic);
  EXPECT_EQ(exact, reference) << spec;
}

INSTANTIATE_TEST_SUITE_P(
    StudyTilesAndShapes, HostGemm,
    testing::Combine(testing::Values(HostLoop::naive, HostLoop::tiled, HostLoop::packed), testing::Values(8, 16, 32),
                     testing::Values(Precision::f32, Precision::f64),
                     testing::Values("1", "33", "67x45x91", "67x45x91:TN", "128x5x200:TN")));

}  // namespace
}  // namespace gpubench::gemm
