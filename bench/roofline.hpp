// Where a measurement sits under its device's roofline. All of gpubench's roofline figures come
// from here: attainable GFLOP/s = min(peak, intensity x bandwidth), and the source thesis's
// "theoretical" view, which ignores the FLOP ceiling: intensity x bandwidth.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/ceilings.hpp"
#include "bench/tuning_db.hpp"

namespace gpubench {

struct RooflinePlace {
  double intensity = 0;           // FLOP per byte (declared work)
  double attainable_gflops = 0;   // min(peak, intensity x bandwidth)
  double roofline_pct = 0;        // measured / attainable
  double theoretical_gflops = 0;  // intensity x bandwidth
  double theoretical_pct = 0;     // measured / theoretical
  // Above the DRAM roof on its bandwidth side, where the caches' bandwidths were measured: the
  // first level whose roof holds it ("L2", then "L1"; the last one measured when none does) and
  // the place against that level's roof. "" where the DRAM roof holds it.
  std::string level;
  double level_pct = 0;
  // The unit whose peak the FLOP side is drawn with: "" the FMA pipes (the probe's FMA chains),
  // else the point's compute_unit ("f64 tensor"). unit_unmeasured: these ceilings hold no peak of
  // that unit (its backend's probe measures none), so the FMA peak stands in, and says so.
  std::string unit;
  bool unit_unmeasured = false;
  double peak_gflops = 0;  // the peak the place is drawn with (0: none known)
  nlohmann::json to_json() const;
};

// Whether memory traffic says anything of work with this intensity: above 1000 FLOP/B it has
// nothing to do with a kernel's time on any device (H100's ridge point is about 20), so its GB/s,
// FLOP/B and bandwidth-bound figures are "-", not 3.42e+08.
bool memory_applies(double flops, double bytes);

// `flops` and `bytes` of work done in `seconds`; zeros when nothing is known. Work with bytes and
// no FLOPs (a copy, a transpose) is placed against the bandwidth alone: roofline_pct = GB/s / bandwidth.
// `unit`: the unit the work ran on ("" the FMA pipes; "f64 tensor", ...: Ceilings::unit_gflops).
RooflinePlace place(double flops, double bytes, double seconds, const Ceilings& c, Precision p,
                    const std::string& unit = "");

// The device's ceilings: from the database, or measured (and stored, when `db` is given) when
// missing or when `remeasure`. nullopt, with the reason on `log`, when the backend has no probe.
std::optional<Ceilings> device_ceilings(const DeviceInfo& d, TuningDb* db, bool remeasure, std::ostream& log);

// The vendor's datasheet figures for devices gpubench knows ("NVIDIA H100 80GB HBM3": SXM5),
// to print beside the measured ones.
struct Datasheet {
  std::string source;  // which product and document
  double bandwidth_gbps = 0, f32_gflops = 0, f64_gflops = 0;
  std::map<std::string, double> unit_gflops;  // dense (no sparsity), by Ceilings::unit_gflops' names
};
std::optional<Datasheet> datasheet(const DeviceInfo& d);

// Whole probes a measurement runs: the ceilings are each the best of them (a probe on a busy
// CPU read 42.2, 17.9, 26.9 and 16.4 GB/s on four runs), and the worst trial gives the spread.
inline constexpr int ceiling_trials = 3;
// Each ceiling (bandwidth, f32, f64) is the best of the trials, and stands only where a second trial
// comes within this fraction of it; until then more trials run, up to ceiling_max_trials, and
// ceilings still unconfirmed are marked so (Ceilings::unconfirmed) wherever they are shown.
inline constexpr double ceiling_confirmation = 0.8;
inline constexpr int ceiling_max_trials = 6;
// `other`'s cache levels where they are better than `c`'s (each with its sweep), and its units' peaks.
void take_better_levels(Ceilings& c, const Ceilings& other);
// The best of each figure over `trials`, with the worst trials' figures (the spread).
Ceilings combine_trials(const std::vector<Ceilings>& trials);
// "" when every figure's best is confirmed by a second trial; else which are not, with the trials'
// figures ("f64 47.0, 40.0, 6.6 GFLOP/s").
std::string unconfirmed_ceilings(const std::vector<Ceilings>& trials);
// This machine, as the ceilings record it: "vm (AMD EPYC 9454 48-Core Processor, 2 CPUs)".
std::string this_host();

// The physical device that `d` is, whatever the backend that sees it: every CPU device of this
// host is its CPU ("cpu"); a GPU is its name where its backend has one device of that name (two
// identical GPUs keep their backend's own index: APIs number them differently). ViennaCL's
// devices are OpenCL's.
std::string physical_device(const DeviceInfo& d);
// One roof per physical device: each figure the best that any backend's probe measured on it (a
// ceiling that a library beats is no ceiling); the others' fields from the best bandwidth's.
Ceilings merge_ceilings(const std::vector<Ceilings>& measured);
// "best of 3 (worst 16.4 GB/s)", or "1" for ceilings stored before trials were kept.
std::string trials_text(const Ceilings& c);

// `gpubench roofline`: one block per device.
void write_ceilings(const DeviceInfo& d, const std::optional<Ceilings>& c, std::ostream& out);

}  // namespace gpubench
