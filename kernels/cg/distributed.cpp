#include "kernels/cg/distributed.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "common/errors.hpp"
#include "common/test_hooks.hpp"

namespace gpubench::cg {

namespace {

// The test-only hook GPUBENCH_RANK_FAULT=RANK[@CALL][:hang]: rank RANK of a run across ranks fails
// (a DeviceError) in its CALL-th SpMV of the run, counted over every point (default 1); with
// ":hang" it stops there instead, saying nothing, as a rank stuck in a driver would. Unset: never.
struct PlantedFault {
  long long call = 0;  // 0: none on this rank
  bool hang = false;
};

PlantedFault planted_fault(const Comm* comm) {
  const char* spec = test_hook("GPUBENCH_RANK_FAULT");
  if (!spec || !comm || comm->size() < 2) return {};
  std::string text = spec;
  const bool hang = text.size() > 5 && text.compare(text.size() - 5, 5, ":hang") == 0;
  if (hang) text.resize(text.size() - 5);
  const auto at = text.find('@');
  char* end = nullptr;
  const long rank = std::strtol(text.c_str(), &end, 10);
  const long long call = at == std::string::npos ? 1 : std::strtoll(text.c_str() + at + 1, nullptr, 10);
  if (end == text.c_str() || call < 1)
    throw UsageError("GPUBENCH_RANK_FAULT: '" + std::string(spec) + "' is not RANK[@CALL][:hang] with CALL >= 1");
  return rank == comm->rank() ? PlantedFault{call, hang} : PlantedFault{};
}

// The rows of band b whose SpMV runs while the halo moves: its interior (partition.hpp) where
// that holds at least half its rows, else none (the split's extra launches would buy little).
std::int32_t overlapped_rows(const Band& b) { return 2 * b.interior_rows >= b.rows() ? b.interior_rows : 0; }

}  // namespace

DistributedOperations::DistributedOperations(Partition partition, std::vector<std::unique_ptr<Operations>> parts,
                                             std::shared_ptr<Comm> comm)
    : partition_(std::move(partition)), parts_(std::move(parts)), comm_(std::move(comm)) {
  const std::size_t bands = partition_.bands.size();
  if (parts_.size() != bands || parts_.empty())
    throw Error(ExitCode::internal, std::to_string(parts_.size()) + " operations for " + std::to_string(bands) + " bands");
  if (ranks() && static_cast<std::size_t>(comm_->size()) != bands)
    throw Error(ExitCode::internal, std::to_string(bands) + " bands on " + std::to_string(comm_->size()) + " ranks");
  halo_.resize(bands);
  sent_.resize(bands);
  for (std::size_t k = 0; k < bands; ++k) {
    const bool here = ranks() ? static_cast<int>(k) == comm_->rank() : true;
    if (here != (parts_[k] != nullptr))
      throw Error(ExitCode::internal, "band " + std::to_string(k) + (here ? " has no operations" : " is on another rank"));
    if (!here) continue;
    const Band& b = partition_.bands[k];
    if (parts_[k]->rows() != b.rows() || parts_[k]->cols() != b.a.cols)
      throw Error(ExitCode::internal, "band " + std::to_string(k) + "'s operations have " +
                                          std::to_string(parts_[k]->rows()) + " x " + std::to_string(parts_[k]->cols()) +
                                          ", its matrix " + std::to_string(b.rows()) + " x " + std::to_string(b.a.cols));
    halo_[k].resize(static_cast<std::size_t>(b.halo_size()));
    for (const HaloLink& send : b.sends) sent_[k].emplace_back(send.entries.size());
  }
  device_scalars_ = !ranks() && std::all_of(parts_.begin(), parts_.end(), [](const auto& p) {
    return p && p->device_scalars();
  });
  // In one process, device to device where every linked pair of bands can (CUDA peer copies),
  // else through the host.
  if (!ranks() && bands > 1) {
    std::vector<std::string> paths;
    direct_ = true;
    for (std::size_t k = 0; k < bands && direct_; ++k)
      for (const HaloLink& send : partition_.bands[k].sends) {
        std::string path = parts_[k]->links_to(*parts_[static_cast<std::size_t>(send.band)]);
        direct_ = direct_ && !path.empty();
        if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(std::move(path));
      }
    if (direct_)
      for (const std::string& path : paths) exchange_path_ += (exchange_path_.empty() ? "" : "; ") + path;
    // The fused forms' sums go from every band to every other where they stay on the devices:
    // every pair linked (CUDA: peer access both ways), not only the halo's neighbours.
    if (device_scalars())
      for (std::size_t k = 0; k < bands; ++k)
        for (std::size_t j = k + 1; j < bands; ++j) static_cast<void>(parts_[k]->links_to(*parts_[j]));
  }
  if (exchange_path_.empty() && bands > 1)
    exchange_path_ = ranks() ? "MPI messages between ranks, staged through the host" : "through the host";
  if (bands > 1) {
    std::int64_t overlapped = 0;
    for (const Band& b : partition_.bands) overlapped += overlapped_rows(b);
    overlapped_fraction_ = static_cast<double>(overlapped) / partition_.rows;
  }
  const PlantedFault fault = planted_fault(comm_.get());
  fault_at_ = fault.call;
  fault_hangs_ = fault.hang;
}

template <typename F>
void DistributedOperations::each(F&& f) {
  for (std::size_t k = 0; k < parts_.size(); ++k)
    if (parts_[k]) {
      parts_[k]->make_current();  // one thread drives every band's device
      f(k, *parts_[k]);
    }
}

template <typename F>
void DistributedOperations::host_timed(const char* name, F&& f) {
  const auto start = Clock::now();
  f();
  if (profiling_) host_profile_.add(name, std::chrono::duration<double>(Clock::now() - start).count());
}

void DistributedOperations::allocate_vectors(int count) {
  each([&](std::size_t, Operations& p) { p.allocate_vectors(count); });
}

void DistributedOperations::upload(Slot v, std::span<const double> values) {
  check_vector_length(values.size(), rows(), "upload");
  each([&](std::size_t k, Operations& p) { p.upload(v, band_slice(partition_, static_cast<int>(k), values)); });
}

void DistributedOperations::download(Slot v, std::span<double> values) {
  check_vector_length(values.size(), rows(), "download");
  if (ranks()) std::fill(values.begin(), values.end(), 0.0);
  each([&](std::size_t k, Operations& p) {
    const Band& b = partition_.bands[k];
    p.download(v, values.subspan(static_cast<std::size_t>(b.first_row), static_cast<std::size_t>(b.rows())));
  });
  if (ranks()) comm_->sum(values);  // each entry is one rank's, the others' zeros: exact
}

void DistributedOperations::fill_zero(Slot v) {
  each([&](std::size_t, Operations& p) { p.fill_zero(v); });
}

void DistributedOperations::copy(Slot src, Slot dst) {
  each([&](std::size_t, Operations& p) { p.copy(src, dst); });
}

void DistributedOperations::send_halo(Slot v) {
  static long long spmv_calls = 0;  // over the run's points (the hook's count)
  if (fault_at_ > 0 && ++spmv_calls == fault_at_) {
    if (fault_hangs_)
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    throw DeviceError("a fault planted by GPUBENCH_RANK_FAULT in SpMV call " + std::to_string(fault_at_));
  }
  if (direct_) {
    each([&](std::size_t k, Operations& p) {
      for (const HaloLink& send : partition_.bands[k].sends)
        p.send_entries(v, send.entries, *parts_[static_cast<std::size_t>(send.band)], send.offset);
    });
    return;
  }
  each([&](std::size_t k, Operations& p) {
    const Band& b = partition_.bands[k];
    for (std::size_t i = 0; i < b.sends.size(); ++i) {
      const HaloLink& send = b.sends[i];
      std::vector<double>& entries = sent_[k][i];
      p.download_entries(v, send.entries, entries);
      if (parts_[static_cast<std::size_t>(send.band)])
        std::copy(entries.begin(), entries.end(), halo_[static_cast<std::size_t>(send.band)].begin() + send.offset);
    }
  });
}

void DistributedOperations::receive_halo(Slot v) {
  if (direct_) {
    each([&](std::size_t, Operations& p) { p.await_sends(); });
    return;
  }
  if (ranks()) {
    std::vector<Comm::Message> sends, receives;
    each([&](std::size_t k, Operations&) {
      const Band& b = partition_.bands[k];
      for (std::size_t i = 0; i < b.sends.size(); ++i)
        if (!parts_[static_cast<std::size_t>(b.sends[i].band)]) sends.push_back({b.sends[i].band, sent_[k][i]});
      for (const HaloLink& receive : b.receives)
        if (!parts_[static_cast<std::size_t>(receive.band)])
          receives.push_back({receive.band, std::span<double>(halo_[k]).subspan(static_cast<std::size_t>(receive.offset),
                                                                                 receive.entries.size())});
    });
    comm_->exchange(sends, receives);
  }
  each([&](std::size_t k, Operations& p) { p.upload_halo(v, halo_[k]); });
}

void DistributedOperations::exchange(Slot v) {  // before a SpMV that waits for it (profiled, the library's)
  if (partition_.bands.size() < 2) return;
  // Profiled, the kernels before it finish first: the row is the exchange's own time, not the
  // wait for them (the timed pass does not wait).
  if (profiling_) finish();
  host_timed("exchange", [&] {
    send_halo(v);
    receive_halo(v);
    if (profiling_) finish();  // the copies' own time, not their issue's
  });
}

// Timed, each band's interior rows run while the halo moves (the copies queued beside them, or
// the host staging and the MPI messages while the device runs them), then its other rows.
// Profiled, the exchange and the SpMV each run alone, so that each row is its own time.
// rows(p, first, count) runs band p's SpMV of those rows (at most three parts per band).
template <typename Rows>
void DistributedOperations::banded_spmv(Slot in, Rows&& rows) {
  if (profiling_ || overlapped_fraction_ == 0) {
    exchange(in);
    each([&](std::size_t, Operations& p) { rows(p, 0, p.rows()); });
    return;
  }
  send_halo(in);
  each([&](std::size_t k, Operations& p) {
    const Band& b = partition_.bands[k];
    if (const std::int32_t n = overlapped_rows(b)) rows(p, b.interior_first, n);
  });
  receive_halo(in);
  each([&](std::size_t k, Operations& p) {
    const Band& b = partition_.bands[k];
    const std::int32_t n = overlapped_rows(b);
    if (n == 0) return rows(p, 0, b.rows());
    if (b.interior_first > 0) rows(p, 0, b.interior_first);
    if (const std::int32_t rest = b.interior_first + n; rest < b.rows()) rows(p, rest, b.rows() - rest);
  });
}

void DistributedOperations::spmv(Slot in, Slot out) {
  banded_spmv(in, [&](Operations& p, std::int32_t first, std::int32_t count) {
    if (first == 0 && count == p.rows()) return p.spmv(in, out);
    p.spmv_rows(in, out, first, count);
  });
}

// Each band's parts add to its reduction; the bands' sums as dot2's.
std::array<double, 2> DistributedOperations::spmv_dot2(Slot r, Slot w) {
  banded_spmv(r, [&](Operations& p, std::int32_t first, std::int32_t count) { p.start_spmv_dot2_rows(r, w, first, count); });
  return reduce();
}

// Every band's reduction is started before any is waited for (its kernel queued behind the band's
// earlier work), so that the bands' reductions run side by side; their partials are summed in
// double, in band order.
std::array<double, 2> DistributedOperations::reduce() {
  each([&](std::size_t, Operations& p) { p.ready_reduction(); });
  std::array<double, 2> sum{0, 0};
  each([&](std::size_t, Operations& p) {
    const auto part = p.finish_reduction();
    sum[0] += part[0];
    sum[1] += part[1];
  });
  if (ranks()) comm_->sum(sum);
  return sum;
}

void DistributedOperations::set_scalars(const Scalars& s) {
  Operations::set_scalars(s);
  if (device_scalars()) each([&](std::size_t, Operations& p) { p.set_scalars(s); });
}

Operations::Scalars DistributedOperations::get_scalars() {
  return device_scalars() ? parts_.front()->get_scalars() : Operations::get_scalars();
}

// Each band's fused SpMV parts add to its reduction, which ends on its device; every band then
// gathers every band's sums (its own included) in band order and advances its scalars with them.
void DistributedOperations::spmv_dot2_advance(Slot r, Slot w, int rule) {
  if (!device_scalars()) return Operations::spmv_dot2_advance(r, w, rule);
  banded_spmv(r, [&](Operations& p, std::int32_t first, std::int32_t count) { p.start_spmv_dot2_rows(r, w, first, count); });
  each([&](std::size_t, Operations& p) { p.finish_reduction_here(); });
  const auto bands = static_cast<int>(parts_.size());
  each([&](std::size_t, Operations& p) {
    for (int j = 0; j < bands; ++j) p.gather_sums(*parts_[static_cast<std::size_t>(j)], j);
    p.advance_gathered(bands, rule);
  });
}

void DistributedOperations::three_term_update_scalars(Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) {
  if (!device_scalars()) return Operations::three_term_update_scalars(x, x_prev, r, r_prev, w);
  each([&](std::size_t, Operations& p) { p.three_term_update_scalars(x, x_prev, r, r_prev, w); });
}

void DistributedOperations::cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x) {
  if (!device_scalars()) return Operations::cg_update_scalars(r, w, p, s, x);
  each([&](std::size_t, Operations& part) { part.cg_update_scalars(r, w, p, s, x); });
}

