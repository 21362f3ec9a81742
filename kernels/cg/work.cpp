#include "kernels/cg/work.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "kernels/launch_grid.hpp"

namespace gpubench::cg {

const VariantTable<Variant>& variant_table() {
  static const VariantTable<Variant> table{
      "CG", {{Variant::classic, "classic"}, {Variant::form1, "form1"}, {Variant::form2, "form2"}, {Variant::vendor, "vendor"}}};
  return table;
}

namespace {
double real(const ProblemShape& s) { return static_cast<double>(bytes_of(s.precision)); }
double n(const ProblemShape& s) { return static_cast<double>(s.rows); }
}  // namespace

KernelWork spmv_work(const ProblemShape& s) {
  // values + column indices + row pointers, the input vector once, the output once.
  const double nnz = static_cast<double>(s.nnz);
  return {"spmv", 1, 2 * nnz, nnz * (real(s) + 4) + (n(s) + 1) * 4 + 2 * n(s) * real(s)};
}
KernelWork spmv_dot2_work(const ProblemShape& s) {
  KernelWork w = spmv_work(s);
  w.kernel = "spmv_dot2";
  w.flops += dot2_work(s).flops;
  return w;
}
KernelWork dot_work(const ProblemShape& s, bool same_vector) {
  return {"dot", 1, 2 * n(s), (same_vector ? 1 : 2) * n(s) * real(s)};
}
KernelWork dot2_work(const ProblemShape& s) { return {"dot2", 1, 4 * n(s), 2 * n(s) * real(s)}; }
KernelWork axpy_work(const ProblemShape& s) { return {"axpy", 1, 2 * n(s), 3 * n(s) * real(s)}; }
KernelWork xpay_work(const ProblemShape& s) { return {"xpay", 1, 2 * n(s), 3 * n(s) * real(s)}; }
KernelWork three_term_update_work(const ProblemShape& s) {
  // reads x, x_prev, r, r_prev, w; writes x_prev, r_prev; 5 FLOPs per output element.
  return {"three_term_update", 1, 10 * n(s), 7 * n(s) * real(s)};
}
KernelWork cg_update_work(const ProblemShape& s) {
  // reads r, w, p, s, x; writes p, s, x, r; 2 FLOPs for each of the four updates.
  return {"cg_update", 1, 8 * n(s), 9 * n(s) * real(s)};
}

KernelWork kernel_work(const std::string& kernel, const ProblemShape& s) {
  if (kernel == "spmv") return spmv_work(s);
  if (kernel == "spmv_dot2") return spmv_dot2_work(s);
  if (kernel == "dot") return dot_work(s, false);
  if (kernel == "dot2") return dot2_work(s);
  if (kernel == "axpy") return axpy_work(s);
  if (kernel == "xpay") return xpay_work(s);
  if (kernel == "three_term_update") return three_term_update_work(s);
  if (kernel == "cg_update") return cg_update_work(s);
  if (kernel == "scale") return {"scale", 1, n(s), 2 * n(s) * real(s)};
  if (kernel == "copy") return {"copy", 1, 0, 2 * n(s) * real(s)};
  if (kernel == "fill") return {"fill", 1, 0, n(s) * real(s)};
  return {kernel, 1, 0, 0};
}

std::vector<KernelWork> iteration_work(Variant v, const ProblemShape& s) {
  switch (v) {
    case Variant::vendor:  // a library's textbook CG must do at least what ours does
    case Variant::classic: {
      // dot is called for p.Ap (two vectors) and r.r (one vector): one row, averaged per call.
      KernelWork dot = dot_work(s, false);
      dot.calls = 2;
      dot.bytes = (dot_work(s, false).bytes + dot_work(s, true).bytes) / 2;
      KernelWork axpy = axpy_work(s);
      axpy.calls = 2;
      return {spmv_work(s), dot, axpy, xpay_work(s)};
    }
    // The fused forms: the dots come from the SpMV's pass (Operations::spmv_dot2).
    case Variant::form1: return {spmv_dot2_work(s), three_term_update_work(s)};
    case Variant::form2: return {spmv_dot2_work(s), cg_update_work(s)};
  }
  return {};
}

Work total(const std::vector<KernelWork>& kernels) {
  Work w;
  for (const auto& k : kernels) {
    w.flops += k.calls * k.flops;
    w.bytes += k.calls * k.bytes;
  }
  return w;
}

const std::vector<std::string>& tunable_kernels() {
  static const std::vector<std::string> names = {"spmv", "spmv_dot2", "dot",   "dot2",     "axpy",
                                                 "xpay", "scale",     "three_term_update", "cg_update"};
  return names;
}

TunableSpace kernel_tunables(const std::string& kernel, std::size_t max_work_group_size, bool spmv_forms) {
  const auto& names = tunable_kernels();
  if (std::find(names.begin(), names.end(), kernel) == names.end()) return {};
  const int limit = static_cast<int>(std::clamp<std::size_t>(max_work_group_size, 1, std::size_t{1} << 30));
  TunableSpace t{{grid::group_size(limit)}, {}};
  if (kernel == "spmv_dot2" && spmv_forms)
    t.params.push_back(Tunable::powers_of_two("row_runs", 1, 16).defaulting_to(default_row_runs));
  if ((kernel == "spmv" || kernel == "spmv_dot2") && spmv_forms) {
    t.params.push_back(Tunable::list("slabs", {0, 1}).defaulting_to(1));
    t.params.push_back(Tunable::list("slab_lanes", {0, 1, 2, 4, 8, 16, 32}).defaulting_to(0));
    t.params.push_back(Tunable::list("slab_cache_kib", {0, 32, 64, 128, 256}).defaulting_to(0));
    t.constraints.push_back({"slab_lanes == 0 unless slabs == 1 (the CSR kernels have no slabs)",
                             [](const Params& p) { return p.at("slabs") == 1 || p.at("slab_lanes") == 0; }});
    t.constraints.push_back({"slab_cache_kib == 0 unless slabs == 1 (the CSR kernels have no slabs)",
                             [](const Params& p) { return p.at("slabs") == 1 || p.at("slab_cache_kib") == 0; }});
  }
  if (kernel != "spmv" && kernel != "spmv_dot2") {
    // The thesis's walk: up from one work-group per compute unit (the last parameter).
    t.params.push_back(grid::groups_per_cu());
    t.strategy = "walk";
  }
  return t;
}

}  // namespace gpubench::cg
