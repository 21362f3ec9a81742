// A user's kernel spec on the OpenMP offload backends, GCC's omp_target and Clang's omp_target_clang
// (this file is built into each one's module): the spec's `omp_target` source, C++ whose steps put
// their loops in target regions on device GB_DEVICE over the device pointers they are given
// (is_device_ptr), compiled at run time by the compiler that built the module, with its offload
// flags (its backend.cmake names both, and the compiler's version line: GPUBENCH_SPEC_OFFLOAD_CXX,
// GPUBENCH_SPEC_OFFLOAD_FLAGS, '|' between flags, GPUBENCH_SPEC_OFFLOAD_VERSION). The objects are
// keyed without the device, so that a GPU machine without the compiler runs those compiled on
// another machine into a cache it is given (GPUBENCH_KERNEL_CACHE). The buffers are the device's
// (omp_target_alloc through this module's OpenMP runtime, the one the compiled objects load too).
// kernels/spec/openmp_objects.cpp does the rest.
#include <omp.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/omp_target/omp_target.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"
#include "kernels/spec/openmp.hpp"

namespace gpubench::spec {

namespace {

class DeviceMemory final : public OpenmpMemory {
 public:
  explicit DeviceMemory(int device) : device_(device) {}
  void* allocate(std::size_t bytes) override {
    void* p = omp_target_alloc(std::max<std::size_t>(bytes, 1), device_);
    if (!p) throw OutOfMemoryError("OpenMP device " + std::to_string(device_), std::to_string(bytes) + " bytes (a spec's buffer)");
    return p;
  }
  void release(void* p) override { omp_target_free(p, device_); }
  void write(void* to, std::size_t offset, const void* from, std::size_t bytes) override {
    if (omp_target_memcpy(to, from, bytes, offset, 0, device_, omp_get_initial_device()) != 0)
      throw DeviceError("omp_target_memcpy of a spec's buffer to OpenMP device " + std::to_string(device_) + " failed");
  }
  void read(void* to, const void* from, std::size_t offset, std::size_t bytes) override {
    if (omp_target_memcpy(to, from, bytes, 0, offset, omp_get_initial_device(), device_) != 0)
      throw DeviceError("omp_target_memcpy of a spec's buffer from OpenMP device " + std::to_string(device_) + " failed");
  }

 private:
  int device_;
};

std::vector<std::string> offload_flags() {
  std::vector<std::string> flags;
  const std::string all = GPUBENCH_SPEC_OFFLOAD_FLAGS;
  for (std::size_t start = 0; start <= all.size();) {
    const std::size_t end = std::min(all.find('|', start), all.size());
    if (end > start) flags.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return flags;
}

}  // namespace

}  // namespace gpubench::spec

GPUBENCH_REGISTER_SPEC_OPERATIONS(gpubench::omp_target::backend_name,
                                  [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::spec::Operations> {
                                    const int number = gpubench::omp_target::device_number(d);
                                    gpubench::spec::OpenmpToolchain offload{GPUBENCH_SPEC_OFFLOAD_CXX, gpubench::spec::offload_flags(),
                                                                            std::string(gpubench::omp_target::backend_name) + "-kernels",
                                                                            number, false, GPUBENCH_SPEC_OFFLOAD_VERSION};
                                    return gpubench::spec::make_openmp_operations(
                                        d, std::move(offload), std::make_unique<gpubench::spec::DeviceMemory>(number));
                                  });
