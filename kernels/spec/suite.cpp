// Users' own kernels (`gpubench run --spec FILE`): each spec a variant, on every backend that
// registered spec operations and whose source the spec gives. A point runs the spec's steps once
// per repetition, checks every buffer's guard zone and verifies the outputs against the
// reference kernel's (run once at its fixed configuration) or the expected files; the tuner
// sweeps the spec's tunables, compiled in as defines, into the database under "spec/<name>".
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "bench/suite.hpp"
#include "bench/suite_kit.hpp"
#include "common/errors.hpp"
#include "kernels/spec/operations.hpp"
#include "kernels/spec/spec.hpp"

namespace gpubench::spec {

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

namespace {

using Sizes = std::vector<std::pair<std::string, std::int64_t>>;

// The built-ins max_group, local_mem and compute_units. A device without work-groups (OpenMP's:
// its step functions see the launch geometry, but nothing runs it) bounds neither max_group nor
// local_mem (2^31 - 1), so that the constraints a spec writes for GPUs keep its space whole there.
DeviceLimits limits_of(const DeviceInfo& d) {
  constexpr std::int64_t unbounded = 2147483647;
  if (d.max_work_group_size == 0) return {unbounded, unbounded, static_cast<std::int64_t>(std::max(d.compute_units, 1))};
  return {static_cast<std::int64_t>(d.max_work_group_size), static_cast<std::int64_t>(d.local_mem_bytes),
          static_cast<std::int64_t>(std::max(d.compute_units, 1))};
}

// The spec's source for a backend's devices, and the field that names it: both OpenMP offload
// backends (GCC's and Clang's) compile its omp_target source.
std::string source_field(const std::string& backend) { return backend.starts_with("omp_target") ? "omp_target" : backend; }
const std::string& source_for(const Spec& s, const std::string& backend) {
  static const std::string none;
  const std::string field = source_field(backend);
  return field == "opencl" ? s.opencl_source : field == "cuda" ? s.cuda_source : field == "openmp" ? s.openmp_source
         : field == "omp_target" ? s.omp_target_source : none;
}

std::int64_t int_of(const Spec& s, const std::string& text, const IntVars& vars, const std::string& field) {
  try {
    return eval_int(text, vars);
  } catch (const ExpressionError& e) {
    throw InputError(s.where(field) + ": " + e.what());
  }
}
double real_of(const Spec& s, const std::string& text, const IntVars& vars, const std::string& field) {
  RealVars rv;
  for (const auto& [n, v] : vars) rv[n] = static_cast<double>(v);
  try {
    return eval_real(text, rv);
  } catch (const ExpressionError& e) {
    throw InputError(s.where(field) + ": " + e.what());
  }
}

// What one configuration is on a device, evaluated without it: each buffer's length and bytes,
// each step's arguments and geometry. InputError naming the field for a value out of range.
struct Layout {
  std::vector<std::int64_t> lengths;
  std::vector<std::size_t> bytes;  // with the guard zone
  std::vector<Launch> launches;    // buffer arguments by the buffer's place in spec.buffers
};

// How C++ spells an element type (OpenMP's step wrappers; `real` is a define there).
std::string c_type_of(Elem e) {
  switch (e) {
    case Elem::f32: return "float";
    case Elem::f64: return "double";
    case Elem::real: return "real";
    case Elem::i32: return "int32_t";
    case Elem::u32: return "uint32_t";
    case Elem::i64: return "int64_t";
    case Elem::u64: return "uint64_t";
  }
  return "void";
}

std::vector<Launch> launches_of(const Spec& s, const std::vector<Step>& steps, const IntVars& vars, Precision p,
                                const std::string& field) {
  std::vector<Launch> out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& st = steps[i];
    const std::string f = field + "[" + std::to_string(i) + "]";
    Launch l;
    l.kernel = st.kernel;
    for (std::size_t a = 0; a < st.args.size(); ++a) {
      const Arg& arg = st.args[a];
      LaunchArg la;
      const std::string af = f + ".args[" + std::to_string(a) + "]";
      auto put = [&la](const auto& value) {
        la.bytes.resize(sizeof value);
        std::memcpy(la.bytes.data(), &value, sizeof value);
      };
      auto whole = [&](std::int64_t lo, std::int64_t hi) {
        const std::int64_t v = int_of(s, arg.text, vars, af);
        if (v < lo || v > hi)
          throw InputError(s.where(af) + ": `" + arg.text + "` = " + std::to_string(v) + " does not fit the argument's type");
        return v;
      };
      switch (arg.kind) {
        case Arg::buffer: {
          const auto it = std::find_if(s.buffers.begin(), s.buffers.end(), [&](const Buffer& b) { return b.name == arg.text; });
          la.buffer = static_cast<int>(it - s.buffers.begin());
          la.c_type = c_type_of(it->type) + "*";
          break;
        }
        case Arg::i32: put(static_cast<std::int32_t>(whole(std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()))); la.c_type = "int32_t"; break;
        case Arg::u32: put(static_cast<std::uint32_t>(whole(0, std::numeric_limits<std::uint32_t>::max()))); la.c_type = "uint32_t"; break;
        case Arg::i64: put(static_cast<std::int64_t>(whole(-exact_limit, exact_limit))); la.c_type = "int64_t"; break;
        case Arg::u64: put(static_cast<std::uint64_t>(whole(0, exact_limit))); la.c_type = "uint64_t"; break;
        case Arg::f32: put(static_cast<float>(arg.number)); la.c_type = "float"; break;
        case Arg::f64: put(arg.number); la.c_type = "double"; break;
        case Arg::real:
          if (p == Precision::f32) put(static_cast<float>(arg.number));
          else put(arg.number);
          la.c_type = "real";
          break;
      }
      l.args.push_back(std::move(la));
    }
    l.geometry.dims = static_cast<unsigned>(st.global.size());
    std::size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    for (std::size_t d = 0; d < st.global.size(); ++d) {
      const std::string gf = f + ".global[" + std::to_string(d) + "]", lf = f + ".local[" + std::to_string(d) + "]";
      const std::int64_t g = int_of(s, st.global[d], vars, gf), w = int_of(s, st.local[d], vars, lf);
      if (g < 1) throw InputError(s.where(gf) + ": `" + st.global[d] + "` = " + std::to_string(g) + ": a launch needs at least one work-item");
      if (w < 1) throw InputError(s.where(lf) + ": `" + st.local[d] + "` = " + std::to_string(w) + ": a work-group needs at least one work-item");
      if (g % w != 0)
        throw InputError(s.where(gf) + ": `" + st.global[d] + "` = " + std::to_string(g) + " is not a multiple of local `" +
                         st.local[d] + "` = " + std::to_string(w) +
                         " (add a constraint that keeps it whole, or round it up with round_up(x, local))");
      global[d] = static_cast<std::size_t>(g);
      local[d] = static_cast<std::size_t>(w);
    }
    l.geometry.global = {global[0], global[1], global[2]};
    l.geometry.local = {local[0], local[1], local[2]};
    out.push_back(std::move(l));
  }
  return out;
}

Layout layout_of(const Spec& s, const Sizes& sizes, const Params& params, Precision p, const DeviceInfo& device,
                 const std::vector<Step>& steps, const std::string& steps_field) {
  const IntVars vars = variables(sizes, params, p, limits_of(device));
  Layout l;
  for (const Buffer& b : s.buffers) {
    const std::string f = "buffers." + b.name + ".length";
    const std::int64_t n = int_of(s, b.length, vars, f);
    if (n < 1) throw InputError(s.where(f) + ": `" + b.length + "` = " + std::to_string(n) + ": a buffer holds at least one element");
    const std::size_t size = elem_bytes(b.type, p);
    if (n > (exact_limit - guard_max_bytes) / static_cast<std::int64_t>(size))
      throw InputError(s.where(f) + ": `" + b.length + "` = " + std::to_string(n) + " elements of " +
                       std::to_string(size) + " bytes pass 2^53 bytes: refused");
    l.lengths.push_back(n);
    l.bytes.push_back(static_cast<std::size_t>(n + guard_elements_of(n, size)) * size);
    if (device.max_alloc_bytes && l.bytes.back() > device.max_alloc_bytes)
      throw InputError(s.where(f) + ": `" + b.length + "` = " + std::to_string(n) + " elements, " +
                       std::to_string(l.bytes.back()) + " bytes with the guard zone, pass the largest buffer " +
                       device.label() + " allocates (" + std::to_string(device.max_alloc_bytes) + " bytes)");
  }
  std::size_t total = 0;
  for (std::size_t b : l.bytes) total += b;
  if (device.global_mem_bytes && total > device.global_mem_bytes)
    throw InputError(s.where("buffers") + ": " + std::to_string(total) + " bytes in all pass the memory of " +
                     device.label() + " (" + std::to_string(device.global_mem_bytes) + " bytes)");
  l.launches = launches_of(s, steps, vars, p, steps_field);
  return l;
}

std::vector<std::pair<std::string, std::string>> defines_of(const Params& params, Precision p) {
  auto d = compile_defines(params);
  d.insert(d.begin(), {"real", p == Precision::f32 ? "float" : "double"});
  return d;
}

// One configuration's buffers on a device: allocated with their guard zones, their initial
// contents uploaded, the program built.
class Instance {
 public:
  Instance(Operations& ops, const Spec& s, const Sizes& sizes, const Params& params, Precision p,
           const std::vector<Step>& steps, const std::string& steps_field)
      : ops_(ops), spec_(s), precision_(p),
        layout_(layout_of(s, sizes, params, p, ops.device(), steps, steps_field)) {
    // Built first: a configuration that does not compile allocates nothing (a sweep meets many).
    // The reference's steps say so: a sweep's configurations each report its failure.
    std::string what = (steps_field == "steps" ? "spec " : "the reference steps (" + steps_field + ") of spec ") + s.path +
                       " (" + s.name + ", real=" + to_string(p);
    for (const auto& [n, v] : params) what += " " + n + "=" + std::to_string(v);
    what += ")";
    program_ = ops.build(source_for(s, ops.device().backend), s.portable, defines_of(params, p), what);
    try {
      for (std::size_t i = 0; i < s.buffers.size(); ++i) {
        buffers_.push_back(ops.allocate(layout_.bytes[i]));
        initial_.push_back(initial_contents(s, s.buffers[i], layout_.lengths[i], p));
        upload(i);
        const std::vector<unsigned char> zone(guard_bytes(i), canary);
        ops.write(buffers_[i], zone.data(), zone.size(), initial_[i].size());
      }
    } catch (...) {
      release_all();  // what was allocated before the failure (no destructor runs for a throwing constructor)
      throw;
    }
    for (auto& l : layout_.launches)
      for (auto& a : l.args)
        if (a.buffer >= 0) a.buffer = buffers_[static_cast<std::size_t>(a.buffer)];
  }
  ~Instance() { release_all(); }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  // Before a run: the buffers marked "reset" get their initial contents again.
  void reset() {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (spec_.buffers[i].reset) upload(i);
  }
  double run(int times, std::vector<double>* each) { return ops_.run(program_, layout_.launches, times, each); }

