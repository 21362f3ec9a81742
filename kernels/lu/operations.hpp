// The LU suite's operations: what each API supplies so that the algorithms, written once
// (blocked.cpp: the blocked LU; study.hpp: the study's two forms), run on its device. One
// implementation per API (openmp.cpp, opencl.cpp, cuda.cu, viennacl.cpp), registered by name.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/device.hpp"
#include "backends/factory_registry.hpp"
#include "backends/registry.hpp"
#include "bench/params.hpp"
#include "bench/tunable.hpp"
#include "bench/suite_kit.hpp"
#include "common/errors.hpp"
#include "common/precision.hpp"

namespace gpubench::lu {

// naive, optimised: the study's forms (no pivoting; buffers created and data moved at every
// step, timed on the host clock as the study's); blocked: right-looking blocked LU with partial
// pivoting and a look-ahead; vendor: the backend's library getrf (LAPACK through OpenBLAS,
// cuSOLVER; ViennaCL's lu_factorize, without pivoting).
enum class Variant { naive, optimised, blocked, vendor };
const VariantTable<Variant>& variant_table();
inline const std::string& to_string(Variant v) { return variant_table().name(v); }
inline Variant parse_variant(const std::string& name) { return variant_table().parse(name); }  // UsageError
// Whether `v` factors without pivoting (and so runs on diagonally dominant matrices only).
inline bool without_pivoting(Variant v, bool vendor_pivots) {
  return v == Variant::naive || v == Variant::optimised || (v == Variant::vendor && !vendor_pivots);
}

// Per-step times of a profiled pass, in seconds (the records' per-kernel rows). A deque: a row's
// address stays valid as rows are added (marks hold them until collect_marks()).
struct StepTimes {
  std::deque<std::pair<std::string, double>> rows;  // in the order first seen
  double& operator[](const std::string& name) {
    for (auto& r : rows)
      if (r.first == name) return r.second;
    rows.emplace_back(name, 0.0);
    return rows.back().second;
  }
};

// A run of the study's forms: its host seconds and the steps it did (n when it finished).
struct StudyRun {
  double seconds = 0;
  std::int64_t steps = 0;
};

// The widest panel the device kernels factor column by column (LU_LEAF_MAX in device.h): the
// recursion's base is at most this.
constexpr std::int64_t leaf_max = 64;
inline void check_leaf(std::int64_t w) {
  if (w > leaf_max)
    throw InputError("the blocked LU's base (" + std::to_string(w) + " columns) is beyond the kernels' " +
                     std::to_string(leaf_max));
}

// The panel's leaves in one launch (kernels/lu/device.h's lu_leaf): up to `groups` work-groups
// that meet at a barrier, all resident at once, each holding `slab` consecutive rows in at most
// `bytes` of local (shared) memory; groups 0: the API launches none so here. And the last run's
// count of leaves each way, for the records' "panel".
struct Leaf {
  int groups = 0;
  std::size_t bytes = 0;
  int in_one_launch = 0, by_columns = 0;

  // The rows per group: at least 64, on at most `groups`. (At least 256, fewer groups at each
  // column's barrier, ran LU 4096 in 23.3 ms against 20.7 on the H100:
  // reports/data/h100-2026-11-27-issue36/leaf-*.)
  std::int64_t slab(std::int64_t rows) const { return std::max<std::int64_t>(64, (rows + groups - 1) / groups); }
  // Whether rows x w elements of `element` bytes fit one launch.
  bool fits(std::int64_t rows, std::int64_t w, std::size_t element) const {
    return groups > 0 && static_cast<std::size_t>(slab(rows) * w) * element <= bytes;
  }
  // "N of M leaves in one <how> of up to G <units> ...; the others a launch per column: why":
  // `how` names the launch and its barrier, `none` why the API has none here, `memory` its kind.
  std::string describe(const std::string& how, const std::string& none, const std::string& memory) const;
};

// The blocked LU's launch choices, made by the suite: the block size nb, the width at which the
// panel's recursion stops (base), and GEMM's kernel for the updates (its variant and parameters).
struct BlockedConfig {
  std::int64_t nb = 256;
  std::int64_t base = 32;
  bool lookahead = true;
  std::string gemm_variant = "tuned";  // GEMM's own kernel: tuned, tensor (f64 on CUDA), tiled (host)
  Params gemm_params;
};

class Operations {
 public:
  virtual ~Operations() = default;

  // The matrix (column-major, n x n) in the device's precision; kept, so that reset() can put it
  // back. The matrix the device works on starts as a copy.
  virtual void upload(const std::vector<double>& a, std::int64_t n) = 0;
  virtual void reset() = 0;  // the working matrix back to the upload (not timed)
  // The factors (column-major, unit-lower L below the diagonal, U on and above) and LAPACK's
  // 1-based ipiv of the last run.
  virtual void read_factors(std::vector<double>& lu, std::vector<int>& ipiv) = 0;

