// CG on several devices in one process (kernels/cg/distributed.hpp): the unchanged algorithm on
// 1, 2 and 3 bands gives the one-device result within rounding, for each variant, on a Poisson
// grid, a real Matrix Market file and NAS CG class S; on the host's OpenMP device, on PoCL's
// OpenCL device, and on the two together (bands of one solve on different kinds of device).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "kernels/cg/distributed.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"
#include "tests/kernels/cg/forwarding_operations.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::cg {
namespace {

using ::testing::HasSubstr;

struct Outcome {
  SolveResult result;
  std::vector<double> x;
};

Outcome run(Operations& ops, const Problem& p, Variant v, int iterations) {
  auto solver = make_solver(v);
  ops.allocate_vectors(solver->vectors());
  ops.upload(rhs_slot, p.b);
  Outcome o;
  o.result = solve(ops, *solver, StopRule{iterations, 0}, std::sqrt(host_dot(p.b, p.b)));
  o.x.resize(p.b.size());
  ops.download(solver->solution(), o.x);
  return o;
}

std::unique_ptr<Operations> one_device(const DeviceInfo& d, const CsrMatrix& a) {
  return (*find_operations(d.backend))(d, a, Precision::f64, Params{});
}

// The solution of `bands` devices against one device's, entry by entry, relative to its largest entry.
void expect_same_solve(const std::vector<DeviceInfo>& devices, const Problem& p, int iterations) {
  for (Variant v : all_variants) {
    SCOPED_TRACE(std::string(to_string(v)) + ", " + std::to_string(devices.size()) + " bands");
    auto single = one_device(devices.front(), p.a);
    const Outcome want = run(*single, p, v, iterations);
    auto several = make_distributed_operations(devices, p.a, Precision::f64, Params{});
    const Outcome got = run(*several, p, v, iterations);
    EXPECT_EQ(got.result.iterations, want.result.iterations);
    EXPECT_NEAR(got.result.relative_residual, want.result.relative_residual, 1e-9 * want.result.relative_residual + 1e-14);
    const double scale = std::max(1.0, *std::max_element(want.x.begin(), want.x.end(), [](double a, double b) {
      return std::abs(a) < std::abs(b);
    }));
    double worst = 0;
    for (std::size_t i = 0; i < want.x.size(); ++i) worst = std::max(worst, std::abs(got.x[i] - want.x[i]) / scale);
    EXPECT_LT(worst, 1e-10);
    EXPECT_LT(true_relative_residual(p.a, p.b, got.x), 10 * want.result.relative_residual + 1e-12);
  }
}

// The vendor variant (the backend's library calls) on `devices` against one device's.
void expect_same_vendor_solve(const std::vector<DeviceInfo>& devices, const Problem& p, int iterations) {
  SCOPED_TRACE("vendor, " + std::to_string(devices.size()) + " bands");
  const double b_norm = std::sqrt(host_dot(p.b, p.b));
  auto vendor_solve = [&](Operations& ops, std::vector<double>& x) {
    auto solver = ops.make_vendor_solver();
    if (!solver) throw Error(ExitCode::internal, "no vendor solver");
    ops.allocate_vectors(solver->vectors());
    ops.upload(rhs_slot, p.b);
    const SolveResult r = solve(ops, *solver, StopRule{iterations, 0}, b_norm);
    x.resize(p.b.size());
    ops.download(solver->solution(), x);
    return r;
  };
  std::vector<double> want_x, got_x;
  auto single = one_device(devices.front(), p.a);
  const SolveResult want = vendor_solve(*single, want_x);
  auto several = make_distributed_operations(devices, p.a, Precision::f64, Params{});
  const SolveResult got = vendor_solve(*several, got_x);
  EXPECT_NEAR(got.relative_residual, want.relative_residual, 1e-9 * want.relative_residual + 1e-14);
  double worst = 0, largest = 1;
  for (std::size_t i = 0; i < want_x.size(); ++i) {
    worst = std::max(worst, std::abs(got_x[i] - want_x[i]));
    largest = std::max(largest, std::abs(want_x[i]));
  }
  EXPECT_LT(worst, 1e-10 * largest);
}

std::vector<DeviceInfo> repeated(const std::string& backend, int n) {
  return std::vector<DeviceInfo>(static_cast<std::size_t>(n), find_device(backend, -1));
}

TEST(Distributed, SeveralBandsOnTheHostEqualOneDevice) {
  const Problem poisson = make_problem("poisson2d:48");
  for (int n : {1, 2, 3}) expect_same_solve(repeated("openmp", n), poisson, 60);
  EXPECT_EQ(make_distributed_operations(repeated("openmp", 2), poisson.a, Precision::f64, Params{})->exchange_path(),
            "through the host");
  EXPECT_EQ(make_distributed_operations(repeated("openmp", 1), poisson.a, Precision::f64, Params{})->exchange_path(),
            "");
}

// 1138_bus is ill-conditioned (about 1e6): after a fixed count of iterations, rounding alone (the
// sums in another order) moves CG's iterates far from each other on one device already. Solved to
// a tolerance, both reach the same solution.
TEST(Distributed, RealMatrixMarketFileSolvedToATolerance) {
  const Problem p = make_problem("mtx:" + test::matrix_dir() + "/1138_bus.mtx");
  for (Variant v : all_variants) {
    SCOPED_TRACE(to_string(v));
    const StopRule rule{20000, 1e-10};
    auto single = one_device(find_device("openmp", -1), p.a);
    auto s1 = make_solver(v);
    single->allocate_vectors(s1->vectors());
    single->upload(rhs_slot, p.b);
    const SolveResult want = solve(*single, *s1, rule, std::sqrt(host_dot(p.b, p.b)));
    std::vector<double> x1(p.b.size()), x2(p.b.size());
    single->download(s1->solution(), x1);
    auto several = make_distributed_operations(repeated("openmp", 3), p.a, Precision::f64, Params{});
    auto s2 = make_solver(v);
    several->allocate_vectors(s2->vectors());
    several->upload(rhs_slot, p.b);
    const SolveResult got = solve(*several, *s2, rule, std::sqrt(host_dot(p.b, p.b)));
    several->download(s2->solution(), x2);
    ASSERT_TRUE(want.converged && got.converged);
    EXPECT_NEAR(got.iterations, want.iterations, 0.1 * want.iterations);
    EXPECT_LT(true_relative_residual(p.a, p.b, x2), 1e-8);
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < x1.size(); ++i) {
      worst = std::max(worst, std::abs(x1[i] - x2[i]));
      largest = std::max(largest, std::abs(x1[i]));
    }
    EXPECT_LT(worst, 1e-4 * largest);  // both within cond x tolerance of the one solution
  }
}

