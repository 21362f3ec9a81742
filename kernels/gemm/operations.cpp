#include "kernels/gemm/operations.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "kernels/gemm/gemv.hpp"

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

TunableSpace gemv_space() {
  return {{Tunable::list("group", {64, 128, 256, 512}), Tunable::list("waves", {1, 2, 4, 8})}, {}};
}
Params gemv_heuristic() { return {{"group", 256}, {"waves", 4}}; }

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

GemvPlan plan_gemv(const Block& b, const Params& params, int compute_units, int resident_threads) {
  if (!degenerate(b.m, b.n, b.k))
    throw DeviceError("GEMM's degenerate-shape kernels run blocks with m, n or k equal to 1, not " + std::to_string(b.m) +
                      " x " + std::to_string(b.n) + " x " + std::to_string(b.k));
  std::string why;
  if (!gemv_space().legal(params, &why))
    throw DeviceError("GEMM's degenerate-shape kernels: " + format_params(params) + ": " + why);
  GemvPlan p;
  p.group = params.at("group");
  const std::int64_t target = std::int64_t{params.at("waves")} * std::max(compute_units, 1) * resident_threads / p.group;
  if (b.k == 1) {  // C(i, j) += a_i b_j: A is m x 1 (rows lda apart) or, transposed, 1 x m (contiguous)
    p.kind = GemvPlan::Kind::outer;
    p.rows = b.m, p.cols = b.n, p.aoff = b.aoff, p.inca = b.transpose_a ? 1 : b.lda, p.boff = b.boff;
    p.coff = b.coff, p.ldc = b.ldc;
    p.groups_x = ceil_div(b.n, p.group);
    p.groups_y = std::clamp<std::int64_t>(ceil_div(target, p.groups_x), 1, std::min<std::int64_t>(b.m, 65535));
    return p;
  }
  p.len = b.k;
  if (b.n == 1) {  // c_i = sum_l op(A)(i, l) B(l, 0): C's column, rows ldc apart
    p.outs = b.m, p.coff = b.coff, p.incc = b.ldc;
    p.matrix_is_a = true, p.moff = b.aoff, p.ldm = b.lda, p.xoff = b.boff, p.incx = b.ldb;
    p.kind = b.transpose_a ? GemvPlan::Kind::colsum : GemvPlan::Kind::rowdot;  // A stored k x m: its columns
  } else {  // m = 1: c_j = sum_l a_l B(l, j), A's row (or, stored transposed, its column)
    p.outs = b.n, p.coff = b.coff, p.incc = 1;
    p.matrix_is_a = false, p.moff = b.boff, p.ldm = b.ldb, p.xoff = b.aoff, p.incx = b.transpose_a ? b.lda : 1;
    p.kind = GemvPlan::Kind::colsum;
  }
  // The reduction's chunks: enough groups for `target`, each chunk at least 4 terms an item
  // (rowdot) or 16 rows (colsum).
  p.groups_x = p.kind == GemvPlan::Kind::rowdot ? p.outs : ceil_div(p.outs, p.group);
  const std::int64_t smallest = p.kind == GemvPlan::Kind::rowdot ? 4 * std::int64_t{p.group} : 16;
  const std::int64_t most = std::min<std::int64_t>(std::max<std::int64_t>(p.len / smallest, 1), 65535);
  const std::int64_t splits = std::clamp<std::int64_t>(ceil_div(target, p.groups_x), 1, most);
  p.chunk = static_cast<int>(ceil_div(p.len, splits));
  p.splits = static_cast<int>(ceil_div(p.len, p.chunk));
  p.groups_y = p.splits;
  return p;
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

}  // namespace gpubench::gemm
