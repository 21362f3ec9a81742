// The LU suite (issue 15): P A = L U of a dense matrix (`N`, `N:dd`, `mtx:PATH`), one point per
// backend x variant x precision, every repetition verified HPL's way (lu.hpp). The blocked LU's
// block size and panel base are tunables, swept on whole verified factorisations.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "bench/suite.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "kernels/gemm/operations.hpp"
#include "kernels/lu/lu.hpp"
#include "kernels/lu/operations.hpp"
#include "common/test_hooks.hpp"

namespace gpubench::lu {

namespace {

bool runs(const std::string& backend, Variant v) {
  const BackendTraits* t = backend_traits(backend);
  if (!t) return false;
  if (v == Variant::vendor && t->vendor.empty()) return false;
  return std::find(t->variants.begin(), t->variants.end(), v) != t->variants.end();
}

std::vector<std::string> update_kernels(const DeviceInfo& device, Precision p) {
  const BackendTraits& traits = *backend_traits(device.backend);
  return traits.gemm_kernels ? traits.gemm_kernels(device, p) : std::vector<std::string>{"tuned"};
}

// The blocked LU's space: the block size nb, the width at which the panel's recursion stops and,
// where the backend has more than one, GEMM's kernel for the updates ("update": its place in
// BackendTraits::gemm_kernels).
TunableSpace blocked_space(std::int64_t n, const std::vector<std::string>& kernels) {
  TunableSpace space{{Tunable::list("nb", {32, 64, 128, 256, 512}), Tunable::list("base", {8, 16, 32, leaf_max})}, {}};
  if (kernels.size() > 1) {
    std::vector<int> places;
    for (std::size_t i = 0; i < kernels.size(); ++i) places.push_back(static_cast<int>(i));
    space.params.push_back(Tunable::list("update", places));
  }
  space.constraints.push_back({"base <= nb", [](const Params& q) { return q.at("base") <= q.at("nb"); }});
  space.constraints.push_back({"nb <= max(32, n)", [n](const Params& q) {
                                 return q.at("nb") <= std::max<std::int64_t>(32, n);
                               }});
  return space;
}
Params blocked_heuristic(std::int64_t n, const std::vector<std::string>& kernels) {
  Params p = n >= 4096 ? Params{{"nb", 256}, {"base", 32}} : n >= 512 ? Params{{"nb", 128}, {"base", 32}}
                                                                     : Params{{"nb", 32}, {"base", 16}};
  if (kernels.size() > 1) p["update"] = 0;
  return p;
}
TuningKey blocked_key(std::int64_t n, Precision p) { return TuningKey::of_sizes("lu", "blocked", p, {{"n", n}}); }

BlockedConfig blocked_config(const TuningDb* db, const DeviceInfo& device, std::int64_t n, Precision p,
                             const LaunchChoice& chosen, nlohmann::json* launch);

// The blocked LU's configuration on `device`: nb and base from the tuning database (or the
// heuristic), GEMM's kernel for the updates with its own tuned parameters; the records' launch.
BlockedConfig blocked_config(const TuningDb* db, const DeviceInfo& device, std::int64_t n, Precision p,
                             nlohmann::json* launch) {
  const std::vector<std::string> kernels = update_kernels(device, p);
  const LaunchChoice chosen =
      choose_launch_params(db, device, blocked_key(n, p), blocked_heuristic(n, kernels), blocked_space(n, kernels));
  return blocked_config(db, device, n, p, chosen, launch);
}

// The same for the parameters `chosen` (nb, base, update).
BlockedConfig blocked_config(const TuningDb* db, const DeviceInfo& device, std::int64_t n, Precision p,
                             const LaunchChoice& chosen, nlohmann::json* launch) {
  const std::vector<std::string> kernels = update_kernels(device, p);
  BlockedConfig c;
  c.nb = chosen.params.at("nb");
  c.base = chosen.params.at("base");
  c.lookahead = backend_traits(device.backend)->lookahead;
  const auto update = chosen.params.find("update");
  c.gemm_variant = kernels.at(update == chosen.params.end() ? 0 : static_cast<std::size_t>(update->second));
  const gemm::Variant gv = gemm::parse_variant(c.gemm_variant);
  const LaunchChoice g = gemm::own_launch(db, device, gv, gemm::Shape{n, n, c.nb, false, ""}, p);
  c.gemm_params = g.params;
  if (launch) {
    (*launch)["blocked"] = launch_json(chosen);
    nlohmann::json kernel = g.params.empty() ? nlohmann::json::object() : launch_json(g);
    kernel["gemm_kernel"] = c.gemm_variant;
    (*launch)["update"] = kernel;
  }
  return c;
}

// The test-only hook GPUBENCH_LU_WRONG_RESULT=NAME: the points whose name contains NAME get one
// factor changed after the run, so that a test can see verification fail. Unset: nothing.
void plant_wrong_result(const std::string& point, std::vector<double>& lu) {
  const char* name = test_hook("GPUBENCH_LU_WRONG_RESULT");
  if (name && point.find(name) != std::string::npos && !lu.empty()) lu[lu.size() / 2] += 1;
}

// The profiled pass's FLOPs per step: the blocked LU's steps counted, not run.
class Counter final : public Operations {
 public:
  explicit Counter(std::int64_t n) : n_(n) {}
  void upload(const std::vector<double>&, std::int64_t) override {}
  void reset() override {}
  void read_factors(std::vector<double>&, std::vector<int>&) override {}
  void start() override {}
  double stop() override { return 0; }
  void mark(double* into) override {
    if (into) flops_[into] += pending_;
    pending_ = 0;
  }
  void collect_marks() override {}
  void configure(const BlockedConfig&) override {}
  void getf2(std::int64_t j, std::int64_t w) override {
    for (std::int64_t c = j; c < j + w; ++c) {
      const auto below = static_cast<double>(n_ - c - 1);
      pending_ += below + 2 * below * static_cast<double>(j + w - c - 1);
    }
  }
  void laswp(std::int64_t, std::int64_t, std::int64_t, std::int64_t) override {}
  void trsm(std::int64_t, std::int64_t w, std::int64_t c0, std::int64_t c1) override {
    pending_ += static_cast<double>(w) * static_cast<double>(w - 1) * static_cast<double>(c1 - c0);
  }
  void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
            std::int64_t k1) override {
    pending_ += 2.0 * static_cast<double>(r1 - r0) * static_cast<double>(c1 - c0) * static_cast<double>(k1 - k0);
  }
  void vendor() override {}
  StudyRun study(Variant, StepTimes*, double) override { return {}; }
  std::map<const double*, double> flops_;

