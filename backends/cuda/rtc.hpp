// CUDA kernels compiled at run time with NVRTC, as OpenCL builds its kernels: a kernel is built
// for the configuration asked for (its -D defines), on first use, for the current device's own
// architecture, and loaded with the runtime's library API (no driver API, no nvcc at run time).
//
// Compiled kernels are kept on disk under the per-user cache directory ($GPUBENCH_KERNEL_CACHE,
// else $XDG_CACHE_HOME/gpubench/cuda-kernels, else ~/.cache/gpubench/cuda-kernels), one file
// per key: the source, the options, the architecture, NVRTC's and the driver's versions. A
// second run compiles nothing. Each compile is said on stderr with its time; callers build
// (rtc_kernel) before their timed region, never inside it.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench::cuda {

using Defines = std::vector<std::pair<std::string, std::string>>;  // -DNAME=VALUE, in this order

// The kernel `name` (extern "C") of the embedded source `path` (kernels/..., backends/kernel_sources.hpp)
// compiled with `defines` for the current device; `what` and the defines name it in messages
// ("gemm_tuned real=float GEMM_KERNEL=3 BK=8 ..."). Cached in the process and on disk: a kernel
// this process has is returned without building any message or key (callers launch through here). A source that does not compile is a
// DeviceError naming `what`, with NVRTC's log.
cudaKernel_t rtc_kernel(std::string_view path, const std::string& name, const Defines& defines, const std::string& what);

// Builds each of `defines` (as rtc_kernel would, for the current device) into the disk cache, on
// the host's threads, so that the rtc_kernel calls after it only load. One that does not compile
// is left out (its rtc_kernel call reports it). Nothing is built without a disk cache.
void rtc_build_all(std::string_view path, const std::vector<Defines>& defines, const std::string& what);

// Compiles `source` to a CUBIN for sm_`arch` (no device needed): the image, or a DeviceError
// naming `what` with NVRTC's log. What rtc_kernel does on a cache miss.
std::string rtc_compile(const std::string& source, const Defines& defines, int arch, const std::string& what);

// The source of `path` as NVRTC compiles it (the embedded text).
std::string rtc_source(std::string_view path);

}  // namespace gpubench::cuda
