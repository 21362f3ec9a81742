// Test doubles over a real backend's CG operations: every call goes to the inner Operations, so
// that a test overrides only what it changes (a planted wrong kernel, library calls, ...).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "kernels/cg/operations.hpp"

namespace gpubench::cg {

class ForwardingOperations : public Operations {
 public:
  explicit ForwardingOperations(std::unique_ptr<Operations> inner) : in_(std::move(inner)) {}

  void allocate_vectors(int count) override { in_->allocate_vectors(count); }
  void upload(Slot v, std::span<const double> values) override { in_->upload(v, values); }
  void download(Slot v, std::span<double> values) override { in_->download(v, values); }
  void fill_zero(Slot v) override { in_->fill_zero(v); }
  void copy(Slot src, Slot dst) override { in_->copy(src, dst); }
  void spmv(Slot in, Slot out) override { in_->spmv(in, out); }
  void spmv_rows(Slot in, Slot out, std::int32_t first, std::int32_t count) override {
    in_->spmv_rows(in, out, first, count);
  }
  double dot(Slot a, Slot b) override { return in_->dot(a, b); }
  void axpy(double alpha, Slot x, Slot y) override { in_->axpy(alpha, x, y); }
  void xpay(Slot x, double beta, Slot y) override { in_->xpay(x, beta, y); }
  void scale(double alpha, Slot x, Slot y) override { in_->scale(alpha, x, y); }
  std::array<double, 2> dot2(Slot r, Slot w) override { return in_->dot2(r, w); }
  void start_dot(Slot a, Slot b) override { in_->start_dot(a, b); }
  void start_dot2(Slot r, Slot w) override { in_->start_dot2(r, w); }
  std::array<double, 2> finish_reduction() override { return in_->finish_reduction(); }
  void ready_reduction() override { in_->ready_reduction(); }
  void finish_reduction_here() override { in_->finish_reduction_here(); }
  std::array<double, 2> kept_sums() override { return in_->kept_sums(); }
  void gather_sums(Operations& from, int index) override { in_->gather_sums(from, index); }
  void advance_gathered(int count, int rule) override { in_->advance_gathered(count, rule); }
  std::array<double, 2> spmv_dot2(Slot r, Slot w) override { return in_->spmv_dot2(r, w); }
  void start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count) override {
    in_->start_spmv_dot2_rows(r, w, first, count);
  }
  void three_term_update(double rho, double gamma, Slot x, Slot xp, Slot r, Slot rp, Slot w) override {
    in_->three_term_update(rho, gamma, x, xp, r, rp, w);
  }
  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    in_->cg_update(alpha, beta, r, w, p, s, x);
  }
  bool device_scalars() const override { return in_->device_scalars(); }
  void set_scalars(const Scalars& s) override { in_->set_scalars(s); }
  Scalars get_scalars() override { return in_->get_scalars(); }
  void spmv_dot2_advance(Slot r, Slot w, int rule) override { in_->spmv_dot2_advance(r, w, rule); }
  void three_term_update_scalars(Slot x, Slot xp, Slot r, Slot rp, Slot w) override {
    in_->three_term_update_scalars(x, xp, r, rp, w);
  }
  void cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x) override { in_->cg_update_scalars(r, w, p, s, x); }
  void start_timer() override { in_->start_timer(); }
  double stop_timer() override { return in_->stop_timer(); }
  void set_profiling(bool on) override { in_->set_profiling(on); }
  void finish() override { in_->finish(); }
  std::vector<KernelProfile> take_profile() override { return in_->take_profile(); }
  int rows() const override { return in_->rows(); }
  int cols() const override { return in_->cols(); }
  void upload_halo(Slot v, std::span<const double> values) override { in_->upload_halo(v, values); }
  void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) override {
    in_->download_entries(v, rows, values);
  }

 protected:
  Operations& inner() { return *in_; }

 private:
  std::unique_ptr<Operations> in_;
};

}  // namespace gpubench::cg