 private:
  std::int64_t n_;
  double pending_ = 0;
};

class LuPoint final : public Point {
 public:
  LuPoint(PointId id, Problem problem, Variant v, BlockedConfig config, double study_limit_s)
      : Point(std::move(id)), problem_(std::move(problem)), variant_(v), config_(std::move(config)),
        study_limit_s_(study_limit_s) {}

  void prepare() override {
    a_ = make_matrix(problem_);
    ops_ = (*find_operations(id().backend))(id().device, id().precision);
    ops_->upload(a_, problem_.n);
    if (variant_ == Variant::blocked) ops_->configure(config_);
    // Warm-up: kernels built, pages touched (the study's forms: their first step).
    if (variant_ == Variant::naive || variant_ == Variant::optimised)
      ops_->study(variant_, nullptr, 0);
    else
      factor(nullptr);
  }

  Outcome run_unverified() override { return {factor(nullptr), 1, false, "", {}}; }

  Outcome run() override {
    Outcome o;
    o.seconds = factor(nullptr);
    o.iterations = 1;
    std::vector<double> lu;
    std::vector<int> ipiv;
    ops_->read_factors(lu, ipiv);
    plant_wrong_result(id().name(), lu);
    const Verdict v = verify(a_, problem_.n, lu, ipiv, id().precision);
    o.verified = v.passed;
    o.verification = v.detail;
    o.fields = {{"n", problem_.n}};
    if (v.singular)
      o.fields["singular_column"] = v.singular;  // no residual: none was computed
    else
      o.fields["hpl_scaled_residual"] = v.residual;
    if (v.rcond >= 0) o.fields["rcond"] = v.rcond;
    if (variant_ == Variant::vendor)
      if (nlohmann::json blas = ops_->host_blas(); !blas.is_null()) o.fields["host_blas"] = std::move(blas);
    if (variant_ == Variant::blocked) {
      if (std::string panel = ops_->panel(); !panel.empty()) o.fields["panel"] = std::move(panel);
      if (nlohmann::json causes = ops_->gap_causes(); !causes.empty()) o.fields["gap_causes"] = std::move(causes);
    }
    if (!v.warning.empty()) {
      o.fields["warning"] = v.warning;
      o.fields["summary"] = "WARNING: " + v.warning;
    }
    return o;
  }

