// The EP suite's operations interface: one call tallies the first `pairs` pairs of NAS's stream
// on the device and returns sx, sy, q[0..9] with the device time of its kernels. Each API
// supplies one implementation (openmp.cpp, opencl.cpp + opencl.cl, cuda.cu).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "backends/factory_registry.hpp"
#include "backends/registry.hpp"
#include "bench/suite_kit.hpp"
#include "kernels/launch_grid.hpp"
#include "kernels/ep/ep.hpp"

namespace gpubench::ep {

// reduce: each work-group reduces its work-items' results in local memory and writes one row,
// and a second kernel adds the rows. partials (the source study's form): every work-item writes
// its 12 values to global memory, column-major (value v of item i at v * items + i), and the
// second kernel adds the columns. serial: the whole stream on one host thread, NAS's serial
// code; the first step of the source study's serial -> OpenMP -> GPU comparison (openmp only).
enum class Variant { reduce, partials, serial };
const VariantTable<Variant>& variant_table();
inline const std::string& to_string(Variant v) { return variant_table().name(v); }
inline Variant parse_variant(const std::string& name) { return variant_table().parse(name); }  // UsageError
constexpr Variant device_variants[] = {Variant::reduce, Variant::partials};  // what every backend runs
std::string tally_kernel(Variant v);  // "tally", "tally_partials" (the tunable kernels), "serial"

// The tally kernel's launch is a Params (the tuner's generic map): work_groups_per_cu x compute
// units groups of work_group_size (kernels/launch_grid.hpp: the names, the defaults).

struct TallyRun {
  std::array<double, result_values> values{};  // sx, sy, q[0..9]
  double tally_seconds = 0;                    // device time of the tally kernel
  double sum_seconds = 0;                      // and of the kernel that adds the partial results
  std::uint64_t items = 0;                     // work-items of the tally kernel
  double seconds() const { return tally_seconds + sum_seconds; }
};

class Operations {
 public:
  virtual ~Operations() = default;
  virtual const DeviceInfo& device() const = 0;
  // The largest work-group the tally kernel runs with on this device.
  virtual int largest_group() const = 0;
  // Pairs [0, pairs) in whole batches (pairs a multiple of 2^batch_log2). Throws UsageError for
  // a launch the device cannot take, DeviceError for a failed launch.
  virtual TallyRun tally(std::uint64_t pairs, Variant variant, const Params& launch) = 0;
  // Where this backend takes a slower path than another API's on its device, and what forces it
  // (a list of bench/suite.hpp's gap_cause), for the records' "gap_causes". Default: none.
  virtual nlohmann::json gap_causes() const { return nlohmann::json::array(); }
};

// UsageError unless `backend` runs `v` (serial runs on the host's backend: BackendTraits::serial).
void check_runs(const std::string& backend, Variant v);

// How the batches are dealt: item i of `items` takes batches [first(i), first(i + 1)).
struct Deal {
  std::uint64_t batches = 0, items = 0;
  std::uint64_t first(std::uint64_t item) const { return item * batches / items; }
};
// pairs / 2^batch_log2; UsageError unless that is a whole, non-zero number of batches.
std::uint64_t whole_batches(std::uint64_t pairs);
// Checks the launch against the device (work-group size within 1..largest, WG/CU >= 1) and the
// pair count (whole batches; at most 2^32 pairs per item, which the items' counters hold).
Deal deal(const DeviceInfo& device, std::uint64_t pairs, const Params& launch, int largest_group);

using OperationsFactory = std::function<std::unique_ptr<Operations>(const DeviceInfo&)>;
// launch_parameters: whether launch parameters mean anything on this backend (the sweeper skips
// backends where it does not); serial: whether it runs NAS's serial code (the host's backend).
struct BackendTraits {
  bool launch_parameters = false;
  bool serial = false;
};
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();
inline const OperationsFactory* find_operations(const std::string& backend) {
  return operations_registry().factory(backend);
}
inline bool takes_launch_parameters(const std::string& backend) {
  const BackendTraits* traits = operations_registry().extra(backend);
  return traits && traits->launch_parameters;
}
inline bool runs_serial(const std::string& backend) {
  const BackendTraits* traits = operations_registry().extra(backend);
  return traits && traits->serial;
}

}  // namespace gpubench::ep

// GPUBENCH_REGISTER_EP_OPERATIONS("cuda", factory, launch_parameters [, serial])
#define GPUBENCH_REGISTER_EP_OPERATIONS(...)                                                     \
  static const ::gpubench::ep::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_ep_ops_, __LINE__){ \
      ::gpubench::ep::operations_registry(), __VA_ARGS__}
