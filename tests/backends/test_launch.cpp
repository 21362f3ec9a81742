// The launch geometry every API shares (backends/launch.hpp): its checks, without a device.
#include <gtest/gtest.h>

#include "backends/launch.hpp"
#include "tests/backends/backend_test_helpers.hpp"

namespace gpubench {
namespace {

using test::contains;
using test::device_error_of;

TEST(LaunchGeometry, GroupsAreGlobalOverLocal) {
  const Geometry g = Geometry::of_groups(3, {4, 3, 2}, {8, 2, 1});
  EXPECT_EQ(g.global.x, 32u);
  EXPECT_EQ(g.global.y, 6u);
  EXPECT_EQ(g.global.z, 2u);
  EXPECT_EQ(g.groups().y, 3u);
  EXPECT_EQ(g.text(), "global 32x6x2, local 8x2x1");
  EXPECT_NO_THROW(check_geometry("k", g));
}

TEST(LaunchGeometry, ImpossibleGeometriesNameTheKernelTheDimensionAndTheLimit) {
  EXPECT_TRUE(contains(device_error_of([] { check_geometry("k", Geometry{4, {1}, {1}}); }),
                       "kernel 'k' (global 1x1x1, local 1x1x1): 4 dimensions (a launch has 1, 2 or 3)"));
  EXPECT_TRUE(contains(device_error_of([] { check_geometry("k", Geometry{1, {0}, {1}}); }),
                       "global size of dimension x is 0"));
  EXPECT_TRUE(contains(device_error_of([] { check_geometry("k", Geometry{2, {4, 4}, {4, 0}}); }),
                       "local size of dimension y is 0"));
  EXPECT_TRUE(contains(device_error_of([] { check_geometry("k", Geometry{1, {4, 2}, {4, 1}}); }),
                       "dimension y is not used by a 1-D launch"));
  EXPECT_TRUE(contains(device_error_of([] { check_geometry("k", Geometry{2, {6, 4}, {4, 4}}); }),
                       "local size 4 of dimension x does not divide its global size 6"));
  LaunchLimits limits;
  limits.local = {1024, 1024, 64};
  limits.local_total = 1024;
  limits.groups = {2147483647, 65535, 65535};
  EXPECT_TRUE(contains(device_error_of([&] { check_geometry("k", Geometry{3, {1, 1, 128}, {1, 1, 128}}, limits); }),
                       "local size 128 of dimension z exceeds the device's limit of 64 for that dimension"));
  EXPECT_TRUE(contains(device_error_of([&] { check_geometry("k", Geometry{2, {64, 64}, {64, 32}}, limits); }),
                       "a work-group of 2048 work-items exceeds the device's limit of 1024"));
  EXPECT_TRUE(contains(
      device_error_of([&] { check_geometry("k", Geometry::of_groups(2, {1, 65536}, {32, 1}), limits); }),
      "65536 groups along dimension y exceed the device's limit of 65535 for that dimension"));
}

}  // namespace
}  // namespace gpubench