  Profile profile() override {
    StepTimes times;
    const double seconds = factor(&times);
    Profile p;
    p.seconds_per_iteration = seconds;
    std::map<std::string, double> flops;  // by row name
    if (variant_ == Variant::blocked) {
      Counter counter(problem_.n);
      StepTimes names;  // the same rows as the timed pass
      blocked(counter, problem_.n, profiled(config_), &names);
      for (const auto& [name, value] : names.rows) flops[name] = counter.flops_[&value];
    }
    for (const auto& [name, value] : times.rows) {
      double f = 0;
      if (const auto it = flops.find(name); it != flops.end()) f = it->second;
      if (variant_ != Variant::blocked && (name == "update" || name == "getrf")) f = flops_per_iteration();
      p.kernels.push_back({name, 1, value, f, 0});
    }
    return p;
  }

  double flops_per_iteration() const override { return flops(problem_.n); }
  double bytes_per_iteration() const override { return min_bytes(problem_.n, id().precision); }
  std::string time_includes() const override {
    switch (variant_) {
      case Variant::naive:
      case Variant::optimised:
        return "the study's whole decomposition on the host clock: buffers created and the matrices moved both ways at "
               "every step, kernels and the host's merges (the matrix starts on the host)";
      case Variant::blocked:
        return "device time from the matrix on the device to the factors and pivots on the device (panels, row swaps, "
               "triangular solves and updates; " +
               std::string(config_.lookahead ? "with" : "without") + " the look-ahead)";
      case Variant::vendor:
        return "one library getrf call, the matrix on the device before it and the factors there after it";
    }
    return {};
  }
  void release() override {
    ops_.reset();
    a_.clear();
    a_.shrink_to_fit();
  }

 private:
  static BlockedConfig profiled(BlockedConfig c) {
    c.lookahead = false;
    return c;
  }

  // One factorisation from the original matrix (reset, not timed); its seconds. `times`: the
  // profiled pass, each step's time by marks.
  double factor(StepTimes* times) {
    ops_->reset();
    switch (variant_) {
      case Variant::naive:
      case Variant::optimised: {
        const StudyRun r = ops_->study(variant_, times, study_limit_s_);
        if (r.steps < problem_.n) {
          std::ostringstream why;
          why << std::setprecision(3) << "over the time limit: the study's " << to_string(variant_) << " form had done "
              << r.steps << " of " << problem_.n << " steps after " << r.seconds << " s (--study-limit "
              << study_limit_s_ << "); at that pace the whole decomposition takes about "
              << r.seconds * static_cast<double>(problem_.n) / static_cast<double>(r.steps) << " s";
          throw Error(ExitCode::point_failed, why.str());
        }
        return r.seconds;
      }
      case Variant::blocked: {
        ops_->start();
        blocked(*ops_, problem_.n, times ? profiled(config_) : config_, times);
        const double s = ops_->stop();
        if (times) ops_->collect_marks();
        return s;
      }
      case Variant::vendor: {
        ops_->start();
        ops_->vendor();
        const double s = ops_->stop();
        if (times) (*times)["getrf"] = s;
        return s;
      }
    }
    return 0;
  }

