// Every CG variant on every backend compiled in, in f32 and f64, through the same algorithm
// code and the same verification the harness uses.
#include <gtest/gtest.h>

#include "tests/test_paths.hpp"

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <tuple>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/verify.hpp"
#include "tests/kernels/cg/forwarding_operations.hpp"

namespace gpubench::cg {
namespace {

struct SolverCase {
  std::string backend;
  Precision precision;
  Variant variant;
};

void PrintTo(const SolverCase& c, std::ostream* os) {
  *os << c.backend << "/" << to_string(c.precision) << "/" << to_string(c.variant);
}

std::vector<SolverCase> solver_cases() {
  std::vector<SolverCase> c;
  for (const auto& b : backends())
    if (find_operations(b.name))
      for (Precision p : {Precision::f32, Precision::f64})
        for (Variant v : all_variants) c.push_back({b.name, p, v});
  return c;
}

std::string solver_case_name(const testing::TestParamInfo<SolverCase>& info) {
  return info.param.backend + "_" + to_string(info.param.precision) + "_" + to_string(info.param.variant);
}

// Runs one solve of `problem` and verifies it like the harness does.
struct SolveRun {
  SolveResult result;
  Verdict verdict;
  std::vector<double> x;
};

class SolverTest : public testing::TestWithParam<SolverCase> {
 protected:
  void SetUp() override {
    const auto devices = find_backend(GetParam().backend).devices();
    if (devices.empty()) GTEST_SKIP() << "backend " << GetParam().backend << " has no device on this machine";
    device_ = find_device(GetParam().backend, -1);
    if (GetParam().precision == Precision::f64 && !device_.fp64)
      GTEST_SKIP() << device_.label() << " has no fp64 support";
  }

  std::unique_ptr<Operations> make_ops(const CsrMatrix& a) {
    return (*find_operations(GetParam().backend))(device_, a, GetParam().precision, Params{});
  }

  // `wrap` may put a test double around the backend's operations (it is given the solver).
  SolveRun solve_and_verify(const Problem& problem, StopRule rule,
                            const std::function<std::unique_ptr<Operations>(std::unique_ptr<Operations>, Solver&)>&
                                wrap = nullptr) {
    auto solver = make_solver(GetParam().variant);
    auto ops = make_ops(problem.a);
    if (wrap) ops = wrap(std::move(ops), *solver);
    ops->allocate_vectors(solver->vectors());
    ops->upload(rhs_slot, problem.b);
    HostReference ref(problem.a, problem.b);
    SolveRun run;
    run.result = solve(*ops, *solver, rule, ref.b_norm());
    run.x.resize(problem.b.size());
    ops->download(solver->solution(), run.x);
    run.verdict = verify_solve(problem.a, problem.b, run.x, GetParam().precision, run.result, rule, ref);
    return run;
  }

