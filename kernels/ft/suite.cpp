// The FT suite (issue 14): NAS FT for a class S..D (--problem, or npb:X), one point per backend x
// variant; each repetition is NAS's whole timed region, verified against NAS's checksums of every
// iteration. --breakdown gives NAS's per-function times (setup, cffts1/2/3 or the library's fft,
// evolve, checksum).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "bench/suite.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "kernels/ft/ft.hpp"
#include "kernels/ft/operations.hpp"

namespace gpubench::ft {

namespace {

std::string problem_name(const FtClass& c) { return std::string("npb:") + c.name; }

// fast's kernels, one per axis, named as NAS names its functions.
constexpr const char* kernel_names[] = {"cffts1", "cffts2", "cffts3"};

int axis_length(const FtClass& c, int axis) { return axis == 0 ? c.nx : axis == 1 ? c.ny : c.nz; }

// fast's tunables along `axis`: the radix (values per work-item) and the lines per work-group,
// within the device's local memory and work-group size; a group's lines must tile the lines that
// lie side by side (y: nx of them, z: nx ny, x: all).
TunableSpace axis_space(const FtClass& c, int axis, const DeviceInfo& device) {
  const int n = axis_length(c, axis);
  const std::int64_t side_by_side = axis == 0 ? c.total() / c.nx : axis == 1 ? c.nx : std::int64_t{c.nx} * c.ny;
  const BackendTraits* traits = backend_traits(device.backend);
  const std::uint64_t local = traits && traits->local_memory ? traits->local_memory(device) : device.local_mem_bytes;
  const std::size_t most = device.max_work_group_size;
  return {{Tunable::list("radix", {4, 8, 16}), Tunable::powers_of_two("lines", 1, 64)},
          {{"radix <= the axis's " + std::to_string(n) + " points", [n](const Params& p) { return p.at("radix") <= n; }},
           {"lines <= the " + std::to_string(side_by_side) + " lines side by side",
            [side_by_side](const Params& p) { return p.at("lines") <= side_by_side; }},
           {"lines * " + std::to_string(n) + " * 16 bytes <= the " + std::to_string(local) + " bytes of local memory a group may take",
            [n, local](const Params& p) { return static_cast<std::uint64_t>(p.at("lines")) * n * 16 <= local; }},
           {"lines * " + std::to_string(n) + " / radix <= the device's " + std::to_string(most) + " work-items per group",
            [n, most](const Params& p) { return static_cast<std::size_t>(p.at("lines") * (n / p.at("radix"))) <= most; }}}};
}

// Without a tuning: radix 8, and lines enough for 64 work-items per group; along the strided axes
// (y, z) at least 4, so that each load of an element of the group's lines reads 64 contiguous
// bytes; within the space's constraints.
Params axis_heuristic(const FtClass& c, int axis, const TunableSpace& space) {
  const int n = axis_length(c, axis);
  Params p{{"radix", n >= 8 ? 8 : 4}, {"lines", 1}};
  p["lines"] = std::max(axis != 0 ? 4 : 1, 64 / (n / p["radix"]));
  while (p["lines"] > 1 && !space.legal(p)) p["lines"] /= 2;
  if (!space.legal(p) && n >= 16) p["radix"] = 16;  // more values per work-item: fewer items, the same tile
  return p;
}

TuningKey axis_key(const FtClass& c, int axis) {
  const int n = axis_length(c, axis);
  return TuningKey::of_sizes("ft", kernel_names[axis], Precision::f64, {{"n", n}, {"lines", c.total() / n}});
}

AxisShape to_shape(const Params& p) { return {p.at("radix"), p.at("lines")}; }

// The shapes a run of fast uses: each axis's from the tuning database or its heuristic; the
// choices go into the record's params.
Shapes choose_shapes(const RunOptions& options, const FtClass& c, const DeviceInfo& device, nlohmann::json* record) {
  Shapes shapes{};
  for (int axis = 0; axis < 3; ++axis) {
    const TunableSpace space = axis_space(c, axis, device);
    const Params heuristic = axis_heuristic(c, axis, space);
    if (std::string why; !space.legal(heuristic, &why))  // even one line of radix 4 does not fit
      throw DeviceError(std::string("fast's ") + kernel_names[axis] + " has no shape that fits " + device.label() + ": " + why);
    const LaunchChoice chosen = choose_launch_params(options.tuning.get(), device, axis_key(c, axis), heuristic, space);
    shapes[axis] = to_shape(chosen.params);
    if (record) (*record)[kernel_names[axis]] = launch_json(chosen);
  }
  return shapes;
}

// The work of each function over a whole run: a radix-2 FFT of length n is 5 n log2 n FLOPs and
// reads and writes its line once; 1 + niter 3-D transforms. fast generates the initial field in
// cffts1's forward pass (written, not read) and applies the evolve factor in cffts3's inverse
// passes (no evolve row); its and the vendor's setup is a few KiB of tables (and the vendor's
// field, generated on the device).
std::vector<KernelRow> rows_of(const FtClass& c, const FunctionTimes& t) {
  const double n = static_cast<double>(c.total()), ffts = 1 + c.niter, field = 16 * n;
  const double tables = 8.0 * (c.nx + c.ny + c.nz) * (c.niter + 2);
  auto fft_flops = [&](int length) { return ffts * 5 * n * std::log2(static_cast<double>(length)); };
  const bool library = t.fft > 0, study = !library && !t.fused;
  std::vector<KernelRow> rows;
  rows.push_back({"setup", 1, t.setup, study ? n : 0, study ? field + 8 * n : library ? field + tables : tables});
  if (library) {
    rows.push_back({"fft", ffts, t.fft, fft_flops(c.nx) + fft_flops(c.ny) + fft_flops(c.nz), ffts * 3 * 2 * field});
  } else {
    rows.push_back({"cffts1", ffts, t.fft_x, fft_flops(c.nx), ffts * 2 * field - (t.fused ? field : 0)});
    rows.push_back({"cffts2", ffts, t.fft_y, fft_flops(c.ny), ffts * 2 * field});
    rows.push_back({"cffts3", ffts, t.fft_z, fft_flops(c.nz) + (t.fused ? c.niter * 4 * n : 0), ffts * 2 * field});
  }
  if (t.rotate > 0) rows.push_back({"rotate", ffts * 4, t.rotate, 0, ffts * 4 * 2 * field});
  if (study) rows.push_back({"evolve", static_cast<double>(c.niter), t.evolve, c.niter * 2 * n, c.niter * (3 * field + 8 * n)});
  if (library) rows.push_back({"evolve", static_cast<double>(c.niter), t.evolve, c.niter * 4 * n, c.niter * 2 * field});
  rows.push_back({"checksum", static_cast<double>(c.niter), t.checksum, c.niter * 2048.0, c.niter * 1024.0 * 16});
  return rows;
}

class FtPoint final : public Point {
 public:
  FtPoint(PointId id, const FtClass& c, Variant v, RunChoices choices)
      : Point(std::move(id)), class_(c), variant_(v), choices_(std::move(choices)) {}

