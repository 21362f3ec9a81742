// The CUDA backend. Error naming and the no-device path run everywhere; the rest needs a CUDA
// device and skips without one. Its CG operations: tests/kernels/cg/test_cuda.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "tests/backends/backend_test_helpers.hpp"
#include "tests/backends/cuda_ids.hpp"

namespace gpubench {
namespace {

constexpr const char* no_device = "no CUDA device on this machine";

using test::contains;
using test::device_error_of;

// ---------------------------------------------------------------------------------------------
// Everywhere

TEST(CudaErrors, CheckNamesTheCallTheCodeAndItsMeaning) {
  EXPECT_NO_THROW(cuda::check(cudaSuccess, "cudaDeviceSynchronize"));
  EXPECT_EQ(device_error_of([] { cuda::check(cudaErrorMemoryAllocation, "cudaMalloc"); }),
            std::string("cudaMalloc failed: cudaErrorMemoryAllocation (2): ") +
                cudaGetErrorString(cudaErrorMemoryAllocation));
  const std::string detailed =
      device_error_of([] { cuda::check(cudaErrorInvalidValue, "cudaMemcpyAsync", "(upload to slot 3)"); });
  EXPECT_TRUE(contains(detailed, "cudaMemcpyAsync failed (upload to slot 3): cudaErrorInvalidValue (1): "));
  EXPECT_TRUE(contains(cuda::error_text(cudaErrorMemoryAllocation), "out of memory"));
}

TEST(CudaErrors, LaunchCheckNamesTheKernelAndItsShape) {
  // cudaSetDevice(-1) fails on any machine, with or without a driver, and leaves an error pending
  // for the next cudaGetLastError: what a launch check reads.
  ASSERT_NE(cudaSetDevice(-1), cudaSuccess);
  EXPECT_TRUE(contains(device_error_of([] { cuda::check_launch("spmv_vector", 3, 256); }),
                       "kernel launch failed for kernel 'spmv_vector' (grid 3, block 256): cuda"));
}

TEST(CudaErrors, LibraryStatusesAreNamed) {
  EXPECT_NO_THROW(cuda::check(CUBLAS_STATUS_SUCCESS, "cublasDdot"));
  EXPECT_NO_THROW(cuda::check(CUSPARSE_STATUS_SUCCESS, "cusparseSpMV"));
  EXPECT_TRUE(contains(device_error_of([] { cuda::check(CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate"); }),
                       "cublasCreate failed: CUBLAS_STATUS_ALLOC_FAILED (" +
                           std::to_string(static_cast<int>(CUBLAS_STATUS_ALLOC_FAILED)) + ")"));
  EXPECT_TRUE(contains(device_error_of([] { cuda::check(CUSPARSE_STATUS_INVALID_VALUE, "cusparseSpMV", "for A"); }),
                       "cusparseSpMV failed for A: CUSPARSE_STATUS_INVALID_VALUE (" +
                           std::to_string(static_cast<int>(CUSPARSE_STATUS_INVALID_VALUE)) + ")"));
}

TEST(CudaDevices, NoDeviceIsAnEmptyListNotAnError) {
  std::vector<DeviceInfo> devices;
  ASSERT_NO_THROW(devices = cuda::list_devices());
  if (!devices.empty()) GTEST_SKIP() << "this machine has a CUDA device: the no-device path is not reachable";
  EXPECT_TRUE(contains(device_error_of([] { find_device("cuda", -1); }), "backend 'cuda' found no devices"));
  EXPECT_TRUE(contains(device_error_of([] { cuda::open_device(0); }), "backend 'cuda' found no devices"));
}

TEST(CudaDevices, IsARegisteredBackend) {
  const Backend backend = find_backend("cuda");  // a copy: GCC 13 warns of a dangling reference
  EXPECT_EQ(backend.order, 12);
}

// ---------------------------------------------------------------------------------------------
// With a device

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::list_devices().empty()) GTEST_SKIP() << no_device;
  }
};

TEST_F(CudaTest, ListingFillsEveryField) {
  const auto devices = cuda::list_devices();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    SCOPED_TRACE(d.label());
    EXPECT_EQ(d.backend, "cuda");
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_EQ(d.api.rfind("CUDA runtime ", 0), 0u) << d.api;
    EXPECT_EQ(d.platform.rfind("CUDA driver ", 0), 0u) << d.platform;
    EXPECT_EQ(d.vendor, "NVIDIA");
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.driver.empty());
    EXPECT_EQ(d.type, "gpu");
    EXPECT_GT(d.compute_units, 0);
    EXPECT_GE(d.max_work_group_size, 32u);
    EXPECT_GT(d.global_mem_bytes, 0u);
    EXPECT_EQ(d.max_alloc_bytes, d.global_mem_bytes);
    EXPECT_GT(d.local_mem_bytes, 0u);
    EXPECT_TRUE(d.fp64);
  }
  EXPECT_EQ(find_backend("cuda").devices().size(), devices.size());
}

TEST_F(CudaTest, UnknownDeviceIndexListsTheValidOnes) {
  const auto devices = cuda::list_devices();
  const int bad = static_cast<int>(devices.size()) + 3;
  for (const std::string& message :
       {device_error_of([&] { find_device("cuda", bad); }), device_error_of([&] { cuda::open_device(bad); })}) {
    EXPECT_TRUE(contains(message, "no device " + std::to_string(bad)));
    EXPECT_TRUE(contains(message, "valid: 0.." + std::to_string(devices.size() - 1)));
    EXPECT_TRUE(contains(message, devices.front().label()));
  }
}

