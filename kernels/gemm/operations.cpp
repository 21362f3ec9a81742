#include "kernels/gemm/operations.hpp"

#include "common/errors.hpp"

namespace gpubench::gemm {

std::string to_string(Variant v) {
  switch (v) {
    case Variant::naive:
      return "naive";
    case Variant::tiled:
      return "tiled";
    case Variant::serial:
      return "serial";
  }
  return "?";
}

Variant parse_variant(const std::string& name) {
  for (Variant v : all_variants)
    if (to_string(v) == name) return v;
  throw UsageError("unknown GEMM variant '" + name + "' (valid: naive, tiled, serial)");
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

const OperationsFactory* find_operations(const std::string& backend) { return operations_registry().factory(backend); }

}  // namespace gpubench::gemm
