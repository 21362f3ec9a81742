#include "bench/suite.hpp"
#include "bench/suite_kit.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <limits>
#include <set>

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

namespace {

constexpr std::size_t max_problems = 256;

// One number of a range's ends: decimal, or 2^K.
std::optional<long long> range_number(const std::string& t) {
  if (t.empty()) return std::nullopt;
  if (t.starts_with("2^")) {
    const std::string k = t.substr(2);
    if (k.empty() || k.size() > 2 || k.find_first_not_of("0123456789") != std::string::npos || std::stoi(k) > 62)
      return std::nullopt;
    return 1LL << std::stoi(k);
  }
  if (t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(t);
}

// `item` with its range A..B[*F|+S] (if any) expanded: A, A F, A F^2, .. up to B (F 2 by default),
// or A, A + S, .. up to B; UsageError naming a range it cannot take.
std::vector<std::string> expand_range(const std::string& item) {
  // A path (mtx:../a.mtx) is no range: its ".." is a folder's.
  const std::size_t dots = item.find("..");
  if (dots == std::string::npos || item.find('/') != std::string::npos) return {item};
  std::size_t a0 = dots;
  while (a0 > 0 && (std::isdigit(static_cast<unsigned char>(item[a0 - 1])) || item[a0 - 1] == '^')) --a0;
  std::size_t b1 = dots + 2;
  while (b1 < item.size() && (std::isdigit(static_cast<unsigned char>(item[b1])) || item[b1] == '^')) ++b1;
  const auto a = range_number(item.substr(a0, dots - a0)), b = range_number(item.substr(dots + 2, b1 - dots - 2));
  if (a0 == dots && b1 == dots + 2) return {item};  // no number on either side: not a range
  char how = '*';
  long long step = 2;
  std::size_t end = b1;
  if (end < item.size() && (item[end] == '*' || item[end] == '+')) {
    how = item[end];
    std::size_t e = end + 1;
    while (e < item.size() && std::isdigit(static_cast<unsigned char>(item[e]))) ++e;
    const auto f = range_number(item.substr(end + 1, e - end - 1));
    step = f ? *f : 0;
    end = e;
  }
  const std::string shape =
      "A..B, A..B*F or A..B+S (A, B: whole numbers or 2^K, A at least 1 for *F; F at least 2, S at least 1)";
  if (!a || !b || *a > *b || (how == '*' && (step < 2 || *a < 1)) || (how == '+' && step < 1) ||
      item.find("..", end) != std::string::npos)
    throw UsageError("--problem " + item + ": its range is not " + shape);
  std::vector<std::string> out;
  for (long long v = *a; v <= *b;) {
    out.push_back(item.substr(0, a0) + std::to_string(v) + item.substr(end));
    if (out.size() > max_problems)
      throw UsageError("--problem " + item + ": more than " + std::to_string(max_problems) + " problems");
    if (how == '*' ? v > *b / step : v > *b - step) break;
    v = how == '*' ? v * step : v + step;
  }
  return out;
}

}  // namespace

std::vector<std::string> problem_list(const std::string& suite, const std::string& text) {
  if (text.empty()) return {""};
  std::vector<std::string> items;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    items.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  for (const auto& item : items)
    if (item.empty()) throw UsageError("--problem " + text + ": an empty problem in the list");
  // A spec's problem is itself NAME=VALUE,..: a NAME given again begins the next problem.
  std::vector<std::string> groups;
  if (suite == "spec") {
    std::set<std::string> names;
    for (const auto& item : items) {
      const std::string name = item.substr(0, item.find('='));
      if (groups.empty() || !names.insert(name).second) {
        groups.push_back(item);
        names = {name};
      } else {
        groups.back() += "," + item;
      }
    }
  } else {
    groups = items;
  }
  std::vector<std::string> out;
  for (const auto& g : groups) {
    // Each NAME=VALUE of a spec's problem may be a range: their product.
    std::vector<std::string> expanded = {""};
    std::size_t from = 0;
    while (from <= g.size()) {
      const std::size_t comma = suite == "spec" ? std::min(g.find(',', from), g.size()) : g.size();
      std::vector<std::string> next;
      for (const auto& head : expanded)
        for (const auto& v : expand_range(g.substr(from, comma - from))) {
          next.push_back(head.empty() ? v : head + "," + v);
          if (next.size() > max_problems)
            throw UsageError("--problem " + text + ": more than " + std::to_string(max_problems) + " problems");
        }
      expanded = std::move(next);
      from = comma + 1;
    }
    for (auto& e : expanded)
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(std::move(e));
    if (out.size() > max_problems)
      throw UsageError("--problem " + text + ": more than " + std::to_string(max_problems) + " problems");
  }
  return out;
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
