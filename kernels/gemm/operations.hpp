// The GEMM suite's operations: what each API supplies to run C = alpha A B + beta C on its device
// (issue 13). One implementation per API (openmp.cpp, opencl.cpp, cuda.cu), registered by name.
#pragma once

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
#include "common/precision.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/tensor_shape.h"
#include "kernels/gemm/tuned.hpp"

namespace gpubench::gemm {

// naive: one element of C per work-item, A and B from memory; tiled: square tiles in local memory
// (the tunable "tile"); tuned: register-blocked (tuned.hpp, tuned_body.h; tunables bm bn bk tm tn
// vw); tensor: f64 on CUDA's FP64 tensor cores (mma.sync); serial: the naive loop on one host
// thread (the study's serial column); vendor: the backend's BLAS (OpenBLAS, CLBlast, cuBLAS).
enum class Variant { naive, tiled, tuned, tensor, serial, vendor, blis, packed };
const VariantTable<Variant>& variant_table();
inline const std::string& to_string(Variant v) { return variant_table().name(v); }
inline Variant parse_variant(const std::string& name) { return variant_table().parse(name); }  // UsageError
// The tuned kernel's configuration from its parameters (bm bn bk tm tn vw).
TunedConfig tuned_config(const Params& params);
// The tensor kernel's configuration from its parameters (bm bn bk stages wm wn unroll minb;
// splitk is its launch's).
gemm_tc::Shape tensor_config(const Params& params);
// How many shares the tuned and tensor kernels split K into ("splitk"; 1 where not given).
inline int splits_of(const Params& params) {
  const auto it = params.find("splitk");
  return it == params.end() ? 1 : it->second;
}

class Operations {
 public:
  virtual ~Operations() = default;
  // A, B and the C every call starts from, as the precision holds them (shape's layout).
  virtual void upload(const Shape& s, const std::vector<double>& a, const std::vector<double>& b,
                      const std::vector<double>& c0) = 0;
  // C set back to C0 (not timed), then one timed call of `v` with `params` (tiled: "tile"; tuned:
  // TunedConfig's names); its seconds by the API's own clock (device events on a GPU). A
  // configuration the device cannot launch is a DeviceError naming it.
  virtual double run(Variant v, const Params& params, double alpha, double beta) = 0;
  virtual std::vector<double> result() const = 0;  // C after the last call
  // What the records should know of how `v` ran, beyond its parameters (cuBLAS's math mode).
  virtual std::string mode(Variant) const { return {}; }
  // The unit `v`'s FLOPs run on here, whose peak its roof is drawn with (bench/suite.hpp's
  // Point::compute_unit): "" the FMA pipes, "f64 tensor" the FP64 tensor cores.
  virtual std::string compute_unit(Variant) const { return {}; }
  // The host BLAS that `v` called and the kernels it chose (host_blas::BlasInfo), for the records'
  // "host_blas"; null where `v` calls none.
  virtual nlohmann::json host_blas(Variant) const { return nullptr; }
  // Where `v` takes a slower path than another API's on this device, and what forces it (a list
  // of bench/suite.hpp's gap_cause), for the records' "gap_causes". Default: none.
  virtual nlohmann::json gap_causes(Variant) const { return nlohmann::json::array(); }
  // Builds the kernels `v` needs for each of `configs` ahead of their runs, in parallel where the
  // API can (NVRTC); one that fails is left to its run to report. Default: nothing (built on use).
  virtual void build(Variant, const std::vector<Params>&) {}
};

using OperationsFactory = std::function<std::unique_ptr<Operations>(const DeviceInfo&, Precision)>;
struct BackendTraits {
  std::string vendor;  // the library the vendor variant calls ("OpenBLAS 0.3.21"); empty: none in this build
  std::vector<Variant> variants;  // those this backend runs (vendor runs only where `vendor` is set)
  // Variants that run one precision only or on some devices only, and why not on `device` in
  // that precision ("tensor: FP64 tensor cores"); empty where they run.
  std::function<std::string(const DeviceInfo&, Variant, Precision)> refuses = nullptr;
  // Why the vendor variant is not in this build, where `vendor` is empty.
  std::string no_vendor = "no BLAS library was found when configured";
  // Whether tuned and tensor are the kernels shared by CUDA and OpenCL, which dispatch per shape
  // class: a degenerate shape (m, n or k equal to 1) to kernels/gemm/gemv.h's memory-bound kernels
  // (gemv.hpp's space in place of the tiles'), a thin C (suite.cpp's thin()) to a split K, each
  // class under its own key in the tuning database. False: every shape on their tiles.
  bool shape_classes = false;
};
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();
// nullptr when `backend` has no GEMM in this build.
inline const OperationsFactory* find_operations(const std::string& backend) {
  return operations_registry().factory(backend);
}
inline const BackendTraits* backend_traits(const std::string& backend) { return operations_registry().extra(backend); }

// The tuned kernel's space on `device` (tuned.hpp): block tile bm x bn, step bk, per-item tile
// tm x tn, vector width vw; the work-group is (bn/tn) x (bm/tm) items; splitk, K's shares (added
// into C with atomics), 1 unless `split_k` gives the K of a thin C, whose shares are then at least
// 2 bk steps each. Every API builds any legal configuration (OpenCL's compiler, NVRTC), so the
// space is the same on every backend.
TunableSpace tuned_space(const DeviceInfo& device, Precision p, std::int64_t split_k = 0);
// A thin C on `device`: not degenerate, fewer 64 x 64 blocks than 4 a compute unit, so that tiles
// alone leave the device idle (64 x 8000 on an H100's 132 SMs: 125 blocks), and a K of at least
// thin_min_k, which each block would walk alone. A shorter K is little work to split, and LU's
// updates (K = nb) keep their deterministic sums. Its own shape class in the tuning database
// ("tuned:thin", "tensor:thin"), where K may be split.
constexpr std::int64_t thin_min_k = 1024;
bool thin(const Shape& s, const DeviceInfo& device);

// The FP64 tensor-core kernel's space (tensor_shape.h) on `device`: block tile bm x bn of wm x wn
// warps, slice bk, pipeline stages, unroll (16-deep steps unrolled together), minb (blocks an SM
// holds: caps registers; CUDA only, 1 on OpenCL), splitk (K's shares, added into C with atomics);
// its stages within the shared memory a block may have there (tensor_shared_limit). Without a
// device: CUDA's (every value any device takes).
TunableSpace tensor_space(const DeviceInfo& device = {});
// The shared memory a block of the tensor kernel may have on `device`: CUDA's 227 KiB (compute
// capability 9.0, opted in); on OpenCL the device's local memory (NVIDIA's: 48 KB).
int tensor_shared_limit(const DeviceInfo& device);
// The shared memory a block of configuration `s` takes on `device`: CUDA's padded rows
// (shared_bytes), OpenCL's swizzled ones (local_bytes).
int tensor_block_bytes(const DeviceInfo& device, const gemm_tc::Shape& s);

// The parameters of GEMM's own kernel `v` (tiled, tuned, tensor, packed) for `shape` on `device`, as a GEMM run
// would choose them: the tuning database's entry for its size bucket (or the nearest), else the
// heuristic; none for a kernel without tunables. For suites that call GEMM's kernels (LU's
// trailing update).
LaunchChoice own_launch(const TuningDb* db, const DeviceInfo& device, Variant v, const Shape& shape, Precision p);

}  // namespace gpubench::gemm

#define GPUBENCH_REGISTER_GEMM_OPERATIONS(...)                                                         \
  static const ::gpubench::gemm::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_gemm_ops_, __LINE__){ \
      ::gpubench::gemm::operations_registry(), __VA_ARGS__}
