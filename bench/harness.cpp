#include "bench/harness.hpp"
#include "bench/record_fields.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include <benchmark/benchmark.h>

#include "bench/build_info.hpp"
#include "bench/energy.hpp"
#include "bench/format.hpp"
#include "bench/interrupt.hpp"
#include "bench/isolation.hpp"
#include "bench/progress.hpp"
#include "bench/result_json.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"
#include "common/test_hooks.hpp"

namespace gpubench {

double PointResult::gflops() const {
  return median_seconds_per_iteration > 0 ? flops_per_iteration / median_seconds_per_iteration / 1e9 : 0;
}
double PointResult::gbps() const {
  return median_seconds_per_iteration > 0 ? bytes_per_iteration / median_seconds_per_iteration / 1e9 : 0;
}
RooflinePlace PointResult::roofline() const {
  if (!ceilings) return {};
  return place(flops_per_iteration, bytes_per_iteration, median_seconds_per_iteration, *ceilings, id.precision,
               compute_unit);
}
RooflinePlace PointResult::roofline(const KernelRow& k) const {
  if (!ceilings) return {};
  return place(k.flops_per_iteration, k.bytes_per_iteration, k.seconds_per_iteration, *ceilings, id.precision,
               compute_unit);
}
std::string device_key(const DeviceInfo& d) { return d.backend + ":" + std::to_string(d.index); }

void one_roof_per_physical_device(CeilingsByDevice& ceilings, const std::vector<DeviceInfo>& devices, std::ostream& log) {
  std::map<std::string, std::vector<std::string>> physical;  // physical device -> its device keys
  for (const DeviceInfo& d : devices) physical[physical_device(d)].push_back(device_key(d));
  for (const auto& [device, keys] : physical) {
    if (keys.size() < 2) continue;
    std::vector<Ceilings> measured;
    std::string names;
    for (const auto& k : keys) measured.push_back(ceilings.at(k)), names += (names.empty() ? "" : ", ") + k;
    const Ceilings merged = merge_ceilings(measured);
    for (const auto& k : keys) ceilings[k] = merged;
    log << "gpubench: " << names << " are one device (" << device << "): one roof, the best of their ceilings ("
        << merged.backend << ")" << std::endl;
  }
}

bool RunReport::any_failed() const {
  return std::any_of(points.begin(), points.end(), [](const PointResult& p) { return p.failed; });
}

int RunReport::exit_code() const {
  int code = 0;
  for (const auto& p : points)
    if (p.failed) code = std::max(code, static_cast<int>(p.failure));
  return code;
}

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double x = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(x);
  const double next = sorted[std::min(i + 1, sorted.size() - 1)];
  return sorted[i] + (next - sorted[i]) * (x - static_cast<double>(i));
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

// The test-only hook GPUBENCH_SLOWDOWN=FACTOR@NAME: the timed region of the points whose name
// contains NAME reads FACTOR times as long, as a regression of that size would (the end-to-end
// test of compare.py plants a 10x slowdown). Unset: 1.
double planted_slowdown(const std::string& point_name) {
  const char* spec = test_hook("GPUBENCH_SLOWDOWN");
  if (!spec) return 1;
  const std::string text = spec;
  const auto at = text.find('@');
  char* end = nullptr;
  const double factor = std::strtod(text.c_str(), &end);
  if (at == std::string::npos || end != text.c_str() + at || !(factor > 0))
    throw UsageError("GPUBENCH_SLOWDOWN: '" + text + "' is not FACTOR@NAME with FACTOR > 0");
  return point_name.find(text.substr(at + 1)) != std::string::npos ? factor : 1;
}

// "40 s", "3 min", "1.5 h": an estimate, said as one.
std::string duration_text(double seconds) {
  if (seconds < 90) return std::to_string(static_cast<long>(std::ceil(seconds))) + " s";
  if (seconds < 5400) return std::to_string(static_cast<long>(std::ceil(seconds / 60))) + " min";
  return fixed(seconds / 3600, 1) + " h";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}


// The interquartile range over the median, and the outliers by hyperfine's rule (bench/harness.hpp),
// the deviations' scale floored at 1% of the median.
void spread(const std::vector<double>& times, double& iqr_fraction, std::vector<double>& outliers) {
  iqr_fraction = 0;
  outliers.clear();
  if (times.size() < 3) return;
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double m = median(sorted);
  if (m > 0) iqr_fraction = (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / m;
  std::vector<double> deviations;
  for (double t : sorted) deviations.push_back(std::abs(t - m));
  // The scale: 1.4826 MAD (the standard deviation, for normal noise), at least 1% of the median, so
  // that repetitions equal to the clock's resolution do not make every other one an outlier.
  const double scale = std::max(median(deviations) * 1.4826, 0.01 * m);
  for (double t : times)
    if (scale > 0 && std::abs(t - m) / scale > 14) outliers.push_back(t);
}

// One repetition: the point's run, repeated until it has taken `min_time_s` of device time (at
// least once); the time and iterations summed, verified only when every run was.
Outcome timed_repetition(Point& point, double min_time_s) {
  Outcome total = point.run();
  int runs = 1;
  while (total.verified && total.seconds < min_time_s) {
    Outcome next = point.run();
    total.seconds += next.seconds;
    total.iterations += next.iterations;
    total.verified = next.verified;
    if (!next.verified) total.verification = next.verification;
    ++runs;
  }
  if (min_time_s > 0) total.fields["runs_in_repetition"] = runs;
  return total;
}

// The device's state (clocks, power limit, temperature) now, under `when` ("start", "end") of the
// point's "device_state"; nothing where the device has no meter.
void record_state(const Point& point, PointResult& result, const char* when) {
  if (point.id().devices.size() > 1) return;
  std::string none;
  if (EnergyMeter* meter = energy_meter(point.id().device, none)) result.measured["device_state"][when] = meter->state();
}

// The energy pass (bench/energy.hpp) of a point whose repetitions verified: its record under
// "energy", or the reason there is none ("none"). A point across several devices has none.
void measure_energy(Point& point, PointResult& result, std::ostream& log) {
  if (point.id().devices.size() > 1) {
    result.measured["energy"] = {{"none", "a solve across several devices (one meter per device)"}};
    return;
  }
  std::string why;
  EnergyMeter* meter = energy_meter(point.id().device, why);
  if (!meter) {
    result.measured["energy"] = {{"none", why}};
    return;
  }
  const progress::Phase phase("the energy pass (the timed region back to back for a second, the device's power read)");
  try {
    result.measured["energy"] = energy_pass(
        *meter,
        [&] {
          const Outcome o = point.run_unverified();
          isolation::alive();
          return TimedBatch{o.seconds * planted_slowdown(point.id().name()), o.iterations};
        },
        result.flops_per_iteration);
  } catch (const std::exception& e) {
    log << "gpubench: the energy pass of " << point.id().name() << " failed: " << e.what() << std::endl;
    result.measured["energy"] = {{"none", std::string("the energy pass failed: ") + e.what()}};
  }
  record_state(point, result, "end");
}

// Google Benchmark calls this once per repetition: the first call prepares the point and runs its
// profiled pass; each call times one repetition.
void run_one_repetition(benchmark::State& st, Point& point, PointResult& result, bool& prepare_failed,
                        bool& interrupted, int& calls, const Timing& timing, const std::string& progress,
                        std::ostream& log) {
  const int repetitions = timing.repetitions;
  const int call = calls++;
  if (call == 0) {
    log << "gpubench: " << progress << point.id().name() << " on " << point.id().device.name << " ..." << std::endl;
    progress::set_subject(point.id().name());
    try {
      {
        const progress::Phase phase("setting up (allocation, upload, program builds, warm-up)");
        point.prepare();
      }
      result.compute_unit = point.compute_unit();
      isolation::alive();
      if (timing.profile) {
        const progress::Phase phase("the profiled pass (each kernel timed alone)");
        Profile profile = point.profile();
        result.kernels = std::move(profile.kernels);
        result.profiled_seconds_per_iteration = profile.seconds_per_iteration;
      }
      record_state(point, result, "start");
      // --warmup: untimed runs, each still verified (a wrong answer is a failure, timed or not).
      for (int w = 0; w < (timing.profile ? timing.warmup : 0) && !interrupt::requested(); ++w) {
        const progress::Phase warming("warm-up run " + std::to_string(w + 1) + " of " + std::to_string(timing.warmup));
        const Outcome o = point.run();
        if (!o.verified) throw VerificationError("verification failed in warm-up run " + std::to_string(w + 1) + ": " + o.verification);
        isolation::alive();
      }
    } catch (const std::exception& e) {
      record_failure(result, e, "preparing " + point.id().name());
      prepare_failed = true;
    }
    isolation::alive();
  }
  for (auto _ : st) {
    try {
      // Asked to stop (bench/interrupt.hpp): this point is left unfinished, and not reported.
      interrupted = interrupted || interrupt::requested() != 0;
      if (interrupted) {
        result.repetitions.push_back(Outcome{});
        st.SkipWithError("interrupted");
        continue;
      }
      if (prepare_failed) {
        result.repetitions.push_back(Outcome{});
        st.SkipWithError(result.error.c_str());
        continue;
      }
      const progress::Phase phase("repetition " + std::to_string(call + 1) + " of " + std::to_string(repetitions) +
                                  " (the timed run and its verification)");
      Outcome o = timed_repetition(point, timing.min_time_s);
      o.seconds *= planted_slowdown(point.id().name());
      st.SetIterationTime(o.seconds / std::max(o.iterations, 1));
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
  if (calls == repetitions && timing.energy && !prepare_failed && !interrupted && !result.failed && !interrupt::requested())
    measure_energy(point, result, log);
  if (calls == repetitions) {
    try {
      point.release();
    } catch (const std::exception& e) {
      log << "gpubench: releasing " << point.id().name() << ": " << e.what() << std::endl;
    }
  }
}

// Where `seconds` per iteration sits under the point's roofline: each entry's place is its own
// time's (a repetition's, the median's, the mean's).
nlohmann::json roofline_fields(const PointResult& p, double seconds) {
  if (!p.ceilings) return {{"roofline", nullptr}};
  nlohmann::json j =
      place(p.flops_per_iteration, p.bytes_per_iteration, seconds, *p.ceilings, p.id.precision, p.compute_unit).to_json();
  // The ceilings in the one shape the tuning database stores them in (bench/result_json.cpp), with
  // the two figures this point's roof is drawn with: the peak is its compute unit's where measured.
  nlohmann::json ceilings = *p.ceilings;
  ceilings["bandwidth_gbps"] = p.ceilings->bandwidth_gbps();
  const double unit_peak = p.ceilings->peak_gflops(p.id.precision, p.compute_unit);
  ceilings["peak_gflops"] = unit_peak > 0 ? unit_peak : p.ceilings->peak_gflops(p.id.precision);
  if (!p.compute_unit.empty() && unit_peak > 0) ceilings["peak_unit"] = p.compute_unit;
  j["ceilings"] = std::move(ceilings);
  return j;
}

// What Google Benchmark saw of one repetition besides our device time: the error it was
// skipped with.
struct RepetitionRun {
  std::string error;
};

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}
// Google Benchmark's statistics: the sample standard deviation, and cv = stddev / mean.
double stddev_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean_of(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}
double cv_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  return m != 0 ? stddev_of(v) / m : 0;
}

// The entries of point `p` as Google Benchmark's JSON reporter writes a benchmark with
// repetitions: one "iteration" entry per repetition, then the mean, median, stddev and cv
// aggregates, with gpubench's fields added.
// - The name is the point's alone (no "repeats:N"), so that runs with different repetition counts
//   compare; an aggregate's is the name + "_mean" etc., as Google Benchmark's.
// - real_time is the device time of one iteration of the point (one CG iteration, one EP run),
//   and so is cpu_time: the host CPU time Google Benchmark measures covers the whole call,
//   verification on the host included (4 x the timed region on the H100), so it would compare
//   something else than the Time column. The unit is ns, Google Benchmark's default:
//   compare.py prints times with no decimals, so ns keeps 3 digits or more for anything from 1 us.
// - cv is a fraction (aggregate_unit "percentage"), written as Google Benchmark writes it: not
//   scaled like a time.
// - A failed point's entries carry error_occurred and its message and no time fields: compare.py
//   compares only entries with times, so a failure never reads as a speed-up. It has no
//   aggregates (Google Benchmark computes them from runs without errors).
nlohmann::json entries_of(const PointResult& p, const std::vector<RepetitionRun>& runs, int repetitions) {
  const std::string name = p.id.name();
  const nlohmann::json fields = point_json(p);
  nlohmann::json entries = nlohmann::json::array();
  auto entry = [&](const std::string& entry_name, bool aggregate) {
    nlohmann::json j = {{"name", entry_name},
                        {"family_index", 0},
                        {"per_family_instance_index", 0},
                        {"run_name", name},
                        {"run_type", aggregate ? "aggregate" : "iteration"},
                        {"repetitions", repetitions},
                        {"threads", 1}};
    j.update(fields);
    return j;
  };
  std::vector<double> real, gflops, gbps;
  for (int r = 0; r < repetitions; ++r) {
    const auto i = static_cast<std::size_t>(r);
    nlohmann::json j = entry(name, false);
    j["repetition_index"] = r;
    const Outcome* o = i < p.repetitions.size() ? &p.repetitions[i] : nullptr;
    const std::string run_error = i < runs.size() ? runs[i].error : std::string();
    const RecordRow row{p, o, i};
    for (const RecordField* f : record_fields(RecordField::Scope::repetition))
      if (!f->json.empty())
        if (nlohmann::json v = f->value(row); !v.is_null()) j[f->json] = std::move(v);
    if (o) j.update(o->fields);
    if (p.failed || !o) {
      j["error_occurred"] = true;
      j["error_message"] = run_error.empty() ? "the point failed: " + p.error : run_error;
      entries.push_back(std::move(j));
      continue;
    }
    const double iterations = std::max(o->iterations, 1);
    const double seconds = o->seconds / iterations;
    real.push_back(seconds * 1e9);
    gflops.push_back(seconds > 0 ? p.flops_per_iteration / seconds / 1e9 : 0);
    gbps.push_back(seconds > 0 ? p.bytes_per_iteration / seconds / 1e9 : 0);
    j["iterations"] = 1;
    j["real_time"] = real.back();
    j["cpu_time"] = real.back();
    j["time_unit"] = "ns";
    j["gflops"] = gflops.back();
    j["gbps"] = gbps.back();
    j.update(roofline_fields(p, seconds));
    entries.push_back(std::move(j));
  }
  if (p.failed || real.size() < 2) return entries;
  struct Statistic {
    const char* name;
    double (*of)(const std::vector<double>&);
    bool percentage;
  };
  const auto median_of = [](const std::vector<double>& v) { return median(v); };
  for (const Statistic& s : {Statistic{"mean", mean_of, false}, Statistic{"median", median_of, false},
                             Statistic{"stddev", stddev_of, false}, Statistic{"cv", cv_of, true}}) {
    nlohmann::json j = entry(name + "_" + s.name, true);
    j["aggregate_name"] = s.name;
    j["aggregate_unit"] = s.percentage ? "percentage" : "time";
    j["iterations"] = real.size();
    j["real_time"] = s.of(real);
    j["cpu_time"] = j["real_time"];
    j["time_unit"] = "ns";
    // The rates of a time (mean, median) are that time's, never a statistic of the repetitions'
    // rates (the median of two rates is not the rate of the median time); those of a spread
    // (stddev, cv) are the spread of the rates, as Google Benchmark's counters.
    const bool a_time = std::string(s.name) == "mean" || std::string(s.name) == "median";
    const double seconds = s.of(real) * 1e-9;
    j["gflops"] = a_time ? (seconds > 0 ? p.flops_per_iteration / seconds / 1e9 : 0.0) : s.of(gflops);
    j["gbps"] = a_time ? (seconds > 0 ? p.bytes_per_iteration / seconds / 1e9 : 0.0) : s.of(gbps);
    j["verified"] = true;
    j.update(roofline_fields(p, a_time ? seconds : p.median_seconds_per_iteration));
    entries.push_back(std::move(j));
  }
  return entries;
}

// Runs one point (prepare, profiled pass, the timed repetitions, release) through Google
// Benchmark; its result and its entries, as JSON (the form a worker process hands back).
namespace {

// The host's CPU time at one moment, for how much of it other processes took while a point ran
// (issue 58 item 4): the busy jiffies (/proc/stat) of the CPUs this process may run on, this
// process's own CPU time (all its threads: OpenMP's, PoCL's, a driver's), the wall clock.
struct MachineSample {
  double busy_s = -1, own_s = 0, wall_s = 0;
  int cpus = 0;
};

MachineSample sample_machine() {
  MachineSample m;
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  // The CPUs this process may run on (a container's or a job's cpuset, not every CPU of the host).
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (::sched_getaffinity(0, sizeof mine, &mine) != 0) return {};
  std::ifstream stat("/proc/stat");
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (hz <= 0) return {};
  long long busy = 0;
  for (std::string line; std::getline(stat, line);) {
    if (!line.starts_with("cpu") || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::istringstream in(line.substr(3));
    int cpu = -1;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    if (!in || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mine)) continue;
    busy += user + nice + system + irq + softirq + steal;
    ++m.cpus;
  }
  m.busy_s = static_cast<double>(busy) / static_cast<double>(hz);
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) != 0 || m.cpus == 0) return {};
  m.own_s = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
            1e-6 * static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec);
  return m;
}

