#include "kernels/gemm/operations.hpp"

#include "common/errors.hpp"

namespace gpubench::gemm {

const VariantTable<Variant>& variant_table() {
  static const VariantTable<Variant> table{"GEMM",
                                           {{Variant::naive, "naive"},
                                            {Variant::tiled, "tiled"},
                                            {Variant::tuned, "tuned"},
                                            {Variant::tensor, "tensor"},
                                            {Variant::serial, "serial"},
                                            {Variant::vendor, "vendor"},
                                            {Variant::blis, "blis"},
                                            {Variant::packed, "packed"}}};
  return table;
}

TunedConfig tuned_config(const Params& p) {
  return {p.at("bm"), p.at("bn"), p.at("bk"), p.at("tm"), p.at("tn"), p.at("vw")};
}

gemm_tc::Shape tensor_config(const Params& p) {
  return {p.at("bm"), p.at("bn"), p.at("bk"), p.at("stages"), p.at("wm"), p.at("wn"), p.at("unroll"), p.at("minb")};
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

}  // namespace gpubench::gemm
