// The CG operations on CUDA, with the kernels of kernels/cg/opencl.cl written once more in CUDA C++
// (templated on the precision) so that OpenCL and CUDA run the same work: dot products end on the
// host (one partial per block, summed in double; the fused forms' sums advance their scalars on
// the device instead, kernels/cg/recurrence.h), the vector updates are grid-stride loops over
// SMs x blocks per SM blocks, copy and fill are runtime copies and memsets. SpMV has two kernels,
// chosen once per matrix by its average row length as OpenCL chooses them: one thread per row for
// short rows (stencils), 4 to 32 threads per row for long ones, where a thread per row would read
// its row's values uncoalesced and leave most of the bandwidth unused; and, for long rows over a
// moderate number of columns (NAS CG), the slab SpMV of kernels/cg/slabs.hpp.
//
// The kernels are in nvrtc.cu (compiled at run time by NVRTC), the class in cuda_operations.cuh. The vendor variant
// (cuda_vendor.cu) is textbook CG built only from library calls on the same vectors:
// cusparseSpMV, cublas<t>dot, cublas<t>axpy and cublas<t>scal.
#include <memory>

#include "kernels/cg/cuda_operations.cuh"

namespace gpubench::cg {

namespace {

std::unique_ptr<Operations> make_cuda_operations(const DeviceInfo& device, const CsrMatrix& a, Precision precision,
                                                 const Params& launch) {
  check_can_make(device, a, precision, launch);
  if (precision == Precision::f64) return std::make_unique<CudaOperations<double>>(device, a, launch);
  return std::make_unique<CudaOperations<float>>(device, a, launch);
}

}  // namespace

}  // namespace gpubench::cg

GPUBENCH_REGISTER_CG_OPERATIONS("cuda", gpubench::cg::make_cuda_operations,
                                "cuSPARSE SpMV (CSR) + cuBLAS dot/axpy/scal", true);
