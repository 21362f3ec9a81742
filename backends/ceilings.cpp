#include "backends/ceilings.hpp"

#include <map>

namespace gpubench {

namespace {
std::map<std::string, CeilingProbe>& probes() {
  static std::map<std::string, CeilingProbe> registry;
  return registry;
}
}  // namespace

void register_ceiling_probe(const std::string& backend, CeilingProbe probe) { probes()[backend] = std::move(probe); }

const CeilingProbe* find_ceiling_probe(const std::string& backend) {
  auto it = probes().find(backend);
  return it == probes().end() ? nullptr : &it->second;
}

}  // namespace gpubench
