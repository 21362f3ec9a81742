#include "bench/suite.hpp"
#include "bench/suite_kit.hpp"

#include <iostream>

#include <limits>

#include "backends/registry.hpp"
#include "bench/parse_number.hpp"
#include "common/errors.hpp"

namespace gpubench {

namespace {
std::vector<std::function<std::unique_ptr<Suite>()>>& factories() {
  static std::vector<std::function<std::unique_ptr<Suite>()>> f;
  return f;
}
}  // namespace

nlohmann::json gap_cause(const std::string& by, const std::string& cause) {
  if (by != "api" && by != "compiler" && by != "device" && by != "gpubench")
    throw Error(ExitCode::internal, "gap_cause: '" + by + "' is not api, compiler, device or gpubench");
  return {{"by", by}, {"cause", cause}};
}

std::string PointId::where() const {
  if (devices.size() < 2) return backend + ":" + std::to_string(device.index);
  std::string text;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const bool same_backend = k > 0 && devices[k].backend == devices[k - 1].backend;
    if (k > 0) text += '+';
    if (!same_backend) text += devices[k].backend + ':';
    text += std::to_string(devices[k].index);
  }
  return text;
}

std::string PointId::name() const {
  return suite + "/" + problem + "/" + where() + "/" + variant + "/" + to_string(precision) +
         (ranks > 0 ? "/ranks:" + std::to_string(ranks) : "");
}

std::vector<SweepTarget> Suite::sweep_targets(const RunOptions&, const std::string&) {
  throw UsageError("suite " + name() + " has no tunable kernels to sweep");
}

std::optional<long long> integer_option(const RunOptions& options, const std::string& name, long long min) {
  const auto it = options.suite_options.find(name);
  if (it == options.suite_options.end()) return std::nullopt;
  return parse_number<long long>("--" + name, it->second, min);
}

std::optional<double> real_option(const RunOptions& options, const std::string& name) {
  const auto it = options.suite_options.find(name);
  if (it == options.suite_options.end()) return std::nullopt;
  return parse_number<double>("--" + name, it->second, -std::numeric_limits<double>::max());
}

std::vector<DeviceInfo> suite_devices(const RunOptions& options, const std::string& suite,
                                      const std::function<bool(const std::string& backend)>& implemented,
                                      std::vector<std::string>& skipped) {
  if (options.comm && options.comm->size() > 1)
    throw UsageError("suite " + suite + " runs in one process; across MPI ranks only suite cg runs (one band of its "
                     "matrix per rank)");
  if (options.all_devices || !options.device_group.empty())
    throw UsageError("--device with several devices splits one CG solve across them; suite " + suite +
                     " runs on one device: give --device N");
  std::string runs_on;
  for (const auto& b : backends())
    if (implemented(b.name)) runs_on += (runs_on.empty() ? "" : ", ") + b.name;
  std::vector<DeviceInfo> devices;
  for (std::size_t k = 0; k < options.backends.size(); ++k) {
    const std::string& backend = options.backends[k];
    // A backend built as a module is loaded now: its suites' operations come with it.
    if (const std::string why = load_backend(backend); !why.empty()) {
      if (options.backends.size() == 1) throw DeviceError(backend + ": no devices: " + why);
      std::cerr << "gpubench: skipping backend " << backend << ": no devices: " << why << std::endl;
      skipped.push_back(backend + ": no devices: " + why);
      continue;
    }
    if (implemented(backend)) {
      try {
        devices.push_back(find_device(backend, options.device_of(k)));
      } catch (const DeviceError& e) {  // with several backends, one without the device is skipped
        if (options.backends.size() == 1) throw;
        std::cerr << "gpubench: skipping backend " << backend << ": " << e.what() << std::endl;
        skipped.push_back(backend + ": " + e.what());
      }
      continue;
    }
    const std::string why = "backend '" + backend + "' has no " + suite + " implementation in this build (" + suite +
                            " runs on " + (runs_on.empty() ? std::string("none") : runs_on) + ")";
    if (options.backends.size() == 1) throw UsageError(why);
    skipped.push_back(backend + ": " + why);
  }
  return devices;
}

PointId point_id(const Suite& suite, const std::string& problem, const DeviceInfo& device, const std::string& variant,
                 Precision precision) {
  PointId id;
  id.suite = suite.name();
  id.problem = problem;
  id.backend = device.backend;
  id.variant = variant;
  id.device = device;
  id.precision = precision;
  return id;
}

void check_sweep_options(const RunOptions& options) {
  if (!options.variants.empty()) throw UsageError("sweep tunes kernels, not variants: drop --variant (use --kernel)");
}

void check_suite_options(const Suite& suite, const RunOptions& options) {
  for (const auto& [name, value] : options.suite_options) {
    bool ours = false;
    for (const auto& option : suite.options()) ours = ours || option.name == name;
    if (ours) continue;
    std::string owners;
    for (const auto& f : factories()) {
      const auto other = f();
      for (const auto& option : other->options())
        if (option.name == name) owners += (owners.empty() ? "" : ", ") + other->name();
    }
    throw UsageError("--" + name + " is an option of suite " + (owners.empty() ? "none" : owners) + ", not of " +
                     suite.name());
  }
  suite.check_option_values(options);
}

void register_suite(std::function<std::unique_ptr<Suite>()> factory) { factories().push_back(std::move(factory)); }

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const auto& f : factories()) names.push_back(f()->name());
  return names;
}

std::unique_ptr<Suite> make_suite(const std::string& name) {
  std::string valid;
  for (const auto& f : factories()) {
    auto s = f();
    if (s->name() == name) return s;
    valid += (valid.empty() ? "" : ", ") + s->name();
  }
  throw UsageError("unknown suite '" + name + "' (valid: " + valid + ")");
}

}  // namespace gpubench