// Without a driver the runtime's initialisation error stays pending for good; with one, a failed
// call's error is pending until read, and check() must read it so that the next launch check does
// not report it as its own.
TEST_F(CudaTest, FailedCallsLeaveNoPendingErrorBehind) {
  static_cast<void>(cudaGetLastError());
  const cudaError_t status = cudaSetDevice(-1);
  ASSERT_NE(status, cudaSuccess);
  EXPECT_TRUE(contains(device_error_of([&] { cuda::check(status, "cudaSetDevice"); }), "cudaSetDevice failed: cuda"));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "check() left the error pending";

  static_cast<void>(cudaSetDevice(-1));
  EXPECT_THROW(cuda::check_launch("spmv_vector", 3, 256), DeviceError);
  EXPECT_NO_THROW(cuda::check_launch("spmv_vector", 3, 256));  // reported once, then cleared
}

// The launch gate (GEMM's timed region): an event queued behind a closed gate waits for open(),
// however long the host takes; once opened the stream runs on. A gate never opened gives up
// after its patience and says so, and the stream runs on.
TEST_F(CudaTest, ALaunchGateHoldsTheStreamUntilOpened) {
  cuda::open_device(find_device("cuda", -1).index);
  const cuda::Stream stream;
  const cuda::Event before, after;
  cuda::LaunchGate gate;
  before.record(stream);
  gate.close(stream);
  after.record(stream);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  before.synchronize();
  EXPECT_EQ(cudaEventQuery(after.get()), cudaErrorNotReady) << "the event behind the gate ran before it opened";
  gate.open();
  after.synchronize();
  EXPECT_GE(cuda::Event::seconds_between(before, after), 0.04) << "the stream did not wait at the gate";
  EXPECT_FALSE(gate.held_too_long());

  cuda::LaunchGate impatient(0.05);
  impatient.close(stream);
  after.record(stream);
  after.synchronize();  // a synchronisation while held: the gate gives up, the stream runs on
  EXPECT_TRUE(impatient.held_too_long());
}

TEST_F(CudaTest, BuffersStreamsAndEvents) {
  cuda::open_device(find_device("cuda", -1).index);
  constexpr std::size_t n = 1000;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) + 0.5f;
  cuda::DeviceBuffer<float> a(n);
  cuda::DeviceBuffer<float> b(n);
  EXPECT_EQ(a.size(), n);
  EXPECT_EQ(a.bytes(), n * sizeof(float));
  const cuda::Stream stream;
  const cuda::Event start, end;
  cuda::PinnedBuffer<float> back(n);

  start.record(stream);
  cuda::check(cudaMemcpyAsync(a.data(), host.data(), a.bytes(), cudaMemcpyHostToDevice, stream.get()), "H2D");
  cuda::check(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, stream.get()), "D2D");
  cuda::check(cudaMemcpyAsync(back.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost, stream.get()), "D2H");
  end.record(stream);
  stream.synchronize();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], host[i]) << i;
  EXPECT_GE(cuda::Event::seconds_between(start, end), 0.0);

  cuda::DeviceBuffer<float> moved = std::move(a);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
  EXPECT_EQ(moved.size(), n);
  EXPECT_EQ(cuda::DeviceBuffer<double>(0).data(), nullptr);
}

TEST_F(CudaTest, TwoAndThreeDimensionalLaunchesReachEveryGlobalId) {
  for (const auto& [grid, block] : {std::pair{dim3(2, 3), dim3(4, 2)}, std::pair{dim3(2, 2, 2), dim3(2, 3, 1)}}) {
    const auto got = test::cuda_ids(grid, block);
    const unsigned width = grid.x * block.x, height = grid.y * block.y, depth = grid.z * block.z;
    for (unsigned z = 0; z < depth; ++z)
      for (unsigned y = 0; y < height; ++y)
        for (unsigned x = 0; x < width; ++x)
          ASSERT_EQ(got[(z * height + y) * width + x], x + 1000 * y + 1000000 * z) << x << "," << y << "," << z;
  }
}

TEST_F(CudaTest, ImpossibleGeometriesNameTheKernelTheDimensionAndTheLimit) {
  const LaunchLimits limits = cuda::launch_limits();
  const auto too_deep = static_cast<unsigned>(limits.local.z + 1);
  EXPECT_TRUE(contains(device_error_of([&] { test::cuda_ids(dim3(1, 1, 1), dim3(1, 1, too_deep)); }),
                       "local size " + std::to_string(too_deep) + " of dimension z exceeds the device's limit of " +
                           std::to_string(limits.local.z)));
  EXPECT_TRUE(contains(device_error_of([&] { test::cuda_ids(dim3(1, 1), dim3(64, 32)); }),
                       "a work-group of 2048 work-items exceeds the device's limit of " +
                           std::to_string(limits.local_total)));
  EXPECT_TRUE(contains(device_error_of([&] { test::cuda_ids(dim3(1, 0), dim3(1, 1)); }),
                       "kernel 'ids' (global 1x0, local 1x1): global size of dimension y is 0"));
}

TEST_F(CudaTest, FailedAllocationNamesTheCallAndTheSize) {
  cuda::open_device(find_device("cuda", -1).index);
  const std::size_t petabyte = std::size_t{1} << 50;
  const std::string message = device_error_of([&] { cuda::DeviceBuffer<char> too_big(petabyte); });
  EXPECT_TRUE(contains(
      message, "cudaMalloc failed for " + std::to_string(petabyte) + " bytes: cudaErrorMemoryAllocation (2): "));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_NO_THROW(cuda::DeviceBuffer<char>(1024));  // the device is still usable
}

}  // namespace
}  // namespace gpubench
