// The OpenMP target offload backends, GCC's (omp_target, issue 39) and Clang's (omp_target_clang,
// issue 57), one source built by each compiler: their devices (OpenMP's offload devices, then the
// initial device, the host), the failure of a region asked of a GPU that fell back to the host,
// and every suite's variants verifying with the regions on the host where there is no GPU, in f32
// and f64 (EP and FT in f64 only: NAS defines them so), the two compilers' points in one run, and
// the roof a device without a probe of its own takes from the backends that see the same device.
// This program links GCC's objects (the tests that call them directly) and loads Clang's module
// as gpubench does, through the registry.
#include <gtest/gtest.h>

#include <omp.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <tuple>

#include "backends/omp_target/omp_target.hpp"
#include "backends/registry.hpp"
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

// Each compiler's backend, by name; one that is not in this build is a visible skip, with why.
class OmpTargetCompilers : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = not_built_reason(GetParam()); !why.empty()) GTEST_SKIP() << GetParam() << " is not built: " << why;
    if (const std::string why = load_backend(GetParam()); !why.empty()) FAIL() << GetParam() << ": " << why;
  }
  std::vector<DeviceInfo> devices() const { return find_backend(GetParam()).devices(); }
  // "libgomp (GCC 12.2.0)", "libomptarget (Clang 19.1.7)"
  std::string runtime() const { return GetParam() == "omp_target" ? "libgomp (GCC " : "libomptarget (Clang "; }
  std::string run(const std::string& args, const std::string& env = "") const {
    const test::Result r = test::gpubench("run " + args + " --backend " + GetParam(), env);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }
};

INSTANTIATE_TEST_SUITE_P(Compilers, OmpTargetCompilers, ::testing::Values("omp_target", "omp_target_clang"),
                         [](const auto& point) { return point.param; });

TEST(OmpTarget, TheInitialDeviceIsGccsNumber) {
  const std::vector<DeviceInfo> devices = omp_target::devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(static_cast<int>(devices.size()), omp_get_num_devices() + 1);
  EXPECT_EQ(devices.back().index, omp_get_initial_device());
}

TEST_P(OmpTargetCompilers, TheInitialDeviceIsListedLastAsTheHost) {
  const std::vector<DeviceInfo> list = devices();
  ASSERT_FALSE(list.empty());
  const DeviceInfo& host = list.back();
  EXPECT_EQ(host.backend, GetParam());
  EXPECT_EQ(host.type, "cpu");
  EXPECT_EQ(host.platform.rfind(runtime(), 0), 0u) << host.platform;  // the compiler and its version
  EXPECT_NE(host.platform.find("the initial device, the host"), std::string::npos) << host.platform;
  for (std::size_t i = 0; i + 1 < list.size(); ++i) {
    EXPECT_EQ(list[i].type, "gpu");
    EXPECT_NE(list[i].platform.find(GetParam() == "omp_target" ? "nvptx plugin" : "CUDA plugin"), std::string::npos)
        << list[i].platform;
  }
}

// Both compilers' points side by side in one run, each device line naming its compiler.
TEST(OmpTarget, BothCompilersRunInOneRun) {
  if (const std::string why = not_built_reason("omp_target_clang"); !why.empty()) GTEST_SKIP() << "omp_target_clang is not built: " << why;
  const test::Result r = test::gpubench("--list-devices");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("platform libgomp (GCC "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("platform libomptarget (Clang 19"), std::string::npos) << r.output;
  const test::Result both = test::gpubench("run --suite gemm --backend omp_target,omp_target_clang --problem 64 --variant naive "
                                           "--precision f64 --repetitions 1");
  ASSERT_EQ(both.exit_code, 0) << both.output;
  for (const char* point : {"gemm/64/omp_target:", "gemm/64/omp_target_clang:"})
    EXPECT_NE(both.output.find(point), std::string::npos) << point << "\n" << both.output;
}

