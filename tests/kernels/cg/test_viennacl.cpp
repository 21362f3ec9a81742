// ViennaCL's own CG (the vendor variant) on its OpenCL
// domain ("viennacl", PoCL's CPU device in CI) and its host domain ("viennacl_host"). The generic
// operation and solver tests (tests/kernels/cg) cover both backends' operations like any other's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "bench/roofline.hpp"
#include "bench/tuning_db.hpp"
#include "common/errors.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/verify.hpp"

namespace gpubench::cg::viennacl_tests {
namespace {

constexpr const char* backend_names[] = {"viennacl", "viennacl_host"};

TEST(ViennaclBackends, BothAreRegisteredWithOperationsAndAVendorCg) {
  for (const char* name : backend_names) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(find_backend(name));
    EXPECT_NE(find_operations(name), nullptr);
    EXPECT_EQ(vendor_library(name), "viennacl::linalg::cg");
  }
  // Listed after opencl and openmp, the APIs they wrap.
  const auto& all = backends();
  auto position = [&](const std::string& name) {
    return std::find_if(all.begin(), all.end(), [&](const Backend& b) { return b.name == name; }) - all.begin();
  };
  EXPECT_LT(position("viennacl"), position("viennacl_host"));
  if (find_operations("opencl")) {
    EXPECT_LT(position("opencl"), position("viennacl"));
  }
}

struct Case {
  std::string backend;
  Precision precision;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.backend << " " << to_string(c.precision); }

std::vector<Case> cases() {
  std::vector<Case> c;
  for (const char* b : backend_names)
    for (Precision p : {Precision::f64, Precision::f32}) c.push_back({b, p});
  return c;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.backend + "_" + to_string(info.param.precision);
}

struct SolveRun {
  SolveResult result;
  Verdict verdict;
  std::vector<double> x;
};

class ViennaclCgTest : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (find_backend(GetParam().backend).devices().empty())
      GTEST_SKIP() << "backend " << GetParam().backend << " has no device here";
    device_ = find_device(GetParam().backend, -1);
    if (GetParam().precision == Precision::f64 && !device_.fp64) GTEST_SKIP() << device_.label() << " has no fp64";
  }

  std::unique_ptr<Operations> make_ops(const CsrMatrix& a) const {
    return (*find_operations(GetParam().backend))(device_, a, GetParam().precision, Params{});
  }

  // One solve with ViennaCL's CG on `ops` (b already in slot 0), verified like the harness does.
  SolveRun vendor_solve(Operations& ops, const Problem& problem, StopRule rule, bool per_kernel = false) const {
    auto solver = ops.make_vendor_solver();
    EXPECT_NE(solver, nullptr);
    EXPECT_TRUE(solver->whole_solve());
    HostReference ref(problem.a, problem.b);
    SolveRun run;
    run.result = solve(ops, *solver, rule, ref.b_norm(), per_kernel);
    run.x.resize(problem.b.size());
    ops.download(solver->solution(), run.x);
    run.verdict = verify_solve(problem.a, problem.b, run.x, GetParam().precision, run.result, rule, ref);
    return run;
  }

  DeviceInfo device_;
};

TEST_P(ViennaclCgTest, VendorRunsExactlyTheRequestedIterationsAndVerifies) {
  const Problem problem = make_problem("poisson2d:48");
  auto ops = make_ops(problem.a);
  ops->allocate_vectors(ops->make_vendor_solver()->vectors());
  ops->upload(rhs_slot, problem.b);
  for (int iterations : {60, 7, 1}) {
    SCOPED_TRACE(std::to_string(iterations) + " iterations");
    const SolveRun run = vendor_solve(*ops, problem, StopRule{iterations, 0});
    EXPECT_EQ(run.result.iterations, iterations);
    EXPECT_TRUE(run.result.converged);
    EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
    EXPECT_GT(run.result.seconds, 0);
    EXPECT_LT(run.verdict.true_residual, 1.0);
  }
}

TEST_P(ViennaclCgTest, VendorSolvesToATolerance) {
  const double tol = GetParam().precision == Precision::f64 ? 1e-9 : 1e-4;
  const Problem problem = make_problem("poisson2d:48");
  auto ops = make_ops(problem.a);
  ops->allocate_vectors(ops->make_vendor_solver()->vectors());
  ops->upload(rhs_slot, problem.b);
  const SolveRun run = vendor_solve(*ops, problem, StopRule{2000, tol});
  EXPECT_TRUE(run.result.converged);
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  EXPECT_LE(run.result.relative_residual, tol);
  EXPECT_GT(run.result.iterations, 10);
  EXPECT_LT(run.result.iterations, 2000);  // stopped at the tolerance, not at the cap
  EXPECT_LE(run.verdict.true_residual, 10 * tol);
}

TEST_P(ViennaclCgTest, VendorProfileIsOneWholeSolve) {
  const Problem problem = make_problem("poisson2d:48");
  auto ops = make_ops(problem.a);
  ops->allocate_vectors(ops->make_vendor_solver()->vectors());
  ops->upload(rhs_slot, problem.b);
  const SolveRun run = vendor_solve(*ops, problem, StopRule{20, 0}, true);
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  const auto profile = ops->take_profile();
  ASSERT_EQ(profile.size(), 1u);
  EXPECT_EQ(profile[0].kernel, "cg");
  EXPECT_EQ(profile[0].calls, 1);
  EXPECT_GT(profile[0].seconds, 0);
  EXPECT_LE(profile[0].seconds, run.result.seconds);
}

