// A user's kernel spec on the openmp backend (the host's cores): the spec's `openmp` source,
// compiled at run time by the compiler gpubench was built with (-O3 -march=native -fopenmp), its
// buffers in host memory (kernels/spec/openmp_objects.cpp does the rest).
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "common/out_of_memory.hpp"
#include "kernels/spec/openmp.hpp"

#ifndef GPUBENCH_HOST_CXX
#define GPUBENCH_HOST_CXX "c++"
#endif

namespace gpubench::spec {

namespace {

class HostMemory final : public OpenmpMemory {
 public:
  static constexpr std::size_t alignment = 64;
  void* allocate(std::size_t bytes) override {
    void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
    if (!p) throw OutOfMemoryError("the host", std::to_string(bytes) + " bytes (a spec's buffer)");
    return p;
  }
  void release(void* p) override { std::free(p); }
  void write(void* to, std::size_t offset, const void* from, std::size_t bytes) override {
    std::memcpy(static_cast<unsigned char*>(to) + offset, from, bytes);
  }
  void read(void* to, const void* from, std::size_t offset, std::size_t bytes) override {
    std::memcpy(to, static_cast<const unsigned char*>(from) + offset, bytes);
  }
};

}  // namespace

}  // namespace gpubench::spec

// The compiler gpubench was built with: the openmp device's listing names its version, and so do
// the records (no other may stand in for it unsaid).
GPUBENCH_REGISTER_SPEC_OPERATIONS("openmp", [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::spec::Operations> {
  gpubench::spec::OpenmpToolchain host{GPUBENCH_HOST_CXX, {"-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17"},
                                       "openmp-kernels", omp_get_initial_device()};
  return gpubench::spec::make_openmp_operations(d, std::move(host), std::make_unique<gpubench::spec::HostMemory>());
});
