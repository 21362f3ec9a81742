// The ViennaCL backends: device discovery for ViennaCL's two memory domains built here.
//   "viennacl"       its OpenCL domain, on every OpenCL device, numbered exactly as the opencl
//                    backend numbers them (--device N is the same device on both);
//   "viennacl_host"  its host domain with OpenMP, on the host CPU the openmp backend describes.
// Binding ViennaCL to one of these devices happens where ViennaCL is used (kernels/cg/viennacl.cpp).
#include <viennacl/version.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/opencl/opencl.hpp"
#include "backends/openmp/openmp.hpp"
#include "backends/ceilings.hpp"
#include "backends/registry.hpp"
#include "common/errors.hpp"

namespace gpubench::viennacl_backend {

namespace {

// Major and minor only: ViennaCL 1.7.1's version.hpp still says patch 0.
std::string viennacl_version() {
  return "ViennaCL " + std::to_string(VIENNACL_MAJOR_VERSION) + "." + std::to_string(VIENNACL_MINOR_VERSION);
}

// ViennaCL 1.7 creates every OpenCL buffer with a 32-bit size (an unsigned int cast in
// viennacl::ocl::context::create_memory_without_smart_handle): a larger buffer would silently be
// made smaller. Declaring that limit as the device's largest buffer makes the CG factories refuse
// such problems up front, with the same message as any other too-large buffer. 2^32 bytes less
// 1024, so that a vector within it still fits once ViennaCL pads it to a multiple of 128 entries.
constexpr std::uint64_t viennacl_max_buffer_bytes = (std::uint64_t{1} << 32) - 1024;

std::vector<DeviceInfo> opencl_devices() {
  std::vector<DeviceInfo> devices = opencl::list_devices();
  for (DeviceInfo& d : devices) {
    d.backend = "viennacl";
    d.api = viennacl_version() + " / " + d.api;
    d.max_alloc_bytes = std::min(d.max_alloc_bytes, viennacl_max_buffer_bytes);
  }
  return devices;
}

std::vector<DeviceInfo> host_devices() {
  std::vector<DeviceInfo> devices = openmp::host_devices();
  for (DeviceInfo& d : devices) {
    d.backend = "viennacl_host";
    d.api = viennacl_version() + " / " + d.api;
  }
  return devices;
}

}  // namespace

// ViennaCL is a library, not an API: its ceilings are those of the device it runs on, measured
// with the kernels of the API under it (the same device index, as above).
Ceilings ceilings_through(const char* api, const DeviceInfo& d, std::ostream& log) {
  const CeilingProbe* probe = find_ceiling_probe(api);
  if (!probe) throw DeviceError(std::string("no ") + api + " ceiling probe in this build for " + d.label());
  return (*probe)(find_device(api, d.index), log);
}

}  // namespace gpubench::viennacl_backend

GPUBENCH_REGISTER_CEILING_PROBE("viennacl", [](const gpubench::DeviceInfo& d, std::ostream& log) {
  return gpubench::viennacl_backend::ceilings_through("opencl", d, log);
});
GPUBENCH_REGISTER_CEILING_PROBE("viennacl_host", [](const gpubench::DeviceInfo& d, std::ostream& log) {
  return gpubench::viennacl_backend::ceilings_through("openmp", d, log);
});
GPUBENCH_REGISTER_BACKEND(.name = "viennacl", .devices = gpubench::viennacl_backend::opencl_devices, .order = 30,
                          .api = "viennacl[^/]*/ *opencl", .devices_of = "opencl");
GPUBENCH_REGISTER_BACKEND(.name = "viennacl_host", .devices = gpubench::viennacl_backend::host_devices, .order = 40,
                          .api = "viennacl[^/]*/ *openmp", .devices_of = "openmp");