  void prepare() override {
    const OperationsFactory* factory = find_operations(id().backend);
    if (!factory) throw DeviceError("backend '" + id().backend + "' has no FT in this build");
    ops_ = (*factory)(id().device);
    ops_->prepare(class_, variant_, choices_);
  }

  Outcome run_unverified() override { return {ops_->run(variant_).seconds, 1, false, "", {}}; }

  Outcome run() override {
    const RunResult r = ops_->run(variant_);
    const Verdict v = verify(class_, r.sums);
    const double mops = nas_operations(class_) / r.seconds / 1e6;
    char summary[200];
    std::snprintf(summary, sizeof summary, "class %c (%dx%dx%d, %d iterations): %s, %.4f s, %.0f Mop/s", class_.name,
                  class_.nx, class_.ny, class_.nz, class_.niter, v.passed ? "verified" : "WRONG", r.seconds, mops);
    Outcome o{r.seconds, 1, v.passed, v.detail, {}};
    nlohmann::json sums = nlohmann::json::array();
    for (const Complex& s : r.sums) sums.push_back({s.real(), s.imag()});
    o.fields = {{"npb_class", std::string(1, class_.name)},
                {"nx", class_.nx},
                {"ny", class_.ny},
                {"nz", class_.nz},
                {"niter", class_.niter},
                {"checksums", sums},
                {"checksum_worst_relative_error", v.worst},
                {"npb_mops", mops},
                {"summary", summary}};
    if (nlohmann::json causes = ops_->gap_causes(); !causes.empty()) o.fields["gap_causes"] = std::move(causes);
    return o;
  }

  Profile profile() override {
    const RunResult r = ops_->run(variant_);
    return {rows_of(class_, r.times), r.seconds};
  }

  double flops_per_iteration() const override { return nas_operations(class_); }
  double bytes_per_iteration() const override { return min_bytes(class_); }
  std::string time_includes() const override {
    return "NAS FT's timed region: the evolve factors, the initial conditions and the FFT tables, the forward 3-D "
           "FFT, then per iteration evolve, the inverse 3-D FFT and the checksum";
  }
  void release() override { ops_.reset(); }