// {others_cpu_fraction, cpus, seconds, busy} between two samples; null where /proc/stat cannot be
// read or the point was too short for the kernel's tick (under 0.5 s).
nlohmann::json machine_load(const MachineSample& a, const MachineSample& b) {
  const double seconds = b.wall_s - a.wall_s;
  if (a.busy_s < 0 || b.busy_s < 0 || seconds < 0.5 || a.cpus != b.cpus) return nullptr;
  const double others = std::clamp(((b.busy_s - a.busy_s) - (b.own_s - a.own_s)) / (seconds * a.cpus), 0.0, 1.0);
  return {{"others_cpu_fraction", std::round(others * 1000) / 1000}, {"cpus", a.cpus},
          {"seconds", std::round(seconds * 1000) / 1000}, {"busy", others >= busy_cpu_fraction}};
}

// The point's median time per iteration and its spread, from its verified repetitions.
void summarize(PointResult& result) {
  std::vector<double> per_iteration;
  for (const auto& o : result.repetitions)
    if (o.verified && o.iterations > 0) per_iteration.push_back(o.seconds / o.iterations);
  result.median_seconds_per_iteration = median(per_iteration);
  spread(per_iteration, result.iqr_fraction, result.outlier_seconds);
}

// machine_load with the device's side added where its meter lists the device's processes:
// gpu_others (each other process, its highest SM use since the point began), gpu_busy (one of them
// at busy_gpu_sm_pct or more), or gpu_others_unknown saying why they cannot be told apart.
nlohmann::json with_device_load(nlohmann::json load, const DeviceInfo& device, unsigned long long since_us) {
  std::string none;
  EnergyMeter* meter = energy_meter(device, none);
  if (!meter) return load;
  std::string why;
  const nlohmann::json others = meter->other_processes(since_us, why);
  if (load.is_null()) load = nlohmann::json::object();
  if (others.is_null()) {
    load["gpu_others_unknown"] = why;
    return load;
  }
  bool busy = false;
  for (const auto& o : others) busy = busy || o.value("sm_pct", 0.0) >= busy_gpu_sm_pct;
  load["gpu_others"] = others;
  load["gpu_busy"] = busy;
  load["busy"] = load.value("busy", false) || busy;
  return load;
}

}  // namespace

