#include "bench/roofline.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "backends/registry.hpp"
#include "bench/build_info.hpp"
#include "bench/energy.hpp"
#include "bench/format.hpp"
#include "bench/isolation.hpp"
#include "bench/result_json.hpp"
#include "bench/tuning_db_file.hpp"
#include "common/errors.hpp"

namespace gpubench {

bool memory_applies(double flops, double bytes) {
  constexpr double compute_only_intensity = 1000;  // FLOP/B (roofline.hpp)
  return bytes > 0 && flops / bytes <= compute_only_intensity;
}

nlohmann::json RooflinePlace::to_json() const {
  nlohmann::json j = {{"arithmetic_intensity", intensity},     {"attainable_gflops", attainable_gflops},
          {"roofline_pct", roofline_pct},          {"theoretical_gflops", theoretical_gflops},
          {"theoretical_pct", theoretical_pct}};
  if (!level.empty()) j["served_by"] = level, j["served_by_pct"] = level_pct;
  if (!unit.empty()) {
    j["compute_unit"] = unit;
    if (unit_unmeasured) j["compute_unit_ceiling"] = "not measured: placed against the FMA peak";
  }
  return j;
}

RooflinePlace place(double flops, double bytes, double seconds, const Ceilings& c, Precision p, const std::string& unit) {
  RooflinePlace r;
  if (!(bytes > 0) || !(seconds > 0)) return r;
  r.intensity = flops / bytes;
  r.theoretical_gflops = r.intensity * c.bandwidth_gbps();
  r.unit = unit;
  double peak = c.peak_gflops(p, unit);
  if (!unit.empty() && !(peak > 0)) r.unit_unmeasured = true, peak = c.peak_gflops(p);
  r.peak_gflops = peak;
  r.attainable_gflops = peak > 0 ? std::min(peak, r.theoretical_gflops) : r.theoretical_gflops;
  const double measured = flops / seconds / 1e9;
  // Work that declares bytes and no FLOPs (a copy, a transpose) sits under the bandwidth roof alone.
  if (flops == 0 && c.bandwidth_gbps() > 0) {
    r.roofline_pct = r.theoretical_pct = 100 * (bytes / seconds / 1e9) / c.bandwidth_gbps();
  } else {
    if (r.attainable_gflops > 0) r.roofline_pct = 100 * measured / r.attainable_gflops;
    if (r.theoretical_gflops > 0) r.theoretical_pct = 100 * measured / r.theoretical_gflops;
  }
  // Above the DRAM roof where bandwidth bounds it: the cache level that served it.
  const bool bandwidth_side = flops == 0 || !(peak > 0) || r.theoretical_gflops <= peak;
  if (r.roofline_pct > 100 && bandwidth_side) {
    for (const auto& [name, gbps] : {std::pair{"L2", c.l2_gbps}, std::pair{"L1", c.l1_gbps}}) {
      if (!(gbps > 0)) continue;
      const double roof = flops == 0 || !(peak > 0) ? r.intensity * gbps : std::min(peak, r.intensity * gbps);
      r.level = name;
      r.level_pct = flops == 0 ? 100 * (bytes / seconds / 1e9) / gbps : 100 * measured / roof;
      if (r.level_pct <= 100) break;
    }
  }
  return r;
}

std::string this_host() {
  // The host name alone does not tell machines apart (every lent machine here is "vm"): with it, the
  // CPU's model and count.
  char name[256] = {};
  std::string host = ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("?");
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; model.empty() && std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0)
      if (const auto colon = line.find(':'); colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return host + " (" + (model.empty() ? std::string("unknown CPU") : model) + ", " + std::to_string(cpus) + " CPUs)";
}

void take_better_levels(Ceilings& c, const Ceilings& other) {
  if (other.l2_gbps > c.l2_gbps) c.l2_gbps = other.l2_gbps, c.l2_sweep = other.l2_sweep;
  if (other.l1_gbps > c.l1_gbps) c.l1_gbps = other.l1_gbps, c.l1_sweep = other.l1_sweep;
  for (const auto& [unit, gflops] : other.unit_gflops) c.unit_gflops[unit] = std::max(c.unit_gflops[unit], gflops);
}

Ceilings combine_trials(const std::vector<Ceilings>& trials) {
  Ceilings c = trials.at(0);
  c.worst_bandwidth_gbps = c.bandwidth_gbps();
  c.worst_f32_gflops = c.f32_gflops;
  c.worst_f64_gflops = c.f64_gflops;
  for (std::size_t k = 1; k < trials.size(); ++k) {
    const Ceilings& t = trials[k];
    c.copy_gbps = std::max(c.copy_gbps, t.copy_gbps);
    c.triad_gbps = std::max(c.triad_gbps, t.triad_gbps);
    c.f32_gflops = std::max(c.f32_gflops, t.f32_gflops);
    c.f64_gflops = std::max(c.f64_gflops, t.f64_gflops);
    c.worst_bandwidth_gbps = std::min(c.worst_bandwidth_gbps, t.bandwidth_gbps());
    c.worst_f32_gflops = std::min(c.worst_f32_gflops, t.f32_gflops);
    c.worst_f64_gflops = std::min(c.worst_f64_gflops, t.f64_gflops);
    take_better_levels(c, t);
  }
  c.trials = static_cast<int>(trials.size());
  return c;
}

std::string unconfirmed_ceilings(const std::vector<Ceilings>& trials) {
  struct Figure {
    const char* name;
    double (*of)(const Ceilings&);
    const char* unit;
  };
  const Figure figures[] = {{"bandwidth", [](const Ceilings& c) { return c.bandwidth_gbps(); }, "GB/s"},
                            {"f32", [](const Ceilings& c) { return c.f32_gflops; }, "GFLOP/s"},
                            {"f64", [](const Ceilings& c) { return c.f64_gflops; }, "GFLOP/s"},
                            {"L2", [](const Ceilings& c) { return c.l2_gbps; }, "GB/s"},
                            {"L1/shared", [](const Ceilings& c) { return c.l1_gbps; }, "GB/s"}};
  std::string why;
  for (const Figure& f : figures) {
    std::vector<double> values;
    for (const auto& t : trials) values.push_back(f.of(t));
    std::sort(values.rbegin(), values.rend());
    if (values.size() < 2 || values[0] <= 0) continue;
    if (values[1] >= ceiling_confirmation * values[0]) continue;
    std::string list;
    for (const auto& t : trials) list += (list.empty() ? "" : ", ") + fixed(f.of(t), 1);
    why += (why.empty() ? "" : "; ") + std::string(f.name) + " " + list + " " + f.unit;
  }
  return why;
}

std::string physical_device(const DeviceInfo& d) {
  if (d.type == "cpu") return "cpu";
  std::string family = d.backend;  // a library over an API numbers that API's devices
  int same_name = 0;
  try {
    const Backend& backend = find_backend(d.backend);
    if (!backend.devices_of.empty()) family = backend.devices_of;
    for (const auto& other : backend.devices()) same_name += other.name == d.name ? 1 : 0;
  } catch (const std::exception&) {
    same_name = 2;  // not known: keep the backend's own numbering
  }
  return same_name == 1 ? d.type + ":" + d.name : family + ":" + std::to_string(d.index);
}

Ceilings merge_ceilings(const std::vector<Ceilings>& measured) {
  Ceilings best = measured.at(0);
  std::string by = best.backend;
  for (const Ceilings& c : measured) {
    if (c.bandwidth_gbps() > best.bandwidth_gbps()) {
      const Ceilings keep = best;
      best = c;
      best.f32_gflops = std::max(best.f32_gflops, keep.f32_gflops);
      best.f64_gflops = std::max(best.f64_gflops, keep.f64_gflops);
      take_better_levels(best, keep);
    }
    best.f32_gflops = std::max(best.f32_gflops, c.f32_gflops);
    best.f64_gflops = std::max(best.f64_gflops, c.f64_gflops);
    take_better_levels(best, c);
    if (by.find(c.backend) == std::string::npos) by += "+" + c.backend;
  }
  best.backend = by;
  return best;
}

namespace {

// `c` with what differs between the settings it was measured at and the device's now, said on `log`.
Ceilings with_settings_now(const DeviceInfo& d, Ceilings c, std::ostream& log) {
  std::string no_meter;
  EnergyMeter* meter = c.settings.empty() ? nullptr : energy_meter(d, no_meter);
  if (!meter) return c;
  c.settings_differ = settings_difference(nlohmann::json::parse(c.settings), meter->settings());
  if (!c.settings_differ.empty())
    log << "gpubench: warning: the ceilings of " << d.label() << " were measured at other settings (" << c.settings_differ
        << "): % roof is against those (gpubench roofline --remeasure measures them at these)" << std::endl;
  return c;
}

// A device whose backend has no probe (OpenMP offload) has the roof of the physical device it runs
// on: the stored ceilings of that device as the backends here that probe see it (the loaded ones),
// merged as the roofline figure merges them. nullopt where none has stored any.
std::optional<Ceilings> ceilings_of_the_same_device(const DeviceInfo& d, TuningDb* db, std::ostream& log) {
  if (!db) return std::nullopt;
  const std::string physical = physical_device(d);
  std::vector<Ceilings> found;
  std::string from;
  for (const Backend& b : backends()) {
    if (b.name == d.backend || !find_ceiling_probe(b.name)) continue;
    std::vector<DeviceInfo> devices;
    try {
      devices = b.devices();
    } catch (const std::exception&) {
      continue;  // an API that cannot list its devices here has stored nothing for this run
    }
    for (const DeviceInfo& other : devices)
      if (physical_device(other) == physical)
        if (auto c = db->ceilings(other)) {
          found.push_back(*c);
          from += (from.empty() ? "" : ", ") + other.label();
        }
  }
  if (found.empty()) return std::nullopt;
  log << "gpubench: " << d.label() << " takes the ceilings of the device it runs on, as " << from
      << " measured them (backend " << d.backend << " has no probe of its own)" << std::endl;
  return merge_ceilings(found);
}

// A library over an API (ViennaCL over OpenCL or OpenMP) runs on that API's device of the same
// index, and measures its ceilings with that API's probe: where that device's are stored, they are
// this one's, and measuring them again would cost a run a minute on a CPU for the same numbers.
std::optional<Ceilings> ceilings_of_the_api_under(const DeviceInfo& d, TuningDb& db, std::ostream& log) {
  std::optional<DeviceInfo> under;
  try {
    const std::string api = find_backend(d.backend).devices_of;
    if (!api.empty() && api != d.backend) under = find_device(api, d.index);
  } catch (const std::exception&) {
    // that API cannot list its devices here: measure through it below, which says why
  }
  if (!under) return std::nullopt;
  auto stored = db.ceilings(*under);  // (a damaged file stops the run by name, as the device's own would)
  if (stored)
    log << "gpubench: " << d.label() << " takes the ceilings " << under->label() << " measured (" << d.backend
        << " runs on " << under->backend << "'s device " << d.index << ")" << std::endl;
  return stored;
}

}  // namespace

std::optional<Ceilings> device_ceilings(const DeviceInfo& d, TuningDb* db, bool remeasure, std::ostream& log) {
  if (db && !remeasure) {
    if (auto stored = db->ceilings(d)) return with_settings_now(d, *stored, log);
    if (auto under = ceilings_of_the_api_under(d, *db, log)) return with_settings_now(d, *under, log);
  }
  const CeilingProbe* probe = find_ceiling_probe(d.backend);
  if (!probe) {
    if (auto borrowed = ceilings_of_the_same_device(d, db, log)) return with_settings_now(d, *borrowed, log);
    log << "gpubench: no ceilings for " << d.label() << ": backend " << d.backend
        << " has no ceiling probe and no backend here that has one stored ceilings for the same device (measure "
           "them with the API it runs on: gpubench roofline --backend ...)"
        << std::endl;
    return std::nullopt;
  }
  // The probes are kernels like any other: a crash in one costs the roofline, not the run.
  const nlohmann::json measured = isolation::unit("ceilings/" + d.backend + ":" + std::to_string(d.index), [&] {
    std::vector<Ceilings> trials;
    std::string unconfirmed;
    for (int trial = 1; trial <= ceiling_max_trials; ++trial) {
      log << "gpubench: measuring the ceilings of " << d.label() << " (trial " << trial << " of "
          << (trial <= ceiling_trials ? ceiling_trials : ceiling_max_trials) << ")" << std::endl;
      trials.push_back((*probe)(d, log));
      isolation::alive();
      if (trial < ceiling_trials) continue;
      unconfirmed = unconfirmed_ceilings(trials);
      if (unconfirmed.empty()) break;
      if (trial < ceiling_max_trials)
        log << "gpubench: the trials disagree (" << unconfirmed << "): measuring again" << std::endl;
    }
    Ceilings c = combine_trials(trials);
    c.date = iso_timestamp();
    c.commit = build_commit;
    c.host = this_host();
    // Ceilings no second trial confirms are stored marked as such, and every table that uses them
    // says so: a busy machine must not set the roof of later runs unseen.
    c.unconfirmed = unconfirmed;
    std::string no_meter;
    if (EnergyMeter* meter = energy_meter(d, no_meter)) c.settings = meter->settings().dump();
    if (!unconfirmed.empty())
      log << "gpubench: warning: the ceilings of " << d.label() << " were not confirmed in " << trials.size()
          << " trials (" << unconfirmed << "): the best of them is used and stored marked UNCONFIRMED (measure "
          << "them again on a quiet machine: gpubench roofline --remeasure)" << std::endl;
    // A database that cannot be written costs the next run a new measurement, not this run.
    if (db) {
      try {
        db->store_ceilings(d, c);
      } catch (const UnwritableError& e) {  // a damaged file still stops the run, by name
        log << "gpubench: warning: the ceilings of " << d.label() << " were measured but not stored: " << e.what()
            << std::endl;
      }
    }
    return nlohmann::json(c);
  });
  if (const auto crash = isolation::crash_of(measured)) {
    log << "gpubench: no ceilings for " << d.label() << ": the probe crashed: " << *crash << std::endl;
    return std::nullopt;
  }
  return with_settings_now(d, measured.get<Ceilings>(), log);
}

std::optional<Datasheet> datasheet(const DeviceInfo& d) {
  // NVIDIA H100 and H200 datasheets (FP32/FP64 vector peaks, HBM bandwidth, and the tensor cores').
  struct Known {
    const char* name_contains;
    Datasheet sheet;
  };
  static const Known known[] = {
      // The tensor cores' dense figures (the datasheets give TF32, FP16 and BF16 with sparsity: twice these).
      {"H100 80GB HBM3",
       {"NVIDIA H100 SXM5 datasheet", 3350, 67000, 34000,
        {{"f64 tensor", 67000}, {"tf32 tensor", 494500}, {"f16 tensor", 989500}, {"bf16 tensor", 989500}}}},
      {"H100 PCIe",
       {"NVIDIA H100 PCIe datasheet", 2000, 51000, 26000,
        {{"f64 tensor", 51000}, {"tf32 tensor", 378000}, {"f16 tensor", 756000}, {"bf16 tensor", 756000}}}},
      {"H100 NVL",
       {"NVIDIA H100 NVL datasheet", 3900, 60000, 30000,
        {{"f64 tensor", 60000}, {"tf32 tensor", 417500}, {"f16 tensor", 835500}, {"bf16 tensor", 835500}}}},
      {"H200",
       {"NVIDIA H200 SXM datasheet", 4800, 67000, 34000,
        {{"f64 tensor", 67000}, {"tf32 tensor", 494500}, {"f16 tensor", 989500}, {"bf16 tensor", 989500}}}},
  };
  for (const auto& k : known)
    if (d.name.find(k.name_contains) != std::string::npos) return k.sheet;
  return std::nullopt;
}

std::string trials_text(const Ceilings& c) {
  if (c.trials <= 1 || c.worst_bandwidth_gbps <= 0) return "1";
  return "best of " + std::to_string(c.trials) + " (worst " + fixed(c.worst_bandwidth_gbps, 1) + " GB/s)";
}

namespace {
std::string pct(double measured, double sheet) { return sheet > 0 ? " (" + fixed(100 * measured / sheet, 0) + "% of it)" : ""; }
}  // namespace

void write_ceilings(const DeviceInfo& d, const std::optional<Ceilings>& c, std::ostream& out) {
  out << d.label() << ", driver " << d.driver << "\n";
  if (!c) {
    out << "  no ceilings: backend " << d.backend << " has no ceiling probe\n\n";
    return;
  }
  const auto sheet = datasheet(d);
  auto row = [&](const std::string& what, double measured, const std::string& unit, double from_sheet) {
    out << "  " << std::left << std::setw(22) << what << std::right << std::setw(12) << fixed(measured, 1) << " " << unit;
    if (sheet && from_sheet > 0) out << "   datasheet " << fixed(from_sheet, 0) << " " << unit << pct(measured, from_sheet);
    out << "\n";
  };
  row("copy bandwidth", c->copy_gbps, "GB/s", sheet ? sheet->bandwidth_gbps : 0);
  row("triad bandwidth", c->triad_gbps, "GB/s", sheet ? sheet->bandwidth_gbps : 0);
  out << "  trials                 " << trials_text(*c) << "\n";
  if (!c->unconfirmed.empty()) out << "  UNCONFIRMED            no second trial came within 20% of the best: " << c->unconfirmed << "\n";
  row("f32 peak (FMA)", c->f32_gflops, "GFLOP/s", sheet ? sheet->f32_gflops : 0);
  if (c->f64_gflops > 0) row("f64 peak (FMA)", c->f64_gflops, "GFLOP/s", sheet ? sheet->f64_gflops : 0);
  else out << "  f64 peak (FMA)         none (no fp64)\n";
  for (const auto& [unit, gflops] : c->unit_gflops) {
    double from_sheet = 0;
    if (sheet && sheet->unit_gflops.count(unit)) from_sheet = sheet->unit_gflops.at(unit);
    row(unit + " peak", gflops, "GFLOP/s", from_sheet);
  }
  if (!c->unit_gflops.empty())
    out << "  (the tensor peaks: warp-level mma.sync chains, what gpubench's tensor kernels issue; Hopper's "
           "datasheet rates for tf32, f16 and bf16 need its warpgroup wgmma, which no probe runs)\n";
  out << "  ridge point            " << fixed(c->bandwidth_gbps() > 0 ? c->f64_gflops / c->bandwidth_gbps() : 0, 2)
      << " FLOP/byte (f64), " << fixed(c->bandwidth_gbps() > 0 ? c->f32_gflops / c->bandwidth_gbps() : 0, 2)
      << " (f32)\n";
  out << "  measured " << c->date << (c->host.empty() ? std::string(" on an unrecorded machine") : " on " + c->host)
      << " by gpubench " << c->commit << " with " << c->backend << " kernels, arrays of "
      << fixed(static_cast<double>(c->array_bytes) / (1 << 20), 0) << " MiB";
  if (sheet) out << "; datasheet: " << sheet->source;
  out << "\n\n";
}

}  // namespace gpubench
