// Where ViennaCL's objects live, for every suite that calls ViennaCL: its host memory domain
// (backend viennacl_host) or one OpenCL device (backend viennacl) bound to ViennaCL once per
// process. Compiled only with the ViennaCL backend (VIENNACL_WITH_OPENCL, VIENNACL_WITH_OPENMP).
#pragma once

#include <viennacl/context.hpp>
#include <viennacl/ocl/backend.hpp>

#include "backends/device.hpp"
#include "backends/opencl/opencl.hpp"

namespace gpubench::viennacl_backend {

// One OpenCL device handed to ViennaCL: our context and profiling queue, and ViennaCL's id for
// them. ViennaCL retains both handles itself (viennacl::ocl::context::init_existing and add_queue
// retain; its destructor releases), so neither side can release the other's reference.
struct OpenclBinding {
  opencl::Context device;
  long id = 0;
};

// ViennaCL keeps every OpenCL context it is given in a process-wide table and has no call that
// removes one (viennacl::ocl::backend). A context per Operations object would therefore keep one
// OpenCL context, queue and set of ViennaCL programs alive per point for the rest of the run, and
// rebuild ViennaCL's programs for each. So each device is bound once, on first use, and every
// Operations object on it shares that binding; ViennaCL's programs are built once per device.
const OpenclBinding& opencl_binding(const DeviceInfo& device);

// Where ViennaCL's objects live: its host memory domain, or one bound OpenCL device.
class Domain {
 public:
  static Domain host(const DeviceInfo& device) { return Domain(device, nullptr); }
  static Domain opencl(const DeviceInfo& device) { return Domain(device, &opencl_binding(device)); }

  const DeviceInfo& device() const { return device_; }

  // Never a default-constructed viennacl::context: with OpenCL compiled in, that one is ViennaCL's
  // current OpenCL context, made on demand on whatever device ViennaCL picks.
  viennacl::context context() const {
    if (!binding_) return viennacl::context(viennacl::MAIN_MEMORY);
    return viennacl::context(viennacl::ocl::get_context(binding_->id));
  }

  // Makes this device ViennaCL's current OpenCL context, for any ViennaCL code that asks for it
  // rather than taking its operands' context.
  void activate() const {
    if (binding_) viennacl::ocl::switch_context(binding_->id);
  }

  // Waits for the device. The host domain is synchronous: ViennaCL's host operations return when
  // done. (viennacl::backend::finish() is not used: it finishes ViennaCL's *current* OpenCL
  // context, and would make one on the host domain.)
  void finish() const {
    if (binding_) opencl::check(clFinish(binding_->device.queue()), "clFinish", "on " + device_.label());
  }

 private:
  Domain(const DeviceInfo& device, const OpenclBinding* binding) : device_(device), binding_(binding) {}

  DeviceInfo device_;
  const OpenclBinding* binding_;
};


}  // namespace gpubench::viennacl_backend