// The planted fallback: a region asked of a GPU that says it ran on the initial device.
// One API, two runtimes: each compiler's tuning file is its own, and `tuning show --backend` tells
// them apart by the runtime its device's platform names.
TEST(OmpTarget, TuningShowTellsTheCompilersApart) {
  if (const std::string why = not_built_reason("omp_target_clang"); !why.empty()) GTEST_SKIP() << "omp_target_clang is not built: " << why;
  const std::string db = ::testing::TempDir() + "omp-target-compilers-db";
  std::filesystem::remove_all(db);
  for (const char* backend : {"omp_target", "omp_target_clang"}) {
    const test::Result swept = test::gpubench(std::string("sweep --suite cg --backend ") + backend +
                                              " --problem poisson2d:32 --precision f64 --kernel axpy --param work_group_size=32,64 "
                                              "--strategy exhaustive --tuning-db " + db);
    ASSERT_EQ(swept.exit_code, 0) << swept.output;
  }
  for (const auto& [backend, runtime, other] : {std::tuple{"omp_target", "libgomp (GCC", "libomptarget"},
                                                std::tuple{"omp_target_clang", "libomptarget (Clang", "libgomp"}}) {
    const test::Result shown = test::gpubench(std::string("tuning show --backend ") + backend + " --tuning-db " + db);
    ASSERT_EQ(shown.exit_code, 0) << shown.output;
    EXPECT_NE(shown.output.find(runtime), std::string::npos) << backend << "\n" << shown.output;
    EXPECT_EQ(shown.output.find(other), std::string::npos) << backend << "\n" << shown.output;
  }
  std::filesystem::remove_all(db);
}

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
TEST_P(OmpTargetCompilers, EverySuiteFailsByNameWhenItsGpuRegionsRanOnTheHost) {
  const std::string backend = GetParam();
  DeviceInfo planted = devices().back();  // the host
  planted.type = "gpu";
  planted.name = "planted GPU (the initial device)";
  const auto expect_fallback = [&](const char* suite, auto&& run) {
    try {
      run();
      ADD_FAILURE() << suite << ": a host run was taken for the GPU's";
    } catch (const DeviceError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("was asked of " + backend + ":" + std::to_string(planted.index) + " planted GPU"), std::string::npos)
          << suite << ": " << what;
      EXPECT_NE(what.find("ran on the host"), std::string::npos) << suite << ": " << what;
    }
  };
  expect_fallback("gemm", [&] {
    auto ops = (*gemm::find_operations(backend))(planted, Precision::f64);
    const gemm::Shape shape{8, 8, 8, false, "8"};
    const std::vector<double> m(64, 1.0);
    ops->upload(shape, m, m, m);
    ops->run(gemm::Variant::naive, {}, 1.0, 0.0);
  });
  if (backend == "omp_target_clang")
    expect_fallback("gemm tuned", [&] {
      auto ops = (*gemm::find_operations(backend))(planted, Precision::f64);
      const gemm::Shape shape{8, 8, 8, false, "8"};
      const std::vector<double> m(64, 1.0);
      ops->upload(shape, m, m, m);
      ops->run(gemm::Variant::tuned, {}, 1.0, 0.0);
    });
  if (backend == "omp_target_clang")
    expect_fallback("gemm tensor", [&] {
      auto ops = (*gemm::find_operations(backend))(planted, Precision::f64);
      const gemm::Shape shape{8, 8, 8, false, "8"};
      const std::vector<double> m(64, 1.0);
      ops->upload(shape, m, m, m);
      ops->run(gemm::Variant::tensor, {}, 1.0, 0.0);
    });
  expect_fallback("ep", [&] {
    auto ops = (*ep::find_operations(backend))(planted);
    ops->tally(std::uint64_t{1} << 20, ep::Variant::reduce, grid::params(32, 1));
  });
  expect_fallback("cg", [&] {
    const cg::CsrMatrix a = cg::poisson2d(8);
    auto ops = (*cg::find_operations(backend))(planted, a, Precision::f64, {});
    ops->allocate_vectors(2);
    ops->dot(0, 1);
  });
  expect_fallback("ft", [&] {
    auto ops = (*ft::find_operations(backend))(planted);
    ops->prepare(ft::ft_class("S"), ft::Variant::nas, {});
    ops->run(ft::Variant::nas);
  });
  expect_fallback("lu", [&] {
    auto ops = (*lu::find_operations(backend))(planted, Precision::f64);
    std::vector<double> a(16 * 16, 0.0);
    for (int i = 0; i < 16; ++i) a[static_cast<std::size_t>(i * 17)] = 2.0;
    ops->upload(a, 16);
    ops->configure(lu::BlockedConfig{});
    ops->getf2(0, 8);
  });
  if (backend == "omp_target_clang")  // a GPU's panel of 2048 rows or more: Clang's column steps
    expect_fallback("lu column steps", [&] {
      auto ops = (*lu::find_operations(backend))(planted, Precision::f64);
      const int n = 2048;
      std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
      for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * (n + 1)] = 2.0;
      ops->upload(a, n);
      ops->configure(lu::BlockedConfig{});
      ops->getf2(0, 8);
    });
}

