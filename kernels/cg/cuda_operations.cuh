// CudaOperations, the CG operations on CUDA (cuda.cu describes them): made by cuda.cu; the
// vendor variant's library calls on them are defined in cuda_vendor.cu.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/slabs.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

template <typename T>
constexpr cudaDataType cuda_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;

constexpr unsigned warp_size = 32;

// The kernels of kernels/cg/nvrtc.cu for elements of T on the current device, built by NVRTC on
// first use (the whole file at once: one compile per precision and device architecture).
template <typename T>
struct Kernels {
  Kernels()
      : spmv_row_per_thread(get("spmv_row_per_thread")), spmv_vector(get("spmv_vector")),
        spmv_slabs(get("spmv_slabs")), spmv_dot2(get("spmv_dot2")), sum_partials2(get("sum_partials2")),
        advance_scalars(get("advance_scalars")), keep_sums(get("keep_sums")), advance_gathered(get("advance_gathered")),
        dot_partials(get("dot_partials")), dot2_partials(get("dot2_partials")), gather(get("gather")),
        axpy(get("axpy")), xpay(get("xpay")), scale(get("scale")), three_term_update(get("three_term_update")),
        cg_update(get("cg_update")) {}

  // The largest block every kernel but spmv_slabs (sized on its own) launches with.
  int largest_block() const {
    int limit = 1 << 30;
    for (auto [k, name] : {std::pair{spmv_row_per_thread, "spmv_row_per_thread"}, {spmv_vector, "spmv_vector"},
                           {spmv_dot2, "spmv_dot2"}, {sum_partials2, "sum_partials2"}, {advance_scalars, "advance_scalars"}, {keep_sums, "keep_sums"},
                           {dot_partials, "dot_partials"}, {dot2_partials, "dot2_partials"}, {axpy, "axpy"},
                           {xpay, "xpay"}, {scale, "scale"}, {three_term_update, "three_term_update"},
                           {cg_update, "cg_update"}})
      limit = std::min(limit, cuda::rtc_max_threads(k, name));
    return limit;
  }

  static cudaKernel_t get(const char* name) {
    return cuda::rtc_kernel("cg/nvrtc.cu", name, {{"real", cuda::real_name<T>()}}, "CG's kernels");
  }

  cudaKernel_t spmv_row_per_thread, spmv_vector, spmv_slabs, spmv_dot2, sum_partials2, advance_scalars, keep_sums,
      advance_gathered, dot_partials, dot2_partials, gather, axpy, xpay, scale, three_term_update, cg_update;
};

template <typename T>
class CudaOperations final : public Operations {
 public:
  CudaOperations(const DeviceInfo& device, const CsrMatrix& a, const Params& launch)
      : info_(cuda::open_device(device.index)), rows_(a.rows), cols_(std::max(a.cols, a.rows)), nnz_(a.nnz()) {
    // Block sizes up to what every kernel can launch with and dot2's shared scratch (two arrays
    // of the block size).
    largest_block_ =
        std::min<std::size_t>(info_.max_work_group_size, static_cast<std::size_t>(kernels_.largest_block()));
    largest_block_ = std::min<std::size_t>(largest_block_, info_.local_mem_bytes / (2 * sizeof(T)));
    largest_block_ = std::max<std::size_t>(largest_block_, 1);
    Params defaults = launch;
    if (static_cast<std::size_t>(grid::group_size_of(defaults)) > largest_block_) {
      std::cerr << "gpubench: note: work_group_size " << grid::group_size_of(defaults) << " exceeds the largest "
                << info_.label() << " runs the CG kernels with (" << largest_block_ << "); using " << largest_block_
                << "\n";
      defaults["work_group_size"] = static_cast<int>(largest_block_);
    }
    per_row_ = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0;
    for (const auto& kernel : tunable_kernels()) set_launch(kernel, defaults);
    plan_slabs(a);
    ready_ = true;

    row_ptr_ = upload_array(std::span<const std::int32_t>(a.row_ptr));
    col_idx_ = upload_array(std::span<const std::int32_t>(a.col_idx));
    std::vector<T> values(a.values.size());
    std::transform(a.values.begin(), a.values.end(), values.begin(), [](double v) { return static_cast<T>(v); });
    values_ = upload_array(std::span<const T>(values));
    staging_ = cuda::PinnedBuffer<T>(static_cast<std::size_t>(std::max(rows_, cols_ - rows_)));
    stream_.synchronize();  // the uploads read `values`, which goes out of scope
  }

  ~CudaOperations() override {
    // Let queued work finish before its buffers go (freed on its device); an error here cannot be reported.
    static_cast<void>(cudaSetDevice(info_.index));
    static_cast<void>(cudaStreamSynchronize(exchange_stream_.get()));
    static_cast<void>(cudaStreamSynchronize(stream_.get()));
  }

  CudaOperations(const CudaOperations&) = delete;
  CudaOperations& operator=(const CudaOperations&) = delete;

  void allocate_vectors(int count) override {
    stream_.synchronize();
    vectors_.clear();
    for (int i = 0; i < count; ++i) {
      vectors_.emplace_back(static_cast<std::size_t>(cols_));  // a band's halo after its rows
      cuda::check(cudaMemsetAsync(vectors_.back().data(), 0, static_cast<std::size_t>(cols_) * sizeof(T), stream_.get()),
                  "cudaMemsetAsync");
    }
    stream_.synchronize();
  }

  void upload(Slot v, std::span<const double> values) override {
    check_vector_length(values.size(), rows_, "upload");
    std::transform(values.begin(), values.end(), staging_.data(), [](double x) { return static_cast<T>(x); });
    cuda::check(cudaMemcpyAsync(vector(v), staging_.data(), vector_bytes(), cudaMemcpyHostToDevice, stream_.get()),
                "cudaMemcpyAsync", "(upload to slot " + std::to_string(v) + ")");
    stream_.synchronize();  // staging_ may be reused at once
  }

