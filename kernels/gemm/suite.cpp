// The GEMM suite (issue 13): C = alpha A B + beta C for a problem `N` or `MxNxK` (with :NN or
// :TN), one point per backend x variant x precision, each call timed and its C verified
// (gemm.hpp: the reference where it is cheap, else Freivalds' check and sampled elements).
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "bench/suite.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/operations.hpp"

namespace gpubench::gemm {

namespace {

// Not 1 and 0, so that a kernel that drops alpha or beta fails verification.
constexpr double alpha = 1.25, beta = 0.5;
// Above this m n k the check is Freivalds' and sampled elements, not the whole reference.
constexpr double reference_limit = 2e8;

// The tiled loop's tile: the study's three sizes, 32 unless the tuning database says otherwise.
TunableSpace tile_space() { return {{Tunable::list("tile", {8, 16, 32})}, {}}; }
Params tile_heuristic() { return {{"tile", 32}}; }
TuningKey key_of(const Shape& s, Precision p) {
  return TuningKey::of_sizes("gemm", "tiled", p, {{"m", s.m}, {"n", s.n}, {"k", s.k}});
}

// Host bytes a point holds at once: the inputs in double, the device's copies (on openmp, host
// memory too: A, B, C0 and C), C read back, and the reference check's own copies.
std::uint64_t host_bytes_needed(const Shape& s, Precision p) {
  const auto a = static_cast<std::uint64_t>(s.a_elements()), b = static_cast<std::uint64_t>(s.b_elements()),
             c = static_cast<std::uint64_t>(s.c_elements());
  std::uint64_t bytes = 8 * (a + b + c) + bytes_of(p) * (a + b + 2 * c) + 8 * c;
  if (static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= reference_limit)
    bytes += 8 * (a + b + 2 * c);
  return bytes;
}

// A, B and C0 from fixed seeds, as a device of precision `p` holds them.
struct Inputs {
  std::vector<double> a, b, c0;
  Inputs(const Shape& s, Precision p)
      : a(make_input(s.a_elements(), 1, false)), b(make_input(s.b_elements(), 2, false)),
        c0(make_input(s.c_elements(), 3, false)) {
    if (p == Precision::f32)
      for (auto* v : {&a, &b, &c0})
        for (auto& x : *v) x = static_cast<float>(x);
  }
};

// The test-only hook GPUBENCH_WRONG_RESULT=NAME: the points whose name contains NAME get one
// element of C changed after the call, so that a test can see verification fail. Unset: nothing.
void plant_wrong_result(const std::string& point, std::vector<double>& c) {
  const char* name = std::getenv("GPUBENCH_WRONG_RESULT");
  if (name && *name && point.find(name) != std::string::npos && !c.empty()) c[c.size() / 2] += 1;
}

class GemmPoint final : public Point {
 public:
  GemmPoint(PointId id, Shape shape, Variant v, Params params)
      : Point(std::move(id)), shape_(std::move(shape)), variant_(v), params_(std::move(params)) {}

  void prepare() override {
    const OperationsFactory* factory = find_operations(id().backend);
    if (!factory) throw DeviceError("backend '" + id().backend + "' has no GEMM in this build");
    inputs_ = std::make_unique<Inputs>(shape_, id().precision);
    ops_ = (*factory)(id().device, id().precision);
    ops_->upload(shape_, inputs_->a, inputs_->b, inputs_->c0);
    ops_->run(variant_, params_, alpha, beta);  // warm-up: pages touched, caches and threads up
  }

  Outcome run() override {
    Outcome o;
    o.seconds = ops_->run(variant_, params_, alpha, beta);
    o.iterations = 1;
    std::vector<double> c = ops_->result();
    plant_wrong_result(id().name(), c);
    const Verdict v = verify(shape_, id().precision, alpha, inputs_->a, inputs_->b, beta, inputs_->c0, c, reference_limit);
    o.verified = v.passed;
    o.verification = v.detail;
    o.fields = {{"m", shape_.m}, {"n", shape_.n}, {"k", shape_.k}, {"transpose_a", shape_.transpose_a},
                {"alpha", alpha}, {"beta", beta}};
    return o;
  }

  Profile profile() override {
    const double seconds = ops_->run(variant_, params_, alpha, beta);
    return {{{kernel(), 1, seconds, flops(shape_), min_bytes(shape_, id().precision)}}, seconds};
  }

  double flops_per_iteration() const override { return flops(shape_); }
  double bytes_per_iteration() const override { return min_bytes(shape_, id().precision); }
  std::string time_includes() const override {
    return "one GEMM call, C = alpha A B + beta C, on data already on the device (C reset to C0 before it, not "
           "timed)";
  }
  void release() override {
    ops_.reset();
    inputs_.reset();
  }

 private:
  std::string kernel() const { return "gemm_" + to_string(variant_); }