TEST(Distributed, OpenclBandsAndMixedDevicesEqualOneDevice) {
  if (!find_operations("opencl") || find_backend("opencl").devices().empty())
    GTEST_SKIP() << "no OpenCL device on this machine";
  const DeviceInfo cl = find_device("opencl", -1);
  if (!cl.fp64) GTEST_SKIP() << cl.label() << " has no fp64 support";
  const Problem poisson = make_problem("poisson2d:40");
  expect_same_solve(repeated("opencl", 2), poisson, 50);
  expect_same_solve({find_device("openmp", -1), cl}, poisson, 50);  // one solve, two kinds of device
  expect_same_solve({cl, find_device("openmp", -1), cl}, poisson, 50);
}

// Bands whose API keeps the fused forms' scalars on the device (OpenCL here: PoCL) end their
// sums on their devices and advance every band's copy of the scalars from the gathered sums; the
// solves agree with one device's (expect_same_solve: every form), on two to four bands, to a
// tolerance too, and a breakdown on the bands' devices is reported by name. A band on the host
// keeps the whole solve's scalars on the host.
TEST(Distributed, TheFusedFormsSumsMeetOnTheBandsDevices) {
  if (!find_operations("opencl") || find_backend("opencl").devices().empty())
    GTEST_SKIP() << "no OpenCL device on this machine";
  const DeviceInfo cl = find_device("opencl", -1);
  if (!cl.fp64) GTEST_SKIP() << cl.label() << " has no fp64 support";
  const Problem poisson = make_problem("poisson2d:40");
  for (int n : {2, 3, 4}) {
    EXPECT_TRUE(make_distributed_operations(repeated("opencl", n), poisson.a, Precision::f64, Params{})->device_scalars());
    expect_same_solve(repeated("opencl", n), poisson, 50);
  }
  EXPECT_FALSE(make_distributed_operations({find_device("openmp", -1), cl}, poisson.a, Precision::f64, Params{})
                   ->device_scalars());
  EXPECT_FALSE(make_distributed_operations(repeated("openmp", 2), poisson.a, Precision::f64, Params{})->device_scalars());
  const double b_norm = std::sqrt(host_dot(poisson.b, poisson.b));
  for (Variant v : {Variant::form1, Variant::form2}) {
    SCOPED_TRACE(to_string(v));
    auto tolerance_solve = [&](Operations& ops) {
      auto solver = make_solver(v);
      ops.allocate_vectors(solver->vectors());
      ops.upload(rhs_slot, poisson.b);
      const SolveResult r = solve(ops, *solver, StopRule{2000, 1e-10, 5}, b_norm);
      std::vector<double> x(poisson.b.size());
      ops.download(solver->solution(), x);
      EXPECT_LT(true_relative_residual(poisson.a, poisson.b, x), 1e-10 * 1.01);
      return r;
    };
    auto single = one_device(cl, poisson.a);
    const SolveResult want = tolerance_solve(*single);
    auto several = make_distributed_operations(repeated("opencl", 3), poisson.a, Precision::f64, Params{});
    const SolveResult got = tolerance_solve(*several);
    EXPECT_TRUE(got.converged);
    EXPECT_EQ(got.iterations % 5, 0);
    EXPECT_NEAR(got.iterations, want.iterations, 5);
  }
  // diag(1, -1), b = (1, 1): r.Ar = 0 at the first step, found on the bands' devices.
  CsrMatrix a;
  a.rows = a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {0, 1};
  a.values = {1.0, -1.0};
  const Problem indefinite{"indefinite", a, {1.0, 1.0}};
  auto several = make_distributed_operations(repeated("opencl", 2), a, Precision::f64, Params{});
  ASSERT_TRUE(several->device_scalars());
  auto solver = make_solver(Variant::form1);
  several->allocate_vectors(solver->vectors());
  several->upload(rhs_slot, indefinite.b);
  try {
    solve(*several, *solver, StopRule{10, 0}, std::sqrt(2.0));
    ADD_FAILURE() << "an indefinite matrix's breakdown went unreported";
  } catch (const VerificationError& e) {
    EXPECT_THAT(e.what(), HasSubstr("CG breakdown: r.Ar"));
  }
}

