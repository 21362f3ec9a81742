// The JSON form of a point's identity and result, written once: the records' device and
// ceilings blocks, and the whole PointResult a worker process hands back (bench/isolation.hpp).
// Reading is the exact inverse of writing.
#pragma once

#include <nlohmann/json.hpp>

#include "backends/ceilings.hpp"
#include "backends/device.hpp"
#include "bench/harness.hpp"

namespace gpubench {

void to_json(nlohmann::json& j, const DeviceInfo& d);
void from_json(const nlohmann::json& j, DeviceInfo& d);
void to_json(nlohmann::json& j, const Ceilings& c);
void from_json(const nlohmann::json& j, Ceilings& c);
void to_json(nlohmann::json& j, const PointId& id);
void from_json(const nlohmann::json& j, PointId& id);
void to_json(nlohmann::json& j, const Outcome& o);
void from_json(const nlohmann::json& j, Outcome& o);
void to_json(nlohmann::json& j, const KernelRow& k);
void from_json(const nlohmann::json& j, KernelRow& k);
void to_json(nlohmann::json& j, const PointResult& p);
void from_json(const nlohmann::json& j, PointResult& p);

}  // namespace gpubench
