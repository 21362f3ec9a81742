#include "bench/list_devices.hpp"

#include <iomanip>
#include <sstream>

#include "backends/registry.hpp"

namespace gpubench {

namespace {
std::string size(std::uint64_t bytes) {
  std::ostringstream s;
  if (bytes >= (1ull << 30)) s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1ull << 30) << " GiB";
  else s << bytes / 1024 << " KiB";
  return s.str();
}
}  // namespace

bool list_devices(std::ostream& out) {
  bool ok = true;
  for (const auto& backend : backends()) {
    out << backend.name << ":\n";
    try {
      const auto devices = backend.devices();
      if (devices.empty()) out << "  (no devices)\n";
      for (const auto& d : devices) {
        out << "  [" << d.index << "] " << d.name << " (" << d.type << ")\n"
            << "      api " << d.api << ", platform " << d.platform << ", vendor " << d.vendor << "\n"
            << "      compute units " << d.compute_units << ", max work-group " << d.max_work_group_size
            << ", global memory " << size(d.global_mem_bytes) << " (largest buffer " << size(d.max_alloc_bytes)
            << "), local memory " << size(d.local_mem_bytes) << ", fp64 " << (d.fp64 ? "yes" : "no") << "\n"
            << "      driver " << d.driver << "\n";
      }
    } catch (const std::exception& e) {
      out << "  error: " << e.what() << "\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace gpubench