  void download(Slot v, std::span<double> values) override {
    check_vector_length(values.size(), rows_, "download");
    cuda::check(cudaMemcpyAsync(staging_.data(), vector(v), vector_bytes(), cudaMemcpyDeviceToHost, stream_.get()),
                "cudaMemcpyAsync", "(download from slot " + std::to_string(v) + ")");
    stream_.synchronize();
    std::transform(staging_.data(), staging_.data() + rows_, values.begin(), [](T x) { return static_cast<double>(x); });
  }

  void upload_halo(Slot v, std::span<const double> values) override {
    check_halo_length(values.size(), rows_, cols_);
    if (values.empty()) return;
    std::transform(values.begin(), values.end(), staging_.data(), [](double x) { return static_cast<T>(x); });
    cuda::check(cudaMemcpyAsync(vector(v) + rows_, staging_.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice,
                                stream_.get()),
                "cudaMemcpyAsync", "(halo upload to slot " + std::to_string(v) + ")");
    stream_.synchronize();  // staging_ may be reused at once
  }

  // Reads the own rows from the lowest entry to the highest in one transfer (a band's sends to a
  // neighbour are near its edge) and picks the entries from it.
  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    check_entries(rows, values.size(), rows_);
    if (rows.empty()) return;
    const auto [lo, hi] = std::minmax_element(rows.begin(), rows.end());
    const auto first = static_cast<std::size_t>(*lo), count = static_cast<std::size_t>(*hi - *lo) + 1;
    cuda::check(cudaMemcpyAsync(staging_.data(), vector(v) + first, count * sizeof(T), cudaMemcpyDeviceToHost,
                                stream_.get()),
                "cudaMemcpyAsync", "(entries of slot " + std::to_string(v) + ")");
    stream_.synchronize();
    for (std::size_t i = 0; i < rows.size(); ++i)
      values[i] = static_cast<double>(staging_.data()[static_cast<std::size_t>(rows[i]) - first]);
  }

  // Another CudaOperations of this precision (a band in this process): copies go device to device
  // by cudaMemcpyPeerAsync, over the peer path (NVLink, PCIe) where the two devices have one,
  // enabled here both ways; else the driver stages them through the host.
  std::string links_to(Operations& to) override {
    auto* peer = dynamic_cast<CudaOperations<T>*>(&to);
    if (!peer) return {};
    if (peer->info_.index == info_.index) return "CUDA device-to-device copies (one device)";
    if (!can_access_peer(info_.index, peer->info_.index) || !can_access_peer(peer->info_.index, info_.index))
      return "CUDA peer copies, staged by the driver (no peer access between the devices)";
    make_current();
    enable_peer_access(peer->info_.index);
    peer->make_current();
    peer->enable_peer_access(info_.index);
    make_current();
    return "CUDA peer copies (peer access)";
  }

  // The entries (packed by a gather kernel on this stream unless they are contiguous) go on the
  // receiver's exchange stream once this stream has reached them and the receiver's stream has
  // reached its work issued so far (which may still read the halo), so the copy runs beside the
  // work both issue next. await_sends() makes each one's stream wait for it: the receiver's, which
  // reads the halo, and this one's, which may overwrite the entries. The current device is this
  // one's again on return.
  void send_entries(Slot v, std::span<const std::int32_t> rows, Operations& to, std::int32_t offset) override {
    auto& peer = dynamic_cast<CudaOperations<T>&>(to);  // links_to said so
    check_entries(rows, rows.size(), rows_);
    if (rows.empty()) return;
    if (offset < 0 || static_cast<std::size_t>(offset) + rows.size() > static_cast<std::size_t>(peer.cols_ - peer.rows_))
      throw Error(ExitCode::internal, "send_entries: " + std::to_string(rows.size()) + " entries at halo offset " +
                                          std::to_string(offset) + " overrun a halo of " +
                                          std::to_string(peer.cols_ - peer.rows_));
    make_current();
    const T* source = vector(v) + rows.front();
    if (static_cast<std::size_t>(rows.back() - rows.front()) + 1 != rows.size()) {  // scattered: pack them
      Packed& packed = packed_[rows.data()];
      if (packed.index.size() != rows.size()) {
        packed.index = upload_array(rows);
        packed.entries = cuda::DeviceBuffer<T>(rows.size());
      }
      const auto count = static_cast<unsigned>(rows.size());
      const unsigned block = 256, grid = (count + block - 1) / block;
      cuda::rtc_launch(kernels_.gather, "gather", grid, block, 0, stream_.get(), count,
                       static_cast<const std::int32_t*>(packed.index.data()), static_cast<const T*>(vector(v)),
                       packed.entries.data());
      source = packed.entries.data();
    }
    sent_.record(stream_);
    peer.make_current();
    peer.reached_.record(peer.stream_);
    cuda::check(cudaStreamWaitEvent(peer.exchange_stream_.get(), sent_.get(), 0), "cudaStreamWaitEvent");
    cuda::check(cudaStreamWaitEvent(peer.exchange_stream_.get(), peer.reached_.get(), 0), "cudaStreamWaitEvent");
    cuda::check(cudaMemcpyPeerAsync(peer.vector(v) + peer.rows_ + offset, peer.info_.index, source, info_.index,
                                    rows.size() * sizeof(T), peer.exchange_stream_.get()),
                "cudaMemcpyPeerAsync", "(halo from " + info_.label() + " to " + peer.info_.label() + ")");
    // Recorded after every copy to the peer so far (its exchange stream runs them in order): what
    // both streams wait for at await_sends().
    peer.received_.record(peer.exchange_stream_);
    peer.receiving_ = true;
    sending_to_.push_back(&peer.received_);
    make_current();
  }

  // This stream waits for the copies into its halo and for those that read its entries.
  void await_sends() override {
    make_current();
    if (receiving_) cuda::check(cudaStreamWaitEvent(stream_.get(), received_.get(), 0), "cudaStreamWaitEvent");
    for (const cuda::Event* e : sending_to_)
      cuda::check(cudaStreamWaitEvent(stream_.get(), e->get(), 0), "cudaStreamWaitEvent");
    receiving_ = false;
    sending_to_.clear();
  }

  void fill_zero(Slot v) override {
    T* y = vector(v);
    enqueue("fill", [&] {
      cuda::check(cudaMemsetAsync(y, 0, vector_bytes(), stream_.get()), "cudaMemsetAsync", "(fill_zero)");
    });
  }

  void copy(Slot src, Slot dst) override {
    const T* x = vector(src);
    T* y = vector(dst);
    enqueue("copy", [&] {
      cuda::check(cudaMemcpyAsync(y, x, vector_bytes(), cudaMemcpyDeviceToDevice, stream_.get()), "cudaMemcpyAsync",
                  "(copy)");
    });
  }

  void spmv(Slot in, Slot out) override { spmv_rows(in, out, 0, rows_); }

  // The row kernels run on rows [first, first + count) from row_ptr and out moved to `first`.
  void spmv_rows(Slot in, Slot out, std::int32_t first, std::int32_t count) override {
    check_row_range(first, count, rows_);
    if (count == 0) return;
    const T* x = vector(in);
    T* y = vector(out) + first;
    const std::int32_t* row_ptr = row_ptr_.data() + first;
    const std::int32_t* matrix_cols = col_idx_.data();
    const T* matrix_values = values_.data();
    const auto rows = static_cast<unsigned>(count);
    // spmv_vector shuffles across whole warps: its block size is rounded down to a multiple of 32.
    const std::size_t warp_block = std::max<std::size_t>(launches_.spmv.block / warp_size * warp_size, warp_size);
    const unsigned lanes = spmv_lanes(per_row_, warp_block);
    if (lanes == 1) {
      const std::size_t b = launches_.spmv.block;
      const auto grid = static_cast<unsigned>((static_cast<std::size_t>(count) + b - 1) / b);
      const auto block = static_cast<unsigned>(b);
      enqueue("spmv", [&] {
        cuda::rtc_launch(kernels_.spmv_row_per_thread, "spmv_row_per_thread", grid, block, 0, stream_.get(), rows,
                         row_ptr, matrix_cols, matrix_values, x, y);
      });
      return;
    }
    if (const SlabLayout* m = slab_layout(launches_.spmv); m && first == 0 && count == rows_) {  // a whole matrix
      launch_slabs(*m, in, out, nullptr, launches_.spmv.slab_lanes);
      return;
    }
    const std::size_t threads = static_cast<std::size_t>(count) * lanes;
    const auto grid = static_cast<unsigned>((threads + warp_block - 1) / warp_block);
    const auto block = static_cast<unsigned>(warp_block);
    enqueue("spmv", [&] {
      cuda::rtc_launch(kernels_.spmv_vector, "spmv_vector", grid, block, 0, stream_.get(), rows, lanes, row_ptr,
                       matrix_cols, matrix_values, x, y);
    });
  }

  double dot(Slot a, Slot b) override {
    start_dot(a, b);
    return finish_reduction()[0];
  }

  std::array<double, 2> dot2(Slot r, Slot w) override {
    start_dot2(r, w);
    return finish_reduction();
  }

  void start_dot(Slot a, Slot b) override {
    const T* x = vector(a);
    const T* y = vector(b);
    const Launch& l = launches_.dot;
    run("dot", l, "dot_partials", kernels_.dot_partials, l.block * sizeof(T), n(), x, y, next_part(l.blocks, 1));
  }

  void start_dot2(Slot r, Slot w) override { launch_dot2(r, w); }

  void start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count) override {
    launch_spmv_dot2(r, w, first, count);
  }

  // The parts' partials to the host, without waiting: a reduction that ends on the device
  // (finish_reduction_here) never reads them.
  void ready_reduction() override { read_partials(); }

  // The fused forms' scalars in device memory: the fused SpMV's partials summed and the
  // recurrence advanced by one block on the device (advance_scalars, its own profile row), the
  // updates reading their coefficients there; nothing is read back.
  bool device_scalars() const override { return true; }

  void set_scalars(const Scalars& s) override {
    std::transform(s.begin(), s.end(), host_state_.data(), [](double x) { return static_cast<T>(x); });
    cuda::check(cudaMemcpyAsync(state_.data(), host_state_.data(), CG_SCALARS * sizeof(T), cudaMemcpyHostToDevice,
                                stream_.get()),
                "cudaMemcpyAsync", "(CG scalars to the device)");
    stream_.synchronize();  // host_state_ may be reused at once
  }

  Scalars get_scalars() override {
    cuda::check(cudaMemcpyAsync(host_state_.data(), state_.data(), CG_SCALARS * sizeof(T), cudaMemcpyDeviceToHost,
                                stream_.get()),
                "cudaMemcpyAsync", "(CG scalars from the device)");
    stream_.synchronize();
    Scalars s{};
    std::transform(host_state_.data(), host_state_.data() + CG_SCALARS, s.begin(),
                   [](T x) { return static_cast<double>(x); });
    return s;
  }

  void spmv_dot2_advance(Slot r, Slot w, int rule) override {
    launch_spmv_dot2(r, w, 0, rows_);
    const Part part = parts_.back();
    parts_.clear();
    const T* partials = partials_.data() + part.offset;
    T* state = state_.data();
    enqueue("advance_scalars", [&] {
      cuda::rtc_launch(kernels_.advance_scalars, "advance_scalars", 1, advance_block, 0, stream_.get(),
                       static_cast<unsigned>(part.blocks), partials, state, rule);
    });
  }

  void three_term_update_scalars(Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    launch_three_term(real(0), real(0), state_.data(), x, x_prev, r, r_prev, w);
  }

  void cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x) override {
    launch_cg_update(real(0), real(0), state_.data(), r, w, p, s, x);
  }

  // Across devices (distributed.hpp): the band's parts summed on its device into kept_ (after the
  // bands that read the previous ones have done so). Another CUDA band's kept sums are read where
  // they are, by the advance kernel over the peer link (NVLink, PCIe), once that band's stream
  // has made them; where the two devices have no peer access they are copied here first; another
  // API's come through the host. The state is advanced on the device.
  void finish_reduction_here() override {
    if (parts_.empty()) throw Error(ExitCode::internal, "finish_reduction_here without a reduction begun");
    make_current();
    for (const cuda::Event* e : kept_readers_)
      cuda::check(cudaStreamWaitEvent(stream_.get(), e->get(), 0), "cudaStreamWaitEvent");
    kept_readers_.clear();
    std::array<const T*, max_reduction_parts> p{};
    std::array<unsigned, max_reduction_parts> n{};
    for (std::size_t k = 0; k < max_reduction_parts; ++k) {
      p[k] = partials_.data();
      if (k < parts_.size()) {
        p[k] += parts_[k].offset;
        n[k] = static_cast<unsigned>(parts_[k].blocks);
      }
    }
    parts_.clear();
    T* kept = kept_.data();
    enqueue("sum_partials", [&] {
      cuda::rtc_launch(kernels_.keep_sums, "keep_sums", 1, advance_block, 0, stream_.get(), p[0], n[0], p[1], n[1], p[2],
                       n[2], kept);
    });
    kept_ready_.record(stream_);
  }

  std::array<double, 2> kept_sums() override {
    make_current();
    cuda::check(cudaMemcpyAsync(host_state_.data(), kept_.data(), 2 * sizeof(T), cudaMemcpyDeviceToHost, stream_.get()),
                "cudaMemcpyAsync", "(kept sums)");
    stream_.synchronize();
    return {static_cast<double>(host_state_.data()[0]), static_cast<double>(host_state_.data()[1])};
  }

  void gather_sums(Operations& from, int index) override {
    if (index < 0 || static_cast<std::size_t>(index) >= max_bands)
      throw Error(ExitCode::internal, "gather_sums: slot " + std::to_string(index) + " of " + std::to_string(max_bands));
    T* slot = gathered_.data() + 2 * static_cast<std::size_t>(index);
    const T* source = slot;  // where the advance kernel reads band `index`'s pair
    auto* peer = dynamic_cast<CudaOperations<T>*>(&from);
    make_current();
    if (!peer) {  // another API's band: through the host
      const auto sums = from.kept_sums();
      make_current();
      host_state_.data()[0] = static_cast<T>(sums[0]);
      host_state_.data()[1] = static_cast<T>(sums[1]);
      cuda::check(cudaMemcpyAsync(slot, host_state_.data(), 2 * sizeof(T), cudaMemcpyHostToDevice, stream_.get()),
                  "cudaMemcpyAsync", "(gathered sums)");
      stream_.synchronize();  // host_state_ may be reused at once
    } else {
      if (peer != this) {
        cuda::check(cudaStreamWaitEvent(stream_.get(), peer->kept_ready_.get(), 0), "cudaStreamWaitEvent");
        peer->kept_readers_.push_back(&gathered_ready_);  // recorded after this band's advance
      }
      if (peer == this || peer->info_.index == info_.index || peers_.count(peer->info_.index) > 0) {
        source = peer->kept_.data();
      } else {
        enqueue("gather_sums", [&] {
          cuda::check(cudaMemcpyPeerAsync(slot, info_.index, peer->kept_.data(), peer->info_.index, 2 * sizeof(T),
                                          stream_.get()),
                      "cudaMemcpyPeerAsync", "(kept sums from " + peer->info_.label() + ")");
        });
      }
    }
    auto& table = kept_table_host_;
    if (table.size() <= static_cast<std::size_t>(index)) table.resize(static_cast<std::size_t>(index) + 1, nullptr);
    if (table[static_cast<std::size_t>(index)] != source) {
      table[static_cast<std::size_t>(index)] = source;
      kept_table_dirty_ = true;
    }
  }

  void advance_gathered(int count, int rule) override {
    if (count < 1 || static_cast<std::size_t>(count) > kept_table_host_.size())
      throw Error(ExitCode::internal, "advance_gathered: " + std::to_string(count) + " slots");
    make_current();
    if (kept_table_dirty_) {  // once: the bands' buffers stay where they are
      stream_.synchronize();
      cuda::check(cudaMemcpy(kept_table_.data(), kept_table_host_.data(), kept_table_host_.size() * sizeof(const T*),
                             cudaMemcpyHostToDevice),
                  "cudaMemcpy", "(the bands' kept sums' addresses)");
      kept_table_dirty_ = false;
    }
    const T* const* table = kept_table_.data();
    T* state = state_.data();
    enqueue("advance_scalars", [&] {
      cuda::rtc_launch(kernels_.advance_gathered, "advance_gathered", 1, warp_size, 0, stream_.get(),
                       static_cast<unsigned>(count), table, state, rule);
    });
    gathered_ready_.record(stream_);
  }

  // Each sum over the parts' partials in part and block order, in double; the reduction ends.
  std::array<double, 2> finish_reduction() override {
    read_partials();
    stream_.synchronize();
    std::array<double, 2> sums{0, 0};
    for (const Part& part : parts_)
      for (std::size_t k = 0; k < part.sums; ++k)
        for (std::size_t g = 0; g < part.blocks; ++g)
          sums[k] += static_cast<double>(host_partials_[part.offset + k * part.blocks + g]);
    parts_.clear();
    return sums;
  }

  void axpy(double alpha, Slot x, Slot y) override {
    const T* xv = vector(x);
    T* yv = vector(y);
    run("axpy", launches_.axpy, "axpy", kernels_.axpy, 0, n(), real(alpha), xv, yv);
  }

  void xpay(Slot x, double beta, Slot y) override {
    const T* xv = vector(x);
    T* yv = vector(y);
    run("xpay", launches_.xpay, "xpay", kernels_.xpay, 0, n(), xv, real(beta), yv);
  }

  void scale(double alpha, Slot x, Slot y) override {
    const T* xv = vector(x);
    T* yv = vector(y);
    run("scale", launches_.scale, "scale", kernels_.scale, 0, n(), real(alpha), xv, yv);
  }

  void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) override {
    launch_three_term(real(rho), real(gamma), nullptr, x, x_prev, r, r_prev, w);
  }

  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    launch_cg_update(real(alpha), real(beta), nullptr, r, w, p, s, x);
  }

  void start_timer() override { times_.start(); }
  double stop_timer() override { return times_.stop(stream_); }
  void set_profiling(bool on) override { times_.profile(on); }
  void finish() override {
    exchange_stream_.synchronize();
    stream_.synchronize();
  }
  void make_current() override { cuda::check(cudaSetDevice(info_.index), "cudaSetDevice", "for " + info_.label()); }

  std::vector<KernelProfile> take_profile() override {
    ProfileRecorder profile;
    for (const auto& [kernel, seconds] : times_.take_profile(stream_)) profile.add(kernel, seconds);
    return profile.take();
  }

  int rows() const override { return rows_; }
  int cols() const override { return cols_; }

  void set_launch(const std::string& kernel, const Params& launch) override {
    make_current();  // it may allocate (the dot partials) on this device
    check_set_launch(kernel, launch, largest_block_, info_);
    const Launch l{static_cast<std::size_t>(grid::group_size_of(launch)),
                   static_cast<std::size_t>(std::max(info_.compute_units, 1)) *
                       static_cast<std::size_t>(grid::groups_per_cu_of(launch)),
                   static_cast<unsigned>(spmv_dot2_runs(launch)), slab_spmv(launch), slab_lanes(launch),
                   slab_cache_kib(launch)};
    // The reductions write one or two partials per block, a reduction's parts one after another.
    if (max_reduction_parts * 2 * l.blocks > partials_.size()) {
      stream_.synchronize();  // queued kernels may still write the old buffer
      partials_ = cuda::DeviceBuffer<T>(max_reduction_parts * 2 * l.blocks);
      host_partials_ = cuda::PinnedBuffer<T>(max_reduction_parts * 2 * l.blocks);
    }
    launches_[kernel] = l;
    if (kernel == "spmv_dot2") {  // its blocks' partials, for the whole matrix at this block size
      const std::size_t needed = 2 * std::get<2>(spmv_dot2_grid(rows_));
      if (needed > block_partials_.size()) {
        stream_.synchronize();
        block_partials_ = cuda::DeviceBuffer<T>(needed);
      }
    }
    if (ready_ && (kernel == "spmv" || kernel == "spmv_dot2")) make_slab_layouts(nullptr);
  }

  // cuBLAS and cuSPARSE calls on these vectors (the vendor variant), made on first use (cuda_vendor.cu).
  LibraryCalls* library() override;

 private:
  static constexpr cusparseSpMVAlg_t spmv_algorithm = CUSPARSE_SPMV_CSR_ALG1;

  // The vendor variant's library calls and their state, made on first use (cuda_vendor.cu): the
  // handles (bound to the stream) and the matrix's descriptor (rows x cols: a band's halo is read
  // too); then, once vectors exist (prepare_spmv), the vector descriptors and cusparseSpMV's work
  // buffer, sized and allocated once. Each call is enqueued, timed and profiled like the kernels.
  struct Library final : LibraryCalls {
    explicit Library(CudaOperations& owner);
    void prepare_spmv(Slot in, Slot out) override;
    void spmv(Slot in, Slot out) override;
    double dot(Slot a, Slot b) override;
    void axpy(double alpha, Slot x, Slot y) override;
    void scal(double alpha, Slot x) override;

    CudaOperations& ops;
    cuda::BlasHandle blas;
    cuda::SparseHandle sparse;
    cuda::SparseCsr matrix;
    std::optional<cuda::DenseVector> in, out;
    cuda::DeviceBuffer<unsigned char> work;
  };

  std::size_t vector_bytes() const { return static_cast<std::size_t>(rows_) * sizeof(T); }
  unsigned n() const { return static_cast<unsigned>(rows_); }
  int n_int() const { return rows_; }
  static T real(double x) { return static_cast<T>(x); }

  template <typename U>
  cuda::DeviceBuffer<U> upload_array(std::span<const U> host) {
    // At least one element, so that no array's pointer is null (cuSPARSE refuses null arrays).
    cuda::DeviceBuffer<U> buffer(std::max<std::size_t>(host.size(), 1));
    if (!host.empty())
      cuda::check(cudaMemcpyAsync(buffer.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream_.get()),
                  "cudaMemcpyAsync", "(matrix upload)");
    return buffer;
  }

  T* vector(Slot v) const {
    check_slot(v, vectors_.size());
    return vectors_[static_cast<std::size_t>(v)].data();
  }

  // spmv_dot2's launch for `count` rows: the block size (a multiple of 32: the lanes shuffle
  // across whole warps), the lanes per row and the blocks (each its launch's row_runs runs of rows).
  std::tuple<std::size_t, unsigned, std::size_t> spmv_dot2_grid(std::int32_t count) const {
    const std::size_t block = std::max<std::size_t>(launches_.spmv_dot2.block / warp_size * warp_size, warp_size);
    const unsigned lanes = spmv_lanes(per_row_, block);
    const std::size_t rows_per_block = block / lanes * launches_.spmv_dot2.runs;
    return {block, lanes, (static_cast<std::size_t>(count) + rows_per_block - 1) / rows_per_block};
  }

  // Where the next part of the reduction writes its `sums` sums of `blocks` partials each: after
  // the parts begun since the last finish_reduction().
  T* next_part(std::size_t blocks, std::size_t sums) {
    const std::size_t offset = parts_.empty() ? 0 : parts_.back().offset + parts_.back().sums * parts_.back().blocks;
    if (parts_.size() == max_reduction_parts || offset + sums * blocks > partials_.size())
      throw Error(ExitCode::internal, "a CG reduction of more parts or partials than planned");
    parts_.push_back({offset, blocks, sums, false});
    return partials_.data() + offset;
  }
  // The parts' partials not yet read, read back without waiting (finish_reduction waits).
  void read_partials() {
    for (Part& part : parts_) {
      if (part.read) continue;
      cuda::check(cudaMemcpyAsync(host_partials_.data() + part.offset, partials_.data() + part.offset,
                                  part.sums * part.blocks * sizeof(T), cudaMemcpyDeviceToHost, stream_.get()),
                  "cudaMemcpyAsync", "(dot partials)");
      part.read = true;
    }
  }

  void launch_dot2(Slot r, Slot w) {
    const T* rv = vector(r);
    const T* wv = vector(w);
    const Launch& l = launches_.dot2;
    run("dot2", l, "dot2_partials", kernels_.dot2_partials, 2 * l.block * sizeof(T), n(), rv, wv,
        next_part(l.blocks, 2));
  }

  // Rows [first, first + count) of w = A r and their share of r.r and w.r in one kernel
  // (spmv_dot2: one thread per row, or spmv_vector's lanes where rows are long), its blocks'
  // partials summed on the device (sum_partials2, its own profile row) to one pair per SM: the
  // reduction's next part. Where the slab SpMV runs (slabs.hpp: the whole matrix, long rows over
  // few columns, NAS CG), its blocks' pairs are the part.
  void launch_spmv_dot2(Slot r, Slot w, std::int32_t first, std::int32_t count) {
    check_row_range(first, count, rows_);
    if (const SlabLayout* m = slab_layout(launches_.spmv_dot2); m && first == 0 && count == rows_) {  // its blocks' sums
      launch_slabs(*m, r, w, next_part(m->plan.groups, 2), launches_.spmv_dot2.slab_lanes);
      return;
    }
    const auto [block, lanes, blocks] = spmv_dot2_grid(count);
    if (2 * blocks > block_partials_.size())
      throw Error(ExitCode::internal, "spmv_dot2: more blocks than its partials were sized for");
    const T* x = vector(r);
    T* y = vector(w) + first;
    const std::int32_t* row_ptr = row_ptr_.data() + first;
    const std::int32_t* matrix_cols = col_idx_.data();
    const T* matrix_values = values_.data();
    T* block_partials = block_partials_.data();
    if (blocks > 0)
      enqueue("spmv_dot2", [&] {
        cuda::rtc_launch(kernels_.spmv_dot2, "spmv_dot2", static_cast<unsigned>(blocks), static_cast<unsigned>(block),
                         0, stream_.get(), static_cast<unsigned>(count), lanes, launches_.spmv_dot2.runs, row_ptr, matrix_cols,
                         matrix_values, x, x + first, y, block_partials);
      });
    const std::size_t sum_blocks = static_cast<std::size_t>(std::max(info_.compute_units, 1));
    T* sums = next_part(sum_blocks, 2);
    const auto sum_block = static_cast<unsigned>(std::min<std::size_t>(largest_block_, 256) / warp_size * warp_size);
    enqueue("sum_partials", [&] {
      cuda::rtc_launch(kernels_.sum_partials2, "sum_partials2", static_cast<unsigned>(sum_blocks),
                       std::max(sum_block, warp_size), 0, stream_.get(), static_cast<unsigned>(blocks),
                       static_cast<const T*>(block_partials), sums);
    });
  }

  // The update kernels with coefficients given, or (state not null) read from the scalars' state.
  void launch_three_term(T rho, T gamma, const T* state, Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) {
    const T* xv = vector(x);
    T* xp = vector(x_prev);
    const T* rv = vector(r);
    T* rp = vector(r_prev);
    const T* wv = vector(w);
    run("three_term_update", launches_.three_term_update, "three_term_update", kernels_.three_term_update, 0, n(), rho,
        gamma, state, xv, xp, rv, rp, wv);
  }
  void launch_cg_update(T alpha, T beta, const T* state, Slot r, Slot w, Slot p, Slot s, Slot x) {
    T* rv = vector(r);
    const T* wv = vector(w);
    T* pv = vector(p);
    T* sv = vector(s);
    T* xv = vector(x);
    run("cg_update", launches_.cg_update, "cg_update", kernels_.cg_update, 0, n(), alpha, beta, state, rv, wv, pv, sv,
        xv);
  }

  // A kernel's launch: block size, blocks for the grid-stride kernels, runs of rows per block
  // for spmv_dot2.
  struct Launch {
    std::size_t block = 0, blocks = 0;
    unsigned runs = default_row_runs;
    bool slabs = true;  // SpMV as spmv_slabs where it was planned
    unsigned slab_lanes = 0;  // its threads per row (0: the plan's)
    unsigned slab_cache_kib = 0;  // its slabs' KiB of x gathered through the cache (0: staged)
  };

  // One layout of the matrix for spmv_slabs (slabs.hpp): its plan and arrays.
  struct SlabLayout {
    SlabPlan plan;
    cuda::DeviceBuffer<std::int32_t> row_ptr;
    cuda::DeviceBuffer<std::uint16_t> offsets;
    cuda::DeviceBuffer<T> values;
    std::size_t shared_bytes() const { return plan.slice_bytes + plan.sums_bytes + plan.offsets_bytes; }
  };

  // Where SpMV can run as spmv_slabs (kernels/cg/slabs.hpp): blocks of up to 1024 threads, two per
  // SM, each with half the SM's shared memory, so that one copies its slice of x while the other
  // gathers (measured on the H100, NAS CG class C, before the rows' sums moved to shared memory:
  // 0.275 ms per SpMV against 0.345 with one block per SM and 0.348 for spmv_vector). The matrix
  // slab by slab for each layout the SpMV launches ask for.
  void plan_slabs(const CsrMatrix& a) {
    int device = 0, per_block = 0, per_sm = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                "cudaDeviceGetAttribute", "(cudaDevAttrMaxSharedMemoryPerBlockOptin)");
    cuda::check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
                "cudaDeviceGetAttribute", "(cudaDevAttrMaxSharedMemoryPerMultiprocessor)");
    constexpr std::size_t blocks_per_sm = 2;
    // The runtime keeps 1 KiB of each block's shared memory; block_partials2 takes 2 x 32 reals.
    slab_shared_ = std::min<std::size_t>(static_cast<std::size_t>(per_block),
                                         static_cast<std::size_t>(per_sm) / blocks_per_sm - 1024) -
                   2 * 32 * sizeof(T);
    slab_block_ =
        std::min<std::size_t>(1024, static_cast<std::size_t>(cuda::rtc_max_threads(kernels_.spmv_slabs, "spmv_slabs"))) /
        warp_size * warp_size;
    slab_grid_ = static_cast<std::size_t>(std::max(info_.compute_units, 1)) * blocks_per_sm;
    square_ = a.rows == a.cols;
    make_slab_layouts(&a);
  }
  // The layouts the SpMV launches ask for, made from `a` (null: the matrix read back from the
  // device), the others dropped.
  void make_slab_layouts(const CsrMatrix* a) {
    if (slab_block_ == 0 || !square_) return;
    std::optional<CsrMatrix> read_back;
    const auto make = [&](unsigned cache_kib) -> std::optional<SlabLayout> {
      if (!a) a = &read_back.emplace(device_matrix());
      auto plan = cg::plan_slabs(*a, slab_block_, slab_shared_, slab_grid_, sizeof(T), std::size_t{cache_kib} * 1024);
      if (!plan) return std::nullopt;
      SlabLayout layout{*plan, {}, {}, {}};
      max_slab_shared_ = std::max(max_slab_shared_, layout.shared_bytes());
      cuda::rtc_set_max_shared(kernels_.spmv_slabs, max_slab_shared_, "spmv_slabs");
      const SlabMatrix m = slab_matrix(*a, *plan);
      std::vector<T> values(m.values.size());
      std::transform(m.values.begin(), m.values.end(), values.begin(), [](double v) { return static_cast<T>(v); });
      layout.row_ptr = upload_array(std::span<const std::int32_t>(m.row_ptr));
      layout.offsets = upload_array(std::span<const std::uint16_t>(m.offsets));
      layout.values = upload_array(std::span<const T>(values));
      stream_.synchronize();  // the uploads read the vectors above
      if (max_reduction_parts * 2 * plan->groups > partials_.size()) {
        partials_ = cuda::DeviceBuffer<T>(max_reduction_parts * 2 * plan->groups);
        host_partials_ = cuda::PinnedBuffer<T>(max_reduction_parts * 2 * plan->groups);
      }
      return layout;
    };
    const unsigned spmv = launches_.spmv.slab_cache_kib, fused = launches_.spmv_dot2.slab_cache_kib;
    stream_.synchronize();  // a layout about to be dropped may still be read by queued kernels
    slab_layouts_.keep({spmv, fused});
    if (launches_.spmv.slabs) slab_layouts_.get(spmv, make);
    if (launches_.spmv_dot2.slabs) slab_layouts_.get(fused, make);
  }
  // The layout an SpMV launch runs with: null where it asks for the CSR kernels or its plan declined.
  const SlabLayout* slab_layout(const Launch& l) const { return l.slabs ? slab_layouts_.find(l.slab_cache_kib) : nullptr; }
  // The matrix as uploaded (its values in T): what a layout made after construction is laid out from.
  CsrMatrix device_matrix() {
    stream_.synchronize();
    CsrMatrix a;
    a.rows = a.cols = rows_;
    a.row_ptr.resize(static_cast<std::size_t>(rows_) + 1);
    cuda::check(cudaMemcpy(a.row_ptr.data(), row_ptr_.data(), a.row_ptr.size() * sizeof(std::int32_t),
                           cudaMemcpyDeviceToHost), "cudaMemcpy", "(the matrix's row offsets)");
    const auto nnz = static_cast<std::size_t>(a.row_ptr.back());
    a.col_idx.resize(nnz);
    std::vector<T> values(nnz);
    if (nnz > 0) {
      cuda::check(cudaMemcpy(a.col_idx.data(), col_idx_.data(), nnz * sizeof(std::int32_t), cudaMemcpyDeviceToHost),
                  "cudaMemcpy", "(the matrix's columns)");
      cuda::check(cudaMemcpy(values.data(), values_.data(), nnz * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy",
                  "(the matrix's values)");
    }
    a.values.assign(values.begin(), values.end());
    return a;
  }

  // out = A in by spmv_slabs with layout `m`; with `partials`, the fused forms' sums too (a pair
  // per block); `lanes` threads per row (0: the plan's).
  void launch_slabs(const SlabLayout& m, Slot in, Slot out, T* partials, unsigned lanes) {
    const SlabPlan& p = m.plan;
    const T* x = vector(in);
    T* y = vector(out);
    const auto grid = static_cast<unsigned>(p.groups);
    const auto block = static_cast<unsigned>(slab_block_);
    enqueue(partials ? "spmv_dot2" : "spmv", [&] {
      cuda::rtc_launch(kernels_.spmv_slabs, "spmv_slabs", grid, block, m.shared_bytes(), stream_.get(), n(), n(),
                       lanes_of(p, lanes, slab_block_), static_cast<unsigned>(p.width), static_cast<unsigned>(p.slabs),
                       static_cast<unsigned>(p.staged ? 1 : 0), static_cast<const std::int32_t*>(m.row_ptr.data()),
                       static_cast<const std::uint16_t*>(m.offsets.data()), static_cast<const T*>(m.values.data()), x,
                       y, partials, static_cast<unsigned>(p.slice_bytes),
                       static_cast<unsigned>(p.slice_bytes + p.sums_bytes));
    });
  }

  static bool can_access_peer(int device, int peer) {
    int can = 0;
    cuda::check(cudaDeviceCanAccessPeer(&can, device, peer), "cudaDeviceCanAccessPeer");
    return can != 0;
  }

  // This device (current) reads and writes `peer`'s memory directly from now on.
  void enable_peer_access(int peer) {
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      static_cast<void>(cudaGetLastError());  // (clears it) another band enabled it already
      peers_.insert(peer);
      return;
    }
    cuda::check(e, "cudaDeviceEnablePeerAccess", "(" + info_.label() + " to device " + std::to_string(peer) + ")");
    peers_.insert(peer);
  }


  // A grid-stride kernel on SMs x blocks per SM blocks, with `shared` bytes of dynamic shared memory.
  template <typename... Args>
  void run(const char* profile_name, const Launch& l, const char* kernel_name, cudaKernel_t kernel, std::size_t shared,
           Args... args) {
    const auto grid = static_cast<unsigned>(l.blocks);
    const auto block = static_cast<unsigned>(l.block);
    enqueue(profile_name, [&] { cuda::rtc_launch(kernel, kernel_name, grid, block, shared, stream_.get(), args...); });
  }

  // Queues `body`'s work on the stream between the events that timing and profiling ask for.
  template <typename Body>
  void enqueue(const char* kernel, Body&& body) {
    times_.around(stream_, kernel, std::forward<Body>(body));
  }

  // Declaration order is destruction order reversed: the library state and the buffers go before
  // the stream they were used on.
  DeviceInfo info_;
  Kernels<T> kernels_;  // built on info_'s device, made current by open_device
  int rows_;
  int cols_;  // a band's vectors hold its halo after its rows; kernels and transfers use rows_
  std::int64_t nnz_;
  cuda::Stream stream_;
  cuda::Stream exchange_stream_;  // the halo copies into this one (send_entries)
  cuda::KernelTimes times_;  // the timed region and the profile, on stream_
  std::size_t largest_block_ = 0;
  double per_row_ = 0;  // average nonzeros per row: SpMV's lanes per row follow from it
  KernelLaunches<Launch> launches_;
  cuda::DeviceBuffer<std::int32_t> row_ptr_, col_idx_;
  // spmv_slabs (slabs.hpp) where it suits the matrix: its plan, block size and matrix.
  // spmv_slabs where it suits the matrix: its block size (0: never), grid and the shared memory
  // its plans may take, the most a layout takes (the kernel's limit), its layouts.
  std::size_t slab_block_ = 0, slab_grid_ = 0, slab_shared_ = 0, max_slab_shared_ = 0;
  bool square_ = false;  // the matrix (not a band with a halo)
  bool ready_ = false;   // constructed: set_launch may make layouts
  SlabLayouts<SlabLayout> slab_layouts_;
  cuda::DeviceBuffer<T> values_, partials_;
  cuda::PinnedBuffer<T> host_partials_;
  cuda::DeviceBuffer<T> block_partials_;  // spmv_dot2's, summed on the device by sum_partials2
  // The fused forms' scalars (recurrence.h) on the device, and their host copy for set and get.
  cuda::DeviceBuffer<T> state_{CG_SCALARS};
  cuda::PinnedBuffer<T> host_state_{CG_SCALARS};
  static constexpr unsigned advance_block = 128;  // advance_scalars' and keep_sums' one block
  // Across devices (finish_reduction_here, gather_sums): this band's kept sums and the event that
  // says they are made, the bands' gathered here and the event after this band's copies of them,
  // and the other bands' such events that the next kept sums wait for.
  static constexpr std::size_t max_bands = 256;
  cuda::DeviceBuffer<T> kept_{2};
  cuda::DeviceBuffer<T> gathered_{2 * max_bands};  // copies, where a band's pair cannot be read in place
  cuda::DeviceBuffer<const T*> kept_table_{max_bands};  // where advance_gathered reads band k's pair
  std::vector<const T*> kept_table_host_;
  bool kept_table_dirty_ = false;
  cuda::Event kept_ready_, gathered_ready_;
  std::vector<const cuda::Event*> kept_readers_;
  std::set<int> peers_;  // the devices this one has peer access to (enable_peer_access)
  // The reduction begun: its parts in partials_ (Operations::max_reduction_parts at most).
  struct Part {
    std::size_t offset = 0, blocks = 0, sums = 0;
    bool read = false;  // its read-back queued
  };
  std::vector<Part> parts_;
  std::vector<cuda::DeviceBuffer<T>> vectors_;
  cuda::PinnedBuffer<T> staging_;  // page-locked: uploads and downloads at the link's speed
  std::unique_ptr<Library> library_;
  // Device-to-device halo copies (send_entries): scattered entries packed per send (keyed by its
  // list of rows), the event the receiver waits for and the one this band's stream waits for.
  struct Packed {
    cuda::DeviceBuffer<std::int32_t> index;
    cuda::DeviceBuffer<T> entries;
  };
  std::map<const std::int32_t*, Packed> packed_;
  // sent_: this stream reached the entries it sends; reached_: this stream reached the work issued
  // before the copies into its halo; received_: the copies into its halo done (on exchange_stream_).
  cuda::Event sent_, reached_, received_;
  bool receiving_ = false;  // copies into the halo since the last await_sends()
  std::vector<const cuda::Event*> sending_to_;  // the receivers' received_ of this one's copies since then

};

}  // namespace gpubench::cg