// On a GPU each suite's records say where it takes a slower path than CUDA's and why (the ledger of
// `gpubench report models`): GEMM's and LU's missing tensor-core path, FT's missing fast variant,
// LU's panel, and GCC's code generation on GCC's build only. On the host, nothing.
TEST_P(OmpTargetCompilers, TheRecordsNameTheGapsOnAGpu) {
  const std::string backend = GetParam();
  const bool gcc = backend == "omp_target";
  DeviceInfo gpu = devices().back();
  gpu.type = "gpu";
  const auto text = [](const nlohmann::json& causes) {
    std::string all;
    for (const auto& c : causes) all += c.at("by").get<std::string>() + ": " + c.at("cause").get<std::string>() + "\n";
    return all;
  };
  const std::string gemm_causes = text((*gemm::find_operations(backend))(gpu, Precision::f64)->gap_causes(gemm::Variant::tiled));
  EXPECT_NE(gemm_causes.find(gcc ? "compiler: no tensor-core path on GCC's OpenMP offload"
                                 : "gpubench: the FMA units: Clang's tensor-core path is the tensor variant"),
            std::string::npos) << gemm_causes;
  EXPECT_EQ(gemm_causes.find("compiler: GCC 12's nvptx offload") != std::string::npos, gcc) << gemm_causes;
  auto lu_ops = (*lu::find_operations(backend))(gpu, Precision::f64);
  lu::BlockedConfig tensor_updates;
  tensor_updates.gemm_variant = "tensor";
  lu_ops->configure(tensor_updates);
  const std::string lu_causes = text(lu_ops->gap_causes());
  EXPECT_NE(lu_causes.find(gcc ? "compiler: the panel in one region of one team"
                               : "compiler: every LU step a region of its own, each costing Clang 19's runtime"),
            std::string::npos) << lu_causes;
  EXPECT_NE(lu_causes.find(gcc ? "compiler: the trailing updates' GEMM: no tensor-core path"
                               : "compiler: the trailing updates' GEMM: blocks of C of at most 64 x 64 in 48 KB"),
            std::string::npos) << lu_causes;
  if (!gcc) {  // Clang's tensor variant: the runtime's 48 KB, and what gpubench has not written
    const std::string tensor_causes =
        text((*gemm::find_operations(backend))(gpu, Precision::f64)->gap_causes(gemm::Variant::tensor));
    EXPECT_NE(tensor_causes.find("compiler: blocks of C of at most 64 x 64 in 48 KB of team memory"), std::string::npos)
        << tensor_causes;
    EXPECT_NE(tensor_causes.find("gpubench: 8-byte cp.async copies"), std::string::npos) << tensor_causes;
  }
  const std::string ft_causes = text((*ft::find_operations(backend))(gpu)->gap_causes());
  EXPECT_NE(ft_causes.find(gcc ? "gpubench: only NAS's algorithm"
                              : "gpubench: NAS's algorithm (its cffts line loops through device memory); fast"),
            std::string::npos) << ft_causes;
  const std::string ep_causes = text((*ep::find_operations(backend))(gpu)->gap_causes());
  EXPECT_EQ(ep_causes.find("compiler: GCC 12's nvptx offload") != std::string::npos, gcc) << ep_causes;
  const cg::CsrMatrix a = cg::poisson2d(8);
  const std::string cg_causes = text((*cg::find_operations(backend))(gpu, a, Precision::f64, {})->gap_causes());
  EXPECT_EQ(cg_causes.find("compiler: GCC 12's nvptx offload") != std::string::npos, gcc) << cg_causes;
  // The host's records carry none.
  EXPECT_TRUE((*gemm::find_operations(backend))(devices().back(), Precision::f64)->gap_causes(gemm::Variant::tiled).empty());
  EXPECT_TRUE((*ft::find_operations(backend))(devices().back())->gap_causes().empty());
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

TEST_P(OmpTargetCompilers, GemmVerifiesInBothPrecisions) {
  const std::string out = run("--suite gemm --problem 96x80x72 --precision f32,f64 --repetitions 2");
  for (const char* row : {"naive    f32", "naive    f64", "tiled    f32", "tiled    f64"})
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  run("--suite gemm --problem 50x70x30:TN --precision f64 --variant tiled --repetitions 2");
  if (GetParam() != "omp_target_clang") {
    EXPECT_EQ(out.find("tuned    f"), std::string::npos) << "GCC's build lists no tuned kernel\n" << out;
    return;
  }
  // Clang's tuned kernel (register blocks): both precisions, A transposed, C's edges in every
  // direction (50 x 70 is no whole block of any shape), and a sweep over its shapes.
  for (const char* row : {"tuned    f32", "tuned    f64"}) EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  run("--suite gemm --problem 50x70x30:TN --precision f32,f64 --variant tuned --repetitions 2");
  const std::string db = ::testing::TempDir() + "omp-clang-gemm-tuned-db";
  std::filesystem::remove_all(db);
  const test::Result swept = test::gpubench(
      "sweep --suite gemm --backend omp_target_clang --problem 33x65x17 --precision f64 --kernel tuned "
      "--param tm=2,8 --param tn=2,4 --param work_group_size=64 --param warps_m=1,2 --strategy exhaustive --tuning-db " + db);
  EXPECT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("8 configurations"), std::string::npos) << swept.output;
  EXPECT_NE(swept.output.find("0 failed"), std::string::npos) << swept.output;
  std::filesystem::remove_all(db);
}