 private:
  const FtClass& class_;
  Variant variant_;
  RunChoices choices_;
  std::unique_ptr<Operations> ops_;
};

// fast's transform along one axis as the sweeper sees it: a whole NAS run (its checksums are the
// verification) with this axis's shape set and the others as a run would choose them; the time
// is this axis's device time per pass (forward and inverse alike).
class AxisTunable final : public TunableKernel {
 public:
  AxisTunable(std::shared_ptr<Operations> ops, const FtClass& c, int axis, const DeviceInfo& device, const Shapes& others)
      : ops_(std::move(ops)), class_(c), axis_(axis), space_(axis_space(c, axis, device)), others_(others) {}
  std::string name() const override { return kernel_names[axis_]; }
  TunableSpace tunables() const override { return space_; }
  Params heuristic() const override { return axis_heuristic(class_, axis_, space_); }
  TuningKey key() const override { return axis_key(class_, axis_); }
  double flops_per_call() const override {
    return 5 * static_cast<double>(class_.total()) * std::log2(static_cast<double>(axis_length(class_, axis_)));
  }
  double bytes_per_call() const override { return 2 * 16 * static_cast<double>(class_.total()); }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    Shapes shapes = others_;
    shapes[static_cast<std::size_t>(axis_)] = to_shape(params);
    ops_->prepare(class_, Variant::fast, RunChoices{shapes, {}});
    const double passes = 1 + class_.niter;
    auto axis_seconds = [&](const RunResult& r) {
      const FunctionTimes& t = r.times;
      return (axis_ == 0 ? t.fft_x : axis_ == 1 ? t.fft_y : t.fft_z) / passes;
    };
    RunResult first;
    return verify_then_time<Verdict>(
        name() + " " + format_params(params),
        [&] {
          first = ops_->run(Variant::fast);
          return axis_seconds(first);
        },
        [&] { return verify(class_, first.sums); }, time_limit_s,
        [&](int calls) {  // whole runs of 1 + niter passes each, enough for `calls` passes
          const int runs = (calls + static_cast<int>(passes) - 1) / static_cast<int>(passes);
          double per_pass = 0;
          for (int r = 0; r < runs; ++r) per_pass += axis_seconds(ops_->run(Variant::fast)) / runs;
          return per_pass * calls;
        });
  }

 private:
  std::shared_ptr<Operations> ops_;
  const FtClass& class_;
  int axis_;
  TunableSpace space_;
  Shapes others_;
};

class FtSuite final : public Suite {
 public:
  std::string name() const override { return "ft"; }
  std::string default_problem() const override { return "A"; }
  std::string problems_help() const override { return "S, W, A, B, C, D (NAS FT classes; npb:X as well)"; }
  std::vector<SuiteOption> options() const override {
    return {{"fft-library", "NAME",
             "the vendor variant's library: fftw (openmp), cufft (cuda), vkfft (opencl's default) or clfft (opencl)"}};
  }
  void check_option_values(const RunOptions& options) const override {
    const auto it = options.suite_options.find("fft-library");
    if (it != options.suite_options.end() && it->second != "fftw" && it->second != "cufft" && it->second != "vkfft" &&
        it->second != "clfft")
      throw UsageError("--fft-library " + it->second + ": not an FFT library (valid: fftw, cufft, vkfft, clfft)");
  }
  std::vector<std::string> variants() const override { return variant_table().names(); }

