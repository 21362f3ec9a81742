// What a point cost in energy, and the state (clocks, power limit, temperature) a device ran in.
//
// Each device gets a meter where one can be read: NVIDIA GPUs (CUDA and OpenCL alike) through the
// driver's NVML (libnvidia-ml.so.1, loaded with dlopen: its total-energy counter and its power
// samples), the host's CPU through RAPL (/sys/class/powercap, package domains). A device without
// one says why ("-" and the reason in the records).
//
// The energy pass runs a point's timed region back to back for at least a second (NVML's counter
// and RAPL's move in steps of milliseconds to tens of ms; NVML's power value refreshes about
// every 20 ms), the counter read around it and the power sampled every 5 ms on a thread of its
// own. The pass's energy over its wall time is its average power; one iteration's energy is that
// power times the pass's device time per iteration, and the share of the wall time the device
// spent in timed regions (the duty) says how much of the pass was host work in between.
//
// The test-only hook GPUBENCH_PLANTED_POWER=WATTS[:samples] (common/test_hooks.hpp) gives every
// device a meter that draws WATTS exactly: a counter and samples, or with ":samples" only samples;
// with GPUBENCH_PLANTED_GPU_PROCESS=NAME:SM_PCT that meter sees another process NAME on the device.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/device.hpp"

namespace gpubench {

class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  // What the counter is ("NVML total energy counter"); "" when the device has none.
  virtual std::string counter_source() const = 0;
  // What the power samples are ("NVML instantaneous power"); "" when it has none.
  virtual std::string sample_source() const = 0;
  virtual double joules() = 0;  // the counter, monotonic (only where counter_source() is not "")
  virtual double watts() = 0;   // one power sample (only where sample_source() is not "")
  // What the device reports of its state now, each figure where it is known: sm_mhz, mem_mhz,
  // power_limit_w, temperature_c.
  virtual nlohmann::json state() = 0;
  // The settings a ceiling depends on: the power limit and the clocks the device may run at
  // (application clocks, the CPU's maximum frequency); compared between ceilings and a run.
  virtual nlohmann::json settings() = 0;
  // The meter's clock for other_processes (NVML's: microseconds since the epoch).
  virtual unsigned long long now_us() { return 0; }
  // The other processes that used the device since `since_us` (issue 58 item 4): [{pid, name,
  // sm_pct (their highest SM use, %, where the driver samples it), used_mib}], this process and
  // the gpubench that started it left out; null with `why` where the meter cannot tell.
  virtual nlohmann::json other_processes(unsigned long long since_us, std::string& why) {
    (void)since_us;
    why = "this meter does not list the device's processes";
    return nullptr;
  }
};

// `device`'s meter, opened once per process and kept; null with `why_none` saying why there is none.
EnergyMeter* energy_meter(const DeviceInfo& device, std::string& why_none);

// The energy pass: `run` (one back-to-back batch of the point's timed region; it returns the
// device seconds and the iterations it ran) called until `min_seconds` of wall time have passed.
// Its record: source, joules_per_iteration, watts, gflops_per_joule (with `flops_per_iteration`),
// duty, pass_s, and from the samples watts_from_samples and the counter's agreement with them.
struct TimedBatch {
  double seconds = 0;
  int iterations = 0;
};
nlohmann::json energy_pass(EnergyMeter& meter, const std::function<TimedBatch()>& run, double flops_per_iteration,
                           double min_seconds = 1.0);

// The settings recorded with a device's ceilings against those now: "" when they match or either
// is unknown, else what differs ("power limit 700 W then, 500 W now").
std::string settings_difference(const nlohmann::json& then, const nlohmann::json& now);

}  // namespace gpubench
