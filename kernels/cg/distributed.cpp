#include "kernels/cg/distributed.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "common/errors.hpp"

namespace gpubench::cg {

DistributedOperations::DistributedOperations(Partition partition, std::vector<std::unique_ptr<Operations>> parts)
    : partition_(std::move(partition)), parts_(std::move(parts)) {
  if (parts_.size() != partition_.bands.size() || parts_.empty())
    throw Error(ExitCode::internal, std::to_string(parts_.size()) + " operations for " +
                                        std::to_string(partition_.bands.size()) + " bands");
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const Band& b = partition_.bands[k];
    if (parts_[k]->rows() != b.rows() || parts_[k]->cols() != b.a.cols)
      throw Error(ExitCode::internal, "band " + std::to_string(k) + "'s operations have " +
                                          std::to_string(parts_[k]->rows()) + " x " + std::to_string(parts_[k]->cols()) +
                                          ", its matrix " + std::to_string(b.rows()) + " x " + std::to_string(b.a.cols));
    halo_.emplace_back(static_cast<std::size_t>(b.halo_size()));
  }
}

template <typename F>
void DistributedOperations::host_timed(const char* name, F&& f) {
  const auto start = Clock::now();
  f();
  if (profiling_) host_profile_.add(name, std::chrono::duration<double>(Clock::now() - start).count());
}

void DistributedOperations::allocate_vectors(int count) {
  for (auto& p : parts_) p->allocate_vectors(count);
}

void DistributedOperations::upload(Slot v, std::span<const double> values) {
  check_vector_length(values.size(), rows(), "upload");
  for (std::size_t k = 0; k < parts_.size(); ++k) parts_[k]->upload(v, band_slice(partition_, static_cast<int>(k), values));
}

void DistributedOperations::download(Slot v, std::span<double> values) {
  check_vector_length(values.size(), rows(), "download");
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const Band& b = partition_.bands[k];
    parts_[k]->download(v, values.subspan(static_cast<std::size_t>(b.first_row), static_cast<std::size_t>(b.rows())));
  }
}

void DistributedOperations::fill_zero(Slot v) {
  for (auto& p : parts_) p->fill_zero(v);
}

void DistributedOperations::copy(Slot src, Slot dst) {
  for (auto& p : parts_) p->copy(src, dst);
}

void DistributedOperations::exchange(Slot v) {
  if (partition_.bands.size() < 2) return;
  host_timed("exchange", [&] {
    for (std::size_t k = 0; k < parts_.size(); ++k)
      for (const HaloLink& send : partition_.bands[k].sends) {
        buffer_.resize(send.entries.size());
        parts_[k]->download_entries(v, send.entries, buffer_);
        std::copy(buffer_.begin(), buffer_.end(), halo_[static_cast<std::size_t>(send.band)].begin() + send.offset);
      }
    for (std::size_t k = 0; k < parts_.size(); ++k) parts_[k]->upload_halo(v, halo_[k]);
  });
}

void DistributedOperations::spmv(Slot in, Slot out) {
  exchange(in);
  for (auto& p : parts_) p->spmv(in, out);
}

double DistributedOperations::dot(Slot a, Slot b) {
  double sum = 0;
  for (auto& p : parts_) sum += p->dot(a, b);  // each band's partial, summed in double on the host
  return sum;
}

std::array<double, 2> DistributedOperations::dot2(Slot r, Slot w) {
  std::array<double, 2> sum{0, 0};
  for (auto& p : parts_) {
    const auto part = p->dot2(r, w);
    sum[0] += part[0];
    sum[1] += part[1];
  }
  return sum;
}

void DistributedOperations::axpy(double alpha, Slot x, Slot y) {
  for (auto& p : parts_) p->axpy(alpha, x, y);
}

void DistributedOperations::xpay(Slot x, double beta, Slot y) {
  for (auto& p : parts_) p->xpay(x, beta, y);
}

void DistributedOperations::scale(double alpha, Slot x, Slot y) {
  for (auto& p : parts_) p->scale(alpha, x, y);
}

void DistributedOperations::three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev,
                                              Slot w) {
  for (auto& p : parts_) p->three_term_update(rho, gamma, x, x_prev, r, r_prev, w);
}

void DistributedOperations::cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) {
  for (auto& part : parts_) part->cg_update(alpha, beta, r, w, p, s, x);
}

void DistributedOperations::start_timer() {
  for (auto& p : parts_) p->start_timer();
  timing_ = true;
  timer_start_ = Clock::now();
}

double DistributedOperations::stop_timer() {
  if (!timing_) return 0;
  for (auto& p : parts_) p->stop_timer();  // waits for each band's device
  timing_ = false;
  return std::chrono::duration<double>(Clock::now() - timer_start_).count();
}

void DistributedOperations::set_profiling(bool on) {
  profiling_ = on;
  for (auto& p : parts_) p->set_profiling(on);
}

std::vector<KernelProfile> DistributedOperations::take_profile() {
  std::vector<KernelProfile> all;
  for (auto& p : parts_) {
    for (KernelProfile& k : p->take_profile()) {
      auto it = std::find_if(all.begin(), all.end(), [&](const KernelProfile& x) { return x.kernel == k.kernel; });
      if (it == all.end()) {
        all.push_back(std::move(k));
      } else {  // the bands' device times of one kernel add up; its calls are the whole's calls
        it->seconds += k.seconds;
        it->calls = std::max(it->calls, k.calls);
      }
    }
  }
  for (KernelProfile& k : host_profile_.take()) all.push_back(std::move(k));
  return all;
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

void DistributedOperations::set_launch(const std::string& kernel, const LaunchConfig& launch) {
  for (auto& p : parts_) p->set_launch(kernel, launch);
}

std::unique_ptr<DistributedOperations> make_distributed_operations(const std::vector<DeviceInfo>& devices,
                                                                   const CsrMatrix& a, Precision precision,
                                                                   const LaunchConfig& launch) {
  if (devices.empty()) throw UsageError("CG on several devices needs at least one device");
  Partition partition = partition_rows(a, static_cast<int>(devices.size()));
  std::vector<std::unique_ptr<Operations>> parts;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const DeviceInfo& d = devices[k];
    const OperationsFactory* factory = find_operations(d.backend);
    if (!factory) throw DeviceError("backend '" + d.backend + "' has no CG operations in this build");
    try {
      parts.push_back((*factory)(d, partition.bands[k].a, precision, launch));
    } catch (const DeviceError& e) {
      throw DeviceError("band " + std::to_string(k) + " (" + std::to_string(partition.bands[k].rows()) + " rows) on " +
                        d.label() + ": " + e.what());
    }
  }
  return std::make_unique<DistributedOperations>(std::move(partition), std::move(parts));
}

}  // namespace gpubench::cg
