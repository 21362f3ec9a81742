// The host reference: textbook CG in double precision, written directly (not through the
// Operations interface) so that it shares no code with what it checks. Runs lazily: asking for
// iteration k runs it up to k once, and remembers every residual on the way.
#pragma once

#include <span>
#include <vector>

#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

void host_spmv(const CsrMatrix& a, std::span<const double> x, std::span<double> y);
double host_dot(std::span<const double> a, std::span<const double> b);

// ||b - A x|| / ||b||, in double.
double true_relative_residual(const CsrMatrix& a, std::span<const double> b, std::span<const double> x);
// max_i sum_j |a_ij|
double norm_inf(const CsrMatrix& a);

class HostReference {
 public:
  HostReference(const CsrMatrix& a, std::vector<double> b);
  // ||r_k|| / ||b|| of the reference's own recurrence after k iterations from x = 0.
  double relative_residual(int k);
  double b_norm() const { return b_norm_; }

 private:
  void step();
  const CsrMatrix& a_;
  std::vector<double> b_, x_, r_, p_, ap_;
  std::vector<double> residuals_;  // residuals_[k]: after k iterations
  double rr_ = 0, b_norm_ = 0;
};

}  // namespace gpubench::cg