  // "" when every guard zone is intact and every output matches `expected`; else what is wrong.
  std::string check(const std::map<std::string, std::vector<unsigned char>>& expected) {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      std::vector<unsigned char> zone(guard_bytes(i));
      ops_.read(buffers_[i], zone.data(), zone.size(), initial_[i].size());
      const std::string damage = guard_damage(spec_.buffers[i].name, zone.data(), zone.size(), elem(i));
      if (!damage.empty()) return damage;
    }
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Buffer& b = spec_.buffers[i];
      if (!b.output) continue;
      const auto want = expected.find(b.name);
      if (want == expected.end()) continue;
      if (want->second.size() != initial_[i].size())
        return "buffer `" + b.name + "` holds " + std::to_string(layout_.lengths[i]) + " elements; the expected output " +
               std::to_string(want->second.size() / elem(i));
      const std::vector<unsigned char> got = read(i);
      const std::string off = compare(b.name, b.type, precision_, got.data(), want->second.data(), layout_.lengths[i],
                                      spec_.verify.abs, spec_.verify.rel);
      if (!off.empty()) return off;
    }
    return "";
  }
  std::vector<unsigned char> read(std::size_t i) {
    std::vector<unsigned char> out(initial_[i].size());
    ops_.read(buffers_[i], out.data(), out.size(), 0);
    return out;
  }

 private:
  std::size_t elem(std::size_t i) const { return elem_bytes(spec_.buffers[i].type, precision_); }
  std::size_t guard_bytes(std::size_t i) const { return layout_.bytes[i] - initial_[i].size(); }
  void upload(std::size_t i) { ops_.write(buffers_[i], initial_[i].data(), initial_[i].size(), 0); }
  void release_all() noexcept {
    for (int b : buffers_) {
      try {
        ops_.release(b);
      } catch (...) {  // a device that failed: its memory goes with its context
      }
    }
    buffers_.clear();
  }

  Operations& ops_;
  const Spec& spec_;
  Precision precision_;
  Layout layout_;
  std::vector<int> buffers_;
  std::vector<std::vector<unsigned char>> initial_;
  int program_ = -1;
};