  DeviceInfo device_;
};

TEST_P(SolverTest, Poisson2dFixedIterationsVerifies) {
  const Problem problem = make_problem("poisson2d:48");
  const SolveRun run = solve_and_verify(problem, StopRule{60, 0});
  EXPECT_EQ(run.result.iterations, 60);
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  EXPECT_GT(run.result.seconds, 0);
  // 60 iterations on a 48x48 grid make real progress, and the residual is well below the start.
  EXPECT_LT(run.verdict.true_residual, 0.5);
}

TEST_P(SolverTest, Poisson3dToToleranceVerifies) {
  const double tol = GetParam().precision == Precision::f64 ? 1e-10 : 1e-5;
  const Problem problem = make_problem("poisson3d:14");
  const SolveRun run = solve_and_verify(problem, StopRule{2000, tol});
  EXPECT_TRUE(run.result.converged);
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  EXPECT_LE(run.verdict.true_residual, 10 * tol);
}

TEST_P(SolverTest, RealMatrixAni4ToToleranceVerifies) {
  const double tol = GetParam().precision == Precision::f64 ? 1e-8 : 1e-4;
  const Problem problem = make_problem(std::string("mtx:") + gpubench::test::matrix_dir() + "/ani4.mtx");
  const SolveRun run = solve_and_verify(problem, StopRule{20000, tol});
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  // b = A * ones: a converged solve is close to all ones.
  if (GetParam().precision == Precision::f64) {
    double err = 0;
    for (double v : run.x) err = std::max(err, std::abs(v - 1));
    EXPECT_LT(err, 1e-3);
  }
}

TEST_P(SolverTest, RealMatrix1138Bus) {
  const Problem problem = make_problem(std::string("mtx:") + gpubench::test::matrix_dir() + "/1138_bus.mtx");
  if (GetParam().precision == Precision::f32) {
    // Too ill-conditioned for f32 to reach a tight tolerance: a fixed count, checked against
    // the double reference after as many iterations.
    const SolveRun run = solve_and_verify(problem, StopRule{300, 0});
    EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
    return;
  }
  const SolveRun run = solve_and_verify(problem, StopRule{20000, 1e-10});
  EXPECT_TRUE(run.result.converged);
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  EXPECT_LE(run.verdict.true_residual, 1e-10);  // the true residual meets the tolerance, not only the solver's
  EXPECT_GT(run.result.iterations, 100);  // it is ill-conditioned: no early exit hides a bug
}

// A dense n x n SPD matrix Q diag(d) Q^T with eigenvalues d spread geometrically from 1 to
// `condition`, Q a product of three seeded Householder reflections; b = A * ones. Its recursive
// residuals drift from the true ones (form1's three-term recurrence most): the solve must stop on
// the true residual.
Problem ill_conditioned_spd(int n, double condition, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> q(N * N, 0.0);  // row-major, starts as the identity
  for (std::size_t i = 0; i < N; ++i) q[i * N + i] = 1;
  for (int reflection = 0; reflection < 3; ++reflection) {  // Q = Q (I - 2 v v^T / v^T v)
    std::vector<double> v(N);
    double vv = 0;
    for (double& x : v) {
      x = normal(rng);
      vv += x * x;
    }
    for (std::size_t i = 0; i < N; ++i) {
      double qv = 0;
      for (std::size_t j = 0; j < N; ++j) qv += q[i * N + j] * v[j];
      for (std::size_t j = 0; j < N; ++j) q[i * N + j] -= 2 * qv * v[j] / vv;
    }
  }
  std::vector<double> d(N);
  for (std::size_t k = 0; k < N; ++k) d[k] = std::pow(condition, static_cast<double>(k) / static_cast<double>(N - 1));
  Problem p{"ill-conditioned SPD " + std::to_string(n), {}, std::vector<double>(N, 0.0)};
  p.a.rows = p.a.cols = n;
  p.a.row_ptr.push_back(0);
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      double aij = 0;
      for (std::size_t k = 0; k < N; ++k) aij += q[i * N + k] * d[k] * q[j * N + k];
      // Symmetric to the last bit: entry (i, j) computed once for i <= j.
      if (j < i) aij = p.a.values[static_cast<std::size_t>(p.a.row_ptr[j]) + i];
      p.a.col_idx.push_back(static_cast<std::int32_t>(j));
      p.a.values.push_back(aij);
      p.b[i] += aij;
    }
    p.a.row_ptr.push_back(static_cast<std::int32_t>(p.a.values.size()));
  }
  return p;
}

// Solved to 1e-10, every form's answer is right by its true residual: where its recursive residual
// drifted below the true one, the solve went on from the true residual (replaced, and counted).
TEST_P(SolverTest, IllConditionedToTightToleranceIsTrulyConverged) {
  if (GetParam().precision == Precision::f32) GTEST_SKIP() << "1e-10 is below f32's reach; f32 drift: PlantedDrift";
  int replaced = 0;
  for (const auto& [n, condition, seed] : {std::tuple{100, 1e8, 1u}, {100, 1e10, 2u}, {200, 1e8, 3u}}) {
    const Problem problem = ill_conditioned_spd(n, condition, seed);
    const SolveRun run = solve_and_verify(problem, StopRule{20000, 1e-10});
    const std::string what = problem.name + " cond " + std::to_string(condition);
    EXPECT_TRUE(run.result.converged) << what;
    EXPECT_TRUE(run.verdict.passed) << what << ": " << run.verdict.detail;
    EXPECT_LE(run.verdict.true_residual, 1e-10 * (1 + 1e-6)) << what;
    EXPECT_NEAR(run.result.relative_residual, run.verdict.true_residual, 0.05 * run.verdict.true_residual) << what;
    replaced += run.result.residual_replacements;
  }
  // The three-term recurrence drifts on these (checked on OpenMP and PoCL before the
  // replacement existed: "the solver's residual disagrees with the true residual").
  if (GetParam().variant == Variant::form1) {
    EXPECT_GE(replaced, 1);
  }
}

