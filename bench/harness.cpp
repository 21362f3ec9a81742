#include "bench/harness.hpp"

#include <algorithm>
#include <ostream>
#include <set>

#include <benchmark/benchmark.h>

#include "bench/build_info.hpp"
#include "bench/format.hpp"
#include "bench/isolation.hpp"
#include "bench/result_json.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"

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

int RunReport::exit_code() const {
  int code = 0;
  for (const auto& p : points)
    if (p.failed) code = std::max(code, static_cast<int>(p.failure));
  return code;
}

namespace {

// Keeps every run Google Benchmark reports, and its context, for our own writers.
class Collector final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& c) override {
    context["date"] = iso_timestamp();
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

// A point's failure in words and the exit code it gives the run: running out of memory is said
// as such (which memory, the address-space limit) and is the device's code; anything else fails
// the point.
void record_failure(PointResult& result, const std::exception& e, const std::string& during) {
  std::string what = e.what();
  ExitCode code = ExitCode::point_failed;
  if (dynamic_cast<const std::bad_alloc*>(&e)) {
    what = OutOfMemoryError("host", during).what();
    code = ExitCode::device;
  } else if (dynamic_cast<const OutOfMemoryError*>(&e)) {
    code = ExitCode::device;
  }
  if (!result.failed) result.failure = code;
  result.failed = true;
  if (result.error.empty()) result.error = what;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Google Benchmark calls this once per repetition: the first call prepares the point and runs its
// profiled pass; each call times one repetition.
void run_one_repetition(benchmark::State& st, Point& point, PointResult& result, bool& prepare_failed,
                        int& calls, int repetitions, std::ostream& log) {
  const int call = calls++;
  if (call == 0) {
    log << "gpubench: " << point.id().name() << " on " << point.id().device.name << " ..." << std::endl;
    try {
      point.prepare();
      isolation::alive();
      result.kernels = point.profile();
    } catch (const std::exception& e) {
      record_failure(result, e, "preparing " + point.id().name());
      prepare_failed = true;
    }
    isolation::alive();
  }
  for (auto _ : st) {
    try {
      if (prepare_failed) {
        result.repetitions.push_back(Outcome{});
        st.SkipWithError(result.error.c_str());
        continue;
      }
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
        record_failure(result, VerificationError("verification failed: " + why), "");
        st.SkipWithError(("verification failed: " + why).c_str());
      }
    } catch (const std::exception& e) {
      record_failure(result, e, "running " + point.id().name());
      result.repetitions.push_back(Outcome{});
      st.SkipWithError(result.error.c_str());
    }
  }
  isolation::alive();
  if (calls == repetitions) {
    try {
      point.release();
    } catch (const std::exception& e) {
      log << "gpubench: releasing " << point.id().name() << ": " << e.what() << std::endl;
    }
  }
}

// The record fields every entry of a point carries.
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
          {"time_includes", p.time_includes}};
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

// One Google Benchmark entry (an iteration or an aggregate) of point `p`, in the layout of its
// JSON reporter, with gpubench's fields added.
nlohmann::json entry_of(const benchmark::BenchmarkReporter::Run& run, const PointResult& p) {
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
    j["timed_iterations"] = o.iterations;
    j["device_seconds"] = o.seconds;
    j.update(o.fields);
  } else {
    j["verified"] = !p.failed;
  }
  if (run.error_occurred) {
    j["error_occurred"] = true;
    j["error_message"] = run.error_message;
  }
  return j;
}

// The entries of a point that crashed its worker: one failed iteration per repetition, as Google
// Benchmark writes a benchmark that skipped with an error.
nlohmann::json crashed_entries(const PointResult& p, int repetitions) {
  nlohmann::json entries = nlohmann::json::array();
  const std::string name = p.id.name();
  for (int r = 0; r < repetitions; ++r) {
    // The name Google Benchmark gives the family (bench/harness registers each point alike).
    const std::string run_name = name + "/iterations:1/repeats:" + std::to_string(repetitions) + "/manual_time";
    nlohmann::json j = {{"name", run_name},
                        {"family_index", 0},
                        {"per_family_instance_index", 0},
                        {"run_name", run_name},
                        {"run_type", "iteration"},
                        {"repetitions", repetitions},
                        {"repetition_index", r},
                        {"threads", 1},
                        {"iterations", 0},
                        {"real_time", 0.0},
                        {"cpu_time", 0.0},
                        {"time_unit", "ms"}};
    j.update(point_fields(p));
    j["verified"] = false;
    j["error_occurred"] = true;
    j["error_message"] = p.error;
    entries.push_back(std::move(j));
  }
  return entries;
}

