// The JSON form of a point's identity and result, written once: the records' device and
// ceilings blocks, and the whole PointResult a worker process hands back (bench/isolation.hpp).
// Reading is the exact inverse of writing.
#pragma once

#include <nlohmann/json.hpp>

#include "backends/ceilings.hpp"
#include "backends/device.hpp"
#include "bench/harness.hpp"

namespace gpubench {

// Field for field, under the members' own names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceInfo, backend, index, api, platform, vendor, name, type, compute_units, driver,
                                   max_work_group_size, global_mem_bytes, max_alloc_bytes, local_mem_bytes, cache_bytes,
                                   fp64, pci_bus_id)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Outcome, seconds, iterations, verified, verification, fields)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelRow, kernel, calls_per_iteration, seconds_per_iteration, flops_per_iteration,
                                   bytes_per_iteration)

void to_json(nlohmann::json& j, const Ceilings& c);
void from_json(const nlohmann::json& j, Ceilings& c);
void to_json(nlohmann::json& j, const PointId& id);
void from_json(const nlohmann::json& j, PointId& id);
void to_json(nlohmann::json& j, const PointResult& p);
void from_json(const nlohmann::json& j, PointResult& p);

}  // namespace gpubench
