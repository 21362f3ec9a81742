#include "bench/result_json.hpp"

#include "bench/tuning_db_file.hpp"

namespace gpubench {

void to_json(nlohmann::json& j, const Ceilings& c) { j = ceilings_json(c); }

void from_json(const nlohmann::json& j, Ceilings& c) { c = ceilings_of_json(j); }

void to_json(nlohmann::json& j, const PointId& id) {
  j = {{"suite", id.suite},     {"problem", id.problem}, {"backend", id.backend},
       {"variant", id.variant}, {"device", id.device},   {"precision", to_string(id.precision)},
       {"params", id.params}};
  if (!id.devices.empty()) j["devices"] = id.devices;
  if (!id.hosts.empty()) j["hosts"] = id.hosts;
  if (id.ranks > 0) j["ranks"] = id.ranks;
}

void from_json(const nlohmann::json& j, PointId& id) {
  j.at("suite").get_to(id.suite);
  j.at("problem").get_to(id.problem);
  j.at("backend").get_to(id.backend);
  j.at("variant").get_to(id.variant);
  j.at("device").get_to(id.device);
  id.precision = parse_precision(j.at("precision").get<std::string>());
  id.params = j.at("params");
  id.devices.clear();
  if (j.contains("devices")) j.at("devices").get_to(id.devices);
  id.hosts.clear();
  if (j.contains("hosts")) j.at("hosts").get_to(id.hosts);
  id.ranks = j.value("ranks", 0);
}

void to_json(nlohmann::json& j, const PointResult& p) {
  j = {{"id", p.id},
       {"failed", p.failed},
       {"error", p.error},
       {"failure", static_cast<int>(p.failure)},
       {"time_includes", p.time_includes},
       {"compute_unit", p.compute_unit},
       {"repetitions", p.repetitions},
       {"kernels", p.kernels},
       {"profiled_seconds_per_iteration", p.profiled_seconds_per_iteration},
       {"flops_per_iteration", p.flops_per_iteration},
       {"bytes_per_iteration", p.bytes_per_iteration},
       {"median_seconds_per_iteration", p.median_seconds_per_iteration},
       {"iqr_fraction", p.iqr_fraction},
       {"outlier_seconds", p.outlier_seconds},
       {"measured", p.measured}};
  if (p.ceilings) j["ceilings"] = *p.ceilings;
}

void from_json(const nlohmann::json& j, PointResult& p) {
  j.at("id").get_to(p.id);
  j.at("failed").get_to(p.failed);
  j.at("error").get_to(p.error);
  p.failure = static_cast<ExitCode>(j.at("failure").get<int>());
  j.at("time_includes").get_to(p.time_includes);
  p.compute_unit = j.value("compute_unit", std::string());
  j.at("repetitions").get_to(p.repetitions);
  j.at("kernels").get_to(p.kernels);
  j.at("profiled_seconds_per_iteration").get_to(p.profiled_seconds_per_iteration);
  j.at("flops_per_iteration").get_to(p.flops_per_iteration);
  j.at("bytes_per_iteration").get_to(p.bytes_per_iteration);
  j.at("median_seconds_per_iteration").get_to(p.median_seconds_per_iteration);
  p.iqr_fraction = j.value("iqr_fraction", 0.0);
  p.outlier_seconds = j.value("outlier_seconds", std::vector<double>{});
  p.measured = j.value("measured", nlohmann::json::object());
  p.ceilings.reset();
  if (j.contains("ceilings")) p.ceilings = j["ceilings"].get<Ceilings>();
}

}  // namespace gpubench
