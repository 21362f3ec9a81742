#include "bench/tunable.hpp"

#include "common/errors.hpp"

namespace gpubench {

LaunchChoice choose_launch_params(const TuningDb* db, const DeviceInfo& device, const TuningKey& key,
                                  const Params& heuristic, const std::vector<TunableRange>& tunables) {
  nlohmann::json h = nlohmann::json::object();
  for (const auto& [name, value] : heuristic) h[name] = value;
  LaunchChoice c{heuristic, {h, TuningSource::off, "--tuning off"}};
  if (db) c.choice = db->lookup(device, key, h);
  for (const TunableRange& t : tunables) {
    const auto it = c.choice.params.find(t.name);
    if (it == c.choice.params.end() || !it->is_number_integer()) continue;
    const int value = it->get<int>();
    if (value < t.min || value > t.max)
      throw InputError("tuning database: " + c.choice.detail + ": " + t.name + " = " + std::to_string(value) +
                       " is outside its legal range [" + std::to_string(t.min) + ", " + std::to_string(t.max) +
                       "] on " + device.label());
    c.params[t.name] = value;
  }
  return c;
}

}  // namespace gpubench
