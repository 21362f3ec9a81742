// The omp_target backend (issue 39): its devices (OpenMP's offload devices, then the initial
// device, the host), the failure of a region asked of a GPU that fell back to the host, and its
// suites verifying with the regions on the host (GEMM in f32 and f64, EP) where there is no GPU.
#include <gtest/gtest.h>

#include <omp.h>

#include "backends/omp_target/omp_target.hpp"
#include "common/errors.hpp"
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

}  // namespace
}  // namespace gpubench
