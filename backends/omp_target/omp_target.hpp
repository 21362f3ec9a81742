// The OpenMP target offload backends: their devices are OpenMP's offload devices (the GPUs the
// runtime's NVIDIA plugin sees, numbered as OpenMP numbers them) and the initial device (the
// host), where the regions run when there is no GPU. Device memory through omp_target_alloc and
// omp_target_memcpy; timing by the host's clock around synchronous regions (OpenMP gives the
// device no clock of its own).
//
// One source, two compilers: omp_target is this backend as GCC builds it (libgomp and its nvptx
// plugin), omp_target_clang the same files as Clang builds them (libomp, libomptarget and its CUDA
// plugin: backends/omp_target_clang/backend.cmake defines GPUBENCH_OMP_TARGET_CLANG). Both modules
// load into one gpubench, so that their points stand side by side in one run: each build's
// symbols live in a namespace of its own (the code names it omp_target either way).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "backends/device.hpp"

#ifdef GPUBENCH_OMP_TARGET_CLANG
#define GPUBENCH_OMP_TARGET_NAMESPACE omp_target_clang
#else
#define GPUBENCH_OMP_TARGET_NAMESPACE omp_target
#endif

namespace gpubench {
namespace GPUBENCH_OMP_TARGET_NAMESPACE {

// The backend's name on the command line, in its devices and its suites' registrations.
#ifdef GPUBENCH_OMP_TARGET_CLANG
inline constexpr const char* backend_name = "omp_target_clang";
#else
inline constexpr const char* backend_name = "omp_target";
#endif

// The devices: each offload device (type "gpu"), then the initial device (type "cpu").
std::vector<DeviceInfo> devices();

// OpenMP's device number of `d` (its index).
int device_number(const DeviceInfo& d);

// A region asked of `asked` that ran on the initial device (omp_is_initial_device() inside it)
// when `asked` is a GPU: DeviceError naming the point's device and why (never a host time
// labelled GPU). Nothing when it ran where asked.
void check_ran_where_asked(const DeviceInfo& asked, bool ran_on_initial_device, const std::string& what);

// The clauses of a launch of `groups_per_cu` work-groups per compute unit of `work_group_size`
// work-items (the tunables every GPU backend shares). On a GPU, num_teams = groups_per_cu x SMs and
// thread_limit the OpenMP threads that make work_group_size CUDA threads: GCC's nvptx runtime runs
// each OpenMP thread as a warp whose 32 lanes take a `simd` loop's iterations (work_group_size / 32,
// at least 1), Clang's runs each on a CUDA thread of its own (work_group_size; `simd` adds no lanes).
// On the host (the initial device, where CI runs the regions), one team of as many threads as it
// has cores.
int thread_limit(const DeviceInfo& d, int work_group_size);
int num_teams(const DeviceInfo& d, int groups_per_cu);

// Device memory of `bytes` on OpenMP device `device`, freed with the object.
class Buffer {
 public:
  Buffer(int device, std::size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  // From another buffer of the same device.
  void copy_from(const Buffer& other);

 private:
  int device_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// What this build's compiler costs a region on a GPU, where it is known to cost more than the
// other offload build of the same source, for the records' gap causes (bench/suite.hpp's
// gap_cause, by "compiler"): GCC 12's nvptx offload's. Empty for Clang's build and on the
// initial device.
std::string compiler_gap(const DeviceInfo& d);

// "libgomp (GCC 12.2.0) with its nvptx plugin", "libomptarget (Clang 19.1.7) with its CUDA plugin",
// "libgomp (GCC 12.2.0): the initial device, the host".
std::string runtime_text(bool offload);

}  // namespace GPUBENCH_OMP_TARGET_NAMESPACE
#ifdef GPUBENCH_OMP_TARGET_CLANG
namespace omp_target = omp_target_clang;  // the shared code's name for this build's backend
#endif
}  // namespace gpubench