  Problem problem_;
  Variant variant_;
  BlockedConfig config_;
  double study_limit_s_;
  std::vector<double> a_;
  std::unique_ptr<Operations> ops_;
};

// The blocked LU for the sweeper: whole verified factorisations for each (nb, base).
class BlockedTunable final : public TunableKernel {
 public:
  BlockedTunable(const DeviceInfo& device, Problem problem, Precision p, const TuningDb* db)
      : device_(device), problem_(std::move(problem)), precision_(p), db_(db),
        kernels_(update_kernels(device, p)) {
    a_ = make_matrix(problem_);
    ops_ = (*find_operations(device.backend))(device, p);
    ops_->upload(a_, problem_.n);
  }
  std::string name() const override { return "blocked"; }
  TunableSpace tunables() const override { return blocked_space(problem_.n, kernels_); }
  Params heuristic() const override { return blocked_heuristic(problem_.n, kernels_); }
  TuningKey key() const override { return blocked_key(problem_.n, precision_); }
  double flops_per_call() const override { return flops(problem_.n); }
  double bytes_per_call() const override { return min_bytes(problem_.n, precision_); }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    const BlockedConfig c = blocked_config(db_, device_, problem_.n, precision_, LaunchChoice{params, {}}, nullptr);
    ops_->configure(c);
    const auto once = [&] {
      ops_->reset();
      ops_->start();
      blocked(*ops_, problem_.n, c);
      return ops_->stop();
    };
    return verify_then_time<Verdict>(
        name() + " " + format_params(params), once,
        [&] {
          std::vector<double> lu;
          std::vector<int> ipiv;
          ops_->read_factors(lu, ipiv);
          return verify(a_, problem_.n, lu, ipiv, precision_);
        },
        time_limit_s);
  }

 private:
  DeviceInfo device_;
  Problem problem_;
  Precision precision_;
  const TuningDb* db_;
  std::vector<std::string> kernels_;
  std::vector<double> a_;
  std::unique_ptr<Operations> ops_;
};

class LuSuite final : public Suite {
 public:
  std::string name() const override { return "lu"; }
  std::string default_problem() const override { return "1024:dd"; }
  std::string problems_help() const override {
    return "N (random), N:dd (diagonally dominant), mtx:PATH (Matrix Market, read as a dense matrix)";
  }
  std::vector<SuiteOption> options() const override {
    return {{"study-limit", "S",
             "the study's naive and optimised forms stop after the step that passes S seconds and the point fails, "
             "marked over the time limit with the steps done (default 60)"}};
  }
  void check_option_values(const RunOptions& options) const override { study_limit(options); }
  static double study_limit(const RunOptions& options) {
    const std::optional<double> s = real_option(options, "study-limit");
    if (s && !(*s > 0)) throw UsageError("--study-limit must be a number of seconds above 0");
    return s.value_or(60);
  }
  std::vector<std::string> variants() const override { return variant_table().names(); }

