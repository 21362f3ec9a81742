// CG across MPI ranks (issue 18), run by ctest under `mpirun -np N --oversubscribe` (N = 1, 2,
// 3): every rank holds one band of the matrix on its own device (kernels/cg/distributed.hpp with
// bench/mpi.hpp's Comm), and the result must equal one device's (solved on each rank alone, for
// comparison) within rounding: a Poisson grid, a real Matrix Market file (1138_bus.mtx, solved
// to a tolerance), and NAS CG class S (zeta against NAS's verification value). Every rank runs
// every test (the calls are collective); a rank whose check fails fails the mpirun.
//
// GPUBENCH_MPI_BACKEND picks the ranks' backend (default openmp; opencl runs on PoCL in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "bench/mpi.hpp"
#include "kernels/cg/distributed.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::cg {
namespace {

std::shared_ptr<Comm> world;

std::string backend() {
  const char* b = std::getenv("GPUBENCH_MPI_BACKEND");
  return b && *b ? b : "openmp";
}

// Each rank's device, gathered: band k on rank k.
std::vector<DeviceInfo> rank_devices() {
  return std::vector<DeviceInfo>(static_cast<std::size_t>(world->size()), find_device(backend(), -1));
}

struct Solved {
  SolveResult result;
  std::vector<double> x;
};

Solved run(Operations& ops, const Problem& p, Variant v, const StopRule& rule) {
  auto solver = make_solver(v);
  ops.allocate_vectors(solver->vectors());
  ops.upload(rhs_slot, p.b);
  Solved s;
  s.result = solve(ops, *solver, rule, std::sqrt(host_dot(p.b, p.b)));
  s.x.resize(p.b.size());
  ops.download(solver->solution(), s.x);
  return s;
}

double largest(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

double worst_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double w = 0;
  for (std::size_t i = 0; i < a.size(); ++i) w = std::max(w, std::abs(a[i] - b[i]));
  return w;
}

class Ranks : public ::testing::Test {
 protected:
  void SetUp() override {
    const DeviceInfo d = find_device(backend(), -1);
    if (!d.fp64) GTEST_SKIP() << d.label() << " has no fp64 support";
  }
};

TEST_F(Ranks, PoissonEqualsOneDevice) {
  const Problem p = make_problem("poisson2d:48");
  for (Variant v : all_variants) {
    SCOPED_TRACE(std::string(to_string(v)) + " on " + std::to_string(world->size()) + " ranks");
    auto single = (*find_operations(backend()))(find_device(backend(), -1), p.a, Precision::f64, Params{});
    const Solved want = run(*single, p, v, StopRule{60, 0});
    auto several = make_distributed_operations(rank_devices(), p.a, Precision::f64, Params{}, world);
    const Solved got = run(*several, p, v, StopRule{60, 0});
    EXPECT_EQ(got.result.iterations, want.result.iterations);
    EXPECT_NEAR(got.result.relative_residual, want.result.relative_residual, 1e-9 * want.result.relative_residual + 1e-14);
    EXPECT_LT(worst_difference(got.x, want.x), 1e-10 * std::max(1.0, largest(want.x)));
  }
}

// 1138_bus is ill-conditioned (about 1e6): solved to a tolerance, both reach the one solution.
TEST_F(Ranks, MatrixMarketFileEqualsOneDeviceSolvedToATolerance) {
  const Problem p = make_problem("mtx:" + test::matrix_dir() + "/1138_bus.mtx");
  const StopRule rule{20000, 1e-10};
  for (Variant v : all_variants) {
    SCOPED_TRACE(to_string(v));
    auto single = (*find_operations(backend()))(find_device(backend(), -1), p.a, Precision::f64, Params{});
    const Solved want = run(*single, p, v, rule);
    auto several = make_distributed_operations(rank_devices(), p.a, Precision::f64, Params{}, world);
    const Solved got = run(*several, p, v, rule);
    ASSERT_TRUE(want.result.converged && got.result.converged);
    EXPECT_NEAR(got.result.iterations, want.result.iterations, 0.1 * want.result.iterations);
    EXPECT_LT(true_relative_residual(p.a, p.b, got.x), 1e-8);
    EXPECT_LT(worst_difference(got.x, want.x), 1e-4 * largest(want.x));
  }
}

TEST_F(Ranks, NasCgClassSVerifies) {
  const NpbClass& s = npb_class("S");
  const CsrMatrix a = npb_makea(s);
  const std::vector<double> ones(static_cast<std::size_t>(a.rows), 1.0);
  for (Variant v : all_variants) {
    SCOPED_TRACE(to_string(v));
    auto single = (*find_operations(backend()))(find_device(backend(), -1), a, Precision::f64, Params{});
    auto s1 = make_solver(v);
    single->allocate_vectors(s1->vectors());
    single->upload(rhs_slot, ones);
    const NpbResult want = npb_benchmark(*single, *s1, s);
    auto several = make_distributed_operations(rank_devices(), a, Precision::f64, Params{}, world);
    auto s2 = make_solver(v);
    several->allocate_vectors(s2->vectors());
    several->upload(rhs_slot, ones);
    const NpbResult got = npb_benchmark(*several, *s2, s);
    EXPECT_NEAR(got.zeta, want.zeta, 1e-10 * std::abs(want.zeta));
    EXPECT_NEAR(got.zeta, s.zeta_verify, 1e-10 * std::abs(s.zeta_verify));
  }
}

// Every rank reports the same time and the exchange as its own profiled row.
TEST_F(Ranks, TimeAndProfileAgreeAcrossRanks) {
  const Problem p = make_problem("poisson2d:32");
  auto ops = make_distributed_operations(rank_devices(), p.a, Precision::f64, Params{}, world);
  auto solver = make_solver(Variant::classic);
  ops->allocate_vectors(solver->vectors());
  ops->upload(rhs_slot, p.b);
  const SolveResult r = solve(*ops, *solver, StopRule{10, 0}, std::sqrt(host_dot(p.b, p.b)), true);
  std::vector<double> seconds{r.seconds};
  world->sum(seconds);
  EXPECT_DOUBLE_EQ(seconds[0], world->size() * r.seconds);
  const auto profile = ops->take_profile();
  const bool exchanged = std::any_of(profile.begin(), profile.end(), [](const KernelProfile& k) { return k.kernel == "exchange"; });
  EXPECT_EQ(exchanged, world->size() > 1);
}

}  // namespace
}  // namespace gpubench::cg

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  gpubench::cg::world = gpubench::start_mpi(&argc, &argv);
  if (!gpubench::cg::world) {
    std::fprintf(stderr, "gpubench_mpi_tests: run me under mpirun (mpirun -np N gpubench_mpi_tests)\n");
    return 2;
  }
  // Only rank 0 prints gtest's lines (each rank checks, and a rank that fails fails the mpirun).
  if (gpubench::cg::world->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  gpubench::cg::world.reset();
  return failed;
}