  Shape shape_;
  Variant variant_;
  Params params_;
  std::unique_ptr<Inputs> inputs_;
  std::unique_ptr<Operations> ops_;
};

// The tiled kernel for the sweeper: its tile over the study's three sizes.
class TiledKernel final : public TunableKernel {
 public:
  TiledKernel(const DeviceInfo& device, Shape shape, Precision p) : shape_(std::move(shape)), precision_(p) {
    const OperationsFactory* factory = find_operations(device.backend);
    if (!factory) throw DeviceError("backend '" + device.backend + "' has no GEMM in this build");
    inputs_ = std::make_unique<Inputs>(shape_, p);
    ops_ = (*factory)(device, p);
    ops_->upload(shape_, inputs_->a, inputs_->b, inputs_->c0);
  }
  std::string name() const override { return "tiled"; }
  TunableSpace tunables() const override { return tile_space(); }
  Params heuristic() const override { return tile_heuristic(); }
  TuningKey key() const override { return key_of(shape_, precision_); }
  double flops_per_call() const override { return flops(shape_); }
  double bytes_per_call() const override { return min_bytes(shape_, precision_); }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    const double first = ops_->run(Variant::tiled, params, alpha, beta);
    const Verdict v = verify(shape_, precision_, alpha, inputs_->a, inputs_->b, beta, inputs_->c0, ops_->result(),
                             reference_limit);
    if (!v.passed) throw VerificationError("tiled " + format_params(params) + ": " + v.detail);
    return time_batches(
        [&](int calls) {
          double total = 0;
          for (int c = 0; c < calls; ++c) total += ops_->run(Variant::tiled, params, alpha, beta);
          return total;
        },
        time_limit_s, first);
  }

 private:
  Shape shape_;
  Precision precision_;
  std::unique_ptr<Inputs> inputs_;
  std::unique_ptr<Operations> ops_;
};

class GemmSuite final : public Suite {
 public:
  std::string name() const override { return "gemm"; }
  std::string default_problem() const override { return "512"; }
  std::string problems_help() const override { return "N (square), MxNxK; either with :NN or :TN (A transposed)"; }
  std::vector<std::string> variants() const override { return {"naive", "tiled", "serial", "vendor"}; }

  Plan plan(const RunOptions& options) override {
    const Shape shape = parse_shape(options.problem.empty() ? default_problem() : options.problem);
    for (Precision p : options.precisions)  // before anything of that size is allocated
      check_host_memory(host_bytes_needed(shape, p), "GEMM problem " + shape.name + " in " + to_string(p));
    std::vector<Variant> variants;
    for (const auto& v : options.variants) variants.push_back(parse_variant(v));
    if (variants.empty()) variants.assign(std::begin(all_variants), std::end(all_variants));
    Plan plan;
    for (const DeviceInfo& device : devices(options, plan.unavailable)) {
      for (Variant v : variants) {
        if (v == Variant::vendor && backend_traits(device.backend)->vendor.empty()) {
          plan.unavailable.push_back("vendor on " + device.backend + ": no BLAS library was found when configured" +
                                     (device.backend == "openmp" ? " (Debian libopenblas-dev)" : ""));
          continue;
        }
        for (Precision p : options.precisions) {
          PointId id;
          id.suite = name();
          id.problem = shape.name;
          id.backend = device.backend;
          id.variant = to_string(v);
          id.device = device;
          id.precision = p;
          Params params;
          if (v == Variant::tiled) {
            const LaunchChoice chosen =
                choose_launch_params(options.tuning.get(), device, key_of(shape, p), tile_heuristic(), tile_space());
            params = chosen.params;
            id.params["launch"]["gemm_tiled"] = launch_json(chosen);
          }
          if (v == Variant::serial) id.params["threads"] = 1;
          if (v == Variant::vendor) {
            std::string library = backend_traits(device.backend)->vendor;
            library.erase(0, library.find_first_not_of(' '));
            library.erase(library.find_last_not_of(' ') + 1);
            id.params["library"] = library;
          }
          plan.points.push_back(std::make_unique<GemmPoint>(std::move(id), shape, v, params));
        }
      }
    }
    return plan;
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    if (!kernel.empty() && kernel != "tiled") throw UsageError("unknown GEMM kernel '" + kernel + "' (tunable: tiled)");
    if (!options.variants.empty()) throw UsageError("sweep tunes kernels, not variants: drop --variant (use --kernel)");
    const Shape shape = parse_shape(options.problem.empty() ? default_problem() : options.problem);
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : devices(options, skipped)) {
      for (Precision p : options.precisions) {
        SweepTarget target;
        target.device = device;
        target.problem = shape.name;
        target.precision = p;
        target.kernels.push_back(std::make_unique<TiledKernel>(device, shape, p));
        targets.push_back(std::move(target));
      }
    }
    return targets;
  }

 private:
  // The devices of the backends that run GEMM; the others are listed as unavailable.
  static std::vector<DeviceInfo> devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return suite_devices(options, "gemm", [](const std::string& b) { return find_operations(b) != nullptr; }, skipped);
  }
};

GPUBENCH_REGISTER_SUITE(GemmSuite);

}  // namespace

}  // namespace gpubench::gemm