// Clang's tensor variant (FP64 mma.sync through inline PTX, kernels/gemm/omp_target_tensor.h): the
// host has no tensor cores, so a run there lists the variant as refused, saying why; on a GPU it
// verifies with C's edges in every direction in both layouts, and a sweep visits its four
// configurations.
TEST(OmpTarget, ClangTensorIsRefusedOnTheHostAndVerifiesOnAGpu) {
  if (const std::string why = not_built_reason("omp_target_clang"); !why.empty()) GTEST_SKIP() << "omp_target_clang is not built: " << why;
  ASSERT_EQ(load_backend("omp_target_clang"), "");
  const std::vector<DeviceInfo> list = find_backend("omp_target_clang").devices();
  const std::string host = "omp_target_clang:" + std::to_string(list.back().index);
  const test::Result refused = test::gpubench("run --suite gemm --backend " + host + " --problem 64 --variant tensor --precision f64 --repetitions 1");
  EXPECT_NE(refused.output.find("tensor runs on an NVIDIA GPU's FP64 tensor cores, which the initial device (the host) lacks"),
            std::string::npos) << refused.output;
  if (list.size() < 2 || list.front().type != "gpu") GTEST_SKIP() << "no GPU for Clang's offload here: the tensor kernel needs one";
  const std::string gpu = "omp_target_clang:" + std::to_string(list.front().index);
  for (const char* problem : {"200x136x77", "203x130x99:TN", "1000x1000x1000"}) {
    const test::Result r = test::gpubench(std::string("run --suite gemm --backend ") + gpu + " --problem " + problem +
                                          " --variant tensor --precision f64 --repetitions 2");
    EXPECT_EQ(r.exit_code, 0) << problem << "\n" << r.output;
    EXPECT_NE(r.output.find("tensor   f64"), std::string::npos) << problem << "\n" << r.output;
  }
  const std::string db = ::testing::TempDir() + "omp-clang-gemm-tensor-db";
  std::filesystem::remove_all(db);
  const test::Result swept = test::gpubench("sweep --suite gemm --backend " + gpu +
                                            " --problem 97x65x33 --precision f64 --kernel tensor --strategy exhaustive --tuning-db " + db);
  EXPECT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("4 configurations"), std::string::npos) << swept.output;
  EXPECT_NE(swept.output.find("0 failed"), std::string::npos) << swept.output;
  std::filesystem::remove_all(db);
}

