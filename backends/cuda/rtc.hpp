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

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpubench::cuda {

using Defines = std::vector<std::pair<std::string, std::string>>;  // -DNAME=VALUE, in this order

// The kernel `name` (extern "C") of the embedded source `path` (kernels/..., backends/kernel_sources.hpp)
// compiled with `defines` for the current device: the whole source is built once per set of
// defines, and its other kernels come from that build. `what` and the defines name the build in
// messages ("gemm_tuned real=float GEMM_KERNEL=3 BK=8 ...", "CG's kernels real=double").
// Cached in the process and on disk: a kernel this process has is returned without building any
// message or key (callers may launch through here). A source that does not compile is a
// DeviceError naming `what`, with NVRTC's log.
cudaKernel_t rtc_kernel(std::string_view path, const std::string& name, const Defines& defines, const std::string& what);

// The same for a source that is not embedded (a user's kernel spec): `origin` (its file) names it
// in the disk cache's key and in messages, with a hash of the text.
cudaKernel_t rtc_kernel_of_source(const std::string& origin, const std::string& source, const std::string& name,
                                  const Defines& defines, const std::string& what);

// Builds each of `defines` (as rtc_kernel would, for the current device) into the disk cache, on
// the host's threads, so that the rtc_kernel calls after it only load. One that does not compile
// is left out (its rtc_kernel call reports it). Nothing is built without a disk cache.
void rtc_build_all(std::string_view path, const std::vector<Defines>& defines, const std::string& what);

// Compiles `source` to a CUBIN for sm_`arch` (no device needed): the image, or a DeviceError
// naming `what` with NVRTC's log. What rtc_kernel does on a cache miss.
std::string rtc_compile(const std::string& source, const Defines& defines, int arch, const std::string& what);

// The source of `path` as NVRTC compiles it (the embedded text).
std::string rtc_source(std::string_view path);

// The largest block `kernel` launches with on the current device (its registers may hold it
// below the device's maxThreadsPerBlock).
int rtc_max_threads(cudaKernel_t kernel, const std::string& name);

// Lets `kernel` take at least `bytes` of dynamic shared memory on the current device (beyond the
// default 48 KiB); what it may take already is never lowered.
void rtc_set_max_shared(cudaKernel_t kernel, std::size_t bytes, const std::string& name);

// Launches `kernel` with `argv` (the address of each argument, as cudaLaunchKernel takes them);
// cooperatively (its blocks may wait for each other: all of them resident at once) if asked. A
// launch that fails is a DeviceError naming `name`, its grid and its block.
void rtc_launch_argv(cudaKernel_t kernel, const char* name, dim3 grid, dim3 block, std::size_t shared,
                     cudaStream_t stream, void** argv, bool cooperative = false);

// The same with the arguments themselves. Each must have the exact type of the kernel's
// parameter (an unsigned for an unsigned, a float for a float): they are passed by address.
template <typename... Args>
void rtc_launch(cudaKernel_t kernel, const char* name, dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                Args... args) {
  void* argv[] = {static_cast<void*>(&args)..., nullptr};
  rtc_launch_argv(kernel, name, grid, block, shared, stream, argv);
}

// The name of T as a -D define gives it to a kernel (`real`): float or double.
template <typename T>
constexpr const char* real_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return std::is_same_v<T, float> ? "float" : "double";
}

}  // namespace gpubench::cuda
