// The CG operations on CUDA and its vendor CG (cuSPARSE + cuBLAS). Registration is checked
// everywhere; the rest needs a CUDA device and skips without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/verify.hpp"
#include "tests/backends/backend_test_helpers.hpp"

namespace gpubench::cg {
namespace {

constexpr const char* no_device = "no CUDA device on this machine";

TEST(CudaCgOperations, AreRegisteredWithAVendorCg) {
  EXPECT_NE(find_operations("cuda"), nullptr);
  EXPECT_EQ(vendor_library("cuda"), "cuSPARSE SpMV (CSR) + cuBLAS dot/axpy/scal");
}

// A matrix whose row i has the given number of nonzeros (at most n), in pseudo-random columns with
// pseudo-random values: row lengths pick the SpMV kernel and its threads per row.
CsrMatrix matrix_with_rows(int n, const std::vector<int>& lengths, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int> column(0, n - 1);
  CsrMatrix a;
  a.rows = a.cols = n;
  a.row_ptr.push_back(0);
  for (int i = 0; i < n; ++i) {
    std::vector<int> columns;
    const int length = std::min(lengths[static_cast<std::size_t>(i) % lengths.size()], n);
    while (static_cast<int>(columns.size()) < length) {
      const int j = column(rng);
      if (std::find(columns.begin(), columns.end(), j) == columns.end()) columns.push_back(j);
    }
    std::sort(columns.begin(), columns.end());
    for (int j : columns) {
      a.col_idx.push_back(j);
      a.values.push_back(value(rng));
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  return a;
}

// y = A x in T, on the values as the device holds them, and the bound on each entry's rounding
// error: 2 (row length + 1) eps sum |a_ij x_j|.
template <typename T>
void host_spmv_in(const CsrMatrix& a, const std::vector<double>& x, std::vector<double>& y,
                  std::vector<double>& bound) {
  const double eps = std::numeric_limits<T>::epsilon();
  y.assign(static_cast<std::size_t>(a.rows), 0.0);
  bound.assign(static_cast<std::size_t>(a.rows), 0.0);
  for (std::size_t i = 0; i < y.size(); ++i) {
    double magnitude = 0;
    for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      const double term = static_cast<double>(static_cast<T>(a.values[kk])) *
                          static_cast<double>(static_cast<T>(x[static_cast<std::size_t>(a.col_idx[kk])]));
      y[i] += term;
      magnitude += std::abs(term);
    }
    bound[i] = 2.0 * (a.row_ptr[i + 1] - a.row_ptr[i] + 1) * eps * magnitude + std::numeric_limits<double>::min();
  }
}

class CudaCg : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::list_devices().empty()) GTEST_SKIP() << no_device;
    device_ = find_device("cuda", -1);
  }

  std::unique_ptr<Operations> make_ops(const CsrMatrix& a, Precision p, Params launch = {}) const {
    return (*find_operations("cuda"))(device_, a, p, launch);
  }

  // The device's A x against the host's, entry by entry within the rounding bound.
  void expect_spmv_matches(const CsrMatrix& a, Precision p, Params launch = {}) const {
    SCOPED_TRACE(std::to_string(a.rows) + " rows, " + std::to_string(static_cast<double>(a.nnz()) / a.rows) +
                 " nonzeros per row, " + to_string(p) + ", block " + std::to_string(grid::group_size_of(launch)));
    auto ops = make_ops(a, p, launch);
    ops->allocate_vectors(2);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<double> x(static_cast<std::size_t>(a.rows));
    for (double& v : x) v = value(rng);
    ops->upload(0, x);
    ops->upload(1, std::vector<double>(x.size(), 12345.0));  // no stale output passes
    ops->spmv(0, 1);
    std::vector<double> y(x.size());
    ops->download(1, y);
    std::vector<double> want, bound;
    if (p == Precision::f32)
      host_spmv_in<float>(a, x, want, bound);
    else
      host_spmv_in<double>(a, x, want, bound);
    int wrong = 0;
    for (std::size_t i = 0; i < y.size() && wrong < 5; ++i)
      if (!(std::abs(y[i] - want[i]) <= bound[i])) {
        ADD_FAILURE() << "row " << i << ": " << y[i] << " vs " << want[i] << " (bound " << bound[i] << ")";
        ++wrong;
      }
  }

