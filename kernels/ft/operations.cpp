#include "kernels/ft/operations.hpp"

#include <cstdlib>

#include "common/errors.hpp"
#include "common/test_hooks.hpp"

namespace gpubench::ft {

const VariantTable<Variant>& variant_table() {
  static const VariantTable<Variant> table{"FT",
                                           {{Variant::nas, "nas"},
                                            {Variant::serial, "serial"},
                                            {Variant::v1, "v1"},
                                            {Variant::v2, "v2"},
                                            {Variant::fast, "fast"},
                                            {Variant::vendor, "vendor"}}};
  return table;
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

bool planted_wrong_twiddle() {
  return test_hook("GPUBENCH_FT_WRONG_TWIDDLE") != nullptr;
}

}  // namespace gpubench::ft
