#include "backends/registry.hpp"

#include <algorithm>
#include <iostream>

#include "common/errors.hpp"

namespace gpubench {

namespace {
std::vector<Backend>& registry() {
  static std::vector<Backend> r;
  return r;
}
}  // namespace

void register_backend(Backend backend) {
  auto& r = registry();
  r.push_back(std::move(backend));
  std::stable_sort(r.begin(), r.end(), [](const Backend& a, const Backend& b) { return a.order < b.order; });
}

const std::vector<Backend>& backends() { return registry(); }

std::string not_built_reason(const std::string& name) {
#ifdef GPUBENCH_NOT_BUILT
  // "cuda=nvcc not found ...|viennacl=...", from CMake.
  std::string list = GPUBENCH_NOT_BUILT;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t end = std::min(list.find('|', start), list.size());
    const std::string item = list.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == name) return item.substr(eq + 1);
    start = end + 1;
  }
#endif
  (void)name;
  return "";
}

const Backend& find_backend(const std::string& name) {
  std::string valid;
  for (const auto& b : registry()) {
    if (b.name == name) return b;
    valid += (valid.empty() ? "" : ", ") + b.name;
  }
  if (const std::string why = not_built_reason(name); !why.empty())
    throw UsageError("backend '" + name + "' is not in this build: " + why + " (built: " + valid + ")");
  throw UsageError("unknown backend '" + name + "' (valid in this build: " + valid + ", all)");
}

DeviceInfo find_device(const std::string& backend, int index) {
  const auto devices = find_backend(backend).devices();
  if (devices.empty()) throw DeviceError("backend '" + backend + "' found no devices on this machine");
  if (index < 0) {
    auto gpu = std::find_if(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.type == "gpu"; });
    return gpu != devices.end() ? *gpu : devices.front();
  }
  if (index >= static_cast<int>(devices.size())) {
    std::string valid;
    for (const auto& d : devices) valid += "\n  " + d.label();
    throw DeviceError("no device " + std::to_string(index) + " on backend '" + backend +
                      "' (valid: 0.." + std::to_string(devices.size() - 1) + "):" + valid);
  }
  return devices[static_cast<std::size_t>(index)];
}

std::vector<DeviceInfo> find_devices(const std::vector<std::string>& backends, int index,
                                     std::vector<std::string>& skipped) {
  std::vector<DeviceInfo> devices;
  for (const auto& backend : backends) {
    try {
      devices.push_back(find_device(backend, index));
    } catch (const DeviceError& e) {
      if (backends.size() == 1) throw;
      std::cerr << "gpubench: skipping backend " << backend << ": " << e.what() << std::endl;
      skipped.push_back(backend + ": " + e.what());
    }
  }
  return devices;
}

}  // namespace gpubench