  DeviceInfo device_;
};

TEST_F(CudaCg, SpmvShortAndLongRowsMatchTheHost) {
  // Average row lengths for every threads-per-row choice: 1 (Poisson's 5), 4 (13), 8 (20),
  // 16 (NAS S, and rows of 0 to 96), 32 (100).
  const CsrMatrix poisson = make_problem("poisson2d:61").a;
  const CsrMatrix npb_s = make_problem("npb:S").a;
  const CsrMatrix thirteen = matrix_with_rows(3001, {13}, 1);
  const CsrMatrix twenty = matrix_with_rows(3001, {20}, 2);
  std::vector<int> ragged_lengths(97);
  for (int i = 0; i < 97; ++i) ragged_lengths[static_cast<std::size_t>(i)] = (i * 37) % 97;
  const CsrMatrix ragged = matrix_with_rows(3001, ragged_lengths, 3);
  const CsrMatrix hundred = matrix_with_rows(3001, {100, 60, 140}, 4);
  ASSERT_LT(static_cast<double>(npb_s.nnz()) / npb_s.rows, 64.0);
  ASSERT_GE(static_cast<double>(npb_s.nnz()) / npb_s.rows, 32.0);
  for (Precision p : {Precision::f32, Precision::f64})
    for (const CsrMatrix* a : {&poisson, &npb_s, &thirteen, &twenty, &ragged, &hundred}) expect_spmv_matches(*a, p);
  // Block sizes that are not multiples of 32 (the long-row kernel rounds down to whole warps),
  // the smallest, and one beyond the device's maximum.
  for (const Params& launch : {grid::params(100, 2), grid::params(32, 1), grid::params(1 << 20, 1)})
    for (const CsrMatrix* a : {&poisson, &thirteen, &hundred}) expect_spmv_matches(*a, Precision::f64, launch);
}

TEST_F(CudaCg, SpmvOfLongRowsOverManyColumnsMatchesTheHost) {
  // Long random rows over more columns than one shared-memory slab holds (NAS CG's shape): the
  // slab-by-slab SpMV, with x cut into 5 (f64) or 3 (f32) slabs on an H100 (it runs there when
  // nonzeros per column >= the SM count: about 165 here), and ragged rows so that some rows have no
  // entry in a slab.
  const CsrMatrix wide = matrix_with_rows(70001, {250, 300, 270, 0, 3}, 5);
  for (Precision p : {Precision::f32, Precision::f64}) {
    expect_spmv_matches(wide, p);
    expect_spmv_matches(wide, p, grid::params(96, 3));
  }
  const CsrMatrix npb_a = make_problem("npb:A").a;
  expect_spmv_matches(npb_a, Precision::f64);
}

struct VendorRun {
  SolveResult result;
  Verdict verdict;
  std::vector<double> x;
};

class CudaVendorCg : public CudaCg {
 protected:
  VendorRun solve_with(const Problem& problem, Precision p, std::unique_ptr<Solver> (*make)(Operations&),
                       const StopRule& rule) const {
    auto ops = make_ops(problem.a, p);
    auto solver = make(*ops);
    EXPECT_NE(solver, nullptr);
    if (!solver) return {};
    ops->allocate_vectors(solver->vectors());
    ops->upload(rhs_slot, problem.b);
    HostReference ref(problem.a, problem.b);
    VendorRun run;
    run.result = solve(*ops, *solver, rule, ref.b_norm());
    run.x.resize(problem.b.size());
    ops->download(solver->solution(), run.x);
    run.verdict = verify_solve(problem.a, problem.b, run.x, p, run.result, rule, ref);
    return run;
  }
  static std::unique_ptr<Solver> vendor(Operations& ops) { return ops.make_vendor_solver(); }
  static std::unique_ptr<Solver> classic(Operations&) { return make_solver(Variant::classic); }
};