// Operations that shift the iterate x by a fixed vector at the `at`-th SpMV: the recursive
// residual no longer equals b - A x, as after a drift or a silent fault.
class DriftingOperations final : public ForwardingOperations {
 public:
  DriftingOperations(std::unique_ptr<Operations> inner, Solver& solver, int at, double size)
      : ForwardingOperations(std::move(inner)), solver_(solver), at_(at), size_(size) {}
  void spmv(Slot in, Slot out) override {
    drift();
    ForwardingOperations::spmv(in, out);
  }
  std::array<double, 2> spmv_dot2(Slot r, Slot w) override {
    drift();
    return ForwardingOperations::spmv_dot2(r, w);
  }
  void spmv_dot2_advance(Slot r, Slot w, int rule) override {
    drift();
    ForwardingOperations::spmv_dot2_advance(r, w, rule);
  }

 private:
  void drift() {
    if (++calls_ != at_) return;
    std::vector<double> x(static_cast<std::size_t>(rows()));
    download(solver_.solution(), x);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += size_ * std::sin(0.1 * static_cast<double>(i));
    upload(solver_.solution(), x);
  }

  Solver& solver_;
  int at_, calls_ = 0;
  double size_;
};

TEST_P(SolverTest, PlantedDriftIsReplacedAndCounted) {
  const bool f64 = GetParam().precision == Precision::f64;
  const double tol = f64 ? 1e-9 : 1e-4;
  const Problem problem = make_problem("poisson2d:24");
  const SolveRun run = solve_and_verify(problem, StopRule{2000, tol}, [&](std::unique_ptr<Operations> ops, Solver& s) {
    return std::make_unique<DriftingOperations>(std::move(ops), s, 10, 1e-2);
  });
  EXPECT_GE(run.result.residual_replacements, 1);  // the drift was seen and corrected
  EXPECT_TRUE(run.result.converged);
  EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
  EXPECT_LE(run.verdict.true_residual, 10 * tol);
  double err = 0;  // b = A * ones: the answer is right, the shift undone
  for (double v : run.x) err = std::max(err, std::abs(v - 1));
  EXPECT_LT(err, f64 ? 1e-6 : 1e-2);
}

// A fixed count stops on the count alone: a planted drift is never replaced there, and the
// verification (the solver's residual against the true one) fails it by name.
TEST_P(SolverTest, FixedCountWithDriftFailsVerification) {
  const Problem problem = make_problem("poisson2d:24");
  const SolveRun run = solve_and_verify(problem, StopRule{60, 0}, [&](std::unique_ptr<Operations> ops, Solver& s) {
    return std::make_unique<DriftingOperations>(std::move(ops), s, 10, 1e-2);
  });
  EXPECT_EQ(run.result.residual_replacements, 0);
  EXPECT_FALSE(run.verdict.passed);
  EXPECT_NE(run.verdict.detail.find("disagrees with the true residual"), std::string::npos) << run.verdict.detail;
}

TEST_P(SolverTest, NpbClassSVerifies) {
  const Problem problem = make_problem("npb:S");
  const NpbClass& c = npb_class("S");
  auto ops = make_ops(problem.a);
  auto solver = make_solver(GetParam().variant);
  ops->allocate_vectors(solver->vectors());
  ops->upload(rhs_slot, problem.b);
  const NpbResult r = npb_benchmark(*ops, *solver, c);
  const Verdict v = verify_npb(c, GetParam().precision, r.zeta);
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_EQ(r.cg_iterations, c.niter * npb_cg_iterations);
}

TEST_P(SolverTest, IndefiniteMatrixIsABreakdownNotANumber) {
  // Symmetric, indefinite, and r.Ar = p.Ap = 0 at once: an exact breakdown, which must be an
  // error rather than a number.
  CsrMatrix a;
  a.rows = a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {0, 1};
  a.values = {1.0, -1.0};
  Problem problem{"indefinite", a, {1.0, 1.0}};
  EXPECT_THROW(solve_and_verify(problem, StopRule{10, 0}), VerificationError);
}

// A residual that reaches exactly zero is a solve that is done, not a breakdown: poisson2d:1 and
// poisson2d:2 (b = A * ones is an eigenvector) converge exactly in one iteration, after which
// every variant's next coefficient would be 0 / 0. The fused forms, whose host sees their scalars
// only at a check, freeze there (recurrence.h): a fixed count runs its count, x left as it is.
TEST_P(SolverTest, ExactlyZeroResidualStopsWithoutBreakdown) {
  const bool fused = make_solver(GetParam().variant)->needs_sync();
  for (const char* spec : {"poisson2d:1", "poisson2d:2"}) {
    for (const StopRule rule : {StopRule{10, 0}, StopRule{10, 1e-3, 1}}) {
      const Problem problem = make_problem(spec);
      SolveRun run;
      ASSERT_NO_THROW(run = solve_and_verify(problem, rule)) << spec;
      EXPECT_TRUE(run.verdict.passed) << spec << ": " << run.verdict.detail;
      EXPECT_TRUE(run.result.converged) << spec;
      if (fused && rule.tolerance == 0)
        EXPECT_EQ(run.result.iterations, rule.iterations) << spec;
      else
        EXPECT_LT(run.result.iterations, rule.iterations) << spec;
      EXPECT_EQ(run.result.relative_residual, 0) << spec;
      for (double v : run.x) EXPECT_NEAR(v, 1.0, 1e-6) << spec;
    }
  }
}