// FT's fast on Clang: CUDA's kernel (kernels/ft/device.h) in team memory, a GPU's only.
TEST(OmpTarget, ClangFtFastIsRefusedOnTheHostAndVerifiesOnAGpu) {
  if (const std::string why = not_built_reason("omp_target_clang"); !why.empty()) GTEST_SKIP() << "omp_target_clang is not built: " << why;
  ASSERT_EQ(load_backend("omp_target_clang"), "");
  const std::vector<DeviceInfo> list = find_backend("omp_target_clang").devices();
  const std::string host = "omp_target_clang:" + std::to_string(list.back().index);
  const test::Result refused = test::gpubench("run --suite ft --backend " + host + " --problem S --variant fast --repetitions 1");
  EXPECT_NE(refused.output.find("fast on " + host), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("a league's teams get no more threads between them than it has cores"), std::string::npos)
      << refused.output;
  if (list.size() < 2 || list.front().type != "gpu") GTEST_SKIP() << "no GPU for Clang's offload here: fast's teams need one";
  const std::string gpu = "omp_target_clang:" + std::to_string(list.front().index);
  for (const char* problem : {"S", "W", "A"}) {  // 64^3; 128 x 128 x 32; 256 x 256 x 128
    const test::Result r = test::gpubench(std::string("run --suite ft --backend ") + gpu + " --problem " + problem +
                                          " --variant fast --repetitions 2");
    EXPECT_EQ(r.exit_code, 0) << problem << "\n" << r.output;
    EXPECT_NE(r.output.find("fast     f64"), std::string::npos) << problem << "\n" << r.output;
  }
  // Every radix and a few group sizes: each configuration a verified run.
  const std::string db = ::testing::TempDir() + "omp-clang-ft-fast-db";
  std::filesystem::remove_all(db);
  const test::Result swept = test::gpubench("sweep --suite ft --backend " + gpu + " --problem W --kernel cffts2 "
                                            "--param radix=4,8,16 --param lines=1,4,16 --strategy exhaustive --tuning-db " + db);
  EXPECT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("9 configurations"), std::string::npos) << swept.output;
  EXPECT_NE(swept.output.find("0 failed"), std::string::npos) << swept.output;
  std::filesystem::remove_all(db);
}

TEST_P(OmpTargetCompilers, EpVerifiesBothReductions) {
  const std::string out = run("--suite ep --problem S --repetitions 2");
  for (const char* variant : {" reduce ", " partials "})
    EXPECT_NE(out.find(variant), std::string::npos) << variant << "\n" << out;
  EXPECT_NE(out.find("serial on " + GetParam() + ": NAS's serial code runs on the host's backend"), std::string::npos) << out;
}

TEST_P(OmpTargetCompilers, CgVerifiesItsThreeFormsInBothPrecisions) {
  const std::string out = run("--suite cg --problem poisson2d:48 --precision f32,f64 --repetitions 2");
  for (const char* row : {"classic  f32", "classic  f64", "form1    f32", "form1    f64", "form2    f32", "form2    f64"})
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  // The launch tunables are OpenMP's clauses (thread_limit, num_teams per compute unit): swept
  // like the other backends', each configuration a verified solve.
  const std::string db = ::testing::TempDir() + GetParam() + "-cg-sweep-db";
  std::filesystem::remove_all(db);
  const test::Result swept = test::gpubench(
      "sweep --suite cg --backend " + GetParam() + " --problem poisson2d:48 --precision f64 --kernel axpy "
      "--param work_group_size=32,64 --param work_groups_per_cu=1,3 --strategy exhaustive --tuning-db " + db);
  EXPECT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("work_groups_per_cu"), std::string::npos) << swept.output;
  // One SpMV here: row_runs and slabs (CUDA's and OpenCL's SpMV forms) are not swept on it.
  const test::Result fused = test::gpubench(
      "sweep --suite cg --backend " + GetParam() + " --problem poisson2d:48 --precision f64 --kernel spmv_dot2 "
      "--param work_group_size=32,64 --tuning-db " + db);
  EXPECT_EQ(fused.exit_code, 0) << fused.output;
  EXPECT_NE(fused.output.find("work_group_size=64"), std::string::npos) << fused.output;
  EXPECT_EQ(fused.output.find("row_runs"), std::string::npos) << fused.output;
  EXPECT_EQ(fused.output.find("slabs"), std::string::npos) << fused.output;
  std::filesystem::remove_all(db);
}

