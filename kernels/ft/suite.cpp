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
#include "kernels/ft/ft.hpp"
#include "kernels/ft/operations.hpp"

namespace gpubench::ft {

namespace {

std::string problem_name(const FtClass& c) { return std::string("npb:") + c.name; }

constexpr const char* axis_names[] = {"x", "y", "z"};

// fast's shape along an axis of n points without a tuning: radix 8, and lines enough for 64
// work-items per group; along the strided axes (y, z) at least 4, so that each load of an element
// of the group's lines reads 64 contiguous bytes; within the device's local memory.
AxisShape heuristic_shape(int n, bool strided, const DeviceInfo& device) {
  AxisShape s;
  s.radix = n >= 8 ? 8 : 4;
  const int items = n / s.radix;
  s.lines = std::max(strided ? 4 : 1, 64 / items);
  while (s.lines > 1 && (static_cast<std::uint64_t>(s.lines) * n * sizeof(Complex) > device.local_mem_bytes ||
                         static_cast<std::size_t>(s.lines * items) > device.max_work_group_size))
    s.lines /= 2;
  return s;
}

Shapes heuristic_shapes(const FtClass& c, const DeviceInfo& device) {
  return {heuristic_shape(c.nx, false, device), heuristic_shape(c.ny, true, device), heuristic_shape(c.nz, true, device)};
}

// The work of each function over a whole run: a radix-2 FFT of length n is 5 n log2 n FLOPs and
// reads and writes its line once; 1 + niter 3-D transforms.
std::vector<KernelRow> rows_of(const FtClass& c, const FunctionTimes& t) {
  const double n = static_cast<double>(c.total()), ffts = 1 + c.niter, field = 16 * n;
  auto fft_flops = [&](int length) { return ffts * 5 * n * std::log2(static_cast<double>(length)); };
  std::vector<KernelRow> rows;
  rows.push_back({"setup", 1, t.setup, n, field + 8 * n});
  if (t.fft > 0) {
    rows.push_back({"fft", ffts, t.fft, fft_flops(c.nx) + fft_flops(c.ny) + fft_flops(c.nz), ffts * 2 * field});
  } else {
    rows.push_back({"cffts1", ffts, t.fft_x, fft_flops(c.nx), ffts * 2 * field});
    rows.push_back({"cffts2", ffts, t.fft_y, fft_flops(c.ny), ffts * 2 * field});
    rows.push_back({"cffts3", ffts, t.fft_z, fft_flops(c.nz), ffts * 2 * field});
  }
  if (t.rotate > 0) rows.push_back({"rotate", ffts * 4, t.rotate, 0, ffts * 4 * 2 * field});
  rows.push_back({"evolve", static_cast<double>(c.niter), t.evolve, c.niter * 2 * n, c.niter * (field + 8 * n + 2 * field)});
  rows.push_back({"checksum", static_cast<double>(c.niter), t.checksum, c.niter * 2048.0, c.niter * 1024.0 * 16});
  return rows;
}

class FtPoint final : public Point {
 public:
  FtPoint(PointId id, const FtClass& c, Variant v, const Shapes& shapes)
      : Point(std::move(id)), class_(c), variant_(v), shapes_(shapes) {}

  void prepare() override {
    const OperationsFactory* factory = find_operations(id().backend);
    if (!factory) throw DeviceError("backend '" + id().backend + "' has no FT in this build");
    ops_ = (*factory)(id().device);
    ops_->prepare(class_, variant_, shapes_);
  }

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
  Shapes shapes_;
  std::unique_ptr<Operations> ops_;
};

class FtSuite final : public Suite {
 public:
  std::string name() const override { return "ft"; }
  std::string default_problem() const override { return "A"; }
  std::string problems_help() const override { return "S, W, A, B, C, D (NAS FT classes; npb:X as well)"; }
  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (Variant v : all_variants) names.push_back(to_string(v));
    return names;
  }

  Plan plan(const RunOptions& options) override {
    const FtClass& c = parse_class(options);
    std::vector<Variant> variants;
    for (const auto& v : options.variants) variants.push_back(parse_variant(v));
    if (variants.empty()) variants.assign(std::begin(all_variants), std::end(all_variants));
    Plan plan;
    for (const DeviceInfo& device : devices(options, plan.unavailable)) {
      const BackendTraits& traits = *backend_traits(device.backend);
      for (Variant v : variants) {
        if (std::find(traits.variants.begin(), traits.variants.end(), v) == traits.variants.end()) {
          plan.unavailable.push_back(to_string(v) + " on " + device.backend +
                                     (v == Variant::vendor && device.backend == "openmp"
                                          ? ": no FFT library was found when configured (Debian libfftw3-dev)"
                                          : ": not an FT variant of this backend (yet)"));
          continue;
        }
        PointId id;
        id.suite = name();
        id.problem = problem_name(c);
        id.backend = device.backend;
        id.variant = to_string(v);
        id.device = device;
        id.precision = Precision::f64;
        if (v == Variant::serial) id.params["threads"] = 1;
        if (v == Variant::vendor) {
          id.params["library"] = traits.vendor;
          if (device.backend == "openmp") id.params["planner"] = "FFTW_MEASURE, before the timed region";
        }
        Shapes shapes{};
        if (v == Variant::fast) {
          shapes = heuristic_shapes(c, device);
          for (int axis = 0; axis < 3; ++axis) {
            id.params[axis_names[axis] + std::string("_radix")] = shapes[axis].radix;
            id.params[axis_names[axis] + std::string("_lines")] = shapes[axis].lines;
          }
        }
        plan.points.push_back(std::make_unique<FtPoint>(std::move(id), c, v, shapes));
      }
    }
    return plan;
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string&) override {
    const FtClass& c = parse_class(options);
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : devices(options, skipped)) {
      SweepTarget target;
      target.device = device;
      target.problem = problem_name(c);
      target.precision = Precision::f64;
      target.untunable.push_back(device.backend + ": FT has no tunable kernel there yet");
      targets.push_back(std::move(target));
    }
    return targets;
  }

 private:
  const FtClass& parse_class(const RunOptions& options) const {
    if (std::any_of(options.precisions.begin(), options.precisions.end(), [](Precision p) { return p != Precision::f64; }))
      throw UsageError("FT is double precision only, as NAS defines it (its checksums need it): use --precision f64");
    return ft_class(options.problem.empty() ? default_problem() : options.problem);
  }

  static std::vector<DeviceInfo> devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return suite_devices(options, "ft", [](const std::string& b) { return find_operations(b) != nullptr; }, skipped);
  }
};

GPUBENCH_REGISTER_SUITE(FtSuite);

}  // namespace

}  // namespace gpubench::ft
