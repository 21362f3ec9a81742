#include "kernels/gemm/operations.hpp"

#include "common/errors.hpp"

namespace gpubench::gemm {

std::string to_string(Variant v) {
  switch (v) {
    case Variant::naive:
      return "naive";
    case Variant::tiled:
      return "tiled";
    case Variant::tuned:
      return "tuned";
    case Variant::tensor:
      return "tensor";
    case Variant::serial:
      return "serial";
    case Variant::vendor:
      return "vendor";
  }
  return "?";
}

Variant parse_variant(const std::string& name) {
  for (Variant v : all_variants)
    if (to_string(v) == name) return v;
  throw UsageError("unknown GEMM variant '" + name + "' (valid: naive, tiled, tuned, tensor, serial, vendor)");
}

TunedConfig tuned_config(const Params& p) {
  return {p.at("bm"), p.at("bn"), p.at("bk"), p.at("tm"), p.at("tn"), p.at("vw")};
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

}  // namespace gpubench::gemm
