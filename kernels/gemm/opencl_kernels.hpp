// GEMM's own OpenCL kernels (opencl.cl: naive, tiled, tuned; tensor.cl: tensor, f64 on NVIDIA's
// OpenCL) on blocks of any buffers, for the GEMM suite and for other suites that update a block of
// a larger matrix with them (LU). Each program is built once per precision and configuration, on
// first use.
#pragma once

#include <array>
#include <map>
#include <string>

#include "backends/opencl/opencl.hpp"
#include "bench/params.hpp"
#include "common/precision.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

// The kernels one call enqueued: its first and its last (the same where it is one).
struct Enqueued {
  opencl::Event first, last;
  double seconds() const { return static_cast<double>(last.end_ns() - first.start_ns()) * 1e-9; }
};

// Why the tensor variant cannot run on OpenCL device `device` (f64), or empty where it can: it
// needs NVIDIA's OpenCL on compute capability 8.0 or later (inline PTX mma.sync and cp.async).
std::string opencl_tensor_unavailable(const DeviceInfo& device);

class OpenclKernels {
 public:
  OpenclKernels(opencl::Context& context, Precision p) : context_(&context), precision_(p) {}
  // One call of `v` (naive; tiled with "tile"; tuned with TunedConfig's parameters and "splitk";
  // tensor with tensor_config's and "splitk", f64) on the block, enqueued on `queue` (nullptr: the
  // context's); its kernels' events. A configuration the device cannot run is a DeviceError
  // naming it.
  Enqueued enqueue(Variant v, const Params& params, const Block& b, double alpha, const opencl::Buffer& a,
                   const opencl::Buffer& bm, double beta, const opencl::Buffer& c, cl_command_queue queue = nullptr);
  // How the tensor kernel reaches the tensor cores on this device ("mma.sync m16n8k16 ...").
  std::string tensor_mode() const;
  // Where the tensor kernel is slower than CUDA's by the API (bench/suite.hpp's gap_cause): its
  // tiles and stages in the local memory NVIDIA's OpenCL gives a work-group. Null elsewhere.
  nlohmann::json tensor_gap_cause() const;

 private:
  const opencl::Kernel& kernel(const std::string& path, const std::string& options, const std::string& name);
  Enqueued gemv(const Params& params, const Block& b, double alpha, const opencl::Buffer& a, const opencl::Buffer& bm,
                double beta, const opencl::Buffer& c, cl_command_queue queue);
  Enqueued tensor(const Params& params, const Block& b, double alpha, const opencl::Buffer& a, const opencl::Buffer& bm,
                  double beta, const opencl::Buffer& c, cl_command_queue queue);
  // C = beta C before a split K's shares add into it (gemv.h's gemm_scale).
  opencl::Event scale(const Block& b, double beta, const opencl::Buffer& c, cl_command_queue queue);

  opencl::Context* context_;
  Precision precision_;
  std::map<std::string, opencl::Kernel> kernels_;
  opencl::Buffer partials_;  // gemv's partial sums, grown to the largest call's
  // The tensor kernel's aligned copies of A and B at odd sizes, per queue, grown to the largest.
  std::map<cl_command_queue, std::array<opencl::Buffer, 2>> padded_;
};

}  // namespace gpubench::gemm
