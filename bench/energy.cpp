#include "bench/energy.hpp"

#include <dlfcn.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "bench/format.hpp"
#include "common/errors.hpp"
#include "common/test_hooks.hpp"

namespace gpubench {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// ---- NVML, through the driver's library (no nvml.h is packaged here: the few prototypes used) ----

struct NvmlDevice;  // nvmlDevice_t is a pointer to an opaque struct
using nvmlReturn = int;
constexpr nvmlReturn nvml_success = 0, nvml_insufficient_size = 7, nvml_not_found = 6;
constexpr int nvml_clock_sm = 1, nvml_clock_mem = 2;  // nvmlClockType_t
constexpr unsigned nvml_field_power_instant = 186;    // NVML_FI_DEV_POWER_INSTANT (mW)

// nvmlFieldValue_t, as nvml.h lays it out.
struct NvmlFieldValue {
  unsigned field_id;
  unsigned scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;  // nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint, 6 ushort
  nvmlReturn status;
  union {
    double d;
    unsigned u;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
};

class Nvml {
 public:
  // The library, initialized; null with `why` when it cannot be.
  static Nvml* get(std::string& why) {
    static std::mutex m;
    static std::unique_ptr<Nvml> nvml;
    static std::string failure;
    static bool tried = false;
    std::lock_guard<std::mutex> lock(m);
    if (!tried) {
      tried = true;
      auto n = std::unique_ptr<Nvml>(new Nvml);
      failure = n->open();
      if (failure.empty()) nvml = std::move(n);
    }
    why = failure;
    return nvml.get();
  }

  // The device with PCI address `bus_id`, or where that is unknown the one device named `name`.
  NvmlDevice* find(const std::string& bus_id, const std::string& name, std::string& why) const {
    NvmlDevice* d = nullptr;
    if (!bus_id.empty()) {
      if (by_bus_id_(bus_id.c_str(), &d) == nvml_success) return d;
      why = "NVML has no device at PCI address " + bus_id;
      return nullptr;
    }
    unsigned count = 0;
    if (count_(&count) != nvml_success) return why = "NVML cannot count its devices", nullptr;
    int matches = 0;
    for (unsigned i = 0; i < count; ++i) {
      NvmlDevice* h = nullptr;
      char text[96] = {};
      if (by_index_(i, &h) != nvml_success || name_(h, text, sizeof text) != nvml_success) continue;
      if (name == text) d = h, ++matches;
    }
    if (matches == 1) return d;
    why = matches == 0 ? "NVML has no device named " + name
                       : "the device's PCI address is not known and NVML has " + std::to_string(matches) +
                             " devices named " + name;
    return nullptr;
  }

  bool energy(NvmlDevice* d, unsigned long long& mj) const { return energy_(d, &mj) == nvml_success; }
  // Instantaneous power where the driver has the field, else NVML's power value (averaged over
  // a second on Ampere and newer but GA100).
  bool instant_power(NvmlDevice* d, double& watts) const {
    if (!field_values_) return false;
    NvmlFieldValue v{};
    v.field_id = nvml_field_power_instant;
    if (field_values_(d, 1, &v) != nvml_success || v.status != nvml_success) return false;
    switch (v.value_type) {
      case 0: watts = v.value.d / 1e3; return true;
      case 1: watts = v.value.u / 1e3; return true;
      case 2: watts = static_cast<double>(v.value.ul) / 1e3; return true;
      case 3: watts = static_cast<double>(v.value.ull) / 1e3; return true;
      case 4: watts = static_cast<double>(v.value.sll) / 1e3; return true;
      case 5: watts = v.value.si / 1e3; return true;
      default: return false;
    }
  }
  bool power(NvmlDevice* d, double& watts) const {
    unsigned mw = 0;
    if (power_(d, &mw) != nvml_success) return false;
    watts = mw / 1e3;
    return true;
  }
  bool clock(NvmlDevice* d, int type, unsigned& mhz) const { return clock_(d, type, &mhz) == nvml_success; }
  bool app_clock(NvmlDevice* d, int type, unsigned& mhz) const {
    return app_clock_ && app_clock_(d, type, &mhz) == nvml_success;
  }
  bool power_limit(NvmlDevice* d, unsigned& mw) const { return limit_(d, &mw) == nvml_success; }
  bool temperature(NvmlDevice* d, unsigned& c) const { return temperature_(d, 0, &c) == nvml_success; }