TEST_P(ViennaclCgTest, VendorRunsNasCg) {
  const Problem problem = make_problem("npb:S");
  const NpbClass& c = npb_class("S");
  auto ops = make_ops(problem.a);
  auto solver = ops->make_vendor_solver();
  ops->allocate_vectors(solver->vectors());
  ops->upload(rhs_slot, problem.b);
  const NpbResult r = npb_benchmark(*ops, *solver, c);
  const Verdict v = verify_npb(c, GetParam().precision, r.zeta);
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_EQ(r.cg_iterations, c.niter * npb_cg_iterations);
}

TEST_P(ViennaclCgTest, VendorBreakdownIsAnErrorNotANumber) {
  // Indefinite with p.Ap = 0 at the first step.
  CsrMatrix a;
  a.rows = a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {0, 1};
  a.values = {1.0, -1.0};
  auto ops = make_ops(a);
  auto solver = ops->make_vendor_solver();
  ops->allocate_vectors(solver->vectors());
  ops->upload(rhs_slot, std::vector<double>{1.0, 1.0});
  EXPECT_THROW(solve(*ops, *solver, StopRule{10, 0}, std::sqrt(2.0)), VerificationError);
}

TEST_P(ViennaclCgTest, FactoryNamesTheBackendForADeviceThatDoesNotExist) {
  if (GetParam().backend != "viennacl") GTEST_SKIP() << "the host domain has one device, and opens nothing";
  DeviceInfo missing = device_;
  missing.index = 99;
  try {
    (*find_operations("viennacl"))(missing, make_problem("poisson2d:4").a, GetParam().precision, Params{});
    FAIL() << "no DeviceError for OpenCL device 99";
  } catch (const DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("viennacl"), std::string::npos) << message;
    EXPECT_NE(message.find("99"), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Viennacl, ViennaclCgTest, testing::ValuesIn(cases()), case_name);

// The project's classic CG on ViennaCL's operations computes the same iterates as on the OpenMP
// backend: in f64 the solutions agree to rounding.
// ViennaCL runs on its API's device of the same index: the ceilings stored for that device are its
// own, taken (and said) without probing the device again; with --remeasure (true here) it would probe.
TEST(ViennaclBackends, EachTakesTheStoredCeilingsOfTheApiDeviceItRunsOn) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "viennacl-ceilings-db";
  std::filesystem::remove_all(dir);
  TuningDb db(dir.string());
  for (const auto& [library, api] : {std::pair{"viennacl", "opencl"}, std::pair{"viennacl_host", "openmp"}}) {
    const DeviceInfo under = find_device(api, 0);
    Ceilings stored;
    stored.copy_gbps = stored.triad_gbps = 12.5;
    stored.f32_gflops = 99;
    stored.f64_gflops = 49;
    stored.backend = api;
    db.store_ceilings(under, stored);
    const DeviceInfo d = find_device(library, 0);
    EXPECT_FALSE(db.ceilings(d)) << library << ": nothing stored under its own key";
    std::ostringstream log;
    const auto taken = device_ceilings(d, &db, false, log);
    ASSERT_TRUE(taken) << library << "\n" << log.str();
    EXPECT_EQ(taken->f64_gflops, 49) << library;
    EXPECT_EQ(taken->bandwidth_gbps(), 12.5) << library;
    EXPECT_NE(log.str().find(d.label() + " takes the ceilings " + under.label() + " measured"), std::string::npos)
        << log.str();
    EXPECT_EQ(log.str().find("measuring the ceilings"), std::string::npos) << log.str();
  }
  std::filesystem::remove_all(dir);
}

TEST(ViennaclOperations, ClassicMatchesOpenmpInDouble) {
  const auto* openmp = find_operations("openmp");
  if (!openmp) GTEST_SKIP() << "the OpenMP backend is not built";
  const Problem problem = make_problem("poisson2d:40");
  double bb = 0;
  for (double b : problem.b) bb += b * b;

  auto solve_on = [&](const std::string& backend) {
    const DeviceInfo device = find_device(backend, -1);
    auto ops = (*find_operations(backend))(device, problem.a, Precision::f64, Params{});
    auto solver = make_solver(Variant::classic);
    ops->allocate_vectors(solver->vectors());
    ops->upload(rhs_slot, problem.b);
    const SolveResult r = solve(*ops, *solver, StopRule{50, 0}, std::sqrt(bb));
    EXPECT_EQ(r.iterations, 50) << backend;
    std::vector<double> x(problem.b.size());
    ops->download(solver->solution(), x);
    return x;
  };

  const auto reference = solve_on("openmp");
  for (const char* backend : backend_names) {
    if (find_backend(backend).devices().empty() || !find_device(backend, -1).fp64) continue;
    SCOPED_TRACE(backend);
    const auto x = solve_on(backend);
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      diff = std::max(diff, std::abs(x[i] - reference[i]));
      norm = std::max(norm, std::abs(reference[i]));
    }
    EXPECT_LT(diff, 1e-10 * norm) << "max |x - x_openmp| " << diff << " of max |x_openmp| " << norm;
  }
}

}  // namespace
}  // namespace gpubench::cg::viennacl_tests
