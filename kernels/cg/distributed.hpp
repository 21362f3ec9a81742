// CG on several devices in one process (issue 18): the Operations interface over a partition's
// bands (partition.hpp), each band on its own device's Operations, so that the algorithm
// (solver.hpp) runs unchanged. A vector is the concatenation of the bands' own entries. Before
// each SpMV the bands exchange only their halo entries of its input (through the host: each
// sender's entries are read, each receiver's halo written); dot products are reduced on the host
// from each band's partial. Each band's kernels run on its device; the calls are issued band by
// band from this thread.
//
// The exchange is timed on the host and appears in the profile as its own row ("exchange"),
// beside the kernels' device times summed over the bands (the dot partials' host sum is part of
// the dot kernels' calls).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "kernels/cg/operations.hpp"
#include "kernels/cg/partition.hpp"

namespace gpubench::cg {

class DistributedOperations final : public Operations {
 public:
  // parts[k] runs partition.bands[k] (made from its band's matrix, band.a).
  DistributedOperations(Partition partition, std::vector<std::unique_ptr<Operations>> parts);

  void allocate_vectors(int count) override;
  void upload(Slot v, std::span<const double> values) override;
  void download(Slot v, std::span<double> values) override;
  void fill_zero(Slot v) override;
  void copy(Slot src, Slot dst) override;
  void spmv(Slot in, Slot out) override;
  double dot(Slot a, Slot b) override;
  void axpy(double alpha, Slot x, Slot y) override;
  void xpay(Slot x, double beta, Slot y) override;
  void scale(double alpha, Slot x, Slot y) override;
  std::array<double, 2> dot2(Slot r, Slot w) override;
  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override;
  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override;
  // The host's clock from start_timer() to stop_timer() (every band waited for): the bands'
  // kernels, the exchanges and the reductions.
  void start_timer() override;
  double stop_timer() override;
  void set_profiling(bool on) override;
  std::vector<KernelProfile> take_profile() override;
  int rows() const override { return partition_.rows; }
  // The whole vector has no halo; these are a band's operations, not the whole's.
  int cols() const override { return partition_.rows; }
  void upload_halo(Slot v, std::span<const double> values) override;
  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override;
  void set_launch(const std::string& kernel, const LaunchConfig& launch) override;

  const Partition& partition() const { return partition_; }

 private:
  using Clock = std::chrono::steady_clock;
  void exchange(Slot v);  // every band's halo of v from the bands that own it
  template <typename F>
  void host_timed(const char* name, F&& f);

  Partition partition_;
  std::vector<std::unique_ptr<Operations>> parts_;
  std::vector<std::vector<double>> halo_;  // per band, the halo being assembled
  std::vector<double> buffer_;
  bool timing_ = false;
  Clock::time_point timer_start_;
  bool profiling_ = false;
  ProfileRecorder host_profile_;
};

// One band per device: partitions `a` into devices.size() bands and makes band k's Operations
// with devices[k]'s backend (its registered factory). DeviceError, naming the device, when a
// backend has no CG or refuses its band.
std::unique_ptr<DistributedOperations> make_distributed_operations(const std::vector<DeviceInfo>& devices,
                                                                   const CsrMatrix& a, Precision precision,
                                                                   const LaunchConfig& launch);

}  // namespace gpubench::cg
