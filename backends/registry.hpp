// Registry of the backends compiled into this build, filled at start-up by each backend's own
// translation unit (see GPUBENCH_REGISTER_BACKEND). Adding an API touches nothing here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/device.hpp"

namespace gpubench {

struct Backend {
  std::string name;                                // "opencl", "openmp", ...
  std::function<std::vector<DeviceInfo>()> devices;  // discovery; throws DeviceError on API failure
  int order = 0;                                   // listing order (lower first)
  // What "api, platform" of its devices (DeviceInfo::api and ::platform) starts with, as a regular
  // expression (case ignored), to know the backend of a tuning file's device; empty: the backend's
  // name.
  std::string api = "";
  // The backend whose devices it runs on, numbered as there (a library over an API: viennacl's
  // are opencl's); empty: its own.
  std::string devices_of = "";
};

void register_backend(Backend backend);
// All registered backends, sorted by `order`.
const std::vector<Backend>& backends();
// Throws UsageError listing the valid names, or saying why a known backend is not in this build.
const Backend& find_backend(const std::string& name);
// A backend built as a module of its own (the CUDA backend: its libraries, cuBLAS and the rest, are
// needed only when it is asked for) is loaded on first use: from <prefix>/lib/gpubench beside an
// installed gpubench, else from the build tree. "" once it is loaded (or for a backend linked in),
// else why it cannot be ("libcudart.so.13 not found"); tried once.
std::string load_backend(const std::string& name);
// Where the modules are looked for.
std::string module_dir();
// Why `name` is not in this build ("nvcc not found when configured (...)"), as CMake found it;
// empty for a backend that is built, or one gpubench does not know.
std::string not_built_reason(const std::string& name);
// The device `index` of `backend` (index < 0: its default device, the first GPU if any, else
// the first device). Throws DeviceError naming the backend and the valid indices.
DeviceInfo find_device(const std::string& backend, int index);
// find_device for each of `backends`. With one backend its DeviceError propagates; with several,
// one without the device is skipped: said on stderr and listed in `skipped` ("cuda: ...").
std::vector<DeviceInfo> find_devices(const std::vector<std::string>& backends, int index,
                                     std::vector<std::string>& skipped);

namespace detail {
struct BackendRegistrar {
  explicit BackendRegistrar(Backend b) { register_backend(std::move(b)); }
};
}  // namespace detail

}  // namespace gpubench

#define GPUBENCH_CONCAT2(a, b) a##b
#define GPUBENCH_CONCAT(a, b) GPUBENCH_CONCAT2(a, b)
#define GPUBENCH_REGISTER_BACKEND(...)                                                        \
  static const ::gpubench::detail::BackendRegistrar GPUBENCH_CONCAT(gpubench_backend_, __LINE__){ \
      ::gpubench::Backend{__VA_ARGS__}}