// The outputs every configuration is checked against: the reference steps' (run once at their
// fixed configuration), or the expected files'.
std::map<std::string, std::vector<unsigned char>> expected_outputs(Operations& ops, const Spec& s, const Sizes& sizes,
                                                                   Precision p) {
  std::map<std::string, std::vector<unsigned char>> out;
  if (!s.verify.reference.empty()) {
    Instance ref(ops, s, sizes, s.verify.reference_params, p, s.verify.reference, "verify.reference.steps");
    ref.run(1, nullptr);
    for (std::size_t i = 0; i < s.buffers.size(); ++i)
      if (s.buffers[i].output) out[s.buffers[i].name] = ref.read(i);
    return out;
  }
  for (const auto& [name, path] : s.verify.expected) {
    Buffer as_file = *s.buffer(name);
    as_file.init = Init{Init::file, 0, 0, 1, path};
    // Its length is checked against the configuration's when compared.
    std::ifstream probe(path, std::ios::binary | std::ios::ate);
    const auto bytes = static_cast<std::int64_t>(probe.tellg());
    const auto size = static_cast<std::int64_t>(elem_bytes(as_file.type, p));
    if (!probe || bytes % size != 0)
      throw InputError(s.where("verify.expected." + name) + ": " + path + " is not a whole number of " +
                       to_string(as_file.type) + " elements");
    out[name] = initial_contents(s, as_file, bytes / size, p);
  }
  (void)sizes;
  return out;
}