double DistributedOperations::dot(Slot a, Slot b) {
  each([&](std::size_t, Operations& p) { p.start_dot(a, b); });
  return reduce()[0];
}

std::array<double, 2> DistributedOperations::dot2(Slot r, Slot w) {
  each([&](std::size_t, Operations& p) { p.start_dot2(r, w); });
  return reduce();
}

void DistributedOperations::axpy(double alpha, Slot x, Slot y) {
  each([&](std::size_t, Operations& p) { p.axpy(alpha, x, y); });
}

void DistributedOperations::xpay(Slot x, double beta, Slot y) {
  each([&](std::size_t, Operations& p) { p.xpay(x, beta, y); });
}

void DistributedOperations::scale(double alpha, Slot x, Slot y) {
  each([&](std::size_t, Operations& p) { p.scale(alpha, x, y); });
}

void DistributedOperations::three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev,
                                              Slot w) {
  each([&](std::size_t, Operations& p) { p.three_term_update(rho, gamma, x, x_prev, r, r_prev, w); });
}

void DistributedOperations::cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) {
  each([&](std::size_t, Operations& part) { part.cg_update(alpha, beta, r, w, p, s, x); });
}

void DistributedOperations::start_timer() {
  if (ranks()) comm_->max(0);  // the ranks start together
  each([&](std::size_t, Operations& p) { p.start_timer(); });
  timing_ = true;
  timer_start_ = Clock::now();
}