  Plan plan(const RunOptions& options) override {
    const double study_limit = LuSuite::study_limit(options);
    Problem problem = parse_problem(problem_of(options));
    const std::vector<Variant> variants = variant_table().asked(options);
    Plan plan;
    const std::vector<DeviceInfo> devices = registered_devices(options, "lu", operations_registry(), plan.unavailable);
    // Whether the forms without pivoting may run: the matrix is read once here to see.
    std::string pivoting;
    bool checked = false;
    const auto needs_pivoting = [&]() -> const std::string& {
      if (!checked) {
        checked = true;
        if (problem.kind != Kind::dominant) {
          Problem copy = problem;
          const std::vector<double> a = make_matrix(copy);
          pivoting = why_pivoting_is_needed(a, copy.n);
          problem.n = copy.n;
        }
      }
      return pivoting;
    };
    if (problem.kind == Kind::file) needs_pivoting();  // the order, from the file
    bool refused_for_the_matrix = false;  // (else only for variants the backends lack)
    for (const DeviceInfo& device : devices) {
      const BackendTraits& traits = *backend_traits(device.backend);
      for (Variant v : variants) {
        if (!runs(device.backend, v)) {
          if (v == Variant::vendor)
            plan.unavailable.push_back("vendor on " + device.backend + ": " + traits.no_vendor);
          else if (!options.variants.empty())
            plan.unavailable.push_back(to_string(v) + " on " + device.backend + ": not an LU variant of this backend");
          continue;
        }
        const bool no_pivoting = v == Variant::naive || v == Variant::optimised ||
                                 (v == Variant::vendor && !traits.vendor_pivots);
        if (no_pivoting) {
          if (const std::string& why = needs_pivoting(); !why.empty()) {
            plan.unavailable.push_back(to_string(v) + " on " + device.backend + " (" +
                                       (v == Variant::vendor ? traits.vendor : "the study's form") +
                                       ") does not pivot, and " + problem.name + ": " + why);
            refused_for_the_matrix = true;
            continue;
          }
        }
        for (Precision p : options.precisions) {
          PointId id = point_id(*this, problem.name, device, to_string(v), p);
          BlockedConfig config;
          if (v == Variant::blocked) {
            nlohmann::json launch;
            config = blocked_config(options.tuning.get(), device, problem.n, p, &launch);
            id.params["launch"] = launch;
            id.params["lookahead"] = config.lookahead;
          }
          if (v == Variant::vendor) id.params["library"] = traits.vendor;
          if (v == Variant::naive || v == Variant::optimised) id.params["pivoting"] = false;
          plan.points.push_back(std::make_unique<LuPoint>(std::move(id), problem, v, config, study_limit));
        }
      }
    }
    if (plan.points.empty() && !plan.unavailable.empty()) {
      std::string why = "nothing to run for LU problem " + problem.name + ":";
      for (const auto& u : plan.unavailable) why += "\n  " + u;
      // A matrix the variants cannot take is bad input (3); variants the backends lack alone are
      // a usage error (2), as in GEMM and FT.
      if (refused_for_the_matrix) throw InputError(why);
      throw UsageError(why);
    }
    return plan;
  }

  std::optional<TunableSpace> parameters_of(const std::string& kernel) const override {
    if (kernel != "blocked") return std::nullopt;
    // "update" is the place of GEMM's kernel among a backend's (how many it has, a run checks).
    return TunableSpace{blocked_space(std::int64_t{1} << 20, std::vector<std::string>(8, "")).params, {}};
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    if (!kernel.empty() && kernel != "blocked") throw UsageError("unknown LU kernel '" + kernel + "' (tunable: blocked)");
    check_sweep_options(options);
    const Problem problem = parse_problem(problem_of(options));
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : registered_devices(options, "lu", operations_registry(), skipped)) {
      for (Precision p : options.precisions) {
        SweepTarget target;
        target.device = device;
        target.problem = problem.name;
        target.precision = p;
        if (!runs(device.backend, Variant::blocked))
          target.untunable.push_back("blocked: not an LU variant of " + device.backend);
        else
          target.kernels.push_back(std::make_unique<BlockedTunable>(device, problem, p, options.tuning.get()));
        targets.push_back(std::move(target));
      }
    }
    return targets;
  }
};

GPUBENCH_REGISTER_SUITE(LuSuite);

}  // namespace

}  // namespace gpubench::lu
