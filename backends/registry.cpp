#include "backends/registry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "common/errors.hpp"
#include "common/executable.hpp"

namespace gpubench {

namespace {
std::vector<Backend>& registry() {
  static std::vector<Backend> r;
  return r;
}

// The backends built as modules (GPUBENCH_MODULES, "cuda=12|...": name and listing order), each
// standing in the registry from the start; once loaded, the module registers the real backend,
// kept here.
struct Module {
  std::string name;
  int order = 0;
  bool tried = false;
  std::string failure;              // why it could not be loaded
  std::optional<Backend> loaded;    // what the module registered
};
std::vector<Module>& modules() {
  static std::vector<Module> m = [] {
    std::vector<Module> list;
#ifdef GPUBENCH_MODULES
    const std::string text = GPUBENCH_MODULES;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = std::min(text.find('|', start), text.size());
      const std::string item = text.substr(start, end - start);
      if (const auto eq = item.find('='); eq != std::string::npos) {
        Module module;
        module.name = item.substr(0, eq);
        module.order = std::stoi(item.substr(eq + 1));
        list.push_back(std::move(module));
      }
      start = end + 1;
    }
#endif
    return list;
  }();
  return m;
}
Module* module_of(const std::string& name) {
  for (auto& m : modules())
    if (m.name == name) return &m;
  return nullptr;
}

// "libcudart.so.13 not found" from dlerror's "libcudart.so.13: cannot open shared object file: No
// such file or directory"; other errors as they are.
std::string load_failure(std::string error) {
  const std::string missing = ": cannot open shared object file: No such file or directory";
  if (const auto at = error.find(missing); at != std::string::npos) {
    std::string library = error.substr(0, at);
    if (const auto slash = library.rfind('/'); slash != std::string::npos && library.find(' ') == std::string::npos)
      library = library.substr(slash + 1);
    return library + " not found";
  }
  return error;
}

// Registers a stand-in for each module, loading it when its devices are first asked for.
const bool modules_registered = [] {
  for (const auto& m : modules()) {
    const std::string name = m.name;
    registry().push_back(Backend{name,
                                 [name] {
                                   if (const std::string why = load_backend(name); !why.empty()) throw DeviceError(why);
                                   return module_of(name)->loaded->devices();
                                 },
                                 m.order});
  }
  std::stable_sort(registry().begin(), registry().end(), [](const Backend& a, const Backend& b) { return a.order < b.order; });
  return true;
}();
}  // namespace

void register_backend(Backend backend) {
  if (Module* m = module_of(backend.name)) {  // the module, being loaded: its stand-in stays, and
    for (Backend& standin : registry())        // takes what the module says of its devices
      if (standin.name == backend.name) {
        standin.api = backend.api;
        standin.devices_of = backend.devices_of;
      }
    m->loaded = std::move(backend);
    return;
  }
  auto& r = registry();
  r.push_back(std::move(backend));
  std::stable_sort(r.begin(), r.end(), [](const Backend& a, const Backend& b) { return a.order < b.order; });
}

std::string module_dir() {
  if (const std::filesystem::path self = executable_path(); !self.empty()) {
    const auto installed = self.parent_path() / ".." / "lib" / "gpubench";
    std::error_code error;
    if (std::filesystem::is_directory(installed, error)) return std::filesystem::weakly_canonical(installed).string();
  }
#ifdef GPUBENCH_MODULE_DIR
  return GPUBENCH_MODULE_DIR;
#else
  return "";
#endif
}

std::string load_backend(const std::string& name) {
  Module* m = module_of(name);
  if (!m || m->loaded) return "";  // linked in (a test program links every backend), or loaded
  if (m->tried) return m->failure;
  m->tried = true;
  const std::string path = module_dir() + "/libgpubench_" + name + ".so";
  if (!std::filesystem::exists(path)) {
    m->failure = "its module " + path + " is missing";
    return m->failure;
  }
  // RTLD_GLOBAL: the module's symbols resolve against gpubench's own (registries, errors).
  if (!::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    const char* error = ::dlerror();
    m->failure = load_failure(error ? error : "dlopen failed");
  } else if (!m->loaded) {
    m->failure = path + " registered no backend '" + name + "'";
  }
  return m->failure;
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