double DistributedOperations::stop_timer() {
  if (!timing_) return 0;
  each([&](std::size_t, Operations& p) { p.stop_timer(); });  // waits for each band's device
  timing_ = false;
  const double seconds = std::chrono::duration<double>(Clock::now() - timer_start_).count();
  return ranks() ? comm_->max(seconds) : seconds;  // the slowest rank's
}

void DistributedOperations::finish() {
  each([&](std::size_t, Operations& p) { p.finish(); });
}

void DistributedOperations::set_profiling(bool on) {
  profiling_ = on;
  each([&](std::size_t, Operations& p) { p.set_profiling(on); });
}

std::vector<KernelProfile> DistributedOperations::take_profile() {
  std::vector<KernelProfile> all;
  band_profiles_.assign(partition_.bands.size(), {});
  each([&](std::size_t band, Operations& p) {
    for (KernelProfile& k : p.take_profile()) {
      band_profiles_[band].push_back(k);
      auto it = std::find_if(all.begin(), all.end(), [&](const KernelProfile& x) { return x.kernel == k.kernel; });
      if (it == all.end()) {
        all.push_back(std::move(k));
      } else {  // the bands run side by side: a kernel's time is the slowest band's; its calls the whole's
        it->seconds = std::max(it->seconds, k.seconds);
        it->calls = std::max(it->calls, k.calls);
      }
    }
  });
  for (KernelProfile& k : host_profile_.take()) all.push_back(std::move(k));
  if (!ranks()) return all;
  {  // every band's own rows, from the rank that runs it
    std::ostringstream mine;
    mine.precision(17);
    for (std::size_t band = 0; band < band_profiles_.size(); ++band)
      for (const auto& k : band_profiles_[band]) mine << band << ' ' << k.kernel << ' ' << k.calls << ' ' << k.seconds << '\n';
    for (const std::string& text : comm_->all_gather(mine.str())) {
      std::istringstream in(text);
      std::size_t band = 0;
      KernelProfile k;
      while (in >> band >> k.kernel >> k.calls >> k.seconds)
        if (band < band_profiles_.size() && !parts_[band]) band_profiles_[band].push_back(k);
    }
  }
  // Across ranks: each kernel's time on the slowest rank (they run side by side), in rank 0's order.
  std::ostringstream mine;
  mine.precision(17);
  for (const auto& k : all) mine << k.kernel << ' ' << k.calls << ' ' << k.seconds << '\n';
  std::vector<KernelProfile> merged;
  for (const std::string& text : comm_->all_gather(mine.str())) {
    std::istringstream in(text);
    KernelProfile k;
    while (in >> k.kernel >> k.calls >> k.seconds) {
      auto it = std::find_if(merged.begin(), merged.end(), [&](const KernelProfile& x) { return x.kernel == k.kernel; });
      if (it == merged.end()) {
        merged.push_back(k);
      } else {
        it->seconds = std::max(it->seconds, k.seconds);
        it->calls = std::max(it->calls, k.calls);
      }
    }
  }
  return merged;
}

