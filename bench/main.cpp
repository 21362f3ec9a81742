// gpubench: benchmark and verify GPU kernels across APIs.
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench/cli.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"
#include "common/test_hooks.hpp"
#include "bench/format.hpp"
#include "bench/harness.hpp"
#include "bench/interrupt.hpp"
#include "bench/isolation.hpp"
#include "bench/list_devices.hpp"
#include "bench/mpi.hpp"
#include "bench/record_fields.hpp"
#include "bench/records.hpp"
#include "bench/report.hpp"
#include "bench/result_json.hpp"
#include "bench/roofline.hpp"
#include "bench/replay.hpp"
#include "bench/sweep.hpp"
#include "bench/tuning_db.hpp"
#include "bench/tuning_db_file.hpp"
#include "bench/build_info.hpp"
#include "backends/registry.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <regex>

namespace {

void write_out(const gpubench::CliOptions& options, const std::string& text) {
  if (options.out.empty()) {
    std::cout << text;
  } else {
    try {
      gpubench::write_file_atomically(options.out, text);
    } catch (const gpubench::Error&) {
      std::cout << text;  // the run's figures are not lost with the file
      throw;
    }
    std::cerr << "gpubench: wrote " << options.out << "\n";
  }
}

// gpubench roofline: each asked-for backend's device, its ceilings beside the datasheet's.
int roofline(const gpubench::CliOptions& options, gpubench::TuningDb& db) {
  using namespace gpubench;
  nlohmann::json all = nlohmann::json::array();
  std::ostringstream table, csv;
  csv << "backend,index,device,copy_gbps,triad_gbps,bandwidth_gbps,worst_bandwidth_gbps,trials,f32_gflops,f64_gflops,"
         "array_bytes,measured,commit,datasheet,datasheet_bandwidth_gbps,datasheet_f32_gflops,datasheet_f64_gflops\n";
  bool any = false;
  for (std::size_t k = 0; k < options.run.backends.size(); ++k) {
    const std::string& backend = options.run.backends[k];
    DeviceInfo d;
    try {
      d = find_device(backend, options.run.device_of(k));
    } catch (const DeviceError& e) {
      if (options.run.backends.size() == 1) throw;
      std::cerr << "gpubench: skipping backend " << backend << ": " << e.what() << std::endl;
      continue;
    }
    const auto c = device_ceilings(d, &db, options.remeasure, std::cerr);
    write_ceilings(d, c, table);
    any = any || c.has_value();
    nlohmann::json j = {{"device", DeviceIdentity::of(d).to_json()}, {"backend", d.backend}, {"index", d.index}};
    if (c) j["ceilings"] = *c;
    const auto sheet = datasheet(d);
    if (sheet)
      j["datasheet"] = {{"source", sheet->source}, {"bandwidth_gbps", sheet->bandwidth_gbps},
                        {"f32_gflops", sheet->f32_gflops}, {"f64_gflops", sheet->f64_gflops}};
    all.push_back(j);
    // One row per device; a device without a probe has its identity and empty figures.
    const auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
    csv << d.backend << "," << d.index << "," << quoted(d.name) << ",";
    if (c)
      csv << c->copy_gbps << "," << c->triad_gbps << "," << c->bandwidth_gbps() << "," << c->worst_bandwidth_gbps << ","
          << c->trials << "," << c->f32_gflops << "," << c->f64_gflops << "," << c->array_bytes << "," << c->date << ","
          << c->commit << ",";
    else
      csv << ",,,,,,,,,,";
    if (sheet)
      csv << quoted(sheet->source) << "," << sheet->bandwidth_gbps << "," << sheet->f32_gflops << "," << sheet->f64_gflops;
    else
      csv << ",,,";
    csv << "\n";
  }
  if (options.format == Format::json) write_out(options, all.dump(2) + "\n");
  else if (options.format == Format::csv) write_out(options, csv.str());
  else write_out(options, table.str());
  if (options.format != Format::table && !options.out.empty()) std::cout << table.str();
  return any ? 0 : static_cast<int>(ExitCode::device);
}

// gpubench sweep: every tunable kernel of the suite on each backend's device and precision;
// the best of each goes to the tuning database (unless --tuning off).
int sweep(const gpubench::CliOptions& options, const std::shared_ptr<gpubench::TuningDb>& db) {
  using namespace gpubench;
  if (options.format == Format::csv) throw UsageError("sweep writes a table or json, not csv");
  auto suite = make_suite(options.run.suite);
  std::vector<SweepTarget> targets;
  for (const std::string& problem : problem_list(options.run.suite, options.run.problem)) {
    RunOptions one = options.run;
    one.problem = problem;
    for (auto& t : suite->sweep_targets(one, options.kernel)) targets.push_back(std::move(t));
  }
  std::string why;
  bool anything = false;
  for (const auto& t : targets) {
    anything = anything || !t.kernels.empty();
    for (const auto& u : t.untunable) why += "\n  " + u;
  }
  if (!anything) throw UsageError("nothing to sweep:" + (why.empty() ? std::string(" no device") : why));
  for (const auto& t : targets)  // an energy objective on a device without a meter: before anything runs
    if (!t.kernels.empty()) check_objective(t.device, options.sweep.objective);
  if (options.tuning)  // a database the sweep cannot write is said before anything is measured
    for (const auto& t : targets)
      if (!t.kernels.empty()) gpubench::writable_tuning_db_file(db->path_for(t.device));
  const bool terminal = isatty(fileno(stderr)) != 0;
  std::vector<SweepReport> reports;
  std::optional<ExitCode> store_failed;
  const std::string date = iso_timestamp();
  for (auto& target : targets) {
    const auto ceilings = device_ceilings(target.device, db.get(), false, std::cerr);
    reports.push_back(gpubench::sweep(target, options.sweep, ceilings, std::cerr, terminal));
    target.kernels.clear();  // frees the device memory before the next target
    const auto entries = best_entries(reports.back(), date, build_commit);
    if (options.tuning && !entries.empty()) {
      // A database that cannot be written now (another's lock held too long, a full disk) loses
      // this target's entries only: the sweep goes on, its table and --out keep every best.
      try {
        const auto notes = db->record(target.device, entries, options.replace);
        const auto stored = std::count_if(notes.begin(), notes.end(),
                                          [](const std::string& n) { return n.find(": kept the stored") == std::string::npos; });
        std::cerr << "gpubench: stored " << stored << " entries in " << db->path_for(target.device) << "\n";
        for (const auto& note : notes) std::cerr << "gpubench:   " << note << "\n";
      } catch (const Error& e) {
        std::cerr << "gpubench: NOT STORED: " << entries.size() << " entries of " << target.device.label() << ": "
                  << e.what() << " (the table and --out keep them)\n";
        if (!store_failed) store_failed = e.code();
      }
    }
  }
  std::ostringstream table;
  write_sweep_table(reports, table);
  if (options.format == Format::json) {
    nlohmann::json records{{"gpubench_version", GPUBENCH_VERSION}, {"gpubench_commit", build_commit},
                           {"date", date}, {"sweeps", sweep_json(reports)}};
    if (const auto hooks = test_hooks_set(); !hooks.empty()) records["test_hooks"] = hooks;
    write_out(options, records.dump(2) + "\n");
    if (!options.out.empty()) std::cout << table.str();
  } else {
    write_out(options, table.str());
  }
  if (store_failed) return static_cast<int>(*store_failed);
  bool all_tuned = true;
  for (const auto& r : reports)
    for (const auto& k : r.kernels) all_tuned = all_tuned && k.best >= 0;
  return all_tuned ? 0 : static_cast<int>(ExitCode::point_failed);
}

// gpubench sweep --replay CACHE..: the strategies against caches, no device.
int replay(const gpubench::CliOptions& options) {
  using namespace gpubench;
  if (options.format == Format::csv) throw UsageError("a replay writes a table or json, not csv");
  ReplayOptions r;
  r.strategies = options.strategies;
  r.seed = options.sweep.seed;
  r.seeds = options.seeds;
  r.max_evals = options.sweep.max_evals;
  r.time_budget_s = options.sweep.time_budget_s;
  r.patience = options.sweep.patience;
  const auto kernels = gpubench::replay(options.replay, r, std::cerr);
  if (kernels.empty()) throw InputError("nothing to replay: no cache holds a verified configuration");
  std::ostringstream table;
  write_replay_table(kernels, r, table);
  if (options.format == Format::json) {
    const nlohmann::json j{{"gpubench_version", GPUBENCH_VERSION}, {"gpubench_commit", build_commit},
                           {"replays", replay_json(kernels, r)}};
    write_out(options, j.dump(1) + "\n");
    if (!options.out.empty()) std::cout << table.str();
  } else {
    write_out(options, table.str());
  }
  return 0;
}

// A null stream buffer: what the ranks other than rank 0 would print.
struct Discard final : std::streambuf {
  int overflow(int c) override { return c; }
};

// `gpubench tuning show`: the database's entries, each checked against what its kernel declares
// (a name it does not take, a value outside its values; a device's and a problem's limits are a
// run's to check).
int tuning_show(const gpubench::CliOptions& options, const gpubench::TuningDb& db) {
  using namespace gpubench;
  const auto check = [](const std::string& suite, const std::string& kernel, const nlohmann::json& params) {
    std::unique_ptr<Suite> s;
    try {
      s = make_suite(suite);
    } catch (const UsageError&) {
      return "no suite '" + suite + "' in this build";
    }
    const auto declared = s->parameters_of(kernel);
    // A user's spec declares its tunables in its own file, which a run reads and checks the entry against.
    if (!declared && suite == "spec") return std::string();
    return declared ? undeclared_params(*declared, params) : "the " + suite + " suite tunes no kernel '" + kernel + "'";
  };
  db.show(std::cout, {options.backend_filter, options.device_filter, options.suite_filter, options.kernel_filter}, check);
  return 0;
}

// The suite's plan for the command line, --filter applied; UsageError when nothing is left to run.
gpubench::Plan planned_points(const gpubench::CliOptions& options, const std::shared_ptr<gpubench::Comm>& comm,
                              const std::shared_ptr<gpubench::TuningDb>& db) {
  using namespace gpubench;
  RunOptions run_options = options.run;
  run_options.comm = comm;
  if (options.tuning) run_options.tuning = db;
  // Each problem --problem names (a list, a range) plans its own points, in order.
  Plan plan;
  auto suite = make_suite(options.run.suite);
  for (const std::string& problem : problem_list(options.run.suite, options.run.problem)) {
    run_options.problem = problem;
    Plan one = suite->plan(run_options);
    for (auto& p : one.points) plan.points.push_back(std::move(p));
    for (auto& u : one.unavailable)
      if (std::find(plan.unavailable.begin(), plan.unavailable.end(), u) == plan.unavailable.end())
        plan.unavailable.push_back(std::move(u));
  }
  if (!options.run.filter.empty()) {
    // --filter: the planned points whose name matches (the rest are not run, and not said unavailable).
    const std::regex pattern(options.run.filter);
    std::string names;
    for (const auto& p : plan.points) names += "\n  " + p->id().name();
    std::erase_if(plan.points, [&](const auto& p) { return !std::regex_search(p->id().name(), pattern); });
    if (plan.points.empty())
      throw UsageError("--filter " + options.run.filter + " matches none of the planned points:" + names);
  }
  std::vector<PointId> planned;
  for (const auto& p : plan.points) planned.push_back(p->id());
  check_baseline(options.baseline, planned);
  if (plan.points.empty()) {
    std::string why;
    for (const auto& u : plan.unavailable) why += "\n  " + u;
    throw UsageError("nothing to run:" + (why.empty() ? std::string(" no backend has a device") : why));
  }
  return plan;
}

// The roofline ceilings of the plan's devices (each measured once, one roof per physical device);
// none for a point across devices.
gpubench::CeilingsByDevice plan_ceilings(const gpubench::Plan& plan, gpubench::TuningDb& db) {
  using namespace gpubench;
  CeilingsByDevice ceilings;
  std::vector<DeviceInfo> measured;  // each device once
  for (const auto& p : plan.points) {
    const DeviceInfo& d = p->id().device;
    if (p->id().devices.size() > 1 || ceilings.count(device_key(d))) continue;
    if (auto c = device_ceilings(d, &db, false, std::cerr)) ceilings[device_key(d)] = *c, measured.push_back(d);
  }
  one_roof_per_physical_device(ceilings, measured, std::cerr);
  return ceilings;
}

// The run's records in the --format asked for, to --out or stdout (the table on stdout as well
// when they go to a file), and CSV's per-kernel table beside its file.
void emit(const gpubench::CliOptions& options, const gpubench::RunReport& report) {
  using namespace gpubench;
  std::ostringstream formatted;
  if (options.format == Format::json) write_json(report, formatted);
  if (options.format == Format::csv) write_csv(report, formatted);
  if (options.format == Format::table) write_table(report, formatted, options.baseline, options.breakdown, options.energy);
  if (!options.out.empty() && options.format != Format::table)
    write_table(report, std::cout, options.baseline, options.breakdown, options.energy);
  write_out(options, formatted.str());
  if (options.format == Format::csv && !options.out.empty()) {
    std::ostringstream kernels;
    write_kernel_csv(report, kernels);
    write_file_atomically(kernel_csv_path(options.out), kernels.str());
    std::cerr << "gpubench: wrote " << kernel_csv_path(options.out) << " (the per-kernel table)\n";
  }
}

// `gpubench run`: the plan measured, its records written; the exit code says how it went.
int measure(const gpubench::CliOptions& options, const std::shared_ptr<gpubench::Comm>& comm,
            const std::shared_ptr<gpubench::TuningDb>& db) {
  using namespace gpubench;
  Plan plan = planned_points(options, comm, db);
  const CeilingsByDevice ceilings = plan_ceilings(plan, *db);
  // Across ranks, a rank's failure ends the run from inside a point: rank 0 first writes the points
  // measured before it, the failure said in the context ("ended_early").
  std::optional<RunReport> so_far;
  std::function<void(const RunReport&)> keep;
  struct Forget {  // the last words use this scope's variables: gone with them (a throw included)
    const std::shared_ptr<Comm>& comm;
    ~Forget() {
      if (comm) comm->set_last_words(nullptr);
    }
  } forget{comm};
  if (comm && comm->size() > 1) {
    comm->set_hang_timeout(options.point_timeout_s);
    keep = [&](const RunReport& r) { so_far = r; };
    comm->set_last_words([&](const std::string& failure) {
      if (!so_far || so_far->points.empty()) return;
      so_far->context["ended_early"] = failure;
      std::cerr << "gpubench: the " << so_far->points.size() << " point(s) measured before it:" << std::endl;
      emit(options, *so_far);
    });
  }
  Timing timing{options.run.repetitions, options.run.warmup, options.run.min_time_s};
  timing.interleave_seed = options.run.interleave_seed;
  const RunReport report = run_plan(plan, timing, ceilings, std::cerr, keep);
  emit(options, report);
  if (const int sig = interrupt::requested()) return interrupt::exit_code(sig);
  return report.exit_code();
}

int run(const std::vector<std::string>& args, const std::shared_ptr<gpubench::Comm>& comm) {
  using namespace gpubench;
  if (!args.empty() && args[0] == "report") exec_reports_program("report.py", {args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "track") exec_reports_program("track.py", {args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "schema") {  // the records' JSON Schema, from bench/record_fields.cpp
    if (args.size() > 1) throw UsageError("gpubench schema takes no options (it prints the records' JSON Schema)");
    std::cout << records_schema().dump(2) << "\n";
    return 0;
  }
  CliOptions options = parse_cli(args);
  // Across ranks, rank 0 prints and writes; the others only measure (a failure is said by rank 0).
  static Discard discard;
  if (comm && comm->rank() != 0) {
    std::cout.rdbuf(&discard);
    std::cerr.rdbuf(&discard);
    options.out.clear();
  }
  if (options.help) {
    std::cout << options.help_text;
    return 0;
  }
  if (options.version) {
    std::cout << "gpubench " << GPUBENCH_VERSION << " (commit " << build_commit << ")\n";
    return 0;
  }
  // Runs and sweeps go on in a worker process, forked before this one opens any device.
  // An --out that cannot be written is refused now, not after the whole run.
  if (!options.out.empty() && !options.list_devices && options.command != Command::tuning_show) {
    check_writable(options.out);
    if (options.format == Format::csv && options.command == Command::run) check_writable(kernel_csv_path(options.out));
  }
  if (options.command == Command::sweep && !options.replay.empty()) return replay(options);
  const bool measures = !options.list_devices && (options.command == Command::run || options.command == Command::sweep);
  if ((measures || options.command == Command::roofline) && !options.list_devices)
    if (const std::string hooks = test_hooks_text(); !hooks.empty())
      std::cerr << "gpubench: TEST HOOKS SET, this run's figures may be planted and are marked so in its records: " << hooks
                << std::endl;
  // Under mpirun the ranks are MPI's processes: none forks a worker (a crash ends the run).
  // Ctrl-C or SIGTERM stop a run after its current step, and its finished points are written
  // (bench/interrupt.hpp); sweeps and the other commands end at once. Under mpirun, mpirun decides.
  const bool graceful = options.command == Command::run && !options.list_devices && !comm;
  if (measures && options.isolate && !comm) {
    if (const auto code = isolation::supervise({options.point_timeout_s, graceful}, std::cerr)) return *code;
  } else if (graceful) {
    interrupt::catch_signals(true, true);
  }
  if (measures && !options.isolate && !comm) isolation::watch_without_worker(options.point_timeout_s);

  if (options.list_devices) {
    std::ostringstream listed;
    const bool any = list_devices(options.run.backends, options.run.backend_devices, options.format == Format::json, listed);
    write_out(options, listed.str());
    return any ? 0 : static_cast<int>(ExitCode::device);
  }
  // Ceilings always come from (and go to) the database; --tuning off only stops runs from taking
  // launch parameters from it, and sweeps from storing theirs.
  tuning_db_busy_timeout_s = options.busy_timeout_s;
  const auto db = std::make_shared<TuningDb>(open_tuning_db(options.tuning_db));
  if (options.command == Command::tuning_show) return tuning_show(options, *db);
  if (options.command == Command::roofline) return roofline(options, *db);
  if (options.command == Command::sweep) return sweep(options, db);
  return measure(options, comm, db);
}

// A run that ends in an error: said, with its exit code. Across ranks, the whole run ends (rank 0
// says which rank failed and why).
int ended(const std::shared_ptr<gpubench::Comm>& comm, const std::string& message, gpubench::ExitCode code) {
  if (comm && comm->size() > 1) comm->fail(message, static_cast<int>(code));
  std::cerr << "gpubench: " << message << "\n";
  return static_cast<int>(code);
}

}  // namespace

int main(int argc, char** argv) {
  // A write past a file-size limit (ulimit -f) fails with EFBIG, which is reported and the records
  // kept on stdout, instead of killing the process (workers inherit it).
  ::signal(SIGXFSZ, SIG_IGN);
  std::shared_ptr<gpubench::Comm> comm;
  try {
    comm = gpubench::start_mpi(&argc, &argv);
    return run(std::vector<std::string>(argv + 1, argv + argc), comm);
  } catch (const gpubench::UsageError& e) {
    return ended(comm, std::string(e.what()) + "\n(gpubench --help lists the options)", e.code());
  } catch (const gpubench::Error& e) {
    return ended(comm, e.what(), e.code());
  } catch (const std::bad_alloc&) {
    return ended(comm, gpubench::OutOfMemoryError("host", "").what(), gpubench::ExitCode::device);
  } catch (const std::exception& e) {
    return ended(comm, std::string("internal error: ") + e.what(), gpubench::ExitCode::internal);
  }
}
