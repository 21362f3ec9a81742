// A test kernel for the CUDA launch-geometry tests (test_cuda.cpp): each thread writes its global
// id at its place, row-major, x fastest.
#include "tests/backends/cuda_ids.hpp"

namespace gpubench::test {

namespace {
__global__ void ids(unsigned* out) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  const unsigned width = gridDim.x * blockDim.x, height = gridDim.y * blockDim.y;
  out[(z * height + y) * width + x] = x + 1000 * y + 1000000 * z;
}
}  // namespace

std::vector<unsigned> cuda_ids(dim3 grid, dim3 block) {
  const std::size_t count = std::size_t{grid.x} * block.x * grid.y * block.y * grid.z * block.z;
  cuda::DeviceBuffer<unsigned> out(count);
  ids<<<grid, block>>>(out.data());
  cuda::check_launch("ids", grid, block);
  std::vector<unsigned> host(count);
  cuda::check(cudaMemcpy(host.data(), out.data(), count * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return host;
}

}  // namespace gpubench::test