void DistributedOperations::upload_halo(Slot, std::span<const double> values) {
  check_halo_length(values.size(), rows(), cols());
}

void DistributedOperations::download_entries(Slot v, std::span<const std::int32_t> entries, std::span<double> values) {
  check_entries(entries, values.size(), rows());
  std::vector<double> whole(static_cast<std::size_t>(rows()));
  download(v, whole);
  for (std::size_t i = 0; i < entries.size(); ++i) values[i] = whole[static_cast<std::size_t>(entries[i])];
}

class DistributedOperations::Library final : public LibraryCalls {
 public:
  Library(DistributedOperations& whole, std::vector<LibraryCalls*> bands) : whole_(whole), bands_(std::move(bands)) {}

  void prepare_spmv(Slot in, Slot out) override {
    each([&](LibraryCalls& band) { band.prepare_spmv(in, out); });
  }
  void spmv(Slot in, Slot out) override {
    whole_.exchange(in);
    each([&](LibraryCalls& band) { band.spmv(in, out); });
  }
  double dot(Slot a, Slot b) override {  // each band's waited for in turn (cuBLAS returns it), summed in band order
    double sum = 0;
    each([&](LibraryCalls& band) { sum += band.dot(a, b); });
    if (whole_.ranks()) whole_.comm_->sum(std::span<double>(&sum, 1));
    return sum;
  }
  void axpy(double alpha, Slot x, Slot y) override {
    each([&](LibraryCalls& band) { band.axpy(alpha, x, y); });
  }
  void scal(double alpha, Slot x) override {
    each([&](LibraryCalls& band) { band.scal(alpha, x); });
  }

