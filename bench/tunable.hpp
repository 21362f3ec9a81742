// What a suite tells the sweeper about one tunable kernel on one device: its parameters, their
// legal values and the constraints between them (a TunableSpace), its heuristic, and how to
// measure it (verified) with a given set of values. The sweeper (bench/sweep.hpp), the run-time
// lookup (choose_launch_params) and the tables all read the same declaration.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/device.hpp"
#include "bench/params.hpp"
#include "bench/tuning_db.hpp"
#include "common/precision.hpp"

namespace gpubench {

// One parameter and its legal values, in ascending order for ranges and in the declared order
// for a list; "one step" (TunableSpace::neighbours) is one place along that order.
struct Tunable {
  std::string name;         // as the suite declares it
  std::vector<int> values;  // never empty
  std::string legal;        // how the values were declared: "[1, 64]", "powers of two in [32, 1024]", "{1, 2, 4}"
  // The value the suite's built-in heuristic gives it, where the suite declares one here
  // (TunableSpace::defaults); none where the suite's heuristic computes it.
  std::optional<int> preferred = {};

  static Tunable range(std::string name, int min, int max);           // the integers in [min, max]
  static Tunable powers_of_two(std::string name, int min, int max);   // the powers of two there
  static Tunable list(std::string name, std::vector<int> values);     // exactly these
  // This tunable with `value` as its default: the largest of its values not above it (the
  // smallest value where all are above it), so that a device's limits keep it legal.
  Tunable defaulting_to(int value) const;
  bool allows(int value) const;
};

// A rule over a whole parameter set, e.g. "A * B <= 64". `holds` is called only
// with a value for every parameter of its space.
struct Constraint {
  std::string description;
  std::function<bool(const Params&)> holds;
};

struct TunableSpace {
  std::vector<Tunable> params;
  std::vector<Constraint> constraints;
  // The strategy a sweep uses for this kernel when none is asked for and no evaluation budget
  // is set (bench/strategy.hpp): "" for the default's own choice.
  std::string strategy = {};

