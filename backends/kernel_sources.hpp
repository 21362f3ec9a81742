// Kernel sources (.cl files under kernels/) embedded into the binary at build time, so that the
// binary runs anywhere without its source tree. The .cl files stay the single source.
#pragma once

#include <string_view>

namespace gpubench {

// `path` is relative to kernels/, e.g. "cg/opencl.cl". Throws DeviceError for an unknown path.
std::string_view kernel_source(std::string_view path);

}  // namespace gpubench
