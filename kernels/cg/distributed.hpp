// CG on several devices (issue 18): the Operations interface over a partition's bands
// (partition.hpp), each band on its own device's Operations, so that the algorithm (solver.hpp)
// runs unchanged. A vector is the concatenation of the bands' own entries. For each SpMV the
// bands exchange only their halo entries of its input: device to device where the bands' API
// links them (CUDA peer copies, queued on the devices' streams: the host waits for nothing), else
// through the host (each sender's entries read, each receiver's halo written). Meanwhile each
// band's SpMV of its rows that read no halo (partition.hpp's interior) runs; its other rows
// follow the halo. Dot products are reduced on the host from each band's partial (the fused
// forms' spmv_dot2: each band's SpMV parts add their shares to its reduction). Where every band
// keeps the fused forms' scalars on its device (Operations::device_scalars, bands in this
// process), their sums never reach the host: each band ends its reduction on its device, copies
// every band's sums (device to device where the API links them), adds them in band order and
// advances its own copy of the scalars, the same on every band (Operations::gather_sums).
//
// The bands are in this process (several devices of one host: the calls are issued band by band
// from this thread), or one per MPI rank (a Comm of several ranks: band k on rank k, the halo
// entries sent between ranks, the partials summed across them). Every rank runs the same calls.
//
// In the profiled pass the exchange runs alone, before the whole SpMV: it is timed on the host and
// appears as its own row ("exchange": the bands' earlier kernels finish before it starts, and
// device-to-device copies finish before it ends), beside the kernels' device times: each kernel's
// the slowest band's, here and across ranks (the bands run side by side). The dot partials' sum
// is part of the dot rows. The timed pass overlaps them as above.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/comm.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/partition.hpp"

namespace gpubench::cg {

class DistributedOperations final : public Operations {
 public:
  // parts[k] runs partition.bands[k] (made from its band's matrix, band.a). Without `comm` (or
  // with one rank) every band is here; with several ranks, parts has one entry per band and only
  // this rank's (band comm->rank()) is set.
  DistributedOperations(Partition partition, std::vector<std::unique_ptr<Operations>> parts,
                        std::shared_ptr<Comm> comm = nullptr);
  ~DistributedOperations() override;

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
  std::array<double, 2> spmv_dot2(Slot r, Slot w) override;
  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override;
  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override;
  // The fused forms' scalars: on the bands' devices where every band here keeps them there (not
  // across ranks: MPI here moves host memory), else on the host (Operations' defaults).
  bool device_scalars() const override { return device_scalars_; }
  void set_scalars(const Scalars& s) override;
  Scalars get_scalars() override;
  void spmv_dot2_advance(Slot r, Slot w, int rule) override;
  void three_term_update_scalars(Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override;
  void cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x) override;
  // The host's clock from start_timer() to stop_timer() (every band waited for): the bands'
  // kernels, the exchanges and the reductions.
  void start_timer() override;
  double stop_timer() override;
  void set_profiling(bool on) override;
  void finish() override;
  std::vector<KernelProfile> take_profile() override;
  int rows() const override { return partition_.rows; }
  // The whole vector has no halo; these are a band's operations, not the whole's.
  int cols() const override { return partition_.rows; }
  void upload_halo(Slot v, std::span<const double> values) override;
  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override;
  void set_launch(const std::string& kernel, const Params& launch) override;
  // Every band's library calls, with the halo exchanged before each SpMV and the dots summed over
  // the bands (and ranks): the vendor variant across devices. nullptr where a band has none.
  LibraryCalls* library() override;

  const Partition& partition() const { return partition_; }
  // How the halo moves: "CUDA peer copies (peer access)", "through the host", ...; empty for one band.
  const std::string& exchange_path() const { return exchange_path_; }
  // The share of the rows whose SpMV runs while the halo moves in the timed pass (0 for one band).
  double overlapped_fraction() const { return overlapped_fraction_; }
  // Each band's kernels in the profile take_profile() last returned (whose rows are each kernel's
  // slowest band's): band k's calls and seconds per kernel, the bands on other ranks included.
  const std::vector<std::vector<KernelProfile>>& band_profiles() const { return band_profiles_; }
  // Band k's launch parameters of `kernel` (bands on different devices launch differently); nothing
  // for a band on another rank.
  void set_launch(int band, const std::string& kernel, const Params& launch);

 private:
  using Clock = std::chrono::steady_clock;
  // Every band's halo of v from the bands that own it: send_halo starts it (the copies queued, or
  // the sent entries read to the host), receive_halo completes it (the copies awaited, or the MPI
  // messages and the halos written); exchange does both, timed as one row when profiled.
  void send_halo(Slot v);
  void receive_halo(Slot v);
  void exchange(Slot v);
  template <typename Rows>
  void banded_spmv(Slot in, Rows&& rows);
  std::array<double, 2> reduce();  // the started reductions' sums over the bands (and ranks)
  template <typename F>
  void host_timed(const char* name, F&& f);
  template <typename F>
  void each(F&& f);  // f(k, band k's operations) for the bands here
  bool ranks() const { return comm_ && comm_->size() > 1; }

  class Library;  // library()'s calls over the bands (distributed.cpp)

  Partition partition_;
  std::vector<std::unique_ptr<Operations>> parts_;
  std::unique_ptr<Library> library_;
  std::shared_ptr<Comm> comm_;
  std::vector<std::vector<double>> halo_;  // per band here, the halo being assembled
  std::vector<std::vector<std::vector<double>>> sent_;  // per band here and send, its entries
  long long fault_at_ = 0;  // the test-only GPUBENCH_RANK_FAULT: the SpMV call this rank fails in
  bool fault_hangs_ = false;
  bool direct_ = false;  // the bands' halos go device to device (Operations::send_entries)
  double overlapped_fraction_ = 0;
  std::string exchange_path_;
  bool timing_ = false;
  Clock::time_point timer_start_;
  bool profiling_ = false;
  ProfileRecorder host_profile_;
  std::vector<std::vector<KernelProfile>> band_profiles_;  // take_profile()'s, per band
  bool device_scalars_ = false;  // every band here keeps the fused forms' scalars on its device (constructor)
};

// One band per device: partitions `a` into devices.size() bands and makes band k's Operations
// with devices[k]'s backend (its registered factory): every band here, or with `comm` of several
// ranks (one per device) only this rank's. DeviceError, naming the device, when a backend has no
// CG or refuses its band.
std::unique_ptr<DistributedOperations> make_distributed_operations(const std::vector<DeviceInfo>& devices,
                                                                   const CsrMatrix& a, Precision precision,
                                                                   const Params& launch,
                                                                   std::shared_ptr<Comm> comm = nullptr);

}  // namespace gpubench::cg