// Counts the host's reads of the fused forms' scalars into `reads` (which outlives the operations).
class CountingOperations final : public ForwardingOperations {
 public:
  CountingOperations(std::unique_ptr<Operations> inner, int& reads) : ForwardingOperations(std::move(inner)), reads_(reads) {}
  Scalars get_scalars() override {
    ++reads_;
    return ForwardingOperations::get_scalars();
  }

 private:
  int& reads_;
};

// The fused forms keep their scalars where the backend keeps them (on CUDA and OpenCL, device
// memory: their iterations wait for nothing), and the host reads the state once per check_every
// iterations, after the set-up and at the end; a tolerance solve stops at the first check after
// the tolerance was met, never earlier. Classic checks every iteration, as the study did.
TEST_P(SolverTest, FusedFormsReadTheirScalarsEveryKIterations) {
  const Problem problem = make_problem("poisson2d:24");
  const double tol = GetParam().precision == Precision::f64 ? 1e-8 : 1e-4;
  int iterations_k1 = 0;
  for (const int k : {1, 7}) {
    int reads = 0;
    const SolveRun run = solve_and_verify(problem, StopRule{2000, tol, k}, [&](std::unique_ptr<Operations> ops, Solver&) {
      return std::make_unique<CountingOperations>(std::move(ops), reads);
    });
    EXPECT_TRUE(run.verdict.passed) << run.verdict.detail;
    ASSERT_EQ(run.result.residual_replacements, 0);  // else the counts below shift
    const int n = run.result.iterations;
    if (k == 1) iterations_k1 = n;
    if (!make_solver(GetParam().variant)->needs_sync()) {
      EXPECT_EQ(n, iterations_k1);  // classic checks every iteration whatever k says
      continue;
    }
    EXPECT_EQ(n % k, 0) << n << " iterations, a check every " << k;
    EXPECT_GE(n, iterations_k1);
    EXPECT_LT(n, iterations_k1 + k);
    EXPECT_LE(reads, n / k + 3);
  }
  // A fixed count reads the scalars after the set-up and at the end only.
  int reads = 0;
  solve_and_verify(problem, StopRule{60, 0}, [&](std::unique_ptr<Operations> ops, Solver&) {
    return std::make_unique<CountingOperations>(std::move(ops), reads);
  });
  if (make_solver(GetParam().variant)->needs_sync()) {
    EXPECT_EQ(reads, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, SolverTest, testing::ValuesIn(solver_cases()), solver_case_name);

// In exact arithmetic the three variants compute the same iterates: in f64 they must agree.
TEST(SolverVariants, AgreeInDouble) {
  const Problem problem = make_problem("poisson2d:40");
  const auto* factory = find_operations("openmp");
  if (!factory) GTEST_SKIP() << "the OpenMP backend is not built";
  const DeviceInfo device = find_device("openmp", -1);
  std::vector<std::vector<double>> solutions;
  for (Variant v : all_variants) {
    auto ops = (*factory)(device, problem.a, Precision::f64, Params{});
    auto solver = make_solver(v);
    ops->allocate_vectors(solver->vectors());
    ops->upload(rhs_slot, problem.b);
    double bb = 0;
    for (double b : problem.b) bb += b * b;
    solve(*ops, *solver, StopRule{40, 0}, std::sqrt(bb));
    std::vector<double> x(problem.b.size());
    ops->download(solver->solution(), x);
    solutions.push_back(std::move(x));
  }
  for (std::size_t k = 1; k < solutions.size(); ++k) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < solutions[0].size(); ++i) {
      diff += std::pow(solutions[k][i] - solutions[0][i], 2);
      norm += solutions[0][i] * solutions[0][i];
    }
    EXPECT_LT(std::sqrt(diff / norm), 1e-9) << to_string(all_variants[k]) << " vs classic";
  }
}

}  // namespace
}  // namespace gpubench::cg
