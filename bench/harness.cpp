#include "bench/harness.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <ostream>

#include <benchmark/benchmark.h>

#include "bench/build_info.hpp"
#include "common/errors.hpp"

namespace gpubench {

double PointResult::gflops() const {
  return median_seconds_per_iteration > 0 ? flops_per_iteration / median_seconds_per_iteration / 1e9 : 0;
}
double PointResult::gbps() const {
  return median_seconds_per_iteration > 0 ? bytes_per_iteration / median_seconds_per_iteration / 1e9 : 0;
}
RooflinePlace PointResult::roofline() const {
  if (!ceilings) return {};
  return place(flops_per_iteration, bytes_per_iteration, median_seconds_per_iteration, *ceilings, id.precision);
}
RooflinePlace PointResult::roofline(const KernelRow& k) const {
  if (!ceilings) return {};
  return place(k.flops_per_iteration, k.bytes_per_iteration, k.seconds_per_iteration, *ceilings, id.precision);
}
std::string device_key(const DeviceInfo& d) { return d.backend + ":" + std::to_string(d.index); }

bool RunReport::any_failed() const {
  return std::any_of(points.begin(), points.end(), [](const PointResult& p) { return p.failed; });
}

namespace {

// Keeps every run Google Benchmark reports, and its context, for our own writers.
class Collector final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& c) override {
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
    context["date"] = date;
    context["host_name"] = c.sys_info.name;
    context["executable"] = Context::executable_name ? Context::executable_name : "gpubench";
    context["num_cpus"] = c.cpu_info.num_cpus;
    context["mhz_per_cpu"] = static_cast<long>(c.cpu_info.cycles_per_second / 1e6);
    context["cpu_scaling_enabled"] = c.cpu_info.scaling == benchmark::CPUInfo::ENABLED;
    nlohmann::json caches = nlohmann::json::array();
    for (const auto& cache : c.cpu_info.caches)
      caches.push_back({{"type", cache.type}, {"level", cache.level}, {"size", cache.size},
                        {"num_sharing", cache.num_sharing}});
    context["caches"] = caches;
    context["load_avg"] = c.cpu_info.load_avg;
#ifdef NDEBUG
    context["library_build_type"] = "release";
#else
    context["library_build_type"] = "debug";
#endif
    return true;
  }
  void ReportRuns(const std::vector<Run>& reports) override { runs.insert(runs.end(), reports.begin(), reports.end()); }

  nlohmann::json context = nlohmann::json::object();
  std::vector<Run> runs;
};

struct PointState {
  Point* point = nullptr;
  PointResult* result = nullptr;
  int calls = 0;
  std::string prepare_error;  // non-empty: prepare() or profile() failed; every repetition fails
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void run_one_repetition(benchmark::State& st, PointState& s, int repetitions, std::ostream& log) {
  Point& point = *s.point;
  PointResult& result = *s.result;
  const int call = s.calls++;
  if (call == 0) {
    log << "gpubench: " << point.id().name() << " on " << point.id().device.name << " ..." << std::endl;
    try {
      point.prepare();
      result.kernels = point.profile();
    } catch (const std::exception& e) {
      s.prepare_error = e.what();
    }
  }
  for (auto _ : st) {
    try {
      if (!s.prepare_error.empty()) throw Error(ExitCode::point_failed, s.prepare_error);
      Outcome o = point.run();
      const int iterations = std::max(o.iterations, 1);
      st.SetIterationTime(o.seconds / iterations);
      if (o.seconds > 0) {
        st.counters["gflops"] = result.flops_per_iteration * iterations / o.seconds / 1e9;
        st.counters["gbps"] = result.bytes_per_iteration * iterations / o.seconds / 1e9;
      }
      const bool verified = o.verified;
      const std::string why = o.verification;
      result.repetitions.push_back(std::move(o));
      if (!verified) {
        if (result.error.empty()) result.error = "verification failed: " + why;
        result.failed = true;
        st.SkipWithError(("verification failed: " + why).c_str());
      }
    } catch (const std::exception& e) {
      result.failed = true;
      if (result.error.empty()) result.error = e.what();
      result.repetitions.push_back(Outcome{});
      st.SkipWithError(e.what());
    }
  }
  if (s.calls == repetitions) {
    try {
      point.release();
    } catch (const std::exception& e) {
      log << "gpubench: releasing " << point.id().name() << ": " << e.what() << std::endl;
    }
    log << "gpubench: " << point.id().name() << (result.failed ? " FAILED: " + result.error : std::string(" verified"))
        << std::endl;
  }
}

nlohmann::json point_fields(const PointResult& p) {
  const PointId& id = p.id;
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels) {
    const double s = k.seconds_per_iteration;
    nlohmann::json kj = {{"kernel", k.kernel},
                         {"calls_per_iteration", k.calls_per_iteration},
                         {"ms_per_iteration", s * 1e3},
                         {"gflops", s > 0 ? k.flops_per_iteration / s / 1e9 : 0.0},
                         {"gbps", s > 0 ? k.bytes_per_iteration / s / 1e9 : 0.0}};
    if (p.ceilings && k.bytes_per_iteration > 0) kj.update(p.roofline(k).to_json());
    kernels.push_back(kj);
  }
  return {{"suite", id.suite},
          {"problem", id.problem},
          {"backend", id.backend},
          {"device", id.device.name},
          {"device_index", id.device.index},
          {"platform", id.device.platform},
          {"variant", id.variant},
          {"precision", to_string(id.precision)},
          {"params", id.params},
          {"kernels", kernels},
          {"flops_per_iteration", p.flops_per_iteration},
          {"bytes_per_iteration", p.bytes_per_iteration},
          {"time_includes", "kernels and the host gaps between them (dot partials read back); no matrix upload"}};
}