nlohmann::json run_point(Point& point, PointResult result, const Timing& timing, const std::string& progress,
                         std::ostream& log) {
  const MachineSample before = sample_machine();
  std::string no_meter;
  EnergyMeter* meter = energy_meter(point.id().device, no_meter);
  const unsigned long long device_since = meter ? meter->now_us() : 0;
  const int repetitions = timing.repetitions;
  bool prepare_failed = false, interrupted = false;
  int calls = 0;
  const std::string name = point.id().name();
  benchmark::RegisterBenchmark(name.c_str(),
                               [&](benchmark::State& st) {
                                 run_one_repetition(st, point, result, prepare_failed, interrupted, calls, timing, progress, log);
                               })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(repetitions)
      ->Unit(benchmark::kNanosecond);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  if (interrupted) return {{"interrupted", true}};
  if (auto load = with_device_load(machine_load(before, sample_machine()), point.id().device, device_since);
      !load.is_null())
    result.measured["machine_load"] = load;

  summarize(result);
  // The overhead is the profiled pass's time outside its kernels, both from the same pass: never
  // negative but for clock granularity (device events inside a host-timed pass), shown as 0.
  // (Against the timed repetitions instead it could be: the kernels timed alone, between waits,
  // can take longer than they do back to back in the timed iteration.)
  if (!result.kernels.empty() && result.profiled_seconds_per_iteration > 0) {
    double sum = 0;
    for (const auto& k : result.kernels) sum += k.seconds_per_iteration;
    result.kernels.push_back({"overhead", 0, std::max(0.0, result.profiled_seconds_per_iteration - sum), 0, 0});
  }
  std::vector<RepetitionRun> runs(static_cast<std::size_t>(repetitions));
  for (const auto& run : collector.runs) {
    if (run.run_name.function_name != name || run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    if (run.repetition_index < 0 || run.repetition_index >= repetitions) continue;
    if (run.error_occurred) runs[static_cast<std::size_t>(run.repetition_index)].error = run.error_message;
  }
  const nlohmann::json entries = entries_of(result, runs, repetitions);
  return {{"point", result}, {"benchmarks", entries}};
}

// The context's fields that sum up the points: gpubench's version and commit, every device.
void complete_context(RunReport& report) {
  report.context["gpubench_version"] = GPUBENCH_VERSION;
  report.context["gpubench_commit"] = build_commit;
  nlohmann::json devices = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& p : report.points) {
    if (p.id.devices.size() > 1) {
      for (std::size_t k = 0; k < p.id.devices.size(); ++k) {
        const std::string host = k < p.id.hosts.size() ? p.id.hosts[k] : std::string();
        if (!seen.insert(device_key(p.id.devices[k]) + "@" + host).second) continue;
        nlohmann::json d = p.id.devices[k];
        if (!host.empty()) d["host"] = host;
        devices.push_back(d);
      }
      continue;
    }
    if (!seen.insert(device_key(p.id.device) + "@").second) continue;
    nlohmann::json d = p.id.device;
    if (p.ceilings) d["ceilings"] = *p.ceilings;
    // Its settings (power limit, application clocks) and state now, where a meter reads them.
    std::string no_meter;
    if (EnergyMeter* meter = energy_meter(p.id.device, no_meter)) {
      d["settings"] = meter->settings();
      d["state"] = meter->state();
    } else {
      d["energy"] = "-: " + no_meter;
    }
    devices.push_back(d);
  }
  report.context["devices"] = devices;
  report.context["unavailable"] = report.unavailable;
  // A run with a test hook set is marked as such: its figures may be planted (common/test_hooks.hpp).
  if (const auto hooks = test_hooks_set(); !hooks.empty()) report.context["test_hooks"] = hooks;
}

}  // namespace