  // nvmlProcessInfo_t (what nvmlDeviceGetComputeRunningProcesses_v3 fills) and
  // nvmlProcessUtilizationSample_t (nvmlDeviceGetProcessUtilization's).
  struct ProcessInfo {
    unsigned pid;
    unsigned long long used_bytes;
    unsigned gpu_instance, compute_instance;
  };
  struct ProcessSample {
    unsigned pid;
    unsigned long long time_us;
    unsigned sm, mem, enc, dec;
  };
  // The processes with a compute context on the device, or false.
  bool processes(NvmlDevice* d, std::vector<ProcessInfo>& out) const {
    if (!processes_) return false;
    for (unsigned size : {64u, 1024u}) {
      out.assign(size, ProcessInfo{});
      unsigned count = size;
      const nvmlReturn r = processes_(d, &count, out.data());
      if (r == nvml_success) return out.resize(std::min(count, size)), true;
      if (r != nvml_insufficient_size) return false;
    }
    return false;
  }
  // Each process's SM use sampled since `since_us`; none (true, empty) where no process ran since.
  bool utilization(NvmlDevice* d, unsigned long long since_us, std::vector<ProcessSample>& out) const {
    if (!utilization_) return false;
    unsigned count = 0;
    nvmlReturn r = utilization_(d, nullptr, &count, since_us);
    if (r == nvml_not_found) return out.clear(), true;
    if (r != nvml_insufficient_size && r != nvml_success) return false;
    out.assign(count + 16, ProcessSample{});
    count = static_cast<unsigned>(out.size());
    r = utilization_(d, out.data(), &count, since_us);
    if (r == nvml_not_found) return out.clear(), true;
    if (r != nvml_success) return false;
    out.resize(std::min<std::size_t>(count, out.size()));
    return true;
  }

 private:
  std::string open() {
    void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return "no NVML (the NVIDIA driver's libnvidia-ml.so.1 did not load)";
    bool all = true;
    auto symbol = [&](auto& f, const char* name, bool required = true) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(::dlsym(lib, name));
      if (!f && required) all = false;
    };
    nvmlReturn (*init)() = nullptr;
    symbol(init, "nvmlInit_v2");
    symbol(count_, "nvmlDeviceGetCount_v2");
    symbol(by_index_, "nvmlDeviceGetHandleByIndex_v2");
    symbol(by_bus_id_, "nvmlDeviceGetHandleByPciBusId_v2");
    symbol(name_, "nvmlDeviceGetName");
    symbol(energy_, "nvmlDeviceGetTotalEnergyConsumption");
    symbol(power_, "nvmlDeviceGetPowerUsage");
    symbol(clock_, "nvmlDeviceGetClockInfo");
    symbol(limit_, "nvmlDeviceGetEnforcedPowerLimit");
    symbol(temperature_, "nvmlDeviceGetTemperature");
    symbol(app_clock_, "nvmlDeviceGetApplicationsClock", false);
    symbol(field_values_, "nvmlDeviceGetFieldValues", false);
    symbol(processes_, "nvmlDeviceGetComputeRunningProcesses_v3", false);
    symbol(utilization_, "nvmlDeviceGetProcessUtilization", false);
    if (!all) return "NVML's library lacks a function gpubench reads (a driver older than Volta's?)";
    if (const nvmlReturn r = init(); r != nvml_success) return "NVML did not initialize (nvmlInit error " + std::to_string(r) + ")";
    return "";
  }