struct Verdict {
  bool passed = true;
  std::string detail;
};

// A spec's points and tuner share this: the spec, the problem, the precision, the device.
struct Target {
  std::shared_ptr<const Spec> spec;
  Sizes sizes;
  Precision precision = Precision::f64;
};

IntVars work_vars(const Target& t, const Params& params, const DeviceInfo& d) {
  return variables(t.sizes, params, t.precision, limits_of(d));
}

std::string spec_summary(const Target& t) {
  return t.spec->name + " (" + t.spec->path + ", sha256 " + t.spec->sha256.substr(0, 12) + ")";
}

// What a point would find too late, found while planning (exit 3, before any device): a work
// count that is negative or not a number, a data or expected file whose size is not its buffer's.
void check_work_and_files(const Spec& s, const Layout& layout, const IntVars& vars, Precision p) {
  auto count = [&](const std::string& text, const std::string& field) {
    if (text.empty()) return;
    const double v = real_of(s, text, vars, field);
    if (!std::isfinite(v) || v < 0)
      throw InputError(s.where(field) + ": `" + text + "` = " + std::to_string(v) + ": a count of work is a number >= 0");
  };
  count(s.flops, "work.flops");
  count(s.bytes, "work.bytes");
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    count(s.steps[i].flops, "steps[" + std::to_string(i) + "].flops");
    count(s.steps[i].bytes, "steps[" + std::to_string(i) + "].bytes");
  }
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer& b = s.buffers[i];
    const std::uint64_t want = static_cast<std::uint64_t>(layout.lengths[i]) * elem_bytes(b.type, p);
    const auto fits = [&](const std::string& path, const std::string& field) {
      std::error_code error;
      const auto size = std::filesystem::file_size(path, error);
      if (!error && size != want)
        throw InputError(s.where(field) + ": " + path + " holds " + std::to_string(size) + " bytes; the buffer `" +
                         b.name + "` is " + std::to_string(layout.lengths[i]) + " elements of " + to_string(b.type) +
                         " (" + std::to_string(want) + " bytes) at this problem and precision");
    };
    if (b.init.kind == Init::file) fits(b.init.path, "buffers." + b.name + ".init.file");
    if (b.init.kind == Init::ramp && b.type != Elem::real && b.type != Elem::f32 && b.type != Elem::f64) {
      const double end = b.init.a + b.init.b * static_cast<double>(layout.lengths[i] - 1);
      const auto [low, high] = integer_range(b.type);
      if (end < low || end > high)
        throw InputError(s.where("buffers." + b.name + ".init.ramp") + ": its last element would be " + std::to_string(end) +
                         ", more than " + to_string(b.type) + " holds, at " + std::to_string(layout.lengths[i]) + " elements");
    }
    if (const auto it = s.verify.expected.find(b.name); it != s.verify.expected.end())
      fits(it->second, "verify.expected." + b.name);
  }
}

