#include "kernels/cg/reference.hpp"

#include <cmath>
#include <cstdint>

namespace gpubench::cg {

void host_spmv(const CsrMatrix& a, std::span<const double> x, std::span<double> y) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < a.rows; ++i) {
    double sum = 0;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];
    y[i] = sum;
  }
}

double host_dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  const auto n = static_cast<std::int64_t>(a.size());
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

double true_relative_residual(const CsrMatrix& a, std::span<const double> b, std::span<const double> x) {
  std::vector<double> r(b.size());
  host_spmv(a, x, r);
  const auto n = static_cast<std::int64_t>(r.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) r[i] = b[i] - r[i];
  return std::sqrt(host_dot(r, r) / host_dot(b, b));
}

double norm_inf(const CsrMatrix& a) {
  double m = 0;
  for (std::int32_t i = 0; i < a.rows; ++i) {
    double s = 0;
    for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s += std::abs(a.values[k]);
    m = std::max(m, s);
  }
  return m;
}

HostReference::HostReference(const CsrMatrix& a, std::vector<double> b)
    : a_(a), b_(std::move(b)), x_(b_.size(), 0.0), r_(b_), p_(b_), ap_(b_.size()) {
  rr_ = host_dot(r_, r_);
  b_norm_ = std::sqrt(rr_);
  residuals_.push_back(1.0);
}

double HostReference::relative_residual(int k) {
  while (static_cast<int>(residuals_.size()) <= k) step();
  return residuals_[static_cast<std::size_t>(k)];
}

void HostReference::step() {
  if (rr_ == 0) {  // converged exactly: stays there
    residuals_.push_back(0);
    return;
  }
  host_spmv(a_, p_, ap_);
  const double alpha = rr_ / host_dot(p_, ap_);
  const auto n = static_cast<std::int64_t>(x_.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    x_[i] += alpha * p_[i];
    r_[i] -= alpha * ap_[i];
  }
  const double rr_new = host_dot(r_, r_);
  const double beta = rr_new / rr_;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) p_[i] = r_[i] + beta * p_[i];
  rr_ = rr_new;
  residuals_.push_back(std::sqrt(rr_) / b_norm_);
}

}  // namespace gpubench::cg
