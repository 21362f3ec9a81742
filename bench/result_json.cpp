#include "bench/result_json.hpp"

namespace gpubench {

void to_json(nlohmann::json& j, const Ceilings& c) {
  j = {{"copy_gbps", c.copy_gbps},   {"triad_gbps", c.triad_gbps}, {"f32_gflops", c.f32_gflops},
       {"f64_gflops", c.f64_gflops}, {"array_bytes", c.array_bytes}, {"trials", c.trials},
       {"worst_bandwidth_gbps", c.worst_bandwidth_gbps}, {"by", c.backend},
       {"measured", c.date},         {"commit", c.commit}, {"host", c.host},
       {"worst_f32_gflops", c.worst_f32_gflops}, {"worst_f64_gflops", c.worst_f64_gflops},
       {"unconfirmed", c.unconfirmed}};
}

void from_json(const nlohmann::json& j, Ceilings& c) {
  j.at("copy_gbps").get_to(c.copy_gbps);
  j.at("triad_gbps").get_to(c.triad_gbps);
  j.at("f32_gflops").get_to(c.f32_gflops);
  j.at("f64_gflops").get_to(c.f64_gflops);
  j.at("array_bytes").get_to(c.array_bytes);
  j.at("trials").get_to(c.trials);
  j.at("worst_bandwidth_gbps").get_to(c.worst_bandwidth_gbps);
  j.at("by").get_to(c.backend);
  j.at("measured").get_to(c.date);
  j.at("commit").get_to(c.commit);
  c.host = j.value("host", std::string());
  c.worst_f32_gflops = j.value("worst_f32_gflops", 0.0);
  c.worst_f64_gflops = j.value("worst_f64_gflops", 0.0);
  c.unconfirmed = j.value("unconfirmed", std::string());
}

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
