#include "backends/viennacl/domain.hpp"

#include <map>
#include <memory>
#include <string>

#include "common/errors.hpp"

namespace gpubench::viennacl_backend {

const OpenclBinding& opencl_binding(const DeviceInfo& device) {
  static std::map<int, std::unique_ptr<OpenclBinding>> bindings;
  auto it = bindings.find(device.index);
  if (it != bindings.end()) return *it->second;

  std::unique_ptr<OpenclBinding> binding;
  try {
    binding = std::make_unique<OpenclBinding>(OpenclBinding{opencl::Context(device.index), 0});
  } catch (const DeviceError& e) {
    throw DeviceError("backend 'viennacl' could not open OpenCL device " + std::to_string(device.index) + ": " +
                      e.what());
  }
  // Id 0 is ViennaCL's default context, which it would make itself on the first platform's first
  // device: ours start above it.
  binding->id = 1 + static_cast<long>(device.index);
  try {
    viennacl::ocl::setup_context(binding->id, binding->device.context(), binding->device.device(),
                                 binding->device.queue());
  } catch (const std::exception& e) {
    throw DeviceError("viennacl::ocl::setup_context failed for " + device.label() + ": " + e.what());
  }
  return *bindings.emplace(device.index, std::move(binding)).first->second;
}

}  // namespace gpubench::viennacl_backend