  Plan plan(const RunOptions& options) override {
    const FtClass& c = parse_class(options);
    const std::vector<Variant> variants = variant_table().asked(options);
    Plan plan;
    std::vector<std::string> memory;  // the points refused for the host's memory
    for (const DeviceInfo& device : devices(options, plan.unavailable)) {
      const BackendTraits& traits = *backend_traits(device.backend);
      for (Variant v : variants) {
        if (std::find(traits.variants.begin(), traits.variants.end(), v) == traits.variants.end()) {
          plan.unavailable.push_back(to_string(v) + " on " + device.backend + ": " +
                                     (v == Variant::vendor ? traits.no_vendor : "not an FT variant of this backend"));
          continue;
        }
        if (const std::string why = traits.refuses ? traits.refuses(device, v) : ""; !why.empty()) {
          plan.unavailable.push_back(to_string(v) + " on " + device.label() + ": " + why);
          continue;
        }
        PointId id = point_id(*this, problem_name(c), device, to_string(v), Precision::f64);
        if (traits.host_bytes) {  // a class the host cannot hold is refused here, before anything runs
          try {
            check_host_memory(traits.host_bytes(c, v), "FT class " + std::string(1, c.name) + " (" + to_string(v) + " on " +
                                                           device.backend + ")");
          } catch (const InputError& e) {
            memory.push_back(e.what());
            continue;
          }
        }
        if (v == Variant::serial) id.params["threads"] = 1;
        RunChoices choices;
        if (v == Variant::vendor) {
          const Library* library = &traits.vendors.front();
          if (const auto asked = options.suite_options.find("fft-library"); asked != options.suite_options.end()) {
            library = nullptr;
            for (const Library& l : traits.vendors)
              if (l.key == asked->second) library = &l;
            if (!library) {
              std::string have;
              for (const Library& l : traits.vendors) have += (have.empty() ? "" : ", ") + l.key;
              plan.unavailable.push_back("vendor on " + device.backend + ": --fft-library " + asked->second +
                                         " is not one of its libraries in this build (" + have + ")");
              continue;
            }
          }
          choices.library = library->key;
          id.params["library"] = library->name;
          id.params["planner"] = library->planner;
        }
        if (v == Variant::fast) {
          try {
            choices.shapes = choose_shapes(options, c, device, &id.params["launch"]);
          } catch (const DeviceError& e) {
            plan.unavailable.push_back("fast on " + device.backend + ": " + e.what());
            continue;
          }
        }
        plan.points.push_back(std::make_unique<FtPoint>(std::move(id), c, v, choices));
      }
    }
    if (plan.points.empty() && !memory.empty()) {  // as GEMM and LU: input the host cannot hold
      std::string why = "FT class " + std::string(1, c.name) + " cannot be held by this host:";
      for (const auto& m : memory) why += "\n  " + m;
      throw InputError(why);
    }
    plan.unavailable.insert(plan.unavailable.end(), memory.begin(), memory.end());
    return plan;
  }

  std::optional<TunableSpace> parameters_of(const std::string& kernel) const override {
    for (int axis = 0; axis < 3; ++axis)
      if (kernel == kernel_names[axis]) return TunableSpace{axis_space(ft_class("S"), axis, DeviceInfo{}).params, {}};
    return std::nullopt;
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    int only = -1;
    for (int axis = 0; axis < 3; ++axis)
      if (kernel == kernel_names[axis]) only = axis;
    if (!kernel.empty() && only < 0)
      throw UsageError("unknown FT kernel '" + kernel + "' (tunable: cffts1, cffts2, cffts3: fast's transforms along x, y, z)");
    check_sweep_options(options);
    const FtClass& c = parse_class(options);
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : devices(options, skipped)) {
      SweepTarget target;
      target.device = device;
      target.problem = problem_name(c);
      target.precision = Precision::f64;
      const BackendTraits& traits = *backend_traits(device.backend);
      const std::string refused = traits.refuses ? traits.refuses(device, Variant::fast) : "";
      if (std::find(traits.variants.begin(), traits.variants.end(), Variant::fast) == traits.variants.end()) {
        target.untunable.push_back(device.backend + ": FT's tunable kernels are fast's, which runs on GPU backends");
      } else if (!refused.empty()) {
        target.untunable.push_back(device.label() + ": FT's tunable kernels are fast's, and " + refused);
      } else {
        std::shared_ptr<Operations> ops = (*find_operations(device.backend))(device);
        Shapes chosen{};
        try {
          chosen = choose_shapes(options, c, device, nullptr);
        } catch (const DeviceError& e) {
          target.untunable.push_back(device.backend + ": " + e.what());
          targets.push_back(std::move(target));
          continue;
        }
        for (int axis = 0; axis < 3; ++axis)
          if (only < 0 || only == axis)
            target.kernels.push_back(std::make_unique<AxisTunable>(ops, c, axis, device, chosen));
      }
      targets.push_back(std::move(target));
    }
    return targets;
  }

 private:
  const FtClass& parse_class(const RunOptions& options) const {
    if (std::any_of(options.precisions.begin(), options.precisions.end(), [](Precision p) { return p != Precision::f64; }))
      throw UsageError("FT is double precision only, as NAS defines it (its checksums need it): use --precision f64");
    return ft_class(problem_of(options));
  }

  static std::vector<DeviceInfo> devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return registered_devices(options, "ft", operations_registry(), skipped);
  }
};

GPUBENCH_REGISTER_SUITE(FtSuite);

}  // namespace

}  // namespace gpubench::ft
