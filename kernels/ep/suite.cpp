// The EP suite: one point per backend x variant on one NAS class (--problem S..E, or npb:S..E).
// A point tallies all 2^M pairs in one timed call and checks sx and sy against NAS's values.
#include <algorithm>
#include <cstdio>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "bench/suite.hpp"
#include "kernels/ep/ep.hpp"
#include "kernels/ep/operations.hpp"

namespace gpubench::ep {

namespace {

std::uint64_t pairs_of(const EpClass& c) { return std::uint64_t{1} << c.m; }

// The tally kernel's tunables: work-group sizes, powers of two from 32 to the largest the
// device runs it with, and work-groups per compute unit, searched by the thesis's walk (up from
// one per compute unit, the last parameter) unless a sweep asks for another strategy.
TunableSpace tunables(int largest_group) {
  return {{grid::group_size(largest_group), grid::groups_per_cu()}, {}, "walk"};
}

Params heuristic_params(int largest_group) {
  return tunables(largest_group).defaults();
}

TuningKey key_of(Variant v, const EpClass& c) {
  return TuningKey::of_sizes("ep", tally_kernel(v), Precision::f64, {{"m", std::int64_t{1} << c.m}});
}

std::string problem_name(const EpClass& c) { return std::string("npb:") + c.name; }

// Declared work of one whole run: FLOPs of 2^M pairs; bytes: the partial results written and
// read back (one row per work-group, or per work-item for partials) and the 12 totals.
double run_flops(const EpClass& c) { return static_cast<double>(pairs_of(c)) * flops_per_pair; }
double run_bytes(Variant v, std::uint64_t items, int group) {
  const double rows = v == Variant::partials ? static_cast<double>(items) : static_cast<double>(items) / group;
  return 2 * rows * result_bytes + result_bytes;
}

class EpPoint final : public Point {
 public:
  EpPoint(PointId id, const EpClass& c, Variant v, Params launch)
      : Point(std::move(id)), class_(c), variant_(v), launch_(launch) {}

  void prepare() override {
    const OperationsFactory* factory = find_operations(id().backend);
    if (!factory) throw DeviceError("backend '" + id().backend + "' has no EP implementation in this build");
    ops_ = (*factory)(id().device);
    ops_->tally(std::uint64_t{1} << 20, variant_, launch_);  // warm-up: builds, launches both kernels
  }

  Outcome run_unverified() override {
    return {ops_->tally(pairs_of(class_), variant_, launch_).seconds(), 1, false, "", {}};
  }

  Outcome run() override {
    last_ = ops_->tally(pairs_of(class_), variant_, launch_);
    const Tally t = Tally::from_values(last_.values.data());
    const Verdict v = verify(class_, t);
    const double seconds = last_.seconds();
    const double mops = static_cast<double>(2 * pairs_of(class_)) / seconds / 1e6;  // NAS: random numbers
    char summary[200];
    std::snprintf(summary, sizeof summary, "class %c (2^%d pairs): %s, %.4f s, %.0f Mop/s", class_.name, class_.m,
                  v.passed ? "verified" : "WRONG", seconds, mops);
    Outcome o{seconds, 1, v.passed, v.detail, {}};
    nlohmann::json q = nlohmann::json::array();
    for (double count : t.q) q.push_back(count);
    o.fields = {{"npb_class", std::string(1, class_.name)},
                {"m", class_.m},
                {"sx", t.sx},
                {"sy", t.sy},
                {"sx_verify", class_.sx_verify},
                {"sy_verify", class_.sy_verify},
                {"q", q},
                {"gaussian_pairs", t.pairs_accepted()},
                {"npb_mops", mops},
                {"work_items", last_.items},
                {"summary", summary}};
    if (nlohmann::json causes = ops_->gap_causes(); !causes.empty()) o.fields["gap_causes"] = std::move(causes);
    return o;
  }

  Profile profile() override {
    const TallyRun r = ops_->tally(pairs_of(class_), variant_, launch_);
    const double bytes = run_bytes(variant_, r.items, grid::group_size_of(launch_));
    std::vector<KernelRow> rows = {{tally_kernel(variant_), 1, r.tally_seconds, run_flops(class_), bytes - result_bytes}};
    if (r.sum_seconds > 0) rows.push_back({"sum_columns", 1, r.sum_seconds, 0, bytes / 2});  // none on openmp reduce
    return {rows, r.seconds()};
  }

  double flops_per_iteration() const override { return run_flops(class_); }
  double bytes_per_iteration() const override {
    return run_bytes(variant_, last_.items ? last_.items : 1, grid::group_size_of(launch_));
  }
  std::string time_includes() const override {
    return "one whole EP run: the tally over all 2^M pairs and the sum of its partial results, read back to the "
           "host; no setup";
  }
  void release() override { ops_.reset(); }