  nvmlReturn (*count_)(unsigned*) = nullptr;
  nvmlReturn (*by_index_)(unsigned, NvmlDevice**) = nullptr;
  nvmlReturn (*by_bus_id_)(const char*, NvmlDevice**) = nullptr;
  nvmlReturn (*name_)(NvmlDevice*, char*, unsigned) = nullptr;
  nvmlReturn (*energy_)(NvmlDevice*, unsigned long long*) = nullptr;
  nvmlReturn (*power_)(NvmlDevice*, unsigned*) = nullptr;
  nvmlReturn (*clock_)(NvmlDevice*, int, unsigned*) = nullptr;
  nvmlReturn (*app_clock_)(NvmlDevice*, int, unsigned*) = nullptr;
  nvmlReturn (*limit_)(NvmlDevice*, unsigned*) = nullptr;
  nvmlReturn (*temperature_)(NvmlDevice*, int, unsigned*) = nullptr;
  nvmlReturn (*field_values_)(NvmlDevice*, int, NvmlFieldValue*) = nullptr;
  nvmlReturn (*processes_)(NvmlDevice*, unsigned*, ProcessInfo*) = nullptr;
  nvmlReturn (*utilization_)(NvmlDevice*, ProcessSample*, unsigned*, unsigned long long) = nullptr;
};

// The name of process `pid` as this PID namespace knows it, or "?".
std::string process_name(unsigned pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  return std::getline(comm, name) && !name.empty() ? name : "?";
}

class NvmlMeter final : public EnergyMeter {
 public:
  NvmlMeter(const Nvml& nvml, NvmlDevice* device) : nvml_(nvml), device_(device) {
    unsigned long long mj = 0;
    has_counter_ = nvml_.energy(device_, mj);
    double w = 0;
    instant_ = nvml_.instant_power(device_, w);
    if (instant_)
      samples_ = "NVML instantaneous power (field 186)";
    else if (nvml_.power(device_, w))
      samples_ = "NVML power usage (a 1 s average on Ampere and newer)";
  }
  std::string counter_source() const override { return has_counter_ ? "NVML total energy counter" : ""; }
  std::string sample_source() const override { return samples_; }
  double joules() override {
    unsigned long long mj = 0;
    if (!nvml_.energy(device_, mj)) throw DeviceError("NVML's energy counter could not be read");
    return static_cast<double>(mj) / 1e3;
  }
  double watts() override {
    double w = 0;
    const bool ok = instant_ ? nvml_.instant_power(device_, w) : nvml_.power(device_, w);
    if (!ok) throw DeviceError("NVML's power could not be read");
    return w;
  }
  nlohmann::json state() override {
    nlohmann::json s = nlohmann::json::object();
    unsigned v = 0;
    if (nvml_.clock(device_, nvml_clock_sm, v)) s["sm_mhz"] = v;
    if (nvml_.clock(device_, nvml_clock_mem, v)) s["mem_mhz"] = v;
    if (nvml_.power_limit(device_, v)) s["power_limit_w"] = v / 1e3;
    if (nvml_.temperature(device_, v)) s["temperature_c"] = v;
    return s;
  }
  nlohmann::json settings() override {
    nlohmann::json s = nlohmann::json::object();
    unsigned v = 0;
    if (nvml_.power_limit(device_, v)) s["power_limit_w"] = v / 1e3;
    if (nvml_.app_clock(device_, nvml_clock_sm, v)) s["sm_clock_mhz"] = v;
    if (nvml_.app_clock(device_, nvml_clock_mem, v)) s["mem_clock_mhz"] = v;
    return s;
  }
  unsigned long long now_us() override {
    return static_cast<unsigned long long>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  }
  // NVML's lists name processes by the host's PIDs. Where this process's PID is not among those
  // holding a context on the device (a container's own PID namespace), no entry can be told to be
  // this process's or another's: said, not guessed.
  nlohmann::json other_processes(unsigned long long since_us, std::string& why) override {
    std::vector<Nvml::ProcessInfo> holding;
    if (!nvml_.processes(device_, holding)) return why = "NVML does not list the device's processes here", nullptr;
    const unsigned self = static_cast<unsigned>(::getpid()), parent = static_cast<unsigned>(::getppid());
    if (std::none_of(holding.begin(), holding.end(), [&](const auto& p) { return p.pid == self; }))
      return why = "NVML lists " + std::to_string(holding.size()) + " processes on the device, by PIDs of another "
                   "namespace than this process's (a container?): which are others' is not known", nullptr;
    std::map<unsigned, unsigned> sm;  // pid -> its highest SM use sampled since the point began
    std::vector<Nvml::ProcessSample> samples;
    const bool sampled = nvml_.utilization(device_, since_us, samples);
    for (const auto& s : samples) sm[s.pid] = std::max(sm[s.pid], s.sm);
    nlohmann::json others = nlohmann::json::array();
    for (const auto& p : holding) {
      if (p.pid == self || p.pid == parent) continue;
      nlohmann::json o = {{"pid", p.pid}, {"name", process_name(p.pid)}};
      if (p.used_bytes != ~0ULL) o["used_mib"] = static_cast<double>(p.used_bytes / (1024 * 1024));
      if (sampled) o["sm_pct"] = sm.count(p.pid) ? sm[p.pid] : 0u;
      others.push_back(o);
    }
    return others;
  }