  const Tunable* find(const std::string& name) const;  // nullptr when not declared
  // Whether `p` gives every declared parameter (and nothing else) a legal value and meets every
  // constraint; otherwise `why` (when given) says which parameter or constraint it breaks.
  bool legal(const Params& p, std::string* why = nullptr) const;
  // How many parameter sets the ranges allow, before constraints (saturates at SIZE_MAX).
  std::size_t size() const;
  // The legal parameter sets, the first parameter outermost, each in its values' order; at most `limit`.
  std::vector<Params> enumerate(std::size_t limit = static_cast<std::size_t>(-1)) const;
  // The legal sets that differ from `p` in one parameter by one step up or down.
  std::vector<Params> neighbours(const Params& p) const;
  // Each parameter's declared default (Tunable::defaulting_to): the heuristic of a kernel whose
  // tunables declare one. An internal Error when one does not.
  Params defaults() const;
};

// What is wrong with a stored parameter set against the parameters a kernel declares (their
// names and values, not a device's or a problem's constraints): "" when nothing.
std::string undeclared_params(const TunableSpace& declared, const nlohmann::json& params);

// "A=128 B=64": each parameter as declared, in name order.
std::string format_params(const Params& p);

// What a kernel compiled at run time is built with for `p`: each parameter as a macro of its name
// in capitals ({"name", 16} -> NAME=16), for NVRTC (compile_defines) and OpenCL (compile_options:
// " -DNAME=16"). A kernel's source reads its parameters by those names.
std::vector<std::pair<std::string, std::string>> compile_defines(const Params& p);
std::string compile_options(const Params& p);

// One configuration's measurement: the device time per call over several timed batches.
struct KernelTiming {
  double seconds = 0;            // per call: the median of the samples
  std::vector<double> samples;   // per call, one per timed batch
  double joules = 0;             // per call, where an energy objective measured it (0: not measured)
};

// The sweep's objective (--objective): what the search minimizes per call: the time, the energy,
// or the energy-delay product (J s).
enum class Objective { time, energy, edp };
Objective parse_objective(const std::string& text);  // UsageError naming the valid ones
std::string to_string(Objective o);
double cost(const KernelTiming& t, Objective o);
// Under an energy objective, time_batches also measures each configuration's energy on `device`
// (an energy pass of its batches, bench/energy.hpp); null: time only. Process-wide: the sweep sets
// it around its measurements.
void measure_energy_on(const DeviceInfo* device);

// The measure loop every tunable kernel uses: one call alone (Error(ExitCode::point_failed) when
// it takes longer than `time_limit_s`), then 5 batches of about 2 ms worth of calls (1 to 200),
// each one sample; the median is the time. `timed_calls(n)` makes n calls and returns their
// device time together. `one_call_s`: the time of a call already made (a timed verification
// call), which then stands for the first call. Under measure_energy_on, an energy pass of such
// batches follows (at least 1 s), its joules per call in `joules`; DeviceError where the device has
// no meter.
KernelTiming time_batches(const std::function<double(int calls)>& timed_calls, double time_limit_s,
                          double one_call_s = -1);

class TunableKernel {
 public:
  virtual ~TunableKernel() = default;
  virtual std::string name() const = 0;                  // "spmv"
  virtual TunableSpace tunables() const = 0;
  virtual Params heuristic() const = 0;                  // the built-in default: legal in tunables()
  // What heuristic() is, as a sweep's table says where its baseline comes from.
  virtual std::string heuristic_source() const { return "the built-in heuristic's configuration"; }
  virtual TuningKey key() const = 0;                     // where its best configuration is stored
  virtual double flops_per_call() const = 0;             // declared work
  virtual double bytes_per_call() const = 0;
  // What decides its results beyond gpubench's own build, the device, its driver and the problem
  // (a sweep cache reuses a measurement only where all of it is the same): a user's kernel spec
  // gives its and its sources' SHA-256. Default: nothing more.
  virtual nlohmann::json provenance() const { return nlohmann::json::object(); }
  // Runs the kernel once with `params` from known inputs and checks its result, then times it.
  // Throws DeviceError when it cannot build or launch, VerificationError when the result is
  // wrong, and Error(ExitCode::point_failed) when one call takes longer than `time_limit_s`.
  virtual KernelTiming measure(const Params& params, double time_limit_s) = 0;
  // A hint: `configs` are about to be measured. A kernel compiled at run time may build them
  // ahead, in parallel; a failure is left to measure() to report. Default: nothing.
  virtual void prepare(const std::vector<Params>& configs) { (void)configs; }
};

// What a run launches one kernel with: the tuning database's choice for `key` (exact key,
// nearest size, the device's default, then `heuristic`), or `heuristic` when `db` is null
// (--tuning off). Only the parameters `space` declares are taken, the heuristic's standing in
// for any the entry lacks; a set that breaks a range or a constraint is an InputError naming
// the entry, the device and what it breaks. An illegal heuristic is a bug (Error, internal).
struct LaunchChoice {
  Params params;
  TuningChoice choice;
};
LaunchChoice choose_launch_params(const TuningDb* db, const DeviceInfo& device, const TuningKey& key,
                                  const Params& heuristic, const TunableSpace& space);
// What the records keep of a choice: every parameter, with "from" and "detail".
nlohmann::json launch_json(const LaunchChoice& c);

// The kernels of one suite on one device, problem and precision.
struct SweepTarget {
  DeviceInfo device;
  std::string problem;  // "poisson2d:4096"
  Precision precision = Precision::f64;
  std::vector<std::unique_ptr<TunableKernel>> kernels;
  std::vector<std::string> untunable;  // kernels asked for with nothing to tune here, and why
};

}  // namespace gpubench
