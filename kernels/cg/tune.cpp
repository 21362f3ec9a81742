#include "kernels/cg/tune.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

namespace {

// Slots 0..4 keep pristine inputs on the device; 5..9 are the ones the kernels work on, reset
// from them by device copies before each verification.
constexpr int inputs = 5;
constexpr Slot work_slot(int i) { return inputs + i; }

// Scalars passed to the kernels under test: plain values that keep repeated calls finite.
constexpr double alpha = 0.5, beta = 0.5, rho = 0.9, gamma_ = 0.3, cg_alpha = 0.3, cg_beta = 0.7;

// One Operations shared by every kernel of a target, with the inputs on the device and on the host.
struct Bench {
  std::shared_ptr<const Problem> problem;
  Precision precision = Precision::f64;
  std::unique_ptr<Operations> ops;
  std::array<std::vector<double>, inputs> host;  // the pristine inputs
  std::vector<double> got;  // a downloaded output: kept, so that each verification reuses its pages
};

double tolerance(Precision p, bool reduction) {
  if (p == Precision::f64) return reduction ? 1e-10 : 1e-12;
  return reduction ? 1e-3 : 1e-5;
}

// max_i |got_i - want_i| / max_i |want_i|: zero for an exact result, infinite where a value is
// not finite. Over the host's threads: outputs of 10^7 values are verified hundreds of times a sweep.
double max_relative_error(const std::vector<double>& got, const std::vector<double>& want) {
  const auto n = static_cast<std::ptrdiff_t>(want.size());
  double diff = 0, scale = 0;
  bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : diff, scale) reduction(&& : finite)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    finite = finite && std::isfinite(got[k]);
    diff = std::max(diff, std::abs(got[k] - want[k]));
    scale = std::max(scale, std::abs(want[k]));
  }
  if (!finite) return INFINITY;
  return scale > 0 ? diff / scale : diff;
}

class CgTunableKernel final : public TunableKernel {
 public:
  // `call` launches the kernel once on the work slots; `outputs` are the work slots it writes
  // (none for the dots, whose result `call` returns), `expected` their host values.
  using Call = std::function<std::array<double, 2>(Operations&)>;

  CgTunableKernel(std::shared_ptr<Bench> bench, std::size_t largest_group, bool spmv_forms, std::string kernel, Call call,
                  std::vector<Slot> outputs, std::vector<std::vector<double>> expected,
                  std::array<double, 2> expected_value, int values)
      : bench_(std::move(bench)), largest_group_(largest_group), spmv_forms_(spmv_forms), kernel_(std::move(kernel)), call_(std::move(call)),
        outputs_(std::move(outputs)), expected_(std::move(expected)), expected_value_(expected_value),
        values_(values) {}

