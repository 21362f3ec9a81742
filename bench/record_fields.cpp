#include "bench/record_fields.hpp"

#include "bench/format.hpp"
#include "bench/roofline.hpp"

namespace gpubench {

namespace {

using Scope = RecordField::Scope;
using Row = RecordRow;
using json = nlohmann::json;

// A repetition's figures, on a row whose repetition verified (null otherwise).
const Outcome* with_figures(const Row& r) { return r.outcome && r.outcome->iterations > 0 ? r.outcome : nullptr; }
double seconds_per_iteration(const Outcome& o) { return o.seconds / o.iterations; }
json context_text(const Row& r, const char* key) {
  return r.context && r.context->is_object() ? json(r.context->value(key, std::string())) : json(std::string());
}

// The energy pass's figure `key` (bench/energy.hpp), null where there is none.
json energy_of(const PointResult& p, const char* key) {
  const auto e = p.measured.find("energy");
  if (e == p.measured.end() || !e->is_object() || !e->contains(key)) return json();
  return e->at(key);
}
// The device's state figure `key` at `when` ("start", "end"), null where not known.
json state_of(const PointResult& p, const char* when, const char* key) {
  const auto s = p.measured.find("device_state");
  if (s == p.measured.end() || !s->is_object() || !s->contains(when) || !s->at(when).contains(key)) return json();
  return s->at(when).at(key);
}
// The table's energy cell: the figure, or "-" (the reason is in the records and the footnote).
std::string energy_cell(const PointResult& p, const char* key, int decimals) {
  const json v = energy_of(p, key);
  return v.is_number() ? fixed(v.get<double>(), decimals) : "-";
}

json kernels_of(const PointResult& p) {
  json kernels = json::array();
  for (const auto& k : p.kernels) {
    const double s = k.seconds_per_iteration;
    json kj = {{"kernel", k.kernel},
               {"calls_per_iteration", k.calls_per_iteration},
               {"ms_per_iteration", s * 1e3},
               {"gflops", s > 0 ? k.flops_per_iteration / s / 1e9 : 0.0},
               {"gbps", s > 0 ? k.bytes_per_iteration / s / 1e9 : 0.0}};
    if (p.ceilings && k.bytes_per_iteration > 0) kj.update(p.roofline(k).to_json());
    kernels.push_back(kj);
  }
  return kernels;
}

// A point across several devices also names each band's device (and, across ranks, its host).
nlohmann::json band_fields(const PointId& id) {
  if (id.devices.size() < 2) return nlohmann::json::object();
  nlohmann::json bands = nlohmann::json::array();
  for (std::size_t k = 0; k < id.devices.size(); ++k) {
    const DeviceInfo& d = id.devices[k];
    nlohmann::json b = {{"band", k}, {"backend", d.backend}, {"index", d.index}, {"name", d.name}, {"platform", d.platform}};
    if (k < id.hosts.size()) b["host"] = id.hosts[k];
    if (id.ranks > 0) b["rank"] = k;
    bands.push_back(b);
  }
  return {{"devices", id.where()}, {"device_count", id.devices.size()}, {"ranks", id.ranks}, {"bands", bands}};
}


std::vector<RecordField> make_fields() {
  const auto field = [](Scope scope, const char* json_key, const char* csv, const char* type, const char* description,
                        std::function<json(const Row&)> value) {
    RecordField f;
    f.json = json_key;
    f.csv = csv;
    f.type = type;
    f.description = description;
    f.scope = scope;
    f.value = std::move(value);
    return f;
  };
  const auto point = [&](const char* json_key, const char* csv, const char* type, const char* description,
                         std::function<json(const Row&)> value) {
    return field(Scope::point, json_key, csv, type, description, std::move(value));
  };
  const auto repetition = [&](const char* json_key, const char* csv, const char* type, const char* description,
                              std::function<json(const Row&)> value) {
    return field(Scope::repetition, json_key, csv, type, description, std::move(value));
  };
  const auto layout = [&](const char* json_key, const char* type, const char* description) {
    return field(Scope::layout, json_key, "", type, description, nullptr);
  };
  std::vector<RecordField> f = {
      point("", "date", "string", "when the run started (the context's date)",
            [](const Row& r) { return context_text(r, "date"); }),
      point("", "commit", "string", "the commit gpubench was built from",
            [](const Row& r) { return context_text(r, "gpubench_commit"); }),
      point("", "host", "string", "the machine", [](const Row& r) { return context_text(r, "host_name"); }),
      point("suite", "suite", "string", "the suite: cg, ep, ft, gemm, lu", [](const Row& r) { return r.point.id.suite; }),
      point("problem", "problem", "string", "the problem, as --problem names it",
            [](const Row& r) { return r.point.id.problem; }),
      point("backend", "backend", "string", "the API the point ran on", [](const Row& r) { return r.point.id.backend; }),
      point("device_index", "device_index", "integer", "the device's index within its backend",
            [](const Row& r) { return r.point.id.device.index; }),
      point("device", "device", "string", "the device's name", [](const Row& r) { return r.point.id.device.name; }),
      point("variant", "variant", "string", "the form of the algorithm or the library",
            [](const Row& r) { return r.point.id.variant; }),
      point("precision", "precision", "string", "f32 or f64", [](const Row& r) { return to_string(r.point.id.precision); }),
      point("", "devices", "string", "where it ran: opencl:0, or every device of a solve split across several (cuda:0+1)",
            [](const Row& r) { return r.point.id.where(); }),
      point("", "ranks", "integer", "the MPI ranks of a solve across ranks (0: one process)",
            [](const Row& r) { return r.point.id.ranks; }),
      point("platform", "", "string", "the device's platform (OpenCL's; the driver elsewhere)",
            [](const Row& r) { return r.point.id.device.platform; }),
      point("params", "", "object", "what the point ran with: launch parameters and where they came from, library, ...",
            [](const Row& r) { return r.point.id.params; }),
      point("kernels", "", "array", "the profiled pass, kernel by kernel (and the overhead)",
            [](const Row& r) { return kernels_of(r.point); }),
      point("flops_per_iteration", "", "number", "the declared floating-point operations of one iteration",
            [](const Row& r) { return r.point.flops_per_iteration; }),
      point("bytes_per_iteration", "", "number", "the fewest bytes one iteration must move through device memory",
            [](const Row& r) { return r.point.bytes_per_iteration; }),
      point("time_includes", "", "string", "what the timed region holds, and what one iteration is",
            [](const Row& r) { return r.point.time_includes; }),
      point("outliers", "", "integer", "repetitions more than 14 median absolute deviations from the median",
            [](const Row& r) { return r.point.outlier_seconds.size(); }),
      point("profiled_ms_per_iteration", "", "number", "the profiled pass's own time per iteration, in ms",
            [](const Row& r) { return r.point.profiled_seconds_per_iteration * 1e3; }),
      repetition("", "repetition", "integer", "the repetition's index", [](const Row& r) { return r.repetition; }),
      repetition("verified", "verified", "boolean", "whether the repetition's result was verified",
                 [](const Row& r) { return r.outcome && r.outcome->verified && !r.point.failed; }),
      repetition("verification", "", "string", "what was checked, and the result",
                 [](const Row& r) { return r.outcome ? json(r.outcome->verification) : json(); }),
      repetition("timed_iterations", "timed_iterations", "integer", "the iterations in the timed region",
                 [](const Row& r) { return r.outcome ? json(r.outcome->iterations) : json(); }),
      repetition("device_seconds", "seconds", "number", "the device time of the timed region",
                 [](const Row& r) { return r.outcome ? json(r.outcome->seconds) : json(); }),
      repetition("", "ms_per_iteration", "number", "the device time per iteration, in ms", [](const Row& r) {
        const Outcome* o = with_figures(r);
        return o ? json(seconds_per_iteration(*o) * 1e3) : json();
      }),
      point("iqr_fraction", "", "number", "the repetitions' interquartile range over their median",
            [](const Row& r) { return r.point.iqr_fraction; }),
      repetition("", "gflops", "number", "GFLOP/s of the declared work", [](const Row& r) {
        const Outcome* o = with_figures(r);
        return o ? json(r.point.flops_per_iteration / seconds_per_iteration(*o) / 1e9) : json();
      }),
      repetition("", "gbps", "number", "GB/s of the fewest bytes (none for compute-bound work)", [](const Row& r) {
        const Outcome* o = with_figures(r);
        if (!o || !memory_applies(r.point.flops_per_iteration, r.point.bytes_per_iteration)) return json();
        return json(r.point.bytes_per_iteration / seconds_per_iteration(*o) / 1e9);
      }),
      repetition("", "roofline_pct", "number", "the rate against the device's roofline, in %", [](const Row& r) {
        const Outcome* o = with_figures(r);
        if (!o || !r.point.ceilings) return json();
        return json(place(r.point.flops_per_iteration, r.point.bytes_per_iteration, seconds_per_iteration(*o),
                          *r.point.ceilings, r.point.id.precision, r.point.compute_unit)
                        .roofline_pct);
      }),
      repetition("", "error_message", "string", "why the repetition has no figures",
                 [](const Row& r) { return r.outcome ? json() : json(r.point.error); }),
      point("energy", "", "object",
            "the energy pass (the timed region back to back for at least 1 s, the device's meter read around it): "
            "source, joules_per_iteration, watts, gflops_per_joule, duty, pass_s, watts_from_samples, "
            "samples_vs_counter; or none: why there is no figure",
            [](const Row& r) {
              const auto e = r.point.measured.find("energy");
              return e == r.point.measured.end() ? json() : *e;
            }),
      point("device_state", "", "object",
            "the device's state at the start of the repetitions and the end of the energy pass: sm_mhz, mem_mhz, "
            "power_limit_w, temperature_c (cpu_mhz on a CPU), each where the device reports it",
            [](const Row& r) {
              const auto s = r.point.measured.find("device_state");
              return s == r.point.measured.end() ? json() : *s;
            }),
      point("machine_load", "", "object",
            "other processes' use of the CPUs this process may run on while the point ran (its preparation "
            "included): others_cpu_fraction (this process's own time taken out), cpus, seconds; where the device's "
            "meter lists its processes (NVML), gpu_others ([{pid, name, sm_pct, used_mib}], the others' highest SM "
            "use since the point began) and gpu_busy (one at 10% or more), or gpu_others_unknown (why not); busy: "
            "others_cpu_fraction at 25% or more, or gpu_busy",
            [](const Row& r) {
              const auto m = r.point.measured.find("machine_load");
              return m == r.point.measured.end() ? json() : *m;
            }),
      point("", "joules_per_iteration", "number", "the energy of one iteration: the pass's average power x its time per iteration",
            [](const Row& r) { return energy_of(r.point, "joules_per_iteration"); }),
      point("", "watts", "number", "the energy pass's average power", [](const Row& r) { return energy_of(r.point, "watts"); }),
      point("", "gflops_per_joule", "number", "GFLOP of the declared work per joule",
            [](const Row& r) { return energy_of(r.point, "gflops_per_joule"); }),
      point("", "energy_duty", "number", "the share of the energy pass's wall time in timed regions",
            [](const Row& r) { return energy_of(r.point, "duty"); }),
      point("", "watts_from_samples", "number", "the energy pass's average power from the power samples",
            [](const Row& r) { return energy_of(r.point, "watts_from_samples"); }),
      point("", "energy_source", "string", "what measured the energy, or \"-: \" and why there is no figure",
            [](const Row& r) {
              const json source = energy_of(r.point, "source");
              if (source.is_string()) return source;
              const json none = energy_of(r.point, "none");
              return none.is_string() ? json("-: " + none.get<std::string>()) : json();
            }),
      point("", "sm_mhz_start", "number", "the SM clock at the start of the repetitions",
            [](const Row& r) { return state_of(r.point, "start", "sm_mhz"); }),
      point("", "sm_mhz_end", "number", "the SM clock at the end of the energy pass",
            [](const Row& r) { return state_of(r.point, "end", "sm_mhz"); }),
      point("", "mem_mhz_start", "number", "the memory clock at the start of the repetitions",
            [](const Row& r) { return state_of(r.point, "start", "mem_mhz"); }),
      point("", "mem_mhz_end", "number", "the memory clock at the end of the energy pass",
            [](const Row& r) { return state_of(r.point, "end", "mem_mhz"); }),
      point("", "power_limit_w", "number", "the device's enforced power limit",
            [](const Row& r) { return state_of(r.point, "start", "power_limit_w"); }),
      point("", "temperature_c_start", "number", "the device's temperature at the start of the repetitions",
            [](const Row& r) { return state_of(r.point, "start", "temperature_c"); }),
      point("", "temperature_c_end", "number", "the device's temperature at the end of the energy pass",
            [](const Row& r) { return state_of(r.point, "end", "temperature_c"); }),
  };
  // The table's columns, in this order among the fields: the median's.
  const auto column = [&](const char* name, const char* header, std::function<std::string(const PointResult&)> cell) {
    for (auto& entry : f)
      if (entry.json == name || entry.csv == name) {
        entry.column = header;
        entry.cell = std::move(cell);
      }
  };
  column("ms_per_iteration", "ms/iter", [](const PointResult& p) { return fixed(p.median_seconds_per_iteration * 1e3, 4); });
  column("iqr_fraction", "spread", [](const PointResult& p) {
    return p.repetitions.size() >= 3 ? fixed(p.iqr_fraction * 100, 1) + "%" : "-";
  });
  column("gflops", "GFLOP/s", [](const PointResult& p) { return fixed(p.gflops(), 2); });
  column("gbps", "GB/s", [](const PointResult& p) {
    return memory_applies(p.flops_per_iteration, p.bytes_per_iteration) ? fixed(p.gbps(), 1) : "-";
  });
  const auto energy_column = [&](const char* name, const char* header, const char* key, int decimals) {
    column(name, header, [key, decimals](const PointResult& p) { return energy_cell(p, key, decimals); });
    for (auto& entry : f)
      if (entry.csv == name) entry.energy_column = true;
  };
  energy_column("joules_per_iteration", "J/iter", "joules_per_iteration", 4);
  energy_column("watts", "W", "watts", 1);
  energy_column("gflops_per_joule", "GFLOP/J", "gflops_per_joule", 2);
  // Google Benchmark's entry (its JSON reporter's fields), which the JSON writer lays out.
  for (RecordField& l : std::vector<RecordField>{
           layout("name", "string", "the point's name (suite/problem/where/variant/precision); an aggregate's with _mean etc."),
           layout("family_index", "integer", "Google Benchmark's (0)"),
           layout("per_family_instance_index", "integer", "Google Benchmark's (0)"),
           layout("run_name", "string", "the point's name"),
           layout("run_type", "string", "iteration (one repetition) or aggregate"),
           layout("repetitions", "integer", "the point's repetitions"),
           layout("repetition_index", "integer", "the repetition's index"),
           layout("threads", "integer", "Google Benchmark's (1)"),
           layout("aggregate_name", "string", "mean, median, stddev or cv"),
           layout("aggregate_unit", "string", "time, or percentage for cv"),
           layout("error_occurred", "boolean", "the point failed: no times"),
           layout("error_message", "string", "why it failed"),
           layout("iterations", "integer", "Google Benchmark's (1: real_time is per iteration of the point)"),
           layout("real_time", "number", "the device time per iteration, in time_unit"),
           layout("cpu_time", "number", "as real_time (the device's time, not the host's)"),
           layout("time_unit", "string", "ns"),
           layout("gflops", "number", "GFLOP/s of the declared work"),
           layout("gbps", "number", "GB/s of the fewest bytes"),
           layout("arithmetic_intensity", "number", "FLOP per byte of the declared work"),
           layout("attainable_gflops", "number", "min(peak, intensity x bandwidth) of the device's ceilings"),
           layout("roofline_pct", "number", "GFLOP/s against the attainable, in %"),
           layout("theoretical_gflops", "number", "intensity x bandwidth"),
           layout("theoretical_pct", "number", "GFLOP/s against the theoretical, in %"),
           layout("served_by", "string",
                  "above the DRAM roof on its bandwidth side: the cache level whose roof holds it (L2, L1)"),
           layout("served_by_pct", "number", "the place against that level's roof, in %"),
           layout("compute_unit", "string",
                  "the unit whose peak the FLOP side is drawn with, where not the FMA pipes: f64 tensor (the FP64 "
                  "tensor cores), tf32 tensor, f16 tensor, bf16 tensor"),
           layout("compute_unit_ceiling", "string",
                  "where the ceilings hold no peak of that unit (its backend's probe measures none): what stood in"),
           layout("ceilings", "object",
                  "the device's ceilings the place is against (the tuning database's shape, with the bandwidth_gbps "
                  "and peak_gflops of the point's roof, and peak_unit where that peak is its compute unit's)"),
           layout("devices", "string", "a solve across several devices: every device (cuda:0+1)"),
           layout("device_count", "integer", "a solve across several devices: how many"),
           layout("ranks", "integer", "a solve across MPI ranks: how many (0: one process)"),
           layout("bands", "array", "a solve across several devices: each band's device (and host)"),
       })
    f.push_back(std::move(l));
  return f;
}

}  // namespace

const std::vector<RecordField>& record_fields() {
  static const std::vector<RecordField> fields = make_fields();
  return fields;
}

std::vector<const RecordField*> record_fields(RecordField::Scope scope) {
  std::vector<const RecordField*> chosen;
  for (const auto& f : record_fields())
    if (f.scope == scope) chosen.push_back(&f);
  return chosen;
}

nlohmann::json point_json(const PointResult& p) {
  nlohmann::json fields = nlohmann::json::object();
  const RecordRow row{p};
  for (const RecordField* f : record_fields(RecordField::Scope::point))
    if (!f->json.empty())
      if (nlohmann::json v = f->value(row); !v.is_null()) fields[f->json] = std::move(v);
  fields.update(band_fields(p.id));
  return fields;
}

json records_schema() {
  json properties = json::object();
  for (const auto& f : record_fields()) {
    if (f.json.empty() || properties.contains(f.json)) continue;
    properties[f.json] = {{"type", f.type}, {"description", f.description}};
  }
  json csv = json::array();
  for (const auto& f : record_fields())
    if (!f.csv.empty()) csv.push_back({{"column", f.csv}, {"type", f.type}, {"description", f.description}});
  const json entry = {{"type", "object"},
                      {"required", {"name", "run_name", "run_type", "suite", "problem", "backend", "variant", "precision"}},
                      {"properties", properties},
                      // A suite adds fields of its own (NAS CG's zeta, EP's sx and sy, ...).
                      {"additionalProperties", true}};
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"$id", "https://gpubench.invalid/records.schema.json"},
          {"title", "gpubench records (gpubench run --format json)"},
          {"description", "Google Benchmark's JSON layout: context, benchmarks (verified points' repetitions and "
                          "aggregates) and failed_benchmarks (failed points' entries, without times)"},
          {"type", "object"},
          {"required", {"context", "benchmarks"}},
          {"properties",
           {{"context", {{"type", "object"}}},
            {"benchmarks", {{"type", "array"}, {"items", {{"$ref", "#/$defs/entry"}}}}},
            {"failed_benchmarks", {{"type", "array"}, {"items", {{"$ref", "#/$defs/entry"}}}}}}},
          {"$defs", {{"entry", entry}}},
          {"x-gpubench-csv-columns", csv}};
}

}  // namespace gpubench
