#include "bench/tunable.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <optional>

#include "bench/energy.hpp"
#include "common/errors.hpp"

namespace gpubench {

namespace {

// Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on "[" + std::to_string(...) at -O3.
std::string interval(int min, int max) {
  std::string s = "[";
  s += std::to_string(min);
  s += ", ";
  s += std::to_string(max);
  s += "]";
  return s;
}

void check_bounds(const std::string& name, int min, int max) {
  if (name.empty() || min > max)
    throw Error(ExitCode::internal, "tunable '" + name + "': empty range " + interval(min, max));
}

}  // namespace

Tunable Tunable::range(std::string name, int min, int max) {
  check_bounds(name, min, max);
  Tunable t{std::move(name), {}, interval(min, max)};
  for (long v = min; v <= max; ++v) t.values.push_back(static_cast<int>(v));
  return t;
}

Tunable Tunable::powers_of_two(std::string name, int min, int max) {
  check_bounds(name, min, max);
  Tunable t{std::move(name), {}, "powers of two in " + interval(min, max)};
  for (long v = 1; v <= max; v *= 2)
    if (v >= min) t.values.push_back(static_cast<int>(v));
  if (t.values.empty()) throw Error(ExitCode::internal, "tunable '" + t.name + "': no power of two in " + interval(min, max));
  return t;
}

Tunable Tunable::list(std::string name, std::vector<int> values) {
  if (name.empty() || values.empty()) throw Error(ExitCode::internal, "tunable '" + name + "': no values");
  std::string legal;
  for (int v : values) legal += (legal.empty() ? "{" : ", ") + std::to_string(v);
  return {std::move(name), std::move(values), legal + "}"};
}

Tunable Tunable::defaulting_to(int value) const {
  Tunable t = *this;
  t.preferred.reset();
  for (int v : t.values)
    if (v <= value && (!t.preferred || v > *t.preferred)) t.preferred = v;
  if (!t.preferred) t.preferred = *std::min_element(t.values.begin(), t.values.end());
  return t;
}

Params TunableSpace::defaults() const {
  Params p;
  for (const Tunable& t : params) {
    if (!t.preferred)
      throw Error(ExitCode::internal, "tunable '" + t.name + "' declares no default (Tunable::defaulting_to)");
    p[t.name] = *t.preferred;
  }
  return p;
}

bool Tunable::allows(int value) const { return std::find(values.begin(), values.end(), value) != values.end(); }

const Tunable* TunableSpace::find(const std::string& name) const {
  for (const auto& t : params)
    if (t.name == name) return &t;
  return nullptr;
}

bool TunableSpace::legal(const Params& p, std::string* why) const {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  for (const auto& [name, value] : p)
    if (!find(name)) return fail("'" + name + "' is not a parameter of this kernel");
  for (const auto& t : params) {
    const auto it = p.find(t.name);
    if (it == p.end()) return fail(t.name + " has no value");
    if (!t.allows(it->second))
      return fail(t.name + " = " + std::to_string(it->second) + " is outside its legal values " + t.legal);
  }
  for (const auto& c : constraints)
    if (!c.holds(p)) return fail("it breaks the constraint \"" + c.description + "\"");
  return true;
}

std::size_t TunableSpace::size() const {
  std::size_t n = 1;
  for (const auto& t : params) {
    if (n > std::numeric_limits<std::size_t>::max() / t.values.size()) return std::numeric_limits<std::size_t>::max();
    n *= t.values.size();
  }
  return n;
}

std::vector<Params> TunableSpace::enumerate(std::size_t limit) const {
  std::vector<Params> out;
  if (params.empty() || limit == 0) return out;
  std::vector<std::size_t> at(params.size(), 0);  // an odometer over the values, the last parameter fastest
  Params p;
  for (;;) {
    for (std::size_t i = 0; i < params.size(); ++i) p[params[i].name] = params[i].values[at[i]];
    if (legal(p)) {
      out.push_back(p);
      if (out.size() >= limit) return out;
    }
    std::size_t i = params.size();
    while (i > 0 && ++at[i - 1] == params[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return out;
  }
}

std::vector<Params> TunableSpace::neighbours(const Params& p) const {
  std::vector<Params> out;
  for (const auto& t : params) {
    const auto it = p.find(t.name);
    if (it == p.end()) continue;
    const auto at = std::find(t.values.begin(), t.values.end(), it->second);
    if (at == t.values.end()) continue;
    for (auto next : {at - (at == t.values.begin() ? 0 : 1), at + 1}) {
      if (next == at || next == t.values.end()) continue;
      Params q = p;
      q[t.name] = *next;
      if (legal(q)) out.push_back(std::move(q));
    }
  }
  return out;
}

std::string format_params(const Params& p) {
  std::string s;
  for (const auto& [name, value] : p) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s;
}

std::vector<std::pair<std::string, std::string>> compile_defines(const Params& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : p) {
    std::string macro = name;
    for (char& c : macro) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.emplace_back(std::move(macro), std::to_string(value));
  }
  return out;
}

std::string compile_options(const Params& p) {
  std::string s;
  for (const auto& [macro, value] : compile_defines(p)) s += " -D" + macro + "=" + value;
  return s;
}

namespace {
std::optional<DeviceInfo> energy_device;
}  // namespace

void measure_energy_on(const DeviceInfo* device) {
  if (device) energy_device = *device;
  else energy_device.reset();
}

Objective parse_objective(const std::string& text) {
  if (text == "time") return Objective::time;
  if (text == "energy") return Objective::energy;
  if (text == "edp") return Objective::edp;
  throw UsageError("--objective '" + text + "' is not one of time, energy, edp");
}

std::string to_string(Objective o) { return o == Objective::time ? "time" : o == Objective::energy ? "energy" : "edp"; }

double cost(const KernelTiming& t, Objective o) {
  if (o == Objective::time) return t.seconds;
  return o == Objective::energy ? t.joules : t.joules * t.seconds;
}

KernelTiming time_batches(const std::function<double(int calls)>& timed_calls, double time_limit_s, double one_call_s) {
  const double one = one_call_s >= 0 ? one_call_s : timed_calls(1);
  if (one > time_limit_s) {
    char text[128];
    std::snprintf(text, sizeof text, "one call took %.3f s, over the time limit of %.3f s", one, time_limit_s);
    throw Error(ExitCode::point_failed, text);
  }
  const int calls = std::clamp(static_cast<int>(2e-3 / std::max(one, 1e-7)), 1, 200);
  KernelTiming t;
  for (int batch = 0; batch < 5; ++batch) t.samples.push_back(timed_calls(calls) / calls);
  std::vector<double> sorted = t.samples;
  std::sort(sorted.begin(), sorted.end());
  t.seconds = sorted[sorted.size() / 2];
  if (energy_device) {
    std::string why;
    EnergyMeter* meter = energy_meter(*energy_device, why);
    if (!meter) throw DeviceError("--objective needs the energy of " + energy_device->label() + ", which has no meter: " + why);
    const nlohmann::json e = energy_pass(meter[0], [&] { return TimedBatch{timed_calls(calls), calls}; }, 0);
    if (!e.contains("joules_per_iteration")) throw DeviceError("the energy pass measured no energy on " + energy_device->label());
    t.joules = e.at("joules_per_iteration").get<double>();
  }
  return t;
}

namespace {

// "'nmae' is not a parameter of KERNEL (it takes name)" for the first name of `params` that
// `space` does not declare; "" when it declares them all.
std::string unknown_param(const TunableSpace& space, const nlohmann::json& params, const std::string& kernel) {
  for (const auto& [name, value] : params.items()) {
    if (space.find(name)) continue;
    std::string names;
    for (const Tunable& t : space.params) names += (names.empty() ? "" : ", ") + t.name;
    return "'" + name + "' is not a parameter of " + kernel + " (it takes " + names + ")";
  }
  return "";
}

}  // namespace

std::string undeclared_params(const TunableSpace& declared, const nlohmann::json& params) {
  if (!params.is_object()) return "the parameters are not a JSON object";
  if (std::string why = unknown_param(declared, params, "this kernel"); !why.empty()) return why;
  for (const auto& [name, value] : params.items()) {
    const Tunable* t = declared.find(name);
    if (!value.is_number_integer()) return name + " = " + value.dump() + " is not an integer";
    if (!t->allows(value.get<int>())) return name + " = " + value.dump() + " is not one of its values, " + t->legal;
  }
  return "";
}

LaunchChoice choose_launch_params(const TuningDb* db, const DeviceInfo& device, const TuningKey& key,
                                  const Params& heuristic, const TunableSpace& space) {
  if (std::string why; !space.legal(heuristic, &why))
    throw Error(ExitCode::internal, "the heuristic for " + key.text() + " (" + format_params(heuristic) +
                                        ") is not legal on " + device.label() + ": " + why);
  nlohmann::json h = nlohmann::json::object();
  for (const auto& [name, value] : heuristic) h[name] = value;
  LaunchChoice c{heuristic, {h, TuningSource::off, "--tuning off"}};
  if (!db) return c;
  c.choice = db->lookup(device, key, h);
  // A name the kernel does not take (a typo, another kernel's) is never passed over in silence:
  // an entry of this very key is an error, one borrowed from another leaves the heuristic to run.
  if (const std::string why = unknown_param(space, c.choice.params, key.kernel); !why.empty()) {
    if (c.choice.source == TuningSource::exact) throw InputError("tuning database: " + c.choice.detail + ": " + why);
    c.choice = {h, TuningSource::heuristic, "heuristic: " + c.choice.detail + ": " + why};
    return c;
  }
  for (const Tunable& t : space.params) {
    const auto it = c.choice.params.find(t.name);
    if (it == c.choice.params.end()) continue;
    if (!it->is_number_integer())
      throw InputError("tuning database: " + c.choice.detail + ": " + t.name + " = " + it->dump() +
                       " is not an integer (on " + device.label() + ")");
    c.params[t.name] = it->get<int>();
  }
  if (std::string why; !space.legal(c.params, &why)) {
    // An entry stored for this very key must fit it: a broken one is an error. One borrowed from
    // another key (another size, or the device's default, which another precision may have set)
    // need not fit this one: then the heuristic runs, and the records say why.
    if (c.choice.source == TuningSource::exact)
      throw InputError("tuning database: " + c.choice.detail + ": " + format_params(c.params) + " cannot run on " +
                       device.label() + ": " + why);
    const std::string borrowed = c.choice.detail + " (" + format_params(c.params) + ")";
    c.params = heuristic;
    c.choice = {h, TuningSource::heuristic, "heuristic: " + borrowed + " does not fit " + key.text() + ": " + why};
  }
  return c;
}

nlohmann::json launch_json(const LaunchChoice& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : c.params) j[name] = value;
  j["from"] = to_string(c.choice.source);
  j["detail"] = c.choice.detail;
  return j;
}

}  // namespace gpubench