  std::string name() const override { return kernel_; }
  TunableSpace tunables() const override { return kernel_tunables(kernel_, largest_group_, spmv_forms_); }
  Params heuristic() const override { return heuristic_params(kernel_, largest_group_, spmv_forms_); }
  TuningKey key() const override {
    const auto& a = bench_->problem->a;
    return TuningKey::of_sizes("cg", kernel_, bench_->precision, {{"rows", a.rows}, {"nnz", a.nnz()}});
  }
  double flops_per_call() const override { return work().flops; }
  double bytes_per_call() const override { return work().bytes; }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    Operations& ops = *bench_->ops;
    check_launch(kernel_, params, "CG " + kernel_);
    ops.set_launch(kernel_, params);
    verify(ops);
    return time_batches(
        [&](int calls) {
          ops.start_timer();
          for (int c = 0; c < calls; ++c) call_(ops);
          return ops.stop_timer();
        },
        time_limit_s);
  }

 private:
  KernelWork work() const {
    const auto& a = bench_->problem->a;
    const ProblemShape shape{a.rows, a.nnz(), bench_->precision};
    if (kernel_ == "dot") return dot_work(shape, false);
    return kernel_work(kernel_, shape);
  }

  // Resets the work slots from the inputs, runs one call, and compares with the host.
  void verify(Operations& ops) {
    for (int i = 0; i < inputs; ++i) ops.copy(i, work_slot(i));
    for (Slot s : outputs_)
      if (kernel_ == "spmv" || kernel_ == "spmv_dot2" || kernel_ == "scale") ops.fill_zero(s);  // pure outputs: a skipped write shows
    const std::array<double, 2> value = call_(ops);
    // A reduction's sums are checked at the reductions' tolerance, the vectors written at the tighter one.
    const double value_tol = tolerance(bench_->precision, true), tol = tolerance(bench_->precision, false);
    char text[200];
    for (int v = 0; v < values_; ++v) {
      const double want = expected_value_[static_cast<std::size_t>(v)];
      const double error = std::abs(value[static_cast<std::size_t>(v)] - want) / std::max(std::abs(want), 1e-300);
      if (!(error <= value_tol)) {
        std::snprintf(text, sizeof text, "%s result %d: %.17g, host %.17g (relative error %.2e > %.0e)", kernel_.c_str(),
                      v, value[static_cast<std::size_t>(v)], want, error, value_tol);
        throw VerificationError(text);
      }
    }
    std::vector<double>& got = bench_->got;
    got.resize(static_cast<std::size_t>(ops.rows()));
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      ops.download(outputs_[o], got);
      const double error = max_relative_error(got, expected_[o]);
      if (!(error <= tol)) {
        std::snprintf(text, sizeof text, "%s output %zu: max relative error %.2e > %.0e against the host", kernel_.c_str(),
                      o, error, tol);
        throw VerificationError(text);
      }
    }
  }

  std::shared_ptr<Bench> bench_;
  std::size_t largest_group_;  // the device's largest work-group
  bool spmv_forms_;             // the backend's SpMVs take row_runs and slabs (BackendTraits::spmv_forms)
  std::string kernel_;
  Call call_;
  std::vector<Slot> outputs_;
  std::vector<std::vector<double>> expected_;
  std::array<double, 2> expected_value_;
  int values_;  // how many of the call's returned values to check (dot 1, dot2 2)
};

}  // namespace

Params heuristic_params(const std::string& kernel, std::size_t max_work_group_size, bool spmv_forms) {
  return kernel_tunables(kernel, max_work_group_size, spmv_forms).defaults();
}