 private:
  const Nvml& nvml_;
  NvmlDevice* device_;
  bool has_counter_ = false;
  bool instant_ = false;  // the samples are field 186's, not nvmlDeviceGetPowerUsage's
  std::string samples_;
};

// ---- RAPL, through /sys/class/powercap ----

bool read_number(const std::string& path, double& value) {
  std::ifstream in(path);
  return static_cast<bool>(in >> value);
}

class RaplMeter final : public EnergyMeter {
 public:
  struct Domain {
    std::string dir;
    double range_uj = 0;
    double last_uj = 0;
    double wraps_uj = 0;
  };
  explicit RaplMeter(std::vector<Domain> domains) : domains_(std::move(domains)) {}
  std::string counter_source() const override {
    return "RAPL (" + std::to_string(domains_.size()) + " package domain" + (domains_.size() > 1 ? "s" : "") + ")";
  }
  std::string sample_source() const override { return ""; }
  double joules() override {
    double total = 0;
    for (Domain& d : domains_) {
      double uj = 0;
      if (!read_number(d.dir + "/energy_uj", uj)) throw DeviceError("RAPL: " + d.dir + "/energy_uj could not be read");
      if (uj < d.last_uj) d.wraps_uj += d.range_uj;  // the counter wrapped
      d.last_uj = uj;
      total += (uj + d.wraps_uj) / 1e6;
    }
    return total;
  }
  double watts() override { throw std::logic_error("RAPL has no power samples"); }
  nlohmann::json state() override {
    nlohmann::json s = nlohmann::json::object();
    if (double khz = 0; read_number("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", khz)) s["cpu_mhz"] = khz / 1e3;
    if (const double w = limit_w(); w > 0) s["power_limit_w"] = w;
    return s;
  }
  nlohmann::json settings() override {
    nlohmann::json s = nlohmann::json::object();
    if (double khz = 0; read_number("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", khz))
      s["cpu_max_mhz"] = khz / 1e3;
    if (const double w = limit_w(); w > 0) s["power_limit_w"] = w;
    return s;
  }

 private:
  double limit_w() const {
    double total = 0;
    for (const Domain& d : domains_)
      if (double uw = 0; read_number(d.dir + "/constraint_0_power_limit_uw", uw)) total += uw / 1e6;
    return total;
  }
  std::vector<Domain> domains_;
};

std::unique_ptr<EnergyMeter> open_rapl(std::string& why) {
  const std::string root = "/sys/class/powercap";
  DIR* dir = ::opendir(root.c_str());
  if (!dir) return why = "no RAPL here (no " + root + ")", nullptr;
  std::vector<RaplMeter::Domain> domains;
  std::string unreadable;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    // Package domains: intel-rapl:N (its subzones intel-rapl:N:M are parts of it).
    if (name.rfind("intel-rapl:", 0) != 0 || name.find(':', 11) != std::string::npos) continue;
    RaplMeter::Domain d;
    d.dir = root + "/" + name;
    std::ifstream kind(d.dir + "/name");
    std::string zone;
    if (!(kind >> zone) || zone.rfind("package", 0) != 0) continue;
    if (!read_number(d.dir + "/energy_uj", d.last_uj)) {
      unreadable = d.dir + "/energy_uj";
      continue;
    }
    read_number(d.dir + "/max_energy_range_uj", d.range_uj);
    domains.push_back(d);
  }
  ::closedir(dir);
  if (!unreadable.empty())
    return why = "RAPL's " + unreadable + " is not readable (root only on most kernels)", nullptr;
  if (domains.empty()) return why = "no RAPL package domain under " + root, nullptr;
  return std::make_unique<RaplMeter>(std::move(domains));
}

