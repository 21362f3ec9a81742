#include "bench/suite.hpp"

#include "common/errors.hpp"

namespace gpubench {

namespace {
std::vector<std::function<std::unique_ptr<Suite>()>>& factories() {
  static std::vector<std::function<std::unique_ptr<Suite>()>> f;
  return f;
}
}  // namespace

std::string PointId::name() const {
  return suite + "/" + problem + "/" + backend + ":" + std::to_string(device.index) + "/" + variant + "/" +
         to_string(precision);
}

std::vector<SweepTarget> Suite::sweep_targets(const RunOptions&, const std::string&) {
  throw UsageError("suite " + name() + " has no tunable kernels to sweep");
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