// CUDA bands (each band's halo after its rows, the ranged read of its sent entries): two and three
// bands on one GPU, and beside the host's OpenMP device.
TEST(Distributed, CudaBandsEqualOneDevice) {
  if (find_backend("cuda").devices().empty() || !find_operations("cuda")) GTEST_SKIP() << "no CUDA device on this machine";
  const DeviceInfo gpu = find_device("cuda", -1);
  const Problem poisson = make_problem("poisson2d:64");
  expect_same_solve(repeated("cuda", 2), poisson, 60);
  expect_same_solve(repeated("cuda", 3), poisson, 60);
  expect_same_solve({gpu, find_device("openmp", -1)}, poisson, 60);
  const Problem p3 = make_problem("poisson3d:24");
  expect_same_solve(repeated("cuda", 2), p3, 40);
  // NAS CG's random pattern: each band's sent entries are scattered, packed by the gather kernel.
  const Problem nas = make_problem("npb:S");
  expect_same_solve(repeated("cuda", 3), nas, 15);
  // The vendor variant on each band's cuSPARSE and cuBLAS (the halo read by cusparseSpMV).
  expect_same_vendor_solve(repeated("cuda", 2), poisson, 60);
  expect_same_vendor_solve(repeated("cuda", 3), nas, 15);
  // A band on another API has no library calls: no vendor variant across them.
  EXPECT_EQ(make_distributed_operations({gpu, find_device("openmp", -1)}, poisson.a, Precision::f64, Params{})
                ->make_vendor_solver(),
            nullptr);
  // CUDA bands link device to device; a band on another API sends the whole exchange through the host.
  EXPECT_THAT(make_distributed_operations(repeated("cuda", 2), poisson.a, Precision::f64, Params{})->exchange_path(),
              HasSubstr("CUDA device-to-device copies (one device)"));
  EXPECT_EQ(make_distributed_operations({gpu, find_device("openmp", -1)}, poisson.a, Precision::f64, Params{})
                ->exchange_path(),
            "through the host");
  if (find_backend("cuda").devices().size() < 2) GTEST_SKIP() << "one CUDA device: bands on two GPUs not checked";
  const std::vector<DeviceInfo> two{find_device("cuda", 0), find_device("cuda", 1)};
  expect_same_solve(two, poisson, 60);  // each call on its band's GPU
  expect_same_solve({find_device("cuda", 1), find_device("cuda", 0), gpu}, p3, 40);
  expect_same_solve({find_device("cuda", 1), find_device("cuda", 0), gpu}, nas, 15);
  expect_same_vendor_solve(two, poisson, 60);
  EXPECT_THAT(make_distributed_operations(two, poisson.a, Precision::f64, Params{})->exchange_path(),
              HasSubstr("CUDA peer copies"));
}