// Runs one point (prepare, profiled pass, the timed repetitions, release) through Google
// Benchmark; its result and its entries, as JSON (the form a worker process hands back).
nlohmann::json run_point(Point& point, PointResult result, int repetitions, std::ostream& log) {
  bool prepare_failed = false;
  int calls = 0;
  const std::string name = point.id().name();
  benchmark::RegisterBenchmark(name.c_str(),
                               [&](benchmark::State& st) {
                                 run_one_repetition(st, point, result, prepare_failed, calls, repetitions, log);
                               })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(repetitions)
      ->Unit(benchmark::kMillisecond);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();

  std::vector<double> per_iteration;
  for (const auto& o : result.repetitions)
    if (o.verified && o.iterations > 0) per_iteration.push_back(o.seconds / o.iterations);
  result.median_seconds_per_iteration = median(per_iteration);
  if (!result.kernels.empty() && result.median_seconds_per_iteration > 0) {
    double sum = 0;
    for (const auto& k : result.kernels) sum += k.seconds_per_iteration;
    result.kernels.push_back({"overhead", 0, result.median_seconds_per_iteration - sum, 0, 0});
  }
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& run : collector.runs)
    if (run.run_name.function_name == name) entries.push_back(entry_of(run, result));
  return {{"point", result}, {"benchmarks", entries}};
}

}  // namespace

RunReport run_plan(Plan& plan, int repetitions, const CeilingsByDevice& ceilings, std::ostream& log) {
  auto& points = plan.points;
  RunReport report;
  report.unavailable = plan.unavailable;
  {
    Collector collector;
    collector.ReportContext(benchmark::BenchmarkReporter::Context());
    report.context = collector.context;
  }
  std::set<std::string> names;
  for (const auto& point : points)
    if (!names.insert(point->id().name()).second) throw Error(ExitCode::internal, "two points named " + point->id().name());

  report.benchmarks = nlohmann::json::array();
  for (std::size_t i = 0; i < points.size(); ++i) {
    Point& point = *points[i];
    PointResult base;
    base.id = point.id();
    base.flops_per_iteration = point.flops_per_iteration();
    base.bytes_per_iteration = point.bytes_per_iteration();
    base.time_includes = point.time_includes();
    if (auto c = ceilings.find(device_key(base.id.device)); c != ceilings.end()) base.ceilings = c->second;

    bool replayed = false;
    const nlohmann::json done =
        isolation::unit(base.id.name(), [&] { return run_point(point, base, repetitions, log); }, &replayed);
    PointResult result;
    nlohmann::json entries;
    if (const auto crash = isolation::crash_of(done)) {
      result = base;
      result.failed = true;
      result.error = "crashed: " + *crash;
      entries = crashed_entries(result, repetitions);
    } else {
      result = done.at("point").get<PointResult>();
      entries = done.at("benchmarks");
    }
    // Each point ran as a family of its own: number the families as the plan orders them.
    for (auto& e : entries) e["family_index"] = i;
    for (auto& e : entries) report.benchmarks.push_back(std::move(e));
    if (!replayed)
      log << "gpubench: " << result.id.name() << (result.failed ? " FAILED: " + result.error : std::string(" verified"))
          << std::endl;
    report.points.push_back(std::move(result));
  }

  report.context["gpubench_version"] = GPUBENCH_VERSION;
  report.context["gpubench_commit"] = build_commit;
  nlohmann::json devices = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& p : report.points) {
    if (!seen.insert(device_key(p.id.device)).second) continue;
    nlohmann::json d = p.id.device;
    if (p.ceilings) d["ceilings"] = *p.ceilings;
    devices.push_back(d);
  }
  report.context["devices"] = devices;
  report.context["unavailable"] = report.unavailable;
  return report;
}

}  // namespace gpubench
