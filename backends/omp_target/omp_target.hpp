// The OpenMP target offload backend: its devices are OpenMP's offload devices (the GPUs GCC's
// nvptx plugin sees, numbered as OpenMP numbers them) and the initial device (the host), where
// the regions run when there is no GPU. Device memory through omp_target_alloc and
// omp_target_memcpy; timing by the host's clock around synchronous regions (OpenMP gives the
// device no clock of its own).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "backends/device.hpp"

namespace gpubench::omp_target {

// The devices: each offload device (type "gpu"), then the initial device (type "cpu").
std::vector<DeviceInfo> devices();

// OpenMP's device number of `d` (its index).
int device_number(const DeviceInfo& d);

// A region asked of `asked` that ran on the initial device (omp_is_initial_device() inside it)
// when `asked` is a GPU: DeviceError naming the point's device and why (never a host time
// labelled GPU). Nothing when it ran where asked.
void check_ran_where_asked(const DeviceInfo& asked, bool ran_on_initial_device, const std::string& what);

// The clauses of a launch of `groups_per_cu` work-groups per compute unit of `work_group_size`
// work-items (the tunables every GPU backend shares). On a GPU, num_teams = groups_per_cu x SMs and,
// GCC's nvptx runtime running each OpenMP thread as a warp whose 32 lanes take a `simd` loop's
// iterations, thread_limit = work_group_size / 32 OpenMP threads (at least 1). On the host (the
// initial device, where CI runs the regions), one team of as many threads as it has cores.
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

// "libgomp (GCC 12.2.0) with its nvptx plugin", "libgomp (GCC 12.2.0): the host, no offload device".
std::string runtime_text(bool offload);

}  // namespace gpubench::omp_target