// An OpenMP band that offers library calls made of its own kernels (OpenMP has no vendor
// library): the vendor variant's plumbing across bands (library() over them, the exchange before
// each library SpMV, the dots summed) checked without a GPU.
class WithLibrary final : public ForwardingOperations {
 public:
  explicit WithLibrary(std::unique_ptr<Operations> inner)
      : ForwardingOperations(std::move(inner)), calls_(this->inner()) {}
  LibraryCalls* library() override { return &calls_; }

 private:
  struct Calls final : LibraryCalls {
    explicit Calls(Operations& o) : ops(o) {}
    void prepare_spmv(Slot, Slot) override {}
    void spmv(Slot a, Slot b) override { ops.spmv(a, b); }
    double dot(Slot a, Slot b) override { return ops.dot(a, b); }
    void axpy(double alpha, Slot x, Slot y) override { ops.axpy(alpha, x, y); }
    void scal(double alpha, Slot x) override { ops.scale(alpha, x, x); }  // elementwise: in place is safe here
    Operations& ops;
  };
  Calls calls_;
};

TEST(Distributed, TheVendorVariantRunsOnEveryBandsLibraryCalls) {
  const Problem p = make_problem("poisson2d:40");
  const DeviceInfo cpu = find_device("openmp", -1);
  auto whole = std::make_unique<WithLibrary>(one_device(cpu, p.a));
  auto solver = whole->make_vendor_solver();
  ASSERT_TRUE(solver);
  whole->allocate_vectors(solver->vectors());
  whole->upload(rhs_slot, p.b);
  const double b_norm = std::sqrt(host_dot(p.b, p.b));
  const SolveResult want = solve(*whole, *solver, StopRule{50, 0}, b_norm);
  std::vector<double> x1(p.b.size()), x3(p.b.size());
  whole->download(solver->solution(), x1);

  Partition partition = partition_rows(p.a, 3);
  std::vector<std::unique_ptr<Operations>> parts;
  for (const Band& band : partition.bands) parts.push_back(std::make_unique<WithLibrary>(one_device(cpu, band.a)));
  DistributedOperations several(std::move(partition), std::move(parts));
  ASSERT_NE(several.library(), nullptr);
  auto solver3 = several.make_vendor_solver();
  ASSERT_TRUE(solver3);
  several.allocate_vectors(solver3->vectors());
  several.upload(rhs_slot, p.b);
  several.set_profiling(true);
  const SolveResult got = solve(several, *solver3, StopRule{50, 0}, b_norm);
  several.set_profiling(false);
  several.download(solver3->solution(), x3);
  EXPECT_NEAR(got.relative_residual, want.relative_residual, 1e-9 * want.relative_residual);
  double worst = 0;
  for (std::size_t i = 0; i < x1.size(); ++i) worst = std::max(worst, std::abs(x1[i] - x3[i]));
  EXPECT_LT(worst, 1e-10);
  const auto profile = several.take_profile();
  const auto exchange = std::find_if(profile.begin(), profile.end(), [](const KernelProfile& k) { return k.kernel == "exchange"; });
  ASSERT_NE(exchange, profile.end());
  EXPECT_EQ(exchange->calls, 50);  // the halo before each of the 50 library SpMVs

  // A band without library calls: the whole has none, and no vendor variant.
  Partition mixed = partition_rows(p.a, 2);
  std::vector<std::unique_ptr<Operations>> plain;
  plain.push_back(std::make_unique<WithLibrary>(one_device(cpu, mixed.bands[0].a)));
  plain.push_back(one_device(cpu, mixed.bands[1].a));
  DistributedOperations without(std::move(mixed), std::move(plain));
  EXPECT_EQ(without.library(), nullptr);
  EXPECT_EQ(without.make_vendor_solver(), nullptr);
  try {  // the library CG on operations without library calls: a bug, said as one
    auto library_cg = make_library_cg();
    without.allocate_vectors(library_cg->vectors());
    library_cg->start(without);
    ADD_FAILURE() << "no error for the library CG on operations without library calls";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::internal);
  }
}