// ---- the planted meter (test-only) ----

class PlantedMeter final : public EnergyMeter {
 public:
  PlantedMeter(double watts, bool counter) : watts_(watts), counter_(counter) {}
  std::string counter_source() const override { return counter_ ? "planted counter" : ""; }
  std::string sample_source() const override { return "planted samples"; }
  double joules() override { return watts_ * seconds_since(start_); }
  double watts() override { return watts_; }
  nlohmann::json state() override { return {{"power_limit_w", 1000.0}}; }
  nlohmann::json settings() override { return {{"power_limit_w", 1000.0}}; }
  // GPUBENCH_PLANTED_GPU_PROCESS=NAME:SM_PCT: one other process NAME (pid 0) that used SM_PCT% of
  // the device; unset, none.
  nlohmann::json other_processes(unsigned long long, std::string& why) override {
    const char* planted = test_hook("GPUBENCH_PLANTED_GPU_PROCESS");
    if (!planted) return nlohmann::json::array();
    const std::string text = planted;
    const auto colon = text.rfind(':');
    char* end = nullptr;
    const double pct = colon == std::string::npos ? -1 : std::strtod(text.c_str() + colon + 1, &end);
    if (colon == 0 || colon == std::string::npos || !(pct >= 0 && pct <= 100) || *end != '\0')
      return why = "GPUBENCH_PLANTED_GPU_PROCESS: '" + text + "' is not NAME:SM_PCT", nullptr;
    return nlohmann::json::array({{{"pid", 0}, {"name", text.substr(0, colon)}, {"sm_pct", pct}, {"used_mib", 1.0}}});
  }

 private:
  double watts_;
  bool counter_;
  Clock::time_point start_ = Clock::now();
};

std::unique_ptr<EnergyMeter> open_meter(const DeviceInfo& device, std::string& why) {
  if (const char* planted = test_hook("GPUBENCH_PLANTED_POWER")) {
    const std::string text = planted;
    char* end = nullptr;
    const double watts = std::strtod(text.c_str(), &end);
    const std::string rest = end;
    if (!(watts > 0) || (!rest.empty() && rest != ":samples"))  // said where a figure would be: nothing is lost
      return why = "GPUBENCH_PLANTED_POWER: '" + text + "' is not WATTS or WATTS:samples with WATTS > 0", nullptr;
    return std::make_unique<PlantedMeter>(watts, rest.empty());
  }
  if (device.type == "cpu") return open_rapl(why);
  const bool nvidia = device.vendor.find("NVIDIA") != std::string::npos;
  if (device.type != "gpu" || !nvidia) return why = "no energy reader for " + device.vendor + " " + device.type + "s", nullptr;
  Nvml* nvml = Nvml::get(why);
  if (!nvml) return nullptr;
  NvmlDevice* d = nvml->find(device.pci_bus_id, device.name, why);
  if (!d) return nullptr;
  auto meter = std::make_unique<NvmlMeter>(*nvml, d);
  if (meter->counter_source().empty() && meter->sample_source().empty())
    return why = "NVML reads neither an energy counter nor the power of " + device.name, nullptr;
  return meter;
}

double sample_integral(const std::vector<std::pair<double, double>>& samples) {
  double joules = 0;
  for (std::size_t i = 1; i < samples.size(); ++i)
    joules += (samples[i].first - samples[i - 1].first) * (samples[i].second + samples[i - 1].second) / 2;
  return joules;
}

}  // namespace