namespace {

// A point's result before it runs: its name, work and the ceilings of its one device.
PointResult base_of(Point& point, const CeilingsByDevice& ceilings) {
  PointResult base;
  base.id = point.id();
  base.flops_per_iteration = point.flops_per_iteration();
  base.bytes_per_iteration = point.bytes_per_iteration();
  base.time_includes = point.time_includes();
  // One device's ceilings; a point across several has none (no roofline): the sum of theirs
  // would not say where an exchange through the host sits.
  if (auto c = ceilings.find(device_key(base.id.device)); c != ceilings.end() && base.id.devices.size() < 2)
    base.ceilings = c->second;
  return base;
}

// --interleave SEED (Timing): round r runs every point not yet failed once, in an order shuffled
// from SEED, each a unit of its own (a worker's crash costs that point); a point's first round
// makes its profiled pass and warm-up, its last its energy pass. Each point's repetitions are then
// its rounds', in round order; a round that failed fails the point with its reason. The context
// records the seed and each round's order (indices into the plan's points).
void run_interleaved(RunReport& report, Plan& plan, const Timing& timing, const CeilingsByDevice& ceilings,
                     std::ostream& log, const std::function<void(const RunReport&)>& after_each) {
  auto& points = plan.points;
  const int rounds = timing.repetitions;
  std::vector<PointResult> merged(points.size());
  std::vector<std::vector<RepetitionRun>> runs(points.size());
  std::vector<bool> started(points.size(), false);
  std::mt19937_64 rng(static_cast<std::uint64_t>(timing.interleave_seed));
  nlohmann::json order = nlohmann::json::array();
  const auto report_so_far = [&](int done_rounds) {
    RunReport r = report;
    for (std::size_t i = 0; i < points.size() && done_rounds > 0; ++i) {
      if (!started[i]) continue;
      PointResult p = merged[i];
      // A round cut short by a signal: only the whole rounds' repetitions count.
      if (p.repetitions.size() > static_cast<std::size_t>(done_rounds)) p.repetitions.resize(static_cast<std::size_t>(done_rounds));
      summarize(p);
      nlohmann::json entries = entries_of(p, runs[i], done_rounds);
      for (auto& e : entries) e["family_index"] = i;
      for (auto& e : entries) r.benchmarks.push_back(std::move(e));
      r.points.push_back(std::move(p));
    }
    r.context["interleave"] = {{"seed", timing.interleave_seed}, {"rounds", done_rounds}, {"order", order}};
    complete_context(r);
    return r;
  };
  int done_rounds = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::size_t> shuffled(points.size());
    std::iota(shuffled.begin(), shuffled.end(), std::size_t{0});
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    order.push_back(shuffled);
    Timing once = timing;
    once.repetitions = 1;
    once.profile = round == 0;
    once.energy = round == rounds - 1;
    for (std::size_t i : shuffled) {
      if (interrupt::requested()) break;
      if (started[i] && merged[i].failed) continue;
      Point& point = *points[i];
      PointResult base = started[i] ? merged[i] : base_of(point, ceilings);
      const std::string progress = "[round " + std::to_string(round + 1) + "/" + std::to_string(rounds) + "] ";
      bool replayed = false;
      const nlohmann::json done = isolation::unit(
          base.id.name() + " round " + std::to_string(round + 1),
          [&] { return run_point(point, base_of(point, ceilings), once, progress, log); }, &replayed);
      if (done.value("interrupted", false)) break;
      PointResult got;
      if (const auto crash = isolation::crash_of(done)) {
        got = base;
        got.failed = true;
        got.error = "crashed: " + *crash;
      } else {
        got = done.at("point").get<PointResult>();
      }
      std::string error;
      if (got.failed) error = got.error;
      if (!started[i]) {
        merged[i] = got;  // the first round's: its profiled pass, its device state at the start
        merged[i].repetitions.clear();
        started[i] = true;
      } else if (got.failed) {
        merged[i].failed = true;
        merged[i].error = "round " + std::to_string(round + 1) + ": " + got.error;
      }
      for (auto& o : got.repetitions) merged[i].repetitions.push_back(std::move(o));
      if (got.repetitions.empty()) merged[i].repetitions.emplace_back();
      runs[i].push_back({error});
      if (round == rounds - 1) {  // the last round's energy pass and the device's state at its end
        if (got.measured.contains("energy")) merged[i].measured["energy"] = got.measured["energy"];
        if (merged[i].measured.contains("device_state") && got.measured.contains("device_state") &&
            got.measured["device_state"].contains("end"))
          merged[i].measured["device_state"]["end"] = got.measured["device_state"]["end"];
      }
      // A round on a busy machine makes the point's: the busiest round's load is kept.
      if (auto m = got.measured.find("machine_load"); m != got.measured.end()) {
        const auto& kept = merged[i].measured.find("machine_load");
        if (kept == merged[i].measured.end() || (!kept->value("busy", false) && m->value("busy", false)) ||
            m->value("others_cpu_fraction", 0.0) > kept->value("others_cpu_fraction", 0.0))
          merged[i].measured["machine_load"] = *m;
      }
      if (!replayed)
        log << "gpubench: " << progress << got.id.name() << (got.failed ? " FAILED: " + got.error : " verified") << std::endl;
    }
    if (interrupt::requested()) {
      report.context["ended_early"] = interrupt::reason(interrupt::requested()) + " in round " +
                                      std::to_string(round + 1) + " of " + std::to_string(rounds);
      log << "gpubench: " << report.context["ended_early"].get<std::string>() << ": writing the " << done_rounds
          << " round(s) measured" << std::endl;
      break;
    }
    done_rounds = round + 1;
    if (after_each) after_each(report_so_far(done_rounds));
  }
  const nlohmann::json ended = report.context.value("ended_early", nlohmann::json());
  report = report_so_far(done_rounds);
  if (!ended.is_null()) report.context["ended_early"] = ended;
}

}  // namespace

