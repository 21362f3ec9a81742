// The omp_target backend (issue 39): its devices (OpenMP's offload devices, then the initial
// device, the host), the failure of a region asked of a GPU that fell back to the host, and every
// suite's omp_target variants verifying with the regions on the host where there is no GPU, in
// f32 and f64 (EP and FT in f64 only: NAS defines them so), and the roof a device without a probe
// of its own takes from the backends that see the same device.
#include <gtest/gtest.h>

#include <omp.h>

#include <filesystem>

#include "backends/omp_target/omp_target.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/ep/operations.hpp"
#include "kernels/ft/operations.hpp"
#include "kernels/gemm/operations.hpp"
#include "kernels/lu/operations.hpp"
#include "tests/test_paths.hpp"

namespace gpubench {
namespace {

TEST(OmpTarget, TheInitialDeviceIsListedLastAsTheHost) {
  const std::vector<DeviceInfo> devices = omp_target::devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(static_cast<int>(devices.size()), omp_get_num_devices() + 1);
  const DeviceInfo& host = devices.back();
  EXPECT_EQ(host.index, omp_get_initial_device());
  EXPECT_EQ(host.type, "cpu");
  EXPECT_NE(host.platform.find("the initial device, the host"), std::string::npos) << host.platform;
  for (std::size_t i = 0; i + 1 < devices.size(); ++i) {
    EXPECT_EQ(devices[i].type, "gpu");
    EXPECT_NE(devices[i].platform.find("nvptx plugin"), std::string::npos) << devices[i].platform;
  }
}

// The planted fallback: a region asked of a GPU that says it ran on the initial device.
TEST(OmpTarget, ARegionAskedOfAGpuThatRanOnTheHostFailsByName) {
  DeviceInfo gpu;
  gpu.backend = "omp_target";
  gpu.index = 0;
  gpu.type = "gpu";
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.platform = omp_target::runtime_text(true);
  try {
    omp_target::check_ran_where_asked(gpu, true, "GEMM's naive region");
    FAIL() << "a host run was taken for the GPU's";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GEMM's naive region was asked of omp_target:0 NVIDIA H100 80GB HBM3"), std::string::npos) << what;
    EXPECT_NE(what.find("ran on the host"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(omp_target::check_ran_where_asked(gpu, false, "GEMM's naive region"));
  DeviceInfo host = gpu;
  host.type = "cpu";
  EXPECT_NO_THROW(omp_target::check_ran_where_asked(host, true, "GEMM's naive region"));  // asked of the host
}

// The planted fallback through every suite's real regions: a device described as a GPU whose
// OpenMP number is the initial device's, so that each region runs on the host and says so. Each
// suite's first region that reports where it ran fails by name; none returns a host time.
TEST(OmpTarget, EverySuiteFailsByNameWhenItsGpuRegionsRanOnTheHost) {
  DeviceInfo planted = omp_target::devices().back();  // the host
  planted.type = "gpu";
  planted.name = "planted GPU (the initial device)";
  const auto expect_fallback = [&](const char* suite, auto&& run) {
    try {
      run();
      ADD_FAILURE() << suite << ": a host run was taken for the GPU's";
    } catch (const DeviceError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("was asked of omp_target:" + std::to_string(planted.index) + " planted GPU"), std::string::npos)
          << suite << ": " << what;
      EXPECT_NE(what.find("ran on the host"), std::string::npos) << suite << ": " << what;
    }
  };
  expect_fallback("gemm", [&] {
    auto ops = (*gemm::find_operations("omp_target"))(planted, Precision::f64);
    const gemm::Shape shape{8, 8, 8, false, "8"};
    const std::vector<double> m(64, 1.0);
    ops->upload(shape, m, m, m);
    ops->run(gemm::Variant::naive, {}, 1.0, 0.0);
  });
  expect_fallback("ep", [&] {
    auto ops = (*ep::find_operations("omp_target"))(planted);
    ops->tally(std::uint64_t{1} << 20, ep::Variant::reduce, grid::params(32, 1));
  });
  expect_fallback("cg", [&] {
    const cg::CsrMatrix a = cg::poisson2d(8);
    auto ops = (*cg::find_operations("omp_target"))(planted, a, Precision::f64, {});
    ops->allocate_vectors(2);
    ops->dot(0, 1);
  });
  expect_fallback("ft", [&] {
    auto ops = (*ft::find_operations("omp_target"))(planted);
    ops->prepare(ft::ft_class("S"), ft::Variant::nas, {});
    ops->run(ft::Variant::nas);
  });
  expect_fallback("lu", [&] {
    auto ops = (*lu::find_operations("omp_target"))(planted, Precision::f64);
    std::vector<double> a(16 * 16, 0.0);
    for (int i = 0; i < 16; ++i) a[static_cast<std::size_t>(i * 17)] = 2.0;
    ops->upload(a, 16);
    ops->configure(lu::BlockedConfig{});
    ops->getf2(0, 8);
  });
}

TEST(OmpTarget, DeviceMemoryRoundTrips) {
  const int device = omp_target::devices().front().index;
  omp_target::Buffer a(device, 64 * sizeof(double)), b(device, 64 * sizeof(double));
  std::vector<double> in(64), out(64, 0.0);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.5 * static_cast<double>(i);
  a.upload(in.data(), a.bytes());
  b.copy_from(a);
  b.download(out.data(), b.bytes());
  EXPECT_EQ(out, in);
}

TEST(OmpTarget, GemmVerifiesInBothPrecisions) {
  const test::Result r = test::gpubench(
      "run --suite gemm --backend omp_target --problem 96x80x72 --precision f32,f64 --repetitions 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* row : {"naive    f32", "naive    f64", "tiled    f32", "tiled    f64"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
  const test::Result tn = test::gpubench("run --suite gemm --backend omp_target --problem 50x70x30:TN --precision f64 "
                                         "--variant tiled --repetitions 2");
  EXPECT_EQ(tn.exit_code, 0) << tn.output;
}

TEST(OmpTarget, EpVerifiesBothReductions) {
  const test::Result r = test::gpubench("run --suite ep --backend omp_target --problem S --repetitions 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* variant : {" reduce ", " partials "})
    EXPECT_NE(r.output.find(variant), std::string::npos) << variant << "\n" << r.output;
  EXPECT_NE(r.output.find("serial on omp_target: NAS's serial code runs on the host's backend"), std::string::npos)
      << r.output;
}

TEST(OmpTarget, CgVerifiesItsThreeFormsInBothPrecisions) {
  const test::Result r = test::gpubench(
      "run --suite cg --backend omp_target --problem poisson2d:48 --precision f32,f64 --repetitions 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* row : {"classic  f32", "classic  f64", "form1    f32", "form1    f64", "form2    f32", "form2    f64"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
  // The launch tunables are OpenMP's clauses (thread_limit, num_teams per compute unit): swept
  // like the other backends', each configuration a verified solve.
  const std::string db = ::testing::TempDir() + "omp-target-cg-sweep-db";
  std::filesystem::remove_all(db);
  const test::Result swept = test::gpubench(
      "sweep --suite cg --backend omp_target --problem poisson2d:48 --precision f64 --kernel axpy "
      "--param work_group_size=32,64 --param work_groups_per_cu=1,3 --strategy exhaustive --tuning-db " + db);
  EXPECT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("work_groups_per_cu"), std::string::npos) << swept.output;
  // One SpMV here: row_runs and slabs (CUDA's and OpenCL's SpMV forms) are not swept on it.
  const test::Result fused = test::gpubench(
      "sweep --suite cg --backend omp_target --problem poisson2d:48 --precision f64 --kernel spmv_dot2 "
      "--param work_group_size=32,64 --tuning-db " + db);
  EXPECT_EQ(fused.exit_code, 0) << fused.output;
  EXPECT_NE(fused.output.find("work_group_size=64"), std::string::npos) << fused.output;
  EXPECT_EQ(fused.output.find("row_runs"), std::string::npos) << fused.output;
  EXPECT_EQ(fused.output.find("slabs"), std::string::npos) << fused.output;
  std::filesystem::remove_all(db);
}

TEST(OmpTarget, FtVerifiesNasAlgorithm) {
  const test::Result r = test::gpubench("run --suite ft --backend omp_target --problem S --precision f64 --repetitions 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" nas "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("class S (64x64x64, 6 iterations): verified"), std::string::npos) << r.output;
  // A wrong evolve factor is caught on this backend too.
  const test::Result wrong = test::gpubench("run --suite ft --backend omp_target --problem S --precision f64 --repetitions 1",
                                            "GPUBENCH_FT_WRONG_TWIDDLE=1");
  EXPECT_NE(wrong.exit_code, 0) << wrong.output;
}

TEST(OmpTarget, LuBlockedVerifiesInBothPrecisions) {
  // 150 is no multiple of the block: the last panel is narrower; nb 32 and base 8 recurse in the panel.
  const test::Result r = test::gpubench("run --suite lu --backend omp_target --problem 150 --precision f32,f64 --repetitions 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* row : {"blocked  f32", "blocked  f64"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
  EXPECT_NE(r.output.find("vendor on omp_target: OpenMP target offload has no LU library of its own"), std::string::npos)
      << r.output;
}

// omp_target has no probe: its device takes the roof that a backend with one stored for the same
// physical device (here the host's CPU, through openmp's probe), and says whose it is.
TEST(OmpTarget, TakesTheRoofOfTheDeviceItRunsOn) {
  const std::string db = ::testing::TempDir() + "omp-target-roof-db";
  std::filesystem::remove_all(db);
  const test::Result probe = test::gpubench("roofline --backend openmp --tuning-db " + db);
  ASSERT_EQ(probe.exit_code, 0) << probe.output;
  const test::Result r = test::gpubench("run --suite gemm --backend omp_target:" + std::to_string(omp_get_initial_device()) +
                                        " --problem 64 --variant tiled --precision f64 --repetitions 1 --tuning-db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("takes the ceilings of the device it runs on, as openmp:0"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("none: this backend has no ceiling probe"), std::string::npos) << r.output;
  std::filesystem::remove_all(db);
}

}  // namespace
}  // namespace gpubench