class SpecPoint final : public Point {
 public:
  SpecPoint(PointId id, Target t, Params params) : Point(std::move(id)), t_(std::move(t)), params_(std::move(params)) {}

  void prepare() override {
    const OperationsFactory* factory = operations_registry().factory(id().backend);
    if (!factory) throw DeviceError("backend '" + id().backend + "' runs no kernel specs in this build");
    ops_ = (*factory)(id().device);
    expected_ = expected_outputs(*ops_, *t_.spec, t_.sizes, t_.precision);
    instance_ = std::make_unique<Instance>(*ops_, *t_.spec, t_.sizes, params_, t_.precision, t_.spec->steps, "steps");
    instance_->run(1, nullptr);  // builds, and warms up
  }

  Outcome run_unverified() override {
    instance_->reset();
    return {instance_->run(1, nullptr), 1, false, "", {}};
  }

  Outcome run() override {
    instance_->reset();
    const double seconds = instance_->run(1, nullptr);
    const std::string wrong = instance_->check(expected_);
    Outcome o{seconds, 1, wrong.empty(), wrong.empty() ? "every output within tolerance; guard zones intact" : wrong, {}};
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [n, v] : t_.sizes) sizes[n] = v;
    o.fields = {{"spec", t_.spec->name},
                {"spec_file", t_.spec->path},
                {"spec_sha256", t_.spec->sha256},
                {"sizes", sizes},
                {"summary", spec_summary(t_)}};
    return o;
  }

  Profile profile() override {
    const auto& steps = t_.spec->steps;
    std::vector<double> each(steps.size(), 0.0);
    instance_->reset();
    const double total = instance_->run(1, &each);
    const IntVars vars = work_vars(t_, params_, ops_->device());
    Profile p;
    p.seconds_per_iteration = total;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      KernelRow row{steps[i].kernel, 1, each[i], 0, 0};
      const std::string f = "steps[" + std::to_string(i) + "]";
      if (!steps[i].flops.empty()) row.flops_per_iteration = real_of(*t_.spec, steps[i].flops, vars, f + ".flops");
      else if (steps.size() == 1) row.flops_per_iteration = flops_per_iteration();
      if (!steps[i].bytes.empty()) row.bytes_per_iteration = real_of(*t_.spec, steps[i].bytes, vars, f + ".bytes");
      else if (steps.size() == 1) row.bytes_per_iteration = bytes_per_iteration();
      p.kernels.push_back(row);
    }
    return p;
  }

  double flops_per_iteration() const override {
    return real_of(*t_.spec, t_.spec->flops, work_vars(t_, params_, id().device), "work.flops");
  }
  double bytes_per_iteration() const override {
    return real_of(*t_.spec, t_.spec->bytes, work_vars(t_, params_, id().device), "work.bytes");
  }
  std::string time_includes() const override {
    return "one run of the spec's " + std::to_string(t_.spec->steps.size()) +
           " launch(es), from the first launch's start to the last one's end on the device's clock; no uploads, "
           "no guard or output checks";
  }
  void release() override {
    instance_.reset();
    ops_.reset();
  }

 private:
  Target t_;
  Params params_;
  std::unique_ptr<Operations> ops_;
  std::unique_ptr<Instance> instance_;
  std::map<std::string, std::vector<unsigned char>> expected_;
};