EnergyMeter* energy_meter(const DeviceInfo& device, std::string& why_none) {
  static std::mutex m;
  static std::map<std::string, std::pair<std::unique_ptr<EnergyMeter>, std::string>> meters;
  std::lock_guard<std::mutex> lock(m);
  const std::string key = device.backend + ":" + std::to_string(device.index);
  auto it = meters.find(key);
  if (it == meters.end()) {
    std::string why;
    auto meter = open_meter(device, why);
    it = meters.emplace(key, std::make_pair(std::move(meter), why)).first;
  }
  why_none = it->second.second;
  return it->second.first.get();
}

nlohmann::json energy_pass(EnergyMeter& meter, const std::function<TimedBatch()>& run, double flops_per_iteration,
                           double min_seconds) {
  const bool counter = !meter.counter_source().empty();
  const bool sampled = !meter.sample_source().empty();
  std::vector<std::pair<double, double>> samples;  // (seconds since the start, watts)
  std::atomic<bool> stop{false};
  const Clock::time_point start = Clock::now();
  std::string sample_error;
  std::thread sampler;
  if (sampled) {
    samples.emplace_back(0.0, meter.watts());
    sampler = std::thread([&] {
      try {
        while (!stop.load()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          samples.emplace_back(seconds_since(start), meter.watts());
        }
      } catch (const std::exception& e) {
        sample_error = e.what();
      }
    });
  }
  double joules_before = 0, joules_after = 0, device_seconds = 0, wall = 0;
  long long iterations = 0;
  try {
    if (counter) joules_before = meter.joules();
    do {
      const TimedBatch b = run();
      device_seconds += b.seconds;
      iterations += b.iterations;
      wall = seconds_since(start);
    } while (wall < min_seconds);
    if (counter) joules_after = meter.joules();
    wall = seconds_since(start);
  } catch (...) {
    stop = true;
    if (sampler.joinable()) sampler.join();
    throw;
  }
  stop = true;
  if (sampler.joinable()) sampler.join();
  if (!sample_error.empty()) throw DeviceError(sample_error);
  if (sampled) samples.emplace_back(wall, meter.watts());

  nlohmann::json j = nlohmann::json::object();
  j["pass_s"] = wall;
  j["duty"] = wall > 0 ? std::min(1.0, device_seconds / wall) : 0.0;
  const double sampled_watts = sampled && wall > 0 ? sample_integral(samples) / wall : 0;
  double watts = 0;
  if (counter) {
    watts = (joules_after - joules_before) / wall;
    j["source"] = meter.counter_source();
  } else {
    watts = sampled_watts;
    j["source"] = meter.sample_source();
  }
  if (sampled) {
    j["watts_from_samples"] = sampled_watts;
    j["samples"] = samples.size();
    j["sample_source"] = meter.sample_source();
    if (counter && watts > 0) j["samples_vs_counter"] = sampled_watts / watts - 1;
  }
  j["watts"] = watts;
  if (iterations > 0 && device_seconds > 0) {
    const double per_iteration = watts * device_seconds / static_cast<double>(iterations);
    j["joules_per_iteration"] = per_iteration;
    if (flops_per_iteration > 0 && per_iteration > 0) j["gflops_per_joule"] = flops_per_iteration / per_iteration / 1e9;
  }
  j["iterations"] = iterations;
  return j;
}

std::string settings_difference(const nlohmann::json& then, const nlohmann::json& now) {
  if (!then.is_object() || !now.is_object()) return "";
  std::string text;
  struct Setting {
    const char* key;
    const char* name;
    const char* unit;
  };
  const Setting named[] = {{"power_limit_w", "power limit", " W"},
                           {"sm_clock_mhz", "SM application clock", " MHz"},
                           {"mem_clock_mhz", "memory application clock", " MHz"},
                           {"cpu_max_mhz", "CPU maximum frequency", " MHz"}};
  for (const auto& [key, name, unit] : named) {
    if (!then.contains(key) || !now.contains(key)) continue;
    const double a = then.at(key).get<double>(), b = now.at(key).get<double>();
    if (std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b))) continue;
    text += (text.empty() ? "" : ", ") + std::string(name) + " " + fixed(a, 0) + unit + " then, " + fixed(b, 0) + unit + " now";
  }
  return text;
}

}  // namespace gpubench
