// The device ceilings a roofline needs, measured with each API's own kernels (backends/<api>/
// ceilings.*): memory bandwidth (copy and triad over arrays far larger than the last-level cache)
// and peak FLOP/s (dependent FMA chains). Each backend registers its probe; bench/ stores the
// results in the tuning database and places every result under them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "backends/device.hpp"
#include "backends/registry.hpp"
#include "common/precision.hpp"

namespace gpubench {

struct Ceilings {
  double copy_gbps = 0;   // b[i] = a[i]: 2 x array bytes moved
  double triad_gbps = 0;  // a[i] = b[i] + s c[i]: 3 x array bytes moved
  double f32_gflops = 0;  // FMA = 2 FLOPs
  double f64_gflops = 0;  // 0 when the device has no fp64
  std::uint64_t array_bytes = 0;  // size of each array the bandwidth kernels used
  int trials = 1;                   // whole probes run; each figure above is the best of them
  double worst_bandwidth_gbps = 0;  // the worst trial's bandwidth: the spread (0: not known)
  std::string backend;            // whose kernels measured them
  std::string date;               // ISO 8601, when measured
  std::string commit;             // gpubench commit that measured them
  std::string host;               // the machine they were measured on (host name, CPU, CPUs); "" if not recorded
  double worst_f32_gflops = 0, worst_f64_gflops = 0;  // the worst trials' compute (0: not known)
  // The figures whose best no second trial confirmed, with the trials ("f64 47.0, 20.0, 21.0
  // GFLOP/s"); "" when every best was confirmed.
  std::string unconfirmed;
  // The caches' bandwidths (0: not measured), each the plateau of a working-set sweep that reads
  // from that level (backends/ceilings_common.hpp, cache_levels): the last-level cache (a GPU's L2)
  // and L1/shared memory. A kernel above the DRAM roof is placed against the level that served it.
  double l2_gbps = 0, l1_gbps = 0;
  // The sweeps themselves, (working-set bytes, GB/s) in ascending size: what the hierarchical
  // figure draws. The L2 sweep's working set is the whole device's, the L1 sweep's one CU's.
  std::vector<std::pair<double, double>> l2_sweep, l1_sweep;
  // The device's settings when they were measured (bench/energy.hpp: the power limit, the
  // application clocks), as a JSON object's text; "" where not known.
  std::string settings;
  // Not stored: what differs between `settings` and the device's settings now ("" nothing, or not known).
  std::string settings_differ;

  // The peaks of the units other than the FMA pipes, by the unit's name ("f64 tensor", "tf32
  // tensor", "f16 tensor", "bf16 tensor": the tensor cores with those inputs), each the best of the
  // probe's chains of that unit's instruction (backends/cuda/ceilings.cu: mma.sync); a unit the
  // device lacks, or the backend's probe does not measure, is absent. A kernel that runs on one is
  // placed against its peak (place(), the point's compute_unit), not against the FMA chains'.
  std::map<std::string, double> unit_gflops;

  // The roofline's bandwidth: the better of copy and triad.
  double bandwidth_gbps() const { return copy_gbps > triad_gbps ? copy_gbps : triad_gbps; }
  double peak_gflops(Precision p) const { return p == Precision::f32 ? f32_gflops : f64_gflops; }
  // The peak of `unit` ("": the FMA pipes at `p`); 0 where this unit's peak was not measured.
  double peak_gflops(Precision p, const std::string& unit) const {
    if (unit.empty()) return peak_gflops(p);
    const auto it = unit_gflops.find(unit);
    return it == unit_gflops.end() ? 0 : it->second;
  }
};

// Measures `device`'s ceilings; progress lines go to `log`. Throws DeviceError when a kernel
// fails to build, launch, or gives a wrong answer (each probe checks its kernels' results).
using CeilingProbe = std::function<Ceilings(const DeviceInfo& device, std::ostream& log)>;

void register_ceiling_probe(const std::string& backend, CeilingProbe probe);
// nullptr when `backend` has no probe in this build.
const CeilingProbe* find_ceiling_probe(const std::string& backend);

namespace detail {
struct CeilingProbeRegistrar {
  CeilingProbeRegistrar(const std::string& backend, CeilingProbe probe) {
    register_ceiling_probe(backend, std::move(probe));
  }
};
}  // namespace detail

}  // namespace gpubench

#define GPUBENCH_REGISTER_CEILING_PROBE(backend, probe)                                               \
  static const ::gpubench::detail::CeilingProbeRegistrar GPUBENCH_CONCAT(gpubench_ceilings_, __LINE__){ \
      backend, probe}
