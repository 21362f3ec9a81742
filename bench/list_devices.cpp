#include "bench/list_devices.hpp"

#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backends/registry.hpp"
#include "bench/result_json.hpp"
#include "common/errors.hpp"

namespace gpubench {

namespace {

std::string size(std::uint64_t bytes) {
  std::ostringstream s;
  if (bytes >= (1ull << 30)) s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1ull << 30) << " GiB";
  else s << bytes / 1024 << " KiB";
  return s.str();
}

// One backend: its devices, or why it has none.
struct Listing {
  std::string backend;
  std::vector<DeviceInfo> devices;
  std::string none;  // why there are no devices
};

Listing listing(const std::string& name) {
  Listing l{name, {}, {}};
  if (const std::string why = not_built_reason(name); !why.empty()) {
    l.none = "not built: " + why;
    return l;
  }
  const Backend& backend = find_backend(name);  // a name gpubench does not know is a usage error
  if (const std::string why = load_backend(name); !why.empty()) {
    l.none = why;
    return l;
  }
  try {
    l.devices = backend.devices();
    if (l.devices.empty()) l.none = "the runtime found no devices";
  } catch (const std::exception& e) {
    l.none = std::string("the runtime failed: ") + e.what();
  }
  return l;
}

}  // namespace

bool list_devices(const std::vector<std::string>& backends, const std::vector<int>& indices, bool json, std::ostream& out) {
  std::vector<Listing> all;
  for (std::size_t k = 0; k < backends.size(); ++k) {
    Listing l = listing(backends[k]);
    if (const int index = k < indices.size() ? indices[k] : -1; index >= 0 && l.none.empty()) {
      if (index >= static_cast<int>(l.devices.size())) find_device(backends[k], index);  // names the valid ones
      l.devices = {l.devices[static_cast<std::size_t>(index)]};
    }
    all.push_back(std::move(l));
  }
  bool any = false;
  nlohmann::json j = nlohmann::json::array();
  for (const auto& l : all) {
    any = any || !l.devices.empty();
    if (json) {
      nlohmann::json b = {{"backend", l.backend}, {"devices", l.devices}};
      if (!l.none.empty()) b["no_devices"] = l.none;
      j.push_back(b);
      continue;
    }
    out << l.backend << ":\n";
    if (!l.none.empty()) out << "  no devices: " << l.none << "\n";
    for (const auto& d : l.devices) {
      out << "  [" << d.index << "] " << d.name << " (" << d.type << ")\n"
          << "      api " << d.api << ", platform " << d.platform << ", vendor " << d.vendor << "\n"
          << "      compute units " << d.compute_units << ", max work-group " << d.max_work_group_size
          << ", global memory " << size(d.global_mem_bytes) << " (largest buffer " << size(d.max_alloc_bytes)
          << "), local memory " << size(d.local_mem_bytes) << ", fp64 " << (d.fp64 ? "yes" : "no") << "\n"
          << "      driver " << d.driver << "\n";
    }
  }
  if (json) out << j.dump(2) << "\n";
  return any;
}

}  // namespace gpubench
