// The OpenCL backend on whatever OpenCL devices this machine has (PoCL's CPU device in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "backends/opencl/opencl.hpp"
#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "tests/backends/backend_test_helpers.hpp"

namespace gpubench::opencl {
namespace {

using test::contains;
using test::device_error_of;

class OpenclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_devices().empty()) GTEST_SKIP() << "no OpenCL device on this machine (scripts/setup installs PoCL)";
  }
  // The registry's default OpenCL device: the first GPU, else the first device.
  static int default_index() { return find_device("opencl", -1).index; }
};

TEST(OpenclErrors, NamesEveryKindOfCode) {
  EXPECT_EQ(error_name(CL_SUCCESS), "CL_SUCCESS");
  EXPECT_EQ(error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
  EXPECT_EQ(error_name(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
  EXPECT_EQ(error_name(-72), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");  // newer than the 1.2 headers
  EXPECT_EQ(error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_EQ(error_name(-12345), "unknown OpenCL error");
}

TEST(OpenclErrors, CheckNamesTheCallAndTheCode) {
  EXPECT_NO_THROW(check(CL_SUCCESS, "clFinish"));
  EXPECT_EQ(device_error_of([] { check(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer"); }),
            "clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)");
  EXPECT_EQ(device_error_of([] { check(-12345, "clFinish", "on queue 2"); }),
            "clFinish failed on queue 2: unknown OpenCL error (-12345)");
}

TEST_F(OpenclTest, ListingFillsEveryField) {
  const auto devices = list_devices();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    SCOPED_TRACE(d.label());
    EXPECT_EQ(d.backend, "opencl");
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_EQ(d.api.rfind("OpenCL ", 0), 0u) << d.api;
    EXPECT_FALSE(d.platform.empty());
    EXPECT_FALSE(d.vendor.empty());
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.driver.empty());
    EXPECT_TRUE(d.type == "gpu" || d.type == "cpu" || d.type == "accelerator" || d.type == "other") << d.type;
    EXPECT_GT(d.compute_units, 0);
    EXPECT_GT(d.max_work_group_size, 0u);
    EXPECT_GT(d.global_mem_bytes, 0u);
    EXPECT_GT(d.max_alloc_bytes, 0u);
    EXPECT_LE(d.max_alloc_bytes, d.global_mem_bytes);
    EXPECT_GT(d.local_mem_bytes, 0u);
  }
}

TEST_F(OpenclTest, IsARegisteredBackend) {
  const Backend backend = find_backend("opencl");  // a copy: GCC 13 warns of a dangling reference
  EXPECT_EQ(backend.order, 10);
  const auto devices = backend.devices();
  ASSERT_EQ(devices.size(), list_devices().size());
  EXPECT_EQ(devices.front().name, list_devices().front().name);
}

TEST_F(OpenclTest, UnknownDeviceIndexListsTheValidOnes) {
  const auto devices = list_devices();
  const int bad = static_cast<int>(devices.size()) + 3;
  for (const std::string& message :
       {device_error_of([&] { find_device("opencl", bad); }), device_error_of([&] { Context context(bad); })}) {
    EXPECT_TRUE(contains(message, "no device " + std::to_string(bad)));
    EXPECT_TRUE(contains(message, "valid: 0.." + std::to_string(devices.size() - 1)));
    EXPECT_TRUE(contains(message, devices.front().label()));
  }
}

TEST_F(OpenclTest, ContextDescribesItsDevice) {
  const Context context(default_index());
  const DeviceInfo listed = list_devices()[static_cast<std::size_t>(default_index())];
  EXPECT_EQ(context.info().name, listed.name);
  EXPECT_EQ(context.info().index, default_index());
  EXPECT_NE(context.device(), nullptr);
  EXPECT_NE(context.context(), nullptr);
  EXPECT_NE(context.queue(), nullptr);
}

// Which path the suites' kernels take (backends/opencl/ptx.h): inline PTX on NVIDIA's OpenCL at
// compute capability 7.0 or later, the portable one elsewhere (PoCL in CI); every device's
// kernels build with what it says (CG's, EP's and LU's in both precisions where they can).
TEST_F(OpenclTest, InlinePtxOnlyOnNvidiasOpenclAtComputeCapability7) {
  for (const DeviceInfo& d : list_devices()) {
    SCOPED_TRACE(d.label());
    Context context(d.index);
    const auto cc = nvidia_compute_capability(context.device());
    EXPECT_EQ(inline_ptx_option(context.device()), cc && cc->first >= 7 ? " -DOPENCL_PTX" : "");
    if (d.vendor.find("NVIDIA") == std::string::npos) {
      EXPECT_EQ(inline_ptx_option(context.device()), "");
    }
    const std::string ptx = inline_ptx_option(context.device());
    EXPECT_NO_THROW(context.program("cg/opencl.cl", "-DREAL=float" + ptx));
    if (d.fp64) {
      EXPECT_NO_THROW(context.program("cg/opencl.cl", "-DREAL=double" + ptx));
      EXPECT_NO_THROW(context.program("ep/opencl.cl", "-DPARTIALS=0" + ptx));
      EXPECT_NO_THROW(context.program("lu/opencl.cl", "-DREAL=double -DLU_FP64" + (ptx.empty() ? ptx : " -DLU_PTX" + ptx)));
    }
  }
}

TEST_F(OpenclTest, ZeroSizeBufferNamesTheCallAndTheCode) {
  const Context context(default_index());
  const std::string message = device_error_of([&] { context.create_buffer(0); });
  EXPECT_TRUE(contains(message, "clCreateBuffer failed"));
  EXPECT_TRUE(contains(message, "CL_INVALID_BUFFER_SIZE (-61)"));
}

TEST_F(OpenclTest, UnknownKernelNameNamesTheCallAndTheKernel) {
  Context context(default_index());
  const Program& program = context.program("cg/opencl.cl", "-DREAL=float");
  const std::string message = device_error_of([&] { program.kernel("no_such_kernel"); });
  EXPECT_TRUE(contains(message, "clCreateKernel failed"));
  EXPECT_TRUE(contains(message, "'no_such_kernel'"));
  EXPECT_TRUE(contains(message, "CL_INVALID_KERNEL_NAME (-46)"));
}

TEST_F(OpenclTest, BuildFailureCarriesTheLogAndTheOptions) {
  const Context context(default_index());
  const std::string broken = "__kernel void broken(__global float* x) { x[0] = this_is_not_declared; }\n";
  const std::string message =
      device_error_of([&] { context.build_program(broken, "-DGPUBENCH_TEST_OPTION=1", "broken.cl"); });
  EXPECT_TRUE(contains(message, "clBuildProgram failed for broken.cl"));
  EXPECT_TRUE(contains(message, "-DGPUBENCH_TEST_OPTION=1"));
  EXPECT_TRUE(contains(message, "CL_BUILD_PROGRAM_FAILURE (-11)"));
  EXPECT_TRUE(contains(message, "build log:"));
  EXPECT_TRUE(contains(message, "this_is_not_declared"));  // the compiler's own words
}

TEST_F(OpenclTest, UnknownKernelSourceIsADeviceError) {
  Context context(default_index());
  EXPECT_TRUE(contains(device_error_of([&] { context.program("no/such.cl", ""); }), "no/such.cl"));
}

TEST_F(OpenclTest, ProgramCacheBuildsEachKeyOnce) {
  Context context(default_index());
  const Program& first = context.program("cg/opencl.cl", "-DREAL=float");
  const Program& again = context.program("cg/opencl.cl", "-DREAL=float");
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(first.get(), again.get());
  const Program& other = context.program("cg/opencl.cl", "-DREAL=float -DUNUSED=1");
  EXPECT_NE(first.get(), other.get());
}

TEST_F(OpenclTest, LaunchTransfersAndEvents) {
  const Context context(default_index());
  // A sum into __local memory exercises LocalMemory and scalar arguments too.
  const Program program = context.build_program(R"(
      __kernel void add(const int n, const float offset, __global const float* in, __global float* out,
                        __local float* scratch) {
        const int i = get_global_id(0);
        scratch[get_local_id(0)] = i < n ? in[i] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n) out[i] = scratch[get_local_id(0)] + offset;
      })",
                                                "", "add.cl");
  const Kernel add = program.kernel("add");
  EXPECT_EQ(add.name(), "add");
  EXPECT_GE(add.max_work_group_size(context.device()), 1u);

  constexpr int n = 1000;
  constexpr std::size_t local = 64;
  std::vector<float> host(n);
  std::iota(host.begin(), host.end(), 1.0f);
  const Buffer in = context.create_buffer(n * sizeof(float));
  const Buffer out = context.create_buffer(n * sizeof(float));
  EXPECT_EQ(in.bytes(), n * sizeof(float));
  context.write(in, std::span<const float>(host));

  add.set_args(n, 0.5f, in, out, LocalMemory{local * sizeof(float)});
  const Event event = context.launch(add, (n + local - 1) / local * local, local);
  std::vector<float> result(n);
  context.read(out, std::span<float>(result));
  for (int i = 0; i < n; ++i) ASSERT_EQ(result[static_cast<std::size_t>(i)], static_cast<float>(i + 1) + 0.5f) << i;
  EXPECT_GE(event.end_ns(), event.start_ns());
  EXPECT_GE(event.seconds(), 0.0);

  const float seven = 7.0f;
  context.fill(out, &seven, sizeof seven, out.bytes());
  context.copy(out, in, in.bytes());
  context.read(in, std::span<float>(result));
  EXPECT_TRUE(std::all_of(result.begin(), result.end(), [](float x) { return x == 7.0f; }));

  // A local size that does not divide the global size is refused and named.
  const std::string message = device_error_of([&] { context.launch(add, 100, 64); });
  EXPECT_TRUE(contains(message, "kernel 'add' (global 100, local 64): local size 64 of dimension x does not divide "
                                "its global size 100"));
}

// Each work-item writes its linear global id at its place, row-major, x fastest.
constexpr const char* ids_source = R"(
__kernel void ids(__global uint* out) {
  const size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
  out[i] = (uint)(get_global_id(0) + 1000 * get_global_id(1) + 1000000 * get_global_id(2));
})";

TEST_F(OpenclTest, TwoAndThreeDimensionalLaunchesReachEveryGlobalId) {
  const Context context(default_index());
  const Kernel ids = context.build_program(ids_source, "", "ids").kernel("ids");
  for (const Geometry& g : {Geometry{2, {8, 6}, {4, 2}}, Geometry{3, {4, 6, 2}, {2, 3, 1}}}) {
    SCOPED_TRACE(g.text());
    const Buffer out = context.create_buffer(g.global.product() * sizeof(cl_uint));
    ids.set_args(out);
    context.launch(ids, g).wait();
    std::vector<cl_uint> got(g.global.product());
    context.read(out, std::span<cl_uint>(got));
    for (std::size_t z = 0; z < g.global.z; ++z)
      for (std::size_t y = 0; y < g.global.y; ++y)
        for (std::size_t x = 0; x < g.global.x; ++x)
          ASSERT_EQ(got[(z * g.global.y + y) * g.global.x + x], x + 1000 * y + 1000000 * z) << x << "," << y << "," << z;
  }
}

TEST_F(OpenclTest, ImpossibleGeometriesNameWhatIsWrong) {
  const Context context(default_index());
  const Kernel ids = context.build_program(ids_source, "", "ids").kernel("ids");
  const Buffer out = context.create_buffer(64 * sizeof(cl_uint));
  ids.set_args(out);
  EXPECT_TRUE(contains(device_error_of([&] { context.launch(ids, Geometry{2, {8, 0}, {4, 1}}); }),
                       "kernel 'ids' (global 8x0, local 4x1): global size of dimension y is 0"));
  EXPECT_TRUE(contains(device_error_of([&] { context.launch(ids, Geometry{3, {4, 4, 4}, {2, 3, 1}}); }),
                       "local size 3 of dimension y does not divide its global size 4"));
  const std::size_t too_many = context.launch_limits().local.z + 1;
  EXPECT_TRUE(contains(device_error_of([&] { context.launch(ids, Geometry{3, {1, 1, too_many}, {1, 1, too_many}}); }),
                       "local size " + std::to_string(too_many) + " of dimension z exceeds the device's limit of " +
                           std::to_string(too_many - 1)));
}

TEST_F(OpenclTest, HandlesRetainOnCopyAndReleaseOnce) {
  const Context context(default_index());
  Buffer a = context.create_buffer(64);
  {
    const Buffer copy = a;  // retains
    EXPECT_EQ(copy.get(), a.get());
  }  // releases the copy's reference only
  cl_uint references = 0;
  check(clGetMemObjectInfo(a.get(), CL_MEM_REFERENCE_COUNT, sizeof references, &references, nullptr),
        "clGetMemObjectInfo");
  EXPECT_EQ(references, 1u);
  const Buffer moved = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
  EXPECT_TRUE(moved);
}

}  // namespace
}  // namespace gpubench::opencl
