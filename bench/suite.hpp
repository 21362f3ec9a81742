// What the harness needs from a suite: a plan of points, each of which can be prepared, run
// (timed on the device, verified) and profiled. Suites register themselves at start-up.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/device.hpp"
#include "common/comm.hpp"
#include "common/precision.hpp"
#include "bench/tunable.hpp"
#include "bench/tuning_db.hpp"

namespace gpubench {

// The part of the command line that suites read.
struct RunOptions {
  std::string suite;
  std::vector<std::string> backends;  // expanded: never "all"; a backend may come twice (cuda:0,cuda:1)
  // --backend B:N: the device of backends[k] (-1: not named there, `device` instead).
  std::vector<int> backend_devices;
  int device = -1;                    // -1: each backend's default device
  // The device index backends[k] runs on (-1: its default device).
  int device_of(std::size_t k) const {
    return k < backend_devices.size() && backend_devices[k] >= 0 ? backend_devices[k] : device;
  }
  // --device 0,1 or --device all: one solve split across these devices of each backend (only
  // CG's); empty and false for one device. Under mpirun, rank r takes the (local rank r)-th.
  std::vector<int> device_group;
  bool all_devices = false;
  // The ranks when started by mpirun (bench/mpi.hpp); null in one process.
  std::shared_ptr<Comm> comm;
  std::string problem;                // empty: the suite's default
  std::vector<std::string> specs;     // --spec FILE..: users' kernel specs (the spec suite)
  std::vector<Precision> precisions;
  std::vector<std::string> variants;  // empty: all of the suite's
  std::string filter;                 // --filter REGEX: only the points whose name matches (empty: all)
  int repetitions = 9;  // what compare.py's U test needs (its UTEST_OPTIMAL_REPETITIONS)
  int warmup = 0;         // --warmup N: untimed runs of each point before its repetitions
  // --interleave SEED: the points' repetitions in a random order (harness.hpp's Timing); -1: off.
  long long interleave_seed = -1;
  double min_time_s = 0;  // --min-time S: a repetition repeats the run until S s of device time
  // --NAME VALUE for the options the suite declares (Suite::options), unparsed: the suite reads them.
  std::map<std::string, std::string> suite_options;
  // The tuning database every run reads launch parameters from; null with --tuning off (each
  // kernel then runs with the built-in heuristic).
  std::shared_ptr<const TuningDb> tuning;
};

// An option that only one suite reads (CG's --iterations): the suite declares it, --help lists it
// under the suite, the command line takes it only with that suite, and the suite parses it.
struct SuiteOption {
  std::string name;   // without the dashes: "iterations"
  std::string value;  // the value's name in --help: "K"
  std::string help;   // one line
};

// The value of the suite option `name` as a number no smaller than `min` (a UsageError naming
// --name otherwise); nullopt when it was not given.
std::optional<long long> integer_option(const RunOptions& options, const std::string& name, long long min);
std::optional<double> real_option(const RunOptions& options, const std::string& name);

// Where a point sits in the measurement space.
struct PointId {
  std::string suite, problem, backend, variant;
  DeviceInfo device;
  Precision precision = Precision::f64;
  nlohmann::json params = nlohmann::json::object();  // launch parameters
  // A point solved across several devices: every band's device, in band order (`device` is band
  // 0's); empty for one device. Across MPI ranks (ranks > 0) band k is rank k's, on hosts[k].
  std::vector<DeviceInfo> devices;
  std::vector<std::string> hosts;
  int ranks = 0;

  // "cg/poisson2d:64/opencl:0/classic/f64": the benchmark name in records; across devices
  // "cg/poisson2d:64/opencl:0+1/classic/f64", across ranks ".../classic/f64/ranks:2".
  std::string name() const;
  // "opencl:0", "opencl:0+1", "openmp:0+opencl:0": where it runs.
  std::string where() const;
};

// One kernel's share of an iteration, from the profiled pass.
struct KernelRow {
  std::string kernel;
  double calls_per_iteration = 0;
  double seconds_per_iteration = 0;
  double flops_per_iteration = 0;  // declared work (0 for rows that have none, e.g. overhead)
  double bytes_per_iteration = 0;
};

// A profiled pass: each kernel timed alone (between waits for the device), and the pass's own
// time per iteration, measured in the same pass: the kernels are parts of it, so what is left
// (the overhead: launches, host gaps, read-backs) is never negative.
struct Profile {
  std::vector<KernelRow> kernels;
  double seconds_per_iteration = 0;
};

// Why a point takes a slower path than another API's would on its device, and what forces it: the
// records' "gap_causes" (a list of these), which `gpubench report models`' ledger and the run's
// table print, so that a reader can tell an API's limit from an implementation's choice. `by`:
// "api" (the API as the device's vendor implements it: NVIDIA's OpenCL gives a work-group at most
// 48 KiB of local memory), "compiler" (the toolchain the API comes with), "device" (the hardware
// lacks it), or "gpubench" (our own choice, a path not written yet). Throws an internal Error for
// another `by`.
nlohmann::json gap_cause(const std::string& by, const std::string& cause);

// One timed repetition.
struct Outcome {
  double seconds = 0;  // device time of the timed region
  int iterations = 0;  // iterations in it (the per-iteration figures divide by this)
  bool verified = false;
  std::string verification;                          // what was checked, and the result
  nlohmann::json fields = nlohmann::json::object();  // suite-specific record fields
};

class Point {
 public:
  explicit Point(PointId id) : id_(std::move(id)) {}
  virtual ~Point() = default;
  const PointId& id() const { return id_; }