SweepTarget make_sweep_target(const DeviceInfo& device, std::shared_ptr<const Problem> problem, Precision precision,
                              const std::string& kernel) {
  const auto& names = tunable_kernels();
  if (!kernel.empty() && std::find(names.begin(), names.end(), kernel) == names.end()) {
    std::string valid;
    for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
    throw UsageError("unknown CG kernel '" + kernel + "' (tunable: " + valid + ")");
  }
  SweepTarget target;
  target.device = device;
  target.problem = problem->name;
  target.precision = precision;
  if (!takes_launch_parameters(device.backend)) {
    target.untunable.push_back(device.backend + ": its CG kernels pick their own launch sizes; nothing to tune");
    return target;
  }
  const OperationsFactory* factory = find_operations(device.backend);
  if (!factory) throw DeviceError("backend '" + device.backend + "' has no CG implementation in this build");

  auto bench = std::make_shared<Bench>();
  bench->problem = problem;
  bench->precision = precision;
  bench->ops = (*factory)(device, problem->a, precision, Params{});
  const auto n = static_cast<std::size_t>(problem->a.rows);
  std::mt19937_64 random(20261123);
  std::uniform_real_distribution<double> positive(0.5, 1.5);  // positive: the dots are well conditioned
  bench->ops->allocate_vectors(2 * inputs);
  for (int i = 0; i < inputs; ++i) {
    auto& v = bench->host[static_cast<std::size_t>(i)];
    v.resize(n);
    for (auto& x : v) x = positive(random);
    bench->ops->upload(i, v);
  }
  const auto& h = bench->host;
  auto each = [n](auto f) {
    std::vector<double> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = f(i);
    return out;
  };

  std::vector<std::unique_ptr<TunableKernel>> kernels;
  auto add = [&](const std::string& name, CgTunableKernel::Call call, std::vector<Slot> outputs,
                 std::vector<std::vector<double>> expected, std::array<double, 2> value = {0, 0}, int values = 0) {
    if (!kernel.empty() && kernel != name) return;
    kernels.push_back(std::make_unique<CgTunableKernel>(bench, device.max_work_group_size, has_spmv_forms(device.backend),
                                                        name, std::move(call),
                                                        std::move(outputs), std::move(expected), value, values));
  };
  const Slot a = work_slot(0), b = work_slot(1), c = work_slot(2), d = work_slot(3), e = work_slot(4);
  const bool spmv = kernel.empty() || kernel == "spmv", spmv_dot2 = kernel.empty() || kernel == "spmv_dot2";
  std::vector<double> y;  // A h[0], computed once for both SpMVs
  if (spmv || spmv_dot2) {
    y.resize(n);
    host_spmv(problem->a, h[0], y);
  }
  if (spmv) add("spmv", [=](Operations& o) { o.spmv(a, b); return std::array<double, 2>{}; }, {b}, {y});
  if (spmv_dot2)
    add("spmv_dot2", [=](Operations& o) { return o.spmv_dot2(a, b); }, {b}, {y},
        {host_dot(h[0], h[0]), host_dot(y, h[0])}, 2);
  add("dot", [=](Operations& o) { return std::array<double, 2>{o.dot(a, b), 0}; }, {}, {},
      {host_dot(h[0], h[1]), 0}, 1);
  add("dot2", [=](Operations& o) { return o.dot2(a, b); }, {}, {}, {host_dot(h[0], h[0]), host_dot(h[1], h[0])}, 2);
  add("axpy", [=](Operations& o) { o.axpy(alpha, a, b); return std::array<double, 2>{}; }, {b},
      {each([&](std::size_t i) { return h[1][i] + alpha * h[0][i]; })});
  add("xpay", [=](Operations& o) { o.xpay(a, beta, b); return std::array<double, 2>{}; }, {b},
      {each([&](std::size_t i) { return h[0][i] + beta * h[1][i]; })});
  add("scale", [=](Operations& o) { o.scale(alpha, a, b); return std::array<double, 2>{}; }, {b},
      {each([&](std::size_t i) { return alpha * h[0][i]; })});
  add("three_term_update",
      [=](Operations& o) { o.three_term_update(rho, gamma_, a, b, c, d, e); return std::array<double, 2>{}; }, {b, d},
      {each([&](std::size_t i) { return rho * (h[0][i] + gamma_ * h[2][i]) + (1 - rho) * h[1][i]; }),
       each([&](std::size_t i) { return rho * (h[2][i] - gamma_ * h[4][i]) + (1 - rho) * h[3][i]; })});
  // cg_update(alpha, beta, r, w, p, s, x): p = r + beta p; s = w + beta s; x += alpha p; r -= alpha s
  add("cg_update",
      [=](Operations& o) { o.cg_update(cg_alpha, cg_beta, a, b, c, d, e); return std::array<double, 2>{}; },
      {c, d, e, a},
      {each([&](std::size_t i) { return h[0][i] + cg_beta * h[2][i]; }),
       each([&](std::size_t i) { return h[1][i] + cg_beta * h[3][i]; }),
       each([&](std::size_t i) { return h[4][i] + cg_alpha * (h[0][i] + cg_beta * h[2][i]); }),
       each([&](std::size_t i) { return h[0][i] - cg_alpha * (h[1][i] + cg_beta * h[3][i]); })});
  target.kernels = std::move(kernels);
  return target;
}

}  // namespace gpubench::cg