TEST(Distributed, NasCgClassSVerifiesOnThreeBands) {
  const NpbClass& s = npb_class("S");
  const CsrMatrix a = npb_makea(s);
  for (Variant v : all_variants) {
    SCOPED_TRACE(to_string(v));
    auto single = one_device(find_device("openmp", -1), a);
    auto solver = make_solver(v);
    const std::vector<double> ones(static_cast<std::size_t>(a.rows), 1.0);  // NAS's x before the timed loop
    single->allocate_vectors(solver->vectors());
    single->upload(rhs_slot, ones);
    const NpbResult want = npb_benchmark(*single, *solver, s);
    auto several = make_distributed_operations(repeated("openmp", 3), a, Precision::f64, Params{});
    auto solver3 = make_solver(v);
    several->allocate_vectors(solver3->vectors());
    several->upload(rhs_slot, ones);
    const NpbResult got = npb_benchmark(*several, *solver3, s);
    EXPECT_NEAR(got.zeta, want.zeta, 1e-10 * std::abs(want.zeta));
    EXPECT_NEAR(got.zeta, s.zeta_verify, 1e-10 * std::abs(s.zeta_verify));  // NAS's own verification value
  }
}

TEST(Distributed, TheExchangeMovesOnlyTheHaloAndIsProfiled) {
  const Problem p = make_problem("poisson2d:32");
  auto ops = make_distributed_operations(repeated("openmp", 2), p.a, Precision::f64, Params{});
  EXPECT_EQ(ops->partition().halo_entries(), 64);  // one grid line each way, not the 1024-entry vector
  auto solver = make_solver(Variant::classic);
  ops->allocate_vectors(solver->vectors());
  ops->upload(rhs_slot, p.b);
  solve(*ops, *solver, StopRule{10, 0}, std::sqrt(host_dot(p.b, p.b)), true);
  const auto profile = ops->take_profile();
  const auto find = [&](const std::string& name) {
    return std::find_if(profile.begin(), profile.end(), [&](const KernelProfile& k) { return k.kernel == name; });
  };
  ASSERT_NE(find("exchange"), profile.end());
  EXPECT_EQ(find("exchange")->calls, find("spmv")->calls);  // one exchange before each SpMV
  EXPECT_GT(find("exchange")->seconds, 0);
  // Each band's own rows beside them: the whole's row of a kernel is its slowest band's.
  const auto& bands = ops->band_profiles();
  ASSERT_EQ(bands.size(), 2u);
  double slowest = 0;
  for (const auto& band : bands) {
    const auto spmv = std::find_if(band.begin(), band.end(), [](const KernelProfile& k) { return k.kernel == "spmv"; });
    ASSERT_NE(spmv, band.end());
    EXPECT_EQ(spmv->calls, find("spmv")->calls);
    EXPECT_GT(spmv->seconds, 0);
    slowest = std::max(slowest, spmv->seconds);
  }
  EXPECT_EQ(slowest, find("spmv")->seconds);
}