 private:
  template <typename F>
  void each(F&& f) {
    whole_.each([&](std::size_t k, Operations&) { f(*bands_[k]); });
  }

  DistributedOperations& whole_;
  std::vector<LibraryCalls*> bands_;  // per band, nullptr for another rank's
};

DistributedOperations::~DistributedOperations() = default;

LibraryCalls* DistributedOperations::library() {
  if (library_) return library_.get();
  std::vector<LibraryCalls*> bands(parts_.size(), nullptr);
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    if (!parts_[k]) continue;
    parts_[k]->make_current();
    if (!(bands[k] = parts_[k]->library())) return nullptr;
  }
  library_ = std::make_unique<Library>(*this, std::move(bands));
  return library_.get();
}

void DistributedOperations::set_launch(int band, const std::string& kernel, const Params& launch) {
  Operations* part = parts_.at(static_cast<std::size_t>(band)).get();
  if (!part) return;
  part->make_current();  // its buffers (the dot partials, sized by the launch) belong on its device
  part->set_launch(kernel, launch);
}

void DistributedOperations::set_launch(const std::string& kernel, const Params& launch) {
  each([&](std::size_t, Operations& p) { p.set_launch(kernel, launch); });
}

std::unique_ptr<DistributedOperations> make_distributed_operations(const std::vector<DeviceInfo>& devices,
                                                                   const CsrMatrix& a, Precision precision,
                                                                   const Params& launch,
                                                                   std::shared_ptr<Comm> comm) {
  if (devices.empty()) throw UsageError("CG on several devices needs at least one device");
  const bool ranks = comm && comm->size() > 1;
  if (ranks && static_cast<int>(devices.size()) != comm->size())
    throw UsageError(std::to_string(devices.size()) + " devices for " + std::to_string(comm->size()) +
                     " ranks: across ranks, each rank runs one band on one device");
  Partition partition = partition_rows(a, static_cast<int>(devices.size()));
  std::vector<std::unique_ptr<Operations>> parts(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    if (ranks && static_cast<int>(k) != comm->rank()) continue;
    const DeviceInfo& d = devices[k];
    const OperationsFactory* factory = find_operations(d.backend);
    if (!factory) throw DeviceError("backend '" + d.backend + "' has no CG operations in this build");
    try {
      parts[k] = (*factory)(d, partition.bands[k].a, precision, launch);
    } catch (const DeviceError& e) {
      throw DeviceError("band " + std::to_string(k) + " (" + std::to_string(partition.bands[k].rows()) + " rows) on " +
                        d.label() + ": " + e.what());
    }
  }
  return std::make_unique<DistributedOperations>(std::move(partition), std::move(parts), std::move(comm));
}

}  // namespace gpubench::cg
