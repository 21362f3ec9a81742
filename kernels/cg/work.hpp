// The work each CG kernel must do, declared once: FLOPs and the fewest bytes it must move
// through device memory (every input read once, every output written once), as functions of
// the problem. GFLOP/s, GB/s and every roofline figure are computed from these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/precision.hpp"
#include "bench/suite_kit.hpp"
#include "bench/tunable.hpp"

namespace gpubench::cg {

// classic, form1, form2: this project's algorithm (solver.cpp) on each API's operations.
// vendor: the backend's library CG (cuSPARSE + cuBLAS, ViennaCL's cg), where it has one.
enum class Variant { classic, form1, form2, vendor };

// The forms of this project's algorithm (every variant but vendor).
inline constexpr Variant all_variants[] = {Variant::classic, Variant::form1, Variant::form2};
const VariantTable<Variant>& variant_table();
inline const std::string& to_string(Variant v) { return variant_table().name(v); }
inline Variant parse_variant(const std::string& s) { return variant_table().parse(s); }  // UsageError

struct KernelWork {
  std::string kernel;
  double calls = 0;  // per CG iteration
  double flops = 0;  // per call
  double bytes = 0;  // per call, minimum
};

struct ProblemShape {
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  Precision precision = Precision::f64;
};

KernelWork spmv_work(const ProblemShape& s);
// SpMV w = A r with dot2's r.r and w.r from the same pass: SpMV's bytes, its FLOPs and dot2's.
KernelWork spmv_dot2_work(const ProblemShape& s);
KernelWork dot_work(const ProblemShape& s, bool same_vector);
KernelWork dot2_work(const ProblemShape& s);
KernelWork axpy_work(const ProblemShape& s);
KernelWork xpay_work(const ProblemShape& s);
KernelWork three_term_update_work(const ProblemShape& s);
KernelWork cg_update_work(const ProblemShape& s);

// Per-call work of any CG kernel by its profile name ("scale", "copy", "fill" included); for a
// variant's own kernels prefer iteration_work, which knows e.g. that classic's dots differ.
KernelWork kernel_work(const std::string& kernel, const ProblemShape& s);

// The kernels one iteration of `v` launches, with their call counts.
std::vector<KernelWork> iteration_work(Variant v, const ProblemShape& s);

struct Work {
  double flops = 0;
  double bytes = 0;
};
Work total(const std::vector<KernelWork>& kernels);

// The kernels that take launch parameters (Operations::set_launch), in the order a sweep visits
// them. copy and fill are runtime copies and fills: nothing to tune.
const std::vector<std::string>& tunable_kernels();
inline constexpr int default_row_runs = 2;
// `kernel`'s tunables on a device whose work-groups hold at most `max_work_group_size` items:
// work_group_size, powers of two from 32 (or the device's limit if lower) to that limit, for
// every kernel; work_groups_per_cu (1..64) for the grid-stride kernels only. SpMV's grid (and the
// fused spmv_dot2's) follows from the rows (one work-item, or one group of lanes, per row) and has
// no such parameter. The fused spmv_dot2 also takes row_runs (1 to 16, powers of two; default
// default_row_runs): the runs of rows each work-group takes, its partial sums made once for them.
// Both SpMVs take slabs (0 or 1, default 1): 1 runs the slab SpMV (slabs.hpp) where the backend
// planned it for the matrix, 0 the CSR kernels; the sweep measures both. And slab_lanes (0, or 1
// to 32 in powers of two; default 0): the work-items that share a row of a slab in the slab SpMV,
// 0 the plan's choice from the rows' entries per slab (SlabPlan::lanes), and 0 where slabs is 0
// (a constraint). And slab_cache_kib (0, 32, 64, 128 or 256; default 0): 0 stages each slab's slice
// of x in local memory, more cuts x into slabs of that many KiB gathered through the cache (for
// devices whose local memory holds only narrow slices: NVIDIA's OpenCL), 0 where slabs is 0. An
// empty space for a kernel that is not tunable. `spmv_forms` false (a backend with one SpMV,
// BackendTraits::spmv_forms): neither row_runs nor slabs nor slab_lanes nor slab_cache_kib.
TunableSpace kernel_tunables(const std::string& kernel, std::size_t max_work_group_size, bool spmv_forms = true);

}  // namespace gpubench::cg