  virtual void prepare() = 0;                       // allocate, upload, warm up
  virtual Outcome run() = 0;                        // one timed, verified repetition
  // The timed region alone, unverified, for a pass that needs only its time and what the device
  // drew meanwhile (the energy pass, bench/energy.hpp), so that the host's checking does not sit
  // between its timed regions. The default runs run(): its verification then counts as host time
  // between timed regions, which the pass's duty shows.
  virtual Outcome run_unverified() { return run(); }
  virtual Profile profile() = 0;                    // a separate pass with per-kernel events
  virtual double flops_per_iteration() const = 0;   // declared work
  // The unit its FLOPs run on once prepared, whose peak its roof is drawn with: "" the FMA pipes
  // (the probe's FMA chains), "f64 tensor" the FP64 tensor cores (Ceilings::unit_gflops' names).
  virtual std::string compute_unit() const { return {}; }
  virtual double bytes_per_iteration() const = 0;
  // What the timed region of one repetition holds, and what one iteration is, for the records:
  // "one CG iteration: kernels and the host gaps between them; no matrix upload".
  virtual std::string time_includes() const = 0;
  virtual void release() = 0;                       // free device memory

 private:
  PointId id_;
};

// What a suite plans: the points to run, and the combinations asked for that this build or
// machine cannot run ("vendor on openmp: no vendor library"), which are listed, not failed.
struct Plan {
  std::vector<std::unique_ptr<Point>> points;
  std::vector<std::string> unavailable;
};

class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;
  virtual std::string default_problem() const = 0;
  virtual std::string problems_help() const = 0;  // what --problem takes: "poisson2d:N, mtx:PATH, ..."
  virtual std::vector<std::string> variants() const = 0;
  // --problem, or the suite's default.
  std::string problem_of(const RunOptions& options) const {
    return options.problem.empty() ? default_problem() : options.problem;
  }
  virtual std::vector<SuiteOption> options() const { return {}; }
  // Throws UsageError for a value of its options it cannot take, so that the command line fails
  // before anything runs.
  virtual void check_option_values(const RunOptions&) const {}
  // Throws UsageError / InputError for options it cannot honour. Points that cannot run on a
  // device are still planned: their prepare() throws, and they are reported as failed.
  virtual Plan plan(const RunOptions& options) = 0;
  // The tunable kernels for `gpubench sweep`: one target per backend device and precision;
  // `kernel` non-empty picks one kernel. The default: this suite has nothing to tune (UsageError).
  virtual std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel);
  // The parameters tunable `kernel` takes and each one's values, as on the widest device (the
  // constraints of a device and a problem are left out: a run checks those); nullopt for a kernel
  // this suite does not tune. `tuning show` checks the database's entries against it.
  virtual std::optional<TunableSpace> parameters_of(const std::string& kernel) const {
    (void)kernel;
    return std::nullopt;
  }
};

// The one device-finding policy of every suite: the --device (or default) device of each
// --backend that `implemented` says the suite runs on. UsageError for a --device list or all, or
// a run under mpirun across ranks: those split one CG solve, and `suite` runs on one device. A backend without the suite, or (when
// several are asked for) without the device, is listed in `skipped` ("cuda: ...") and said on
// stderr; with one backend asked for, that is an error: UsageError without the suite,
// DeviceError without the device.
std::vector<DeviceInfo> suite_devices(const RunOptions& options, const std::string& suite,
                                      const std::function<bool(const std::string& backend)>& implemented,
                                      std::vector<std::string>& skipped);

// --problem as the problems it names: a comma list (a spec's problem is NAME=VALUE,..: there a NAME
// given again begins the next one), each with at most one range A..B (doubling), A..B*F or A..B+S
// (A, B whole numbers or 2^K; a spec's every size may have one: their product), in order, each
// once; {""} (the suite's default) for none. UsageError for a range it cannot take, or more than 256.
std::vector<std::string> problem_list(const std::string& suite, const std::string& problem);

void register_suite(std::function<std::unique_ptr<Suite>()> factory);
std::vector<std::string> suite_names();
std::unique_ptr<Suite> make_suite(const std::string& name);  // UsageError listing valid ones
// UsageError for a suite option in `options` that `suite` does not declare, naming the suite that does.
void check_suite_options(const Suite& suite, const RunOptions& options);

namespace detail {
struct SuiteRegistrar {
  explicit SuiteRegistrar(std::function<std::unique_ptr<Suite>()> f) { register_suite(std::move(f)); }
};
}  // namespace detail

}  // namespace gpubench

#define GPUBENCH_REGISTER_SUITE(type) \
  static const ::gpubench::detail::SuiteRegistrar gpubench_suite_##type{[] { return std::make_unique<type>(); }}
