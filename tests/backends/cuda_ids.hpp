// Launches cuda_ids.cu's test kernel over `grid` x `block` and returns what it wrote.
#pragma once

#include <vector>

#include "backends/cuda/cuda.hpp"

namespace gpubench::test {
std::vector<unsigned> cuda_ids(dim3 grid, dim3 block);
}  // namespace gpubench::test