// Each band's calls, in one log for all: what the SpMV across bands issues, in order.
class Recording final : public ForwardingOperations {
 public:
  Recording(std::unique_ptr<Operations> inner, int band, std::vector<std::string>& log)
      : ForwardingOperations(std::move(inner)), band_(std::to_string(band) + ": "), log_(log) {}
  void spmv(Slot in, Slot out) override {
    log_.push_back(band_ + "spmv");
    ForwardingOperations::spmv(in, out);
  }
  void spmv_rows(Slot in, Slot out, std::int32_t first, std::int32_t count) override {
    log_.push_back(band_ + "rows " + std::to_string(first) + "+" + std::to_string(count));
    ForwardingOperations::spmv_rows(in, out, first, count);
  }
  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    log_.push_back(band_ + "entries out");
    ForwardingOperations::download_entries(v, rows, values);
  }
  void upload_halo(Slot v, std::span<const double> values) override {
    log_.push_back(band_ + "halo in");
    ForwardingOperations::upload_halo(v, values);
  }

 private:
  std::string band_;
  std::vector<std::string>& log_;
};

// Timed, each band's rows that read no halo run after its sent entries are read and before the
// halo is written, its other rows after; profiled, the exchange and the whole SpMV each alone.
// Either way the product is the whole matrix's. Where every row reads the halo (NAS CG's random
// pattern), the SpMV runs whole after the exchange.
TEST(Distributed, TheRowsThatReadNoHaloRunWhileItMoves) {
  const DeviceInfo cpu = find_device("openmp", -1);
  auto spmv_of = [&](const CsrMatrix& a, std::vector<std::string>& log, bool profiled) {
    Partition partition = partition_rows(a, 2);
    std::vector<std::unique_ptr<Operations>> parts;
    for (std::size_t k = 0; k < 2; ++k)
      parts.push_back(std::make_unique<Recording>(one_device(cpu, partition.bands[k].a), static_cast<int>(k), log));
    DistributedOperations ops(std::move(partition), std::move(parts));
    std::vector<double> x(static_cast<std::size_t>(a.rows)), y(x.size()), want(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<double>(i));
    ops.allocate_vectors(2);
    ops.upload(0, x);
    ops.set_profiling(profiled);
    log.clear();
    ops.spmv(0, 1);
    ops.set_profiling(false);
    ops.download(1, y);
    host_spmv(a, x, want);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-12 * (1 + std::abs(want[i]))) << i;
    return ops.overlapped_fraction();
  };
  const Problem p = make_problem("poisson2d:32");  // 2 bands of 16 grid lines, each reading one line of the other
  std::vector<std::string> log;
  EXPECT_EQ(spmv_of(p.a, log, false), (480.0 + 480.0) / 1024);
  EXPECT_EQ(log, (std::vector<std::string>{"0: entries out", "1: entries out", "0: rows 0+480", "1: rows 32+480",
                                           "0: halo in", "1: halo in", "0: rows 480+32", "1: rows 0+32"}));
  spmv_of(p.a, log, true);
  EXPECT_EQ(log, (std::vector<std::string>{"0: entries out", "1: entries out", "0: halo in", "1: halo in", "0: spmv",
                                           "1: spmv"}));
  EXPECT_EQ(spmv_of(npb_makea(npb_class("S")), log, false), 0.0);
  EXPECT_EQ(log, (std::vector<std::string>{"0: entries out", "1: entries out", "0: halo in", "1: halo in", "0: spmv",
                                           "1: spmv"}));
}

TEST(Distributed, ImpossibleSetupsAreNamed) {
  const Problem p = make_problem("poisson2d:4");  // 16 rows
  try {
    make_distributed_operations(repeated("openmp", 17), p.a, Precision::f64, Params{});
    FAIL() << "17 bands of 16 rows";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot split 16 rows into 17 bands"));
  }
  if (find_operations("viennacl_host") && !find_backend("viennacl_host").devices().empty()) {
    try {
      make_distributed_operations(repeated("viennacl_host", 2), p.a, Precision::f64, Params{});
      FAIL() << "ViennaCL on a band";
    } catch (const DeviceError& e) {
      EXPECT_THAT(e.what(), HasSubstr("band 0"));
      EXPECT_THAT(e.what(), HasSubstr("ViennaCL's CG runs a whole matrix on one device"));
    }
  }
}

}  // namespace
}  // namespace gpubench::cg
