#include "kernels/ft/operations.hpp"

#include <cstdlib>

#include "common/errors.hpp"
#include "common/test_hooks.hpp"

namespace gpubench::ft {

std::string to_string(Variant v) {
  switch (v) {
    case Variant::nas:
      return "nas";
    case Variant::serial:
      return "serial";
    case Variant::v1:
      return "v1";
    case Variant::v2:
      return "v2";
    case Variant::fast:
      return "fast";
    case Variant::vendor:
      return "vendor";
  }
  return "?";
}

Variant parse_variant(const std::string& name) {
  for (Variant v : all_variants)
    if (to_string(v) == name) return v;
  throw UsageError("unknown FT variant '" + name + "' (valid: nas, serial, v1, v2, fast, vendor)");
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

const OperationsFactory* find_operations(const std::string& backend) { return operations_registry().factory(backend); }

const BackendTraits* backend_traits(const std::string& backend) {
  const auto* entry = operations_registry().find(backend);
  return entry ? &entry->extra : nullptr;
}

bool planted_wrong_twiddle() {
  return test_hook("GPUBENCH_FT_WRONG_TWIDDLE") != nullptr;
}

}  // namespace gpubench::ft