TunableSpace space_of(const Target& t, const DeviceInfo& d) { return space_for(*t.spec, t.sizes, t.precision, limits_of(d)); }

TuningKey key_of(const Target& t) { return TuningKey::of_sizes("spec", t.spec->name, t.precision, t.sizes); }

// The spec's defaults where they are legal here, else the first legal configuration; an
// InputError naming the constraints when none is.
Params heuristic_of(const Target& t, const DeviceInfo& d) {
  const TunableSpace space = space_of(t, d);
  std::string why;
  if (!t.spec->defaults.empty() && space.legal(t.spec->defaults, &why)) return t.spec->defaults;
  const auto first = space.enumerate(1);
  if (first.empty()) {
    std::string list;
    for (const auto& [description, e] : t.spec->constraints) list += (list.empty() ? "" : "; ") + e;
    throw InputError(t.spec->where("constraints") + ": no configuration of the tunables meets them on " + d.label() +
                     " at " + Spec::problem_name(t.sizes) + " (" + std::to_string(space.size()) +
                     " configurations tried: " + list + ")");
  }
  return first.front();
}

class SpecTunable final : public TunableKernel {
 public:
  SpecTunable(std::shared_ptr<Operations> ops, Target t) : ops_(std::move(ops)), t_(std::move(t)) {}
  std::string name() const override { return t_.spec->name; }
  TunableSpace tunables() const override { return space_of(t_, ops_->device()); }
  Params heuristic() const override { return heuristic_of(t_, ops_->device()); }
  std::string heuristic_source() const override {
    std::string why;
    return !t_.spec->defaults.empty() && space_of(t_, ops_->device()).legal(t_.spec->defaults, &why)
               ? "the spec's defaults (" + t_.spec->path + ")"
               : "the first configuration the spec's tunables and constraints allow (its defaults are not legal here)";
  }
  TuningKey key() const override { return key_of(t_); }
  nlohmann::json provenance() const override { return {{"spec_sha256", t_.spec->sha256}}; }
  double flops_per_call() const override {
    return real_of(*t_.spec, t_.spec->flops, work_vars(t_, heuristic(), ops_->device()), "work.flops");
  }
  double bytes_per_call() const override {
    return real_of(*t_.spec, t_.spec->bytes, work_vars(t_, heuristic(), ops_->device()), "work.bytes");
  }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    if (!expected_) expected_ = expected_outputs(*ops_, *t_.spec, t_.sizes, t_.precision);
    Instance instance(*ops_, *t_.spec, t_.sizes, params, t_.precision, t_.spec->steps, "steps");
    return verify_then_time<Verdict>(
        name(),
        [&] {
          instance.reset();
          return instance.run(1, nullptr);
        },
        [&] {
          const std::string wrong = instance.check(*expected_);
          return Verdict{wrong.empty(), wrong};
        },
        time_limit_s, [&](int calls) { return instance.run(calls, nullptr); });
  }

 private:
  std::shared_ptr<Operations> ops_;
  Target t_;
  std::optional<std::map<std::string, std::vector<unsigned char>>> expected_;
};

class SpecSuite final : public Suite {
 public:
  std::string name() const override { return "spec"; }
  std::string default_problem() const override { return "the spec's sizes"; }
  std::string problems_help() const override {
    return "NAME=VALUE[,NAME=VALUE..]: the spec's sizes (--spec FILE, repeatable; docs/spec.md)";
  }
  std::vector<std::string> variants() const override { return {"each --spec's name"}; }