TEST_F(CudaVendorCg, SolvesPoisson2dAndVerifies) {
  const Problem problem = make_problem("poisson2d:64");
  for (Precision p : {Precision::f32, Precision::f64}) {
    SCOPED_TRACE(to_string(p));
    const VendorRun fixed = solve_with(problem, p, vendor, StopRule{100, 0});
    EXPECT_EQ(fixed.result.iterations, 100);
    EXPECT_TRUE(fixed.verdict.passed) << fixed.verdict.detail;
    EXPECT_GT(fixed.result.seconds, 0.0);
    EXPECT_LT(fixed.verdict.true_residual, 0.5);
  }
  const VendorRun converged = solve_with(problem, Precision::f64, vendor, StopRule{2000, 1e-10});
  EXPECT_TRUE(converged.result.converged);
  EXPECT_TRUE(converged.verdict.passed) << converged.verdict.detail;
  EXPECT_LE(converged.verdict.true_residual, 1e-9);
}

TEST_F(CudaVendorCg, AgreesWithClassicInDouble) {
  const Problem problem = make_problem("poisson2d:64");
  const VendorRun library = solve_with(problem, Precision::f64, vendor, StopRule{50, 0});
  const VendorRun ours = solve_with(problem, Precision::f64, classic, StopRule{50, 0});
  ASSERT_EQ(library.x.size(), ours.x.size());
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ours.x.size(); ++i) {
    diff += (library.x[i] - ours.x[i]) * (library.x[i] - ours.x[i]);
    norm += ours.x[i] * ours.x[i];
  }
  ASSERT_GT(norm, 0.0);
  EXPECT_LT(std::sqrt(diff / norm), 1e-10);
  EXPECT_NEAR(library.result.relative_residual, ours.result.relative_residual, 1e-10);
}

TEST_F(CudaVendorCg, ProfileNamesTheLibraryCallsByTheirWork) {
  const Problem problem = make_problem("poisson2d:64");
  auto ops = make_ops(problem.a, Precision::f64);
  auto solver = ops->make_vendor_solver();
  ASSERT_NE(solver, nullptr);
  ops->allocate_vectors(solver->vectors());
  ops->upload(rhs_slot, problem.b);
  const SolveResult r = solve(*ops, *solver, StopRule{10, 0}, HostReference(problem.a, problem.b).b_norm(), true);
  ASSERT_EQ(r.iterations, 10);
  std::map<std::string, long> calls;
  for (const KernelProfile& k : ops->take_profile()) {
    calls[k.kernel] = k.calls;
    EXPECT_GT(k.seconds, 0.0) << k.kernel;
  }
  // One iteration: cusparseSpMV; two dots (p.Ap, r.r); x += a p, r -= a Ap, p += r; p *= beta.
  const std::map<std::string, long> expected = {{"spmv", 10}, {"dot", 20}, {"axpy", 30}, {"scale", 10}};
  EXPECT_EQ(calls, expected);
}

TEST_F(CudaVendorCg, NpbClassSVerifies) {
  const Problem problem = make_problem("npb:S");
  const NpbClass& c = npb_class("S");
  for (Precision p : {Precision::f32, Precision::f64}) {
    SCOPED_TRACE(to_string(p));
    auto ops = make_ops(problem.a, p);
    auto solver = ops->make_vendor_solver();
    ASSERT_NE(solver, nullptr);
    ops->allocate_vectors(solver->vectors());
    ops->upload(rhs_slot, problem.b);
    const NpbResult r = npb_benchmark(*ops, *solver, c);
    const Verdict v = verify_npb(c, p, r.zeta);
    EXPECT_TRUE(v.passed) << v.detail;
    EXPECT_EQ(r.cg_iterations, c.niter * npb_cg_iterations);
  }
}

// The vendor CG is the library calls of whichever Operations it runs on (make_library_cg): one
// made by `ops` solves on `other` with other's cuSPARSE and cuBLAS state.
TEST_F(CudaVendorCg, RunsOnTheLibraryCallsOfItsOperations) {
  const Problem problem = make_problem("poisson2d:16");
  auto ops = make_ops(problem.a, Precision::f64);
  auto other = make_ops(problem.a, Precision::f64);
  auto solver = ops->make_vendor_solver();
  other->allocate_vectors(solver->vectors());
  other->upload(rhs_slot, problem.b);
  const SolveResult r = solve(*other, *solver, StopRule{200, 1e-10}, std::sqrt(host_dot(problem.b, problem.b)));
  EXPECT_TRUE(r.converged);
}

}  // namespace
}  // namespace gpubench::cg