  // Device time between start() and stop() (device events where the API has them; all queues).
  virtual void start() = 0;
  virtual double stop() = 0;
  // A profiled pass: the device time since the previous mark goes to *into (nullptr: nowhere);
  // collect_marks() waits for the device and adds them up.
  virtual void mark(double* into) = 0;
  virtual void collect_marks() = 0;

  // The blocked LU's steps on the working matrix (0-based rows and columns, ranges [from, to)):
  // getf2: columns [j, j + w) over rows [j, n), unblocked, with partial pivoting; their pivots
  //   into ipiv[j, j + w) (a zero pivot column is left as it is, as LAPACK's dgetf2 does);
  // laswp: rows k and ipiv[k] swapped for k in [k0, k1), in order, on columns [c0, c1);
  // trsm: rows [j, j + w) of columns [c0, c1) times L(j:j+w, j:j+w)^-1 (unit lower);
  // gemm: A[r0:r1, c0:c1] -= A[r0:r1, k0:k1] A[k0:k1, c0:c1].
  virtual void configure(const BlockedConfig& c) = 0;
  virtual void getf2(std::int64_t j, std::int64_t w) = 0;
  virtual void laswp(std::int64_t k0, std::int64_t k1, std::int64_t c0, std::int64_t c1) = 0;
  virtual void trsm(std::int64_t j, std::int64_t w, std::int64_t c0, std::int64_t c1) = 0;
  virtual void gemm(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t k0,
                    std::int64_t k1) = 0;
  // How the last run factored its panels' leaves where the API has more than one way ("40 of 64
  // leaves in one launch ...; the others a launch per column: why"), for the records' "panel".
  virtual std::string panel() const { return {}; }
  // Where the last run took a slower path than another API's on this device, and what forces it
  // (a list of bench/suite.hpp's gap_cause), for the records' "gap_causes". Default: none.
  virtual nlohmann::json gap_causes() const { return nlohmann::json::array(); }
  // The look-ahead: the steps that follow go to queue q (0: the main one, 1: the panel's); an
  // event the current queue signals, that another waits for. An API with one queue ignores them.
  virtual void queue(int) {}
  virtual void signal(int) {}
  virtual void wait(int) {}

  // The library's getrf on the working matrix, timed from start() to stop() by the caller.
  virtual void vendor() = 0;
  // The host BLAS beneath vendor()'s getrf and the kernels it chose (host_blas::BlasInfo), for
  // the records' "host_blas"; null where the library is not a host BLAS.
  virtual nlohmann::json host_blas() const { return nullptr; }

  // The study's forms (study.hpp) on the host's copy of the matrix: host seconds, including
  // buffer creation and transfers; `times` (when given) gets per-step rows. The form stops after
  // the step during which its clock passes limit_s (steps < n then).
  virtual StudyRun study(Variant v, StepTimes* times, double limit_s) = 0;
};

using OperationsFactory = std::function<std::unique_ptr<Operations>(const DeviceInfo&, Precision)>;
struct BackendTraits {
  std::string vendor;             // the library vendor calls ("OpenBLAS 0.3.21 LAPACK dgetrf"); empty: none
  std::vector<Variant> variants;  // those this backend runs
  bool vendor_pivots = true;      // false: the library factors without pivoting (ViennaCL)
  // GEMM's own kernels blocked's updates may use on the device, in `p`: the first is the
  // default, the others are swept (the tunable "update" picks one by its place here).
  std::function<std::vector<std::string>(const DeviceInfo&, Precision)> gemm_kernels = nullptr;
  // Whether blocked's look-ahead overlaps anything here (false: one queue, the host's cores).
  bool lookahead = true;
  // Why the vendor variant is not in this build, where `vendor` is empty.
  std::string no_vendor = "no LU library in this build";
};
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();
inline const OperationsFactory* find_operations(const std::string& backend) {
  return operations_registry().factory(backend);
}
inline const BackendTraits* backend_traits(const std::string& backend) { return operations_registry().extra(backend); }

// The blocked LU, written once over the operations: for each panel of nb columns, the panel
// (recursively halved down to `base` columns, each half's swaps, triangular solve and update
// applied to the other), its row swaps on the columns left and right of it, the triangular solve
// of its rows and the trailing update; with the look-ahead, the next panel's columns are updated
// first and the next panel factored on queue 1 while the rest of the update runs on queue 0.
// `times` (a profiled pass, no look-ahead): marks between the steps: panel, laswp, trsm, gemm.
void blocked(Operations& ops, std::int64_t n, const BlockedConfig& c, StepTimes* times = nullptr);

}  // namespace gpubench::lu

#define GPUBENCH_REGISTER_LU_OPERATIONS(...)                                                                  \
  static const ::gpubench::lu::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_lu_ops_, __LINE__){ \
      ::gpubench::lu::operations_registry(), __VA_ARGS__}