  Plan plan(const RunOptions& options) override {
    Plan plan;
    const auto specs = load_specs(options);
    for (const DeviceInfo& device : devices(options, plan.unavailable)) {
      for (const auto& spec : specs) {
        if (source_for(*spec, device.backend).empty()) {
          plan.unavailable.push_back(spec->name + " on " + device.backend + ": the spec gives no " + source_field(device.backend) + " source");
          continue;
        }
        for (Precision p : options.precisions) {
          if (std::find(spec->precisions.begin(), spec->precisions.end(), p) == spec->precisions.end()) {
            plan.unavailable.push_back(spec->name + " in " + to_string(p) + ": the spec's precisions leave it out");
            continue;
          }
          Target t{spec, spec->sizes_for(options.problem), p};
          PointId id = point_id(*this, Spec::problem_name(t.sizes), device, spec->name, p);
          Params params;
          if (!spec->space.params.empty()) {
            const LaunchChoice chosen =
                choose_launch_params(options.tuning.get(), device, key_of(t), heuristic_of(t, device), space_of(t, device));
            id.params["launch"][spec->name] = launch_json(chosen);
            params = chosen.params;
          }
          id.params["spec_sha256"] = spec->sha256;
          // Everything a configuration is, evaluated now: a length past 2^53 or a launch that
          // does not divide is the spec's error, said before any device is opened.
          const Layout layout = layout_of(*spec, t.sizes, params, p, device, spec->steps, "steps");
          check_work_and_files(*spec, layout, work_vars(t, params, device), p);
          if (!spec->verify.reference.empty())
            layout_of(*spec, t.sizes, spec->verify.reference_params, p, device, spec->verify.reference, "verify.reference.steps");
          plan.points.push_back(std::make_unique<SpecPoint>(std::move(id), std::move(t), params));
        }
      }
    }
    return plan;
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    check_sweep_options(options);
    auto specs = load_specs(options);
    if (!kernel.empty()) {
      std::erase_if(specs, [&](const auto& s) { return s->name != kernel; });
      if (specs.empty()) throw UsageError("--kernel " + kernel + " names none of the specs given");
    }
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    // One target per spec (its own sizes name its problem), the device opened once per backend device.
    for (const DeviceInfo& device : devices(options, skipped)) {
      std::shared_ptr<Operations> ops;
      for (Precision p : options.precisions) {
        for (const auto& spec : specs) {
          SweepTarget target;
          target.device = device;
          target.precision = p;
          Target t{spec, spec->sizes_for(options.problem), p};
          target.problem = Spec::problem_name(t.sizes);
          if (source_for(*spec, device.backend).empty()) {
            target.untunable.push_back(spec->name + ": the spec gives no " + source_field(device.backend) + " source");
          } else if (std::find(spec->precisions.begin(), spec->precisions.end(), p) == spec->precisions.end()) {
            target.untunable.push_back(spec->name + ": the spec's precisions leave out " + std::string(to_string(p)));
          } else if (spec->space.params.empty()) {
            target.untunable.push_back(spec->name + ": the spec declares no tunables");
          } else {
            const Params h = heuristic_of(t, device);  // a space no configuration meets is an error before the device opens
            check_work_and_files(*spec, layout_of(*spec, t.sizes, h, p, device, spec->steps, "steps"), work_vars(t, h, device), p);
            if (!ops) ops = std::shared_ptr<Operations>((*operations_registry().factory(device.backend))(device));
            target.kernels.push_back(std::make_unique<SpecTunable>(ops, std::move(t)));
          }
          targets.push_back(std::move(target));
        }
      }
    }
    return targets;
  }

 private:
  static std::vector<std::shared_ptr<const Spec>> load_specs(const RunOptions& options) {
    if (options.specs.empty()) throw UsageError("the spec suite runs users' kernels: give --spec FILE (docs/spec.md)");
    std::vector<std::shared_ptr<const Spec>> specs;
    std::set<std::string> names;
    for (const auto& path : options.specs) {
      auto s = std::make_shared<const Spec>(load(path));
      if (!names.insert(s->name).second)
        throw UsageError("--spec " + path + ": two specs are named '" + s->name + "' (a name is a variant of the run)");
      specs.push_back(std::move(s));
    }
    if (!options.variants.empty()) {
      for (const auto& v : options.variants)
        if (!names.count(v)) {
          std::string valid;
          for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
          throw UsageError("--variant " + v + " names none of the specs (their names: " + valid + ")");
        }
      std::erase_if(specs, [&](const auto& s) {
        return std::find(options.variants.begin(), options.variants.end(), s->name) == options.variants.end();
      });
    }
    return specs;
  }
  static std::vector<DeviceInfo> devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return registered_devices(options, "spec", operations_registry(), skipped);
  }
};

GPUBENCH_REGISTER_SUITE(SpecSuite);

}  // namespace

}  // namespace gpubench::spec
