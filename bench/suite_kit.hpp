// What the suites' plans and tuners share, written once: the variants' names and their "valid:"
// list, the devices a suite runs on, the points' ids, the sweep's check, and the tuner's
// verify-then-time loop. A suite file holds what is particular to the suite.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/suite.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"

namespace gpubench {

// A suite's variants by name, in the order --help lists them and a run without --variant runs them.
template <class V>
class VariantTable {
 public:
  // `suite` as its messages name it: "FT".
  VariantTable(std::string suite, std::vector<std::pair<V, std::string>> names)
      : suite_(std::move(suite)), names_(std::move(names)) {}

  const std::string& name(V v) const {
    for (const auto& [value, text] : names_)
      if (value == v) return text;
    throw std::logic_error(suite_ + ": a variant without a name");
  }
  // UsageError naming the valid ones (and `all`, which the command line takes for every one).
  V parse(const std::string& text) const {
    for (const auto& [value, name] : names_)
      if (name == text) return value;
    std::string valid;
    for (const auto& entry : names_) valid += entry.second + ", ";
    throw UsageError("unknown " + suite_ + " variant '" + text + "' (valid: " + valid + "all)");
  }
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const auto& entry : names_) all.push_back(entry.second);
    return all;
  }
  std::vector<V> values() const {
    std::vector<V> all;
    for (const auto& entry : names_) all.push_back(entry.first);
    return all;
  }
  // Those --variant names, in its order; every one when it names none.
  std::vector<V> asked(const RunOptions& options) const {
    if (options.variants.empty()) return values();
    std::vector<V> asked;
    for (const auto& v : options.variants) asked.push_back(parse(v));
    return asked;
  }

 private:
  std::string suite_;
  std::vector<std::pair<V, std::string>> names_;
};

// The devices of the backends asked for that registered operations in `registry` (a suite's
// FactoryRegistry); the others are listed in `skipped` (suite_devices).
template <class Registry>
std::vector<DeviceInfo> registered_devices(const RunOptions& options, const std::string& suite, const Registry& registry,
                                           std::vector<std::string>& skipped) {
  return suite_devices(options, suite, [&](const std::string& b) { return registry.find(b) != nullptr; }, skipped);
}

// The id of a point of `suite` on `device`.
PointId point_id(const Suite& suite, const std::string& problem, const DeviceInfo& device, const std::string& variant,
                 Precision precision);

// `gpubench sweep` tunes kernels: UsageError for a --variant.
void check_sweep_options(const RunOptions& options);

// The tuner's measure written once: one call, whose result `verdict` then checks
// (VerificationError "<what>: <detail>" when it is wrong), then batches of calls timed
// (time_batches, the verified call standing for the first). `call` makes one call and returns
// its device seconds; `timed_calls`, where given, times a batch of n calls its own way.
template <class Verdict>
KernelTiming verify_then_time(const std::string& what, const std::function<double()>& call,
                              const std::function<Verdict()>& verdict, double time_limit_s,
                              const std::function<double(int calls)>& timed_calls = nullptr) {
  const double first = call();
  const Verdict v = verdict();
  if (!v.passed) throw VerificationError(what + ": " + v.detail);
  if (timed_calls) return time_batches(timed_calls, time_limit_s, first);
  return time_batches(
      [&](int calls) {
        double total = 0;
        for (int c = 0; c < calls; ++c) total += call();
        return total;
      },
      time_limit_s, first);
}

}  // namespace gpubench
