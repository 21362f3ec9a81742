// The ViennaCL backends' devices: its OpenCL domain ("viennacl") and its host domain
// ("viennacl_host"). ViennaCL's CG on them: tests/kernels/cg/test_viennacl.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "backends/registry.hpp"

namespace gpubench {
namespace {

TEST(ViennaclBackends, OpenclDomainListsTheOpenclDevicesUnderTheSameIndices) {
  const auto opencl = find_backend("opencl").devices();
  const auto viennacl = find_backend("viennacl").devices();
  ASSERT_EQ(viennacl.size(), opencl.size());
  for (std::size_t i = 0; i < viennacl.size(); ++i) {
    const DeviceInfo& v = viennacl[i];
    const DeviceInfo& o = opencl[i];
    SCOPED_TRACE(v.label());
    EXPECT_EQ(v.backend, "viennacl");
    EXPECT_EQ(v.index, o.index);
    EXPECT_EQ(v.name, o.name);
    EXPECT_EQ(v.platform, o.platform);
    EXPECT_EQ(v.vendor, o.vendor);
    EXPECT_EQ(v.type, o.type);
    EXPECT_EQ(v.fp64, o.fp64);
    EXPECT_EQ(v.api, "ViennaCL 1.7 / " + o.api);
    // ViennaCL 1.7 sizes OpenCL buffers with 32 bits.
    EXPECT_LT(v.max_alloc_bytes, 1ull << 32);
    EXPECT_EQ(v.max_alloc_bytes, std::min<std::uint64_t>(o.max_alloc_bytes, (1ull << 32) - 1024));
  }
}

TEST(ViennaclBackends, HostDomainIsTheOpenmpHost) {
  const auto host = find_backend("viennacl_host").devices();
  const auto openmp = find_backend("openmp").devices();
  ASSERT_EQ(host.size(), 1u);
  ASSERT_EQ(openmp.size(), 1u);
  EXPECT_EQ(host[0].backend, "viennacl_host");
  EXPECT_EQ(host[0].index, 0);
  EXPECT_EQ(host[0].name, openmp[0].name);
  EXPECT_EQ(host[0].compute_units, openmp[0].compute_units);
  EXPECT_EQ(host[0].global_mem_bytes, openmp[0].global_mem_bytes);
  EXPECT_EQ(host[0].api, "ViennaCL 1.7 / " + openmp[0].api);
}

}  // namespace
}  // namespace gpubench