RunReport run_plan(Plan& plan, const Timing& timing, const CeilingsByDevice& ceilings, std::ostream& log,
                   const std::function<void(const RunReport&)>& after_each) {
  const int repetitions = timing.repetitions;
  auto& points = plan.points;
  RunReport report;
  report.unavailable = plan.unavailable;
  {
    Collector collector;
    collector.ReportContext(benchmark::BenchmarkReporter::Context());
    report.context = collector.context;
  }
  report.context["repetitions"] = repetitions;
  report.context["warmup_runs"] = timing.warmup;
  if (timing.min_time_s > 0) report.context["min_time_s"] = timing.min_time_s;
  std::set<std::string> names;
  for (const auto& point : points)
    if (!names.insert(point->id().name()).second) throw Error(ExitCode::internal, "two points named " + point->id().name());

  report.benchmarks = nlohmann::json::array();
  if (timing.interleave_seed >= 0) {
    run_interleaved(report, plan, timing, ceilings, log, after_each);
    return report;
  }
  const auto start = std::chrono::steady_clock::now();
  int measured = 0;
  // Asked to stop (bench/interrupt.hpp) before point i: the run ends with the points before it.
  const auto stop_before = [&](std::size_t i) {
    report.context["ended_early"] = interrupt::reason(interrupt::requested()) + " after " + std::to_string(i) + " of " +
                                    std::to_string(points.size()) + " points";
    log << "gpubench: " << report.context["ended_early"].get<std::string>() << ": writing the " << i
        << " point(s) measured" << std::endl;
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (interrupt::requested()) {
      stop_before(i);
      break;
    }
    Point& point = *points[i];
    const PointResult base = base_of(point, ceilings);

    bool replayed = false;
    const std::string progress = "[" + std::to_string(i + 1) + "/" + std::to_string(points.size()) + "] ";
    const nlohmann::json done = isolation::unit(
        base.id.name(), [&] { return run_point(point, base, timing, progress, log); }, &replayed);
    if (done.value("interrupted", false)) {  // left unfinished
      stop_before(i);
      break;
    }
    PointResult result;
    nlohmann::json entries;
    if (const auto crash = isolation::crash_of(done)) {
      result = base;
      result.failed = true;
      result.error = "crashed: " + *crash;
      entries = entries_of(result, {}, repetitions);
    } else {
      result = done.at("point").get<PointResult>();
      entries = done.at("benchmarks");
    }
    // Each point ran as a family of its own: number the families as the plan orders them.
    for (auto& e : entries) e["family_index"] = i;
    for (auto& e : entries) report.benchmarks.push_back(std::move(e));
    if (!replayed) {
      log << "gpubench: " << progress << result.id.name()
          << (result.failed ? " FAILED: " + result.error : std::string(" verified"));
      // What is left, at the pace of the points measured so far in this process.
      ++measured;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::size_t left = points.size() - i - 1;
      if (left > 0) log << " (about " << duration_text(elapsed / measured * static_cast<double>(left)) << " left)";
      log << std::endl;
    }
    report.points.push_back(std::move(result));
    if (after_each) {
      RunReport so_far = report;
      complete_context(so_far);
      after_each(so_far);
    }
  }
  complete_context(report);
  return report;
}

}  // namespace gpubench