nlohmann::json roofline_fields(const PointResult& p) {
  if (!p.ceilings) return {{"roofline", nullptr}};
  nlohmann::json j = p.roofline().to_json();
  j["ceilings"] = {{"bandwidth_gbps", p.ceilings->bandwidth_gbps()},
                   {"peak_gflops", p.ceilings->peak_gflops(p.id.precision)},
                   {"measured", p.ceilings->date},
                   {"by", p.ceilings->backend}};
  return j;
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"backend", d.backend},       {"index", d.index},
          {"api", d.api},               {"platform", d.platform},
          {"vendor", d.vendor},         {"name", d.name},
          {"type", d.type},             {"compute_units", d.compute_units},
          {"driver", d.driver},         {"max_work_group_size", d.max_work_group_size},
          {"global_mem_bytes", d.global_mem_bytes}, {"local_mem_bytes", d.local_mem_bytes},
          {"fp64", d.fp64}};
}

}  // namespace

RunReport run_plan(Plan& plan, int repetitions, const CeilingsByDevice& ceilings, std::ostream& log) {
  auto& points = plan.points;
  RunReport report;
  report.unavailable = plan.unavailable;
  report.points.resize(points.size());
  std::vector<PointState> states(points.size());
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < points.size(); ++i) {
    PointResult& r = report.points[i];
    r.id = points[i]->id();
    r.flops_per_iteration = points[i]->flops_per_iteration();
    r.bytes_per_iteration = points[i]->bytes_per_iteration();
    if (auto c = ceilings.find(device_key(r.id.device)); c != ceilings.end()) r.ceilings = c->second;
    states[i] = {points[i].get(), &r, 0, {}};
    const std::string name = r.id.name();
    if (!by_name.emplace(name, i).second) throw Error(ExitCode::internal, "two points named " + name);
    benchmark::RegisterBenchmark(name.c_str(), [&states, i, repetitions, &log](benchmark::State& st) {
      run_one_repetition(st, states[i], repetitions, log);
    })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(repetitions)
        ->Unit(benchmark::kMillisecond);
  }
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();

  for (auto& p : report.points) {
    std::vector<double> per_iteration;
    for (const auto& o : p.repetitions)
      if (o.verified && o.iterations > 0) per_iteration.push_back(o.seconds / o.iterations);
    p.median_seconds_per_iteration = median(per_iteration);
    if (!p.kernels.empty() && p.median_seconds_per_iteration > 0) {
      double sum = 0;
      for (const auto& k : p.kernels) sum += k.seconds_per_iteration;
      p.kernels.push_back({"overhead", 0, p.median_seconds_per_iteration - sum, 0, 0});
    }
  }

  report.context = collector.context;
  report.context["gpubench_version"] = GPUBENCH_VERSION;
  report.context["gpubench_commit"] = build_commit;
  nlohmann::json devices = nlohmann::json::array();
  std::vector<std::string> seen;
  for (const auto& p : report.points) {
    const std::string key = p.id.backend + ":" + std::to_string(p.id.device.index);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    nlohmann::json d = device_json(p.id.device);
    if (p.ceilings)
      d["ceilings"] = {{"copy_gbps", p.ceilings->copy_gbps},   {"triad_gbps", p.ceilings->triad_gbps},
                       {"f32_gflops", p.ceilings->f32_gflops}, {"f64_gflops", p.ceilings->f64_gflops},
                       {"measured", p.ceilings->date},         {"by", p.ceilings->backend}};
    devices.push_back(d);
  }
  report.context["devices"] = devices;
  report.context["unavailable"] = report.unavailable;

  report.benchmarks = nlohmann::json::array();
  for (const auto& run : collector.runs) {
    auto it = by_name.find(run.run_name.function_name);
    if (it == by_name.end()) continue;
    const PointResult& p = report.points[it->second];
    const bool aggregate = run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate;
    nlohmann::json j = {{"name", run.benchmark_name()},
                        {"family_index", run.family_index},
                        {"per_family_instance_index", run.per_family_instance_index},
                        {"run_name", run.run_name.str()},
                        {"run_type", aggregate ? "aggregate" : "iteration"},
                        {"repetitions", run.repetitions},
                        {"threads", run.threads},
                        {"iterations", run.iterations},
                        {"real_time", run.GetAdjustedRealTime()},
                        {"cpu_time", run.GetAdjustedCPUTime()},
                        {"time_unit", "ms"}};
    if (aggregate) {
      j["aggregate_name"] = run.aggregate_name;
      j["aggregate_unit"] = run.aggregate_unit == benchmark::kPercentage ? "percentage" : "time";
    } else {
      j["repetition_index"] = run.repetition_index;
    }
    for (const auto& [name, counter] : run.counters) j[name] = counter.value;
    j.update(point_fields(p));
    if (p.median_seconds_per_iteration > 0) j.update(roofline_fields(p));
    if (!aggregate && run.repetition_index >= 0 &&
        static_cast<std::size_t>(run.repetition_index) < p.repetitions.size()) {
      const Outcome& o = p.repetitions[static_cast<std::size_t>(run.repetition_index)];
      j["verified"] = o.verified && !run.error_occurred;
      j["verification"] = o.verification;
      j["cg_iterations"] = o.iterations;
      j["device_seconds"] = o.seconds;
      j.update(o.fields);
    } else {
      j["verified"] = !p.failed;
    }
    if (run.error_occurred) {
      j["error_occurred"] = true;
      j["error_message"] = run.error_message;
    }
    report.benchmarks.push_back(std::move(j));
  }
  return report;
}

}  // namespace gpubench
