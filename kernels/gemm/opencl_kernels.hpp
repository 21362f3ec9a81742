// GEMM's own OpenCL kernels (opencl.cl: naive, tiled, tuned) on blocks of any buffers, for the
// GEMM suite and for other suites that update a block of a larger matrix with them (LU). Each
// program is built once per precision and configuration, on first use.
#pragma once

#include <map>
#include <string>

#include "backends/opencl/opencl.hpp"
#include "bench/params.hpp"
#include "common/precision.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

class OpenclKernels {
 public:
  OpenclKernels(opencl::Context& context, Precision p) : context_(&context), precision_(p) {}
  // One call of `v` (naive; tiled with "tile"; tuned with TunedConfig's parameters) on the block,
  // enqueued on `queue` (nullptr: the context's); its event. A configuration the device cannot
  // run is a DeviceError naming it.
  opencl::Event enqueue(Variant v, const Params& params, const Block& b, double alpha, const opencl::Buffer& a,
                        const opencl::Buffer& bm, double beta, const opencl::Buffer& c,
                        cl_command_queue queue = nullptr);

 private:
  const opencl::Kernel& kernel(const std::string& options, const std::string& name);

  opencl::Context* context_;
  Precision precision_;
  std::map<std::string, opencl::Kernel> kernels_;
};

}  // namespace gpubench::gemm