 private:
  const EpClass& class_;
  Variant variant_;
  Params launch_;  // the tally's (kernels/launch_grid.hpp); empty off the GPU backends
  std::unique_ptr<Operations> ops_;
  TallyRun last_;
};

class EpTunable final : public TunableKernel {
 public:
  EpTunable(std::shared_ptr<Operations> ops, const EpClass& c, Variant v) : ops_(std::move(ops)), class_(c), variant_(v) {}
  std::string name() const override { return tally_kernel(variant_); }
  TunableSpace tunables() const override { return ep::tunables(ops_->largest_group()); }
  Params heuristic() const override { return heuristic_params(ops_->largest_group()); }
  TuningKey key() const override { return key_of(variant_, class_); }
  double flops_per_call() const override { return run_flops(class_); }
  double bytes_per_call() const override { return result_bytes; }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    grid::check(params, "EP " + name());
    TallyRun last;
    return verify_then_time<Verdict>(
        name(),
        [&] {
          last = ops_->tally(pairs_of(class_), variant_, params);
          return last.seconds();
        },
        [&] { return verify(class_, Tally::from_values(last.values.data())); }, time_limit_s);
  }

 private:
  std::shared_ptr<Operations> ops_;
  const EpClass& class_;
  Variant variant_;
};

class EpSuite final : public Suite {
 public:
  std::string name() const override { return "ep"; }
  std::string default_problem() const override { return "A"; }
  std::string problems_help() const override { return "S, W, A, B, C, D, E (NAS EP classes; npb:X as well)"; }
  std::vector<std::string> variants() const override { return variant_table().names(); }

  Plan plan(const RunOptions& options) override {
    const EpClass& c = parse_class(options);
    const std::vector<Variant> variants = variant_table().asked(options);
    Plan plan;
    for (const DeviceInfo& device : find_devices(options, plan.unavailable)) {
      for (Variant v : variants) {
        if (v == Variant::serial && !runs_serial(device.backend)) {
          plan.unavailable.push_back("serial on " + device.backend + ": NAS's serial code runs on the host's backend");
          continue;
        }
        PointId id = point_id(*this, problem_name(c), device, to_string(v), Precision::f64);
        Params launch;
        if (takes_launch_parameters(device.backend)) launch = choose_launch(options, device, c, v, id.params);
        if (v == Variant::serial) id.params["threads"] = 1;
        plan.points.push_back(std::make_unique<EpPoint>(std::move(id), c, v, launch));
      }
    }
    return plan;
  }

  std::optional<TunableSpace> parameters_of(const std::string& kernel) const override {
    for (Variant v : device_variants)
      if (kernel == tally_kernel(v)) return tunables(1 << 30);
    return std::nullopt;
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    const EpClass& c = parse_class(options);
    std::vector<Variant> variants;
    for (Variant v : device_variants)
      if (kernel.empty() || kernel == tally_kernel(v)) variants.push_back(v);
    if (variants.empty()) throw UsageError("unknown EP kernel '" + kernel + "' (tunable: tally, tally_partials)");
    check_sweep_options(options);
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : find_devices(options, skipped)) {
      SweepTarget target;
      target.device = device;
      target.problem = problem_name(c);
      target.precision = Precision::f64;
      if (!takes_launch_parameters(device.backend)) {
        target.untunable.push_back(device.backend + ": EP runs one work-item per thread; nothing to tune");
      } else {
        const OperationsFactory* factory = find_operations(device.backend);
        if (!factory) throw DeviceError("backend '" + device.backend + "' has no EP implementation in this build");
        std::shared_ptr<Operations> ops = (*factory)(device);
        for (Variant v : variants) target.kernels.push_back(std::make_unique<EpTunable>(ops, c, v));
      }
      targets.push_back(std::move(target));
    }
    return targets;
  }

 private:
  const EpClass& parse_class(const RunOptions& options) const {
    if (std::any_of(options.precisions.begin(), options.precisions.end(),
                    [](Precision p) { return p != Precision::f64; }))
      throw UsageError("EP is double precision only, as NAS defines it (its verification values need it): "
                       "use --precision f64");
    std::string spec = problem_of(options);
    if (spec.rfind("npb:", 0) == 0) spec = spec.substr(4);
    return ep_class(spec);
  }

  // The devices of the backends that run EP; the others are listed as unavailable.
  static std::vector<DeviceInfo> find_devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return registered_devices(options, "ep", operations_registry(), skipped);
  }

  // The tally kernel's launch from the tuning database (exact class, nearest class, the
  // device's default, the heuristic), or the heuristic with --tuning off.
  static Params choose_launch(const RunOptions& options, const DeviceInfo& device, const EpClass& c, Variant v,
                                    nlohmann::json& params) {
    // The largest group is known only to an opened device; the database's values are checked
    // against the device's limit here and against the kernel's when the point runs.
    const int largest = static_cast<int>(std::max<std::size_t>(device.max_work_group_size, 1));
    const LaunchChoice chosen =
        choose_launch_params(options.tuning.get(), device, key_of(v, c), heuristic_params(largest), tunables(largest));
    params["launch"][tally_kernel(v)] = launch_json(chosen);
    grid::check(chosen.params, "EP " + tally_kernel(v));
    return chosen.params;
  }
};

GPUBENCH_REGISTER_SUITE(EpSuite);

}  // namespace

}  // namespace gpubench::ep