TEST_P(OmpTargetCompilers, FtVerifiesNasAlgorithm) {
  const std::string out = run("--suite ft --problem S --precision f64 --repetitions 1");
  EXPECT_NE(out.find(" nas "), std::string::npos) << out;
  EXPECT_NE(out.find("class S (64x64x64, 6 iterations): verified"), std::string::npos) << out;
  // A wrong evolve factor is caught on this backend too.
  const test::Result wrong = test::gpubench("run --suite ft --backend " + GetParam() + " --problem S --precision f64 --repetitions 1",
                                            "GPUBENCH_FT_WRONG_TWIDDLE=1");
  EXPECT_NE(wrong.exit_code, 0) << wrong.output;
}

TEST_P(OmpTargetCompilers, LuBlockedVerifiesInBothPrecisions) {
  // 150 is no multiple of the block: the last panel is narrower; nb 32 and base 8 recurse in the panel.
  const std::string out = run("--suite lu --problem 150 --precision f32,f64 --repetitions 2");
  for (const char* row : {"blocked  f32", "blocked  f64"})
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  EXPECT_NE(out.find("vendor on " + GetParam() + ": OpenMP target offload has no LU library of its own"), std::string::npos) << out;
  // Clang's panel on the host takes a team per 256 rows (column_step): 600 rows are three teams,
  // whose last one to finish combines their pivots. On a GPU every leaf of these sizes is one
  // region (kernels/lu/device.h's leaf), its teams meeting once per column; the records say which.
  if (GetParam() != "omp_target_clang") return;
  const std::string path = (std::filesystem::temp_directory_path() / ("gpubench-omp-lu-" + std::to_string(::getpid()) + ".json")).string();
  run("--suite lu --problem 150,600 --precision f32,f64 --variant blocked --repetitions 1 --format json --out " + path);
  std::ifstream in(path);
  const nlohmann::json records = nlohmann::json::parse(in, nullptr, false);
  std::filesystem::remove(path);
  ASSERT_TRUE(records.contains("benchmarks")) << path;
  ASSERT_EQ(records["benchmarks"].size(), 4u);
  const bool gpu = devices().front().type == "gpu";
  for (const auto& b : records["benchmarks"]) {
    EXPECT_TRUE(b.value("verified", false)) << b.dump();
    const std::string panel = b.value("panel", "");
    const std::regex all_in_one("^([0-9]+) of \\1 leaves in one region of up to [0-9]+ teams meeting at a barrier in "
                                "global memory \\(resident at once as probed\\)$");
    if (gpu)
      EXPECT_TRUE(std::regex_match(panel, all_in_one)) << panel;
    else
      EXPECT_TRUE(std::regex_match(panel, std::regex("^([0-9]+) of \\1 leaves by a region per column \\(on the host a "
                                                     "league's teams get no more threads between them than it has "
                                                     "cores, not 256 each\\)$")))
          << panel;
  }
}

// Neither offload backend has a probe: its device takes the roof that a backend with one stored for
// the same physical device (here the host's CPU, through openmp's probe), and says whose it is. One
// probe serves both compilers' runs.
TEST(OmpTarget, EachCompilerTakesTheRoofOfTheDeviceItRunsOn) {
  const std::string db = ::testing::TempDir() + "omp-target-roof-db";
  std::filesystem::remove_all(db);
  const test::Result probe = test::gpubench("roofline --backend openmp --tuning-db " + db);
  ASSERT_EQ(probe.exit_code, 0) << probe.output;
  for (const std::string backend : {"omp_target", "omp_target_clang"}) {
    if (!not_built_reason(backend).empty()) continue;  // said by the parameterized tests' skips
    const std::string host = std::to_string(find_backend(backend).devices().back().index);
    const test::Result r = test::gpubench("run --suite gemm --backend " + backend + ":" + host +
                                          " --problem 64 --variant tiled --precision f64 --repetitions 1 --tuning-db " + db);
    ASSERT_EQ(r.exit_code, 0) << backend << "\n" << r.output;
    EXPECT_NE(r.output.find("takes the ceilings of the device it runs on, as openmp:0"), std::string::npos) << backend << "\n" << r.output;
    EXPECT_EQ(r.output.find("none: this backend has no ceiling probe"), std::string::npos) << backend << "\n" << r.output;
  }
  std::filesystem::remove_all(db);
}

}  // namespace
}  // namespace gpubench
