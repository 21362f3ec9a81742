#include "bench/cli.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>

#include "backends/registry.hpp"
#include "bench/parse_number.hpp"
#include "common/errors.hpp"

namespace gpubench {

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Each registered suite's problems, variants and own options, in its own words.
std::string suites_help() {
  std::string text = "suites (--suite NAME), with their problems, variants and own options:\n";
  for (const auto& name : suite_names()) {
    const auto suite = make_suite(name);
    text += "  " + name + "\n";
    text += "    problems: " + suite->problems_help() + " (default " + suite->default_problem() + ")\n";
    text += "    variants: " + join(suite->variants()) + "\n";
    for (const auto& option : suite->options()) {
      std::string flag = "--" + option.name + " " + option.value;
      if (flag.size() < 20) flag += std::string(20 - flag.size(), ' ');
      text += "    " + flag + "  " + option.help + "\n";
    }
  }
  return text;
}

// "cuda:1" -> {"cuda", 1}; "openmp" -> {"openmp", -1}.
std::pair<std::string, int> backend_and_device(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return {text, -1};
  const std::string name = text.substr(0, colon);
  if (name.empty()) throw UsageError("--backend " + text + ": no backend before the ':' (e.g. cuda:0)");
  return {name, parse_number<int>("--backend " + name + ":N", text.substr(colon + 1), 0)};
}

// A value listed twice would plan the same points twice.
template <class T, class Name>
void check_unique(const std::string& option, const std::vector<T>& values, Name name) {
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j]) throw UsageError(option + " names " + name(values[i]) + " twice");
}

}  // namespace

namespace {

// What the command line said, as text: CLI11 finds the options, gpubench's own checks read the
// values (numbers through parse_number, lists, suites' options), so that every message names
// the option and what would be right. A single-valued option given twice is refused by name.
struct Raw {
  std::map<std::string, std::vector<std::string>> values;  // "--backend" -> what followed each time
  std::vector<std::string> params;                         // sweep --param, repeatable
  std::vector<std::string> replay;                         // sweep --replay, repeatable
  std::vector<std::string> specs;                          // --spec, repeatable
  bool list_devices = false, breakdown = false, energy = false, exhaustive = false, remeasure = false, version = false,
       replace = false;

  std::optional<std::string> one(const std::string& option) const {
    const auto it = values.find(option);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    if (it->second.size() > 1) throw UsageError(option + " is given twice");
    return it->second.front();
  }
};

// Which commands take an option: the run's own, the sweep's, the roofline's.
const std::vector<std::string> sweep_only_options = {"--kernel", "--param", "--exhaustive", "--time-limit",
                                                     "--time-budget", "--seed", "--strategy", "--max-evals",
                                                     "--cache", "--replay", "--seeds", "--objective", "--replace"};
const std::vector<std::string> roofline_only_options = {"--remeasure"};
const std::vector<std::string> run_only_options = {"--variant", "--filter", "--repetitions", "--warmup", "--min-time",
                                                   "--interleave",
                                                   "--baseline", "--breakdown", "--energy", "--list-devices"};

CLI::Option* text(CLI::App* app, Raw& raw, const std::string& option, const std::string& type, const std::string& help) {
  // One value each time; every time kept, so that Raw::one can name an option given twice.
  return app->add_option(option, raw.values[option], help)
      ->type_name(type)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// The options every measuring command shares: which devices, where the database is, the output.
void device_options(CLI::App* app, Raw& raw) {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  text(app, raw, "--backend", "B[:N][,B[:N]..]",
       join(names) + ", a comma list, or all (default all); B:N names device N of B, a separate point for each "
                     "(--backend cuda:0,cuda:1,opencl:1,openmp)");
  text(app, raw, "--device", "N",
       "device index within the backend, as --list-devices numbers them (default: the backend's first GPU, else "
       "its first device); for a cg run, N,N,.. or all splits one solve across those devices (under mpirun, "
       "rank r takes the r-th of this host's)");
  text(app, raw, "--tuning-db", "DIR",
       "the tuning database written (default $GPUBENCH_TUNING_DB, else $XDG_CACHE_HOME/gpubench, else "
       "~/.cache/gpubench); the source tree's tuning-db/ is read beneath it (write it with --tuning-db tuning-db)");
  text(app, raw, "--busy-timeout", "S",
       "how long a write to the tuning database waits for another gpubench holding its lock, saying which "
       "(default 30); then nothing is written");
}

void output_options(CLI::App* app, Raw& raw, const std::string& formats) {
  text(app, raw, "--format", "F", formats);
  text(app, raw, "--out", "FILE", "write the format to FILE (the table still goes to stdout)");
}

// The options of a suite's problem: the run's and the sweep's.
void problem_options(CLI::App* app, Raw& raw) {
  text(app, raw, "--suite", "NAME", "suite to run (" + join(suite_names()) + "; default cg)");
  text(app, raw, "--problem", "SPEC",
       "the suite's problem (below; default: the suite's own); a comma list and ranges A..B (doubling), A..B*F, "
       "A..B+S make several, each its own points (poisson2d:1024..8192, n=2^10..2^20)");
  app->add_option("--spec", raw.specs,
                  "a kernel of your own, declared in a spec file (docs/spec.md; repeatable: specs side by "
                  "side, each a variant); runs the spec suite, and --problem NAME=VALUE,.. sets its sizes")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  text(app, raw, "--precision", "P", "f32, f64, a comma list of them (f32,f64) or all (default f64)");
  text(app, raw, "--tuning", "on|off",
       "take each kernel's launch parameters from the tuning database (default on; off: the built-in heuristic); "
       "a sweep with off stores nothing");
  text(app, raw, "--isolate", "on|off",
       "run points (and sweep configurations) in a worker process, so that a crash or hang in a driver, compiler "
       "or kernel fails that point only (default on)");
  text(app, raw, "--point-timeout", "S",
       "a point or sweep configuration that makes no progress for S seconds (its setup, profiled pass, one "
       "repetition) is killed and FAILED as a hang (default 600); under mpirun, a rank waiting S seconds for the "
       "others ends the run");
  // Every suite's own options (--iterations, --tolerance, ...), each once: check_suite_options
  // later refuses one that the chosen suite does not declare.
  std::set<std::string> seen;
  for (const auto& name : suite_names()) {
    for (const auto& option : make_suite(name)->options()) {
      if (!seen.insert(option.name).second) continue;
      text(app, raw, "--" + option.name, option.value, option.help + " (suite " + name + ")");
    }
  }
}

void run_options(CLI::App* app, Raw& raw) {
  problem_options(app, raw);
  device_options(app, raw);
  text(app, raw, "--variant", "V[,V..]", "the suite's variants (below) or all (default all)");
  text(app, raw, "--filter", "REGEX", "only the points whose name (suite/problem/backend:device/variant/precision) "
                                      "matches REGEX (ECMAScript, anywhere in the name), as --benchmark_filter");
  text(app, raw, "--repetitions", "R",
       "timed repetitions per point (default " + std::to_string(RunOptions{}.repetitions) +
           ": compare.py's U test needs 9)");
  text(app, raw, "--warmup", "N", "untimed (but verified) runs of each point before its repetitions (default 0)");
  text(app, raw, "--min-time", "S",
       "each repetition repeats the point's run until it has taken at least S seconds of device time, and reports "
       "the time per iteration over them all (for short kernels, where the timer's resolution matters; default 0: "
       "one run)");
  text(app, raw, "--interleave", "SEED",
       "run the points' repetitions in a random order, as Google Benchmark's random interleaving: in rounds, each "
       "round every point once (set up, one repetition, released) in an order shuffled from SEED; the seed and the "
       "order go into the records (default: each point's repetitions back to back)");
  output_options(app, raw,
                 "table, json (Google Benchmark's layout: compare.py reads it) or csv (one row per point and "
                 "repetition; with --out, the per-kernel table goes beside it: run.csv -> run.kernels.csv); default "
                 "table");
  text(app, raw, "--baseline", "B[:D]:V",
       "the row speedups are computed against, e.g. cuda:vendor or opencl:1:classic (speedup = baseline time / "
       "row time; default: the first row)");
  app->add_flag("--breakdown", raw.breakdown, "the table adds each point's per-kernel times (a profiled pass)");
  app->add_flag("--energy", raw.energy,
                "the table adds each point's energy: J per iteration, average W and GFLOP/J, from an energy pass of "
                "at least 1 s (NVML on NVIDIA GPUs, RAPL on the host; the records carry them always)");
  app->add_flag("--list-devices", raw.list_devices,
                "list the devices of each backend (--backend picks them; --format json) and exit");
}

void sweep_options(CLI::App* app, Raw& raw) {
  problem_options(app, raw);
  device_options(app, raw);
  output_options(app, raw, "table or json (default table)");
  text(app, raw, "--kernel", "NAME", "sweep one kernel (default all tunable kernels)");
  app->add_option("--param", raw.params,
                  "visit these values only: a list and/or ranges of a parameter the kernel declares, e.g. NAME=8,16 or "
                  "NAME=1:16 "
                  "(repeatable)")
      ->type_name("NAME=VALUES")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::string strategies;
  for (const auto& s : gpubench::strategies()) strategies += "\n    " + s.name + ": " + s.help;
  text(app, raw, "--strategy", "NAME",
       "how configurations are chosen (default auto; a replay takes a comma list or all):" + strategies);
  app->add_flag("--exhaustive", raw.exhaustive, "the same as --strategy exhaustive");
  app->add_flag("--replace", raw.replace,
                "store each kernel's best even where the database holds a faster entry of other parameters (default: "
                "that one is kept, and said)");
  text(app, raw, "--max-evals", "N", "measure at most N configurations per kernel");
  text(app, raw, "--time-budget", "S",
       "start no configuration after S seconds per kernel (default: none; auto's search of a large space: " +
           std::to_string(static_cast<int>(default_time_budget_s)) + ")");
  text(app, raw, "--time-limit", "S", "a configuration whose one call takes longer fails (default 2)");
  text(app, raw, "--seed", "N", "the strategies' random choices (default 1; the same seed, the same search)");
  text(app, raw, "--objective", "O",
       "what the search minimizes per call: time (default), energy (joules, from an energy pass of at least 1 s "
       "per configuration: NVML or RAPL) or edp (energy x time)");
  text(app, raw, "--cache", "FILE",
       "append every configuration measured (time, or failure and why) to FILE, and take those FILE holds "
       "instead of measuring them again: a stopped sweep continues where it stopped");
  app->add_option("--replay", raw.replay,
                  "run the strategies against cache FILEs instead of a device (repeatable): each evaluation is "
                  "answered from the cache; with --seeds, the fraction of the optimum reached against evaluations")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  text(app, raw, "--seeds", "N", "a replay runs seeds --seed .. --seed + N - 1 of each strategy (default 1)");
}

void roofline_options(CLI::App* app, Raw& raw) {
  device_options(app, raw);
  output_options(app, raw, "table, json or csv (default table)");
  app->add_flag("--remeasure", raw.remeasure, "measure again even when the database has the ceilings");
}

void tuning_show_options(CLI::App* app, Raw& raw) {
  text(app, raw, "--tuning-db", "DIR", "the tuning database (default as for a run)");
  text(app, raw, "--backend", "B", "only this backend's devices");
  text(app, raw, "--device", "TEXT", "only devices whose name contains TEXT (case-insensitive)");
  text(app, raw, "--suite", "NAME", "only this suite's entries");
  text(app, raw, "--kernel", "NAME", "only this kernel's entries");
}

struct Commands {
  CLI::App app{"gpubench: benchmark and verify GPU kernels across APIs", "gpubench"};
  CLI::App* run = nullptr;
  CLI::App* sweep = nullptr;
  CLI::App* roofline = nullptr;
  CLI::App* tuning = nullptr;
  CLI::App* show = nullptr;

  explicit Commands(Raw& raw) {
    app.set_help_flag("-h,--help", "this text");
    app.add_flag("--version", raw.version, "the version and the commit it was built from");
    run = app.add_subcommand("run", "run a suite: time, verify, place on the roofline (the default command)");
    run_options(run, raw);
    run->footer(suites_help() + exit_codes);
    sweep = app.add_subcommand("sweep", "tune the suite's kernels, store the best in the tuning database");
    sweep_options(sweep, raw);
    sweep->footer(suites_help() + exit_codes);
    roofline = app.add_subcommand("roofline", "print (measure when missing) each device's ceilings");
    roofline_options(roofline, raw);
    tuning = app.add_subcommand("tuning", "the tuning database");
    show = tuning->add_subcommand("show", "print what the tuning database holds");
    tuning_show_options(show, raw);
    tuning->require_subcommand(1);
    for (CLI::App* sub : {run, sweep, roofline, show}) sub->allow_extras();
    app.require_subcommand(0, 1);
  }

  static constexpr const char* exit_codes =
      "\nExit codes: 0 all points verified, 1 a point failed, 2 usage, 3 input, 4 device (or out of memory).\n";
};

std::string commands_text() {
  return "gpubench: benchmark and verify GPU kernels across APIs\n\n"
         "  gpubench [run] [options]          run a suite: time, verify, place on the roofline\n"
         "  gpubench sweep [options]          tune the suite's kernels, store the best in the tuning database\n"
         "  gpubench roofline [options]       print (measure when missing) each device's ceilings\n"
         "  gpubench tuning show [options]    print what the tuning database holds\n"
         "  gpubench report [options]         tables (Markdown, LaTeX, CSV), figures and the studies from records\n"
         "  gpubench track [options]          nightly tracking: run the tracked set, import records, check for regressions, publish the dashboard\n"
         "  gpubench schema                   the JSON Schema of the records (reports/gpubench_reports/records.schema.json)\n"
         "  gpubench --list-devices [--backend B] [--format json]\n"
         "  gpubench --version\n"
         "\n'gpubench COMMAND --help' lists a command's options; the run's follow.\n\n";
}

// The deepest command the line chose (for its --help).
const CLI::App* chosen(const Commands& c) {
  if (c.show->parsed()) return c.show;
  if (c.tuning->parsed()) return c.tuning;
  for (const CLI::App* sub : {c.run, c.sweep, c.roofline})
    if (sub->parsed()) return sub;
  return &c.app;
}

// An option CLI11 did not know in this command: a hint when another command takes it.
[[noreturn]] void refuse_extra(const std::string& command, const std::string& extra) {
  const std::string key = extra.substr(0, extra.find('='));
  auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), key) != v.end(); };
  if (command != "sweep" && in(sweep_only_options))
    throw UsageError(key + " is a sweep option: gpubench sweep " + key + " ...");
  if (command != "roofline" && in(roofline_only_options))
    throw UsageError(key + " is a roofline option: gpubench roofline " + key);
  if (command == "sweep" && key == "--variant")
    throw UsageError("sweep tunes kernels, not variants: drop --variant (use --kernel)");
  if (command != "run" && in(run_only_options))
    throw UsageError(key + " is an option of a run, not of gpubench " + command + ": drop it");
  if (key.rfind("-", 0) == 0) throw UsageError("unknown option '" + extra + "' (see gpubench " + command + " --help)");
  throw UsageError("unexpected argument '" + extra + "' (see gpubench " + command + " --help)");
}

// CLI11's messages, in gpubench's words where they say less: "--problem needs a value".
[[noreturn]] void refuse(const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    const auto colon = what.find(':');
    if (colon != std::string::npos && what.rfind("--", 0) == 0) throw UsageError(what.substr(0, colon) + " needs a value");
  }
  throw UsageError(what);
}

Format parse_format(const std::string& f) {
  if (f == "table") return Format::table;
  if (f == "json") return Format::json;
  if (f == "csv") return Format::csv;
  throw UsageError("unknown format '" + f + "' (valid: table, json, csv)");
}

bool on_off(const std::string& option, const std::string& value) {
  if (value != "on" && value != "off") throw UsageError(option + " takes on or off, got '" + value + "'");
  return value == "on";
}

}  // namespace

std::string usage() {
  Raw raw;
  Commands c(raw);
  return commands_text() + c.run->help("gpubench");
}

CliOptions parse_cli(const std::vector<std::string>& args) {
  CliOptions o;
  o.run.suite = "cg";
  if (args.empty()) {  // no arguments: usage, not a run of every backend
    o.help = true;
    o.help_text = usage();
    return o;
  }
  std::vector<std::string> line = args;
  const std::set<std::string> commands = {"run", "sweep", "roofline", "tuning"};
  if (line[0].rfind("-", 0) != 0 && !commands.count(line[0]))
    throw UsageError("unknown command '" + line[0] + "' (valid: run, sweep, roofline, tuning show, report, track, schema)");
  const bool global = line[0] == "--help" || line[0] == "-h" || line[0] == "--version";
  if (!commands.count(line[0]) && !global) line.insert(line.begin(), "run");  // the run is the default command
  if (line == std::vector<std::string>{"tuning"} || (line[0] == "tuning" && line.size() > 1 && line[1] != "show" &&
                                                     line[1].rfind("-", 0) != 0))
    throw UsageError("'gpubench tuning' needs a subcommand: tuning show");

  Raw raw;
  Commands c(raw);
  std::vector<std::string> reversed(line.rbegin(), line.rend());
  try {
    c.app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    o.help = true;
    const CLI::App* which = chosen(c);
    if (which == &c.app) o.help_text = usage();
    else o.help_text = which->help(which == c.show ? "gpubench tuning" : "gpubench");
    return o;
  } catch (const CLI::ParseError& e) {
    refuse(e);
  }
  if (raw.version) {
    o.version = true;
    return o;
  }
  const CLI::App* command = chosen(c);
  if (command == c.tuning) throw UsageError("'gpubench tuning' needs a subcommand: tuning show");
  const std::string command_name = command == c.show ? "tuning show" : command->get_name();
  for (const CLI::App* sub : {c.run, c.sweep, c.roofline, c.show})
    if (sub->parsed() && !sub->remaining().empty()) refuse_extra(command_name, sub->remaining().front());

  o.command = command == c.sweep ? Command::sweep : command == c.roofline ? Command::roofline
            : command == c.show  ? Command::tuning_show : Command::run;
  o.list_devices = raw.list_devices;
  o.breakdown = raw.breakdown;
  o.energy = raw.energy;
  o.remeasure = raw.remeasure;
  if (raw.exhaustive) o.sweep.strategy = "exhaustive";
  if (const auto v = raw.one("--suite")) o.run.suite = *v;
  if (!raw.specs.empty()) {
    if (raw.one("--suite") && *raw.one("--suite") != "spec")
      throw UsageError("--spec runs your kernel (the spec suite): not with --suite " + *raw.one("--suite"));
    o.run.suite = "spec";
    for (const auto& s : raw.specs)
      if (s.empty()) throw UsageError("--spec is empty: give the spec file");
    o.run.specs = raw.specs;
  }
  if (const auto v = raw.one("--device")) {
    if (o.command == Command::tuning_show) o.device_filter = *v;
    else if (*v == "all") o.run.all_devices = true;
    else if (v->find(',') != std::string::npos) {
      std::stringstream in(*v + ",");
      for (std::string n; std::getline(in, n, ',');) {
        if (n.empty()) throw UsageError("--device " + *v + ": an empty device index (give N,N,.. or all)");
        const int d = parse_number<int>("--device", n, 0);
        // A device named twice is two bands of the solve on one device: how the split and its
        // exchanges are tested without a second device. Said, since it is never a scaling figure.
        if (std::find(o.run.device_group.begin(), o.run.device_group.end(), d) != o.run.device_group.end() &&
            o.command == Command::run)
          std::cerr << "gpubench: --device " << *v << ": device " << n
                    << " is named twice: its bands of the solve share that one device (a test of the split, "
                       "not a figure of several devices)\n";
        o.run.device_group.push_back(d);
      }
    }
    else o.run.device = parse_number<int>("--device", *v, 0);
    if ((o.run.all_devices || !o.run.device_group.empty()) && o.command != Command::run)
      throw UsageError("--device " + *v + " splits one CG run across devices; " + command_name +
                       " takes one device: --device N");
  }
  // An empty value is a mistake (a shell variable that was not set), never "the default".
  for (const char* option : {"--problem", "--variant", "--backend", "--precision", "--suite", "--filter", "--device",
                             "--out", "--format", "--baseline"})
    if (const auto v = raw.one(option); v && v->find_first_not_of(" \t") == std::string::npos)
      throw UsageError(std::string(option) + " is empty: give a value, or leave the option out for the default");
  if (const auto v = raw.one("--problem")) o.run.problem = *v;
  // Bounded like --warmup: each repetition is an entry of the records (about a kilobyte).
  if (const auto v = raw.one("--repetitions")) o.run.repetitions = parse_number<int>("--repetitions", *v, 1, 100000);
  if (const auto v = raw.one("--warmup")) o.run.warmup = parse_number<int>("--warmup", *v, 0, 1000000);
  if (const auto v = raw.one("--interleave"))
    o.run.interleave_seed = parse_number<long long>("--interleave", *v, 0, 4294967295LL);
  if (const auto v = raw.one("--min-time")) {
    o.run.min_time_s = parse_number<double>("--min-time", *v, 0.0, 3600.0);
  }
  if (const auto v = raw.one("--format")) o.format = parse_format(*v);
  if (const auto v = raw.one("--out")) o.out = *v;
  if (const auto v = raw.one("--baseline")) o.baseline = *v;
  if (const auto v = raw.one("--tuning")) o.tuning = on_off("--tuning", *v);
  if (const auto v = raw.one("--tuning-db")) {
    o.tuning_db = *v;
    if (o.tuning_db.empty()) throw UsageError("--tuning-db needs a directory");
  }
  if (const auto v = raw.one("--isolate")) o.isolate = on_off("--isolate", *v);
  if (const auto v = raw.one("--busy-timeout")) o.busy_timeout_s = parse_number<double>("--busy-timeout", *v, 0.0, 86400.0);
  o.replace = raw.replace;
  if (const auto v = raw.one("--point-timeout")) o.point_timeout_s = parse_positive<double>("--point-timeout", *v);
  if (const auto v = raw.one("--kernel")) o.kernel = *v;
  if (const auto v = raw.one("--time-limit")) o.sweep.time_limit_s = parse_positive<double>("--time-limit", *v);
  if (const auto v = raw.one("--time-budget")) o.sweep.time_budget_s = parse_positive<double>("--time-budget", *v);
  if (const auto v = raw.one("--objective")) o.sweep.objective = parse_objective(*v);
  if (const auto v = raw.one("--seed")) o.sweep.seed = parse_number<std::uint64_t>("--seed", *v, 0);
  if (const auto v = raw.one("--max-evals"))
    o.sweep.max_evals = parse_number<std::size_t>("--max-evals", *v, std::size_t{1});
  if (const auto v = raw.one("--cache")) {
    if (v->empty()) throw UsageError("--cache needs a file");
    o.sweep.cache = *v;
  }
  if (const auto v = raw.one("--strategy")) {
    if (raw.exhaustive && *v != "exhaustive") throw UsageError("--exhaustive is --strategy exhaustive: not with --strategy " + *v);
    for (const auto& name : split(*v)) {
      if (name == "all") {
        for (const auto& st : strategies()) o.strategies.push_back(st.name);
        continue;
      }
      o.strategies.push_back(strategy_named(name).name);
    }
    if (o.strategies.empty()) throw UsageError("--strategy is empty");
    o.sweep.strategy = o.strategies.front();
  }
  if (const auto v = raw.one("--seeds")) o.seeds = parse_number<int>("--seeds", *v, 1, 100000);
  o.replay = raw.replay;
  if (!o.replay.empty()) {
    // A replay measures nothing: what names a device, a problem or a database has no effect.
    for (const char* option : {"--suite", "--problem", "--precision", "--backend", "--device", "--tuning",
                               "--tuning-db", "--param", "--cache", "--time-limit", "--kernel"})
      if (raw.values.count(option) && !raw.values.at(option).empty())
        throw UsageError(std::string(option) + " has no effect with --replay (the cache answers every evaluation)");
    if (!raw.specs.empty())
      throw UsageError("--spec has no effect with --replay (the cache answers every evaluation, its kernel included)");
    if (o.strategies.empty()) o.strategies = {o.sweep.strategy};
    return o;
  }
  if (o.strategies.size() > 1) throw UsageError("--strategy takes one strategy for a sweep (a list only with --replay)");
  if (raw.values.count("--seeds") && !raw.values.at("--seeds").empty())
    throw UsageError("--seeds is for --replay: a sweep on a device runs one seed (--seed)");
  for (const auto& p : raw.params) o.sweep.params.push_back(parse_param(p));
  for (const auto& name : suite_names())
    for (const auto& option : make_suite(name)->options())
      if (const auto v = raw.one("--" + option.name)) o.run.suite_options[option.name] = *v;

  std::string backend = raw.one("--backend").value_or("all");
  const std::string precision = raw.one("--precision").value_or("f64"), variant = raw.one("--variant").value_or("all");
  if (o.command == Command::tuning_show) {
    if (raw.values["--backend"].size() == 1) o.backend_filter = find_backend(backend).name;
    o.suite_filter = raw.one("--suite").value_or("");
    if (!o.suite_filter.empty()) make_suite(o.suite_filter);  // names the valid suites
    o.kernel_filter = o.kernel;
    return o;
  }
  if (o.list_devices) {
    for (const auto& b : split(backend)) {
      if (b == "all") {
        for (const auto& reg : backends()) o.run.backends.push_back(reg.name), o.run.backend_devices.push_back(-1);
        continue;
      }
      const auto [name, index] = backend_and_device(b);
      o.run.backends.push_back(name);  // a backend not built is listed with the reason
      o.run.backend_devices.push_back(index);
    }
    return o;
  }
  for (std::size_t i = 0; i < o.sweep.params.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (o.sweep.params[i].first == o.sweep.params[j].first)
        throw UsageError("--param " + o.sweep.params[i].first + " is given twice");
  if (o.command == Command::sweep && !o.tuning)
    std::cerr << "gpubench: note: --tuning off: the sweep's results are not stored" << std::endl;

  if (o.command != Command::roofline) check_suite_options(*make_suite(o.run.suite), o.run);
  bool named_devices = false;
  for (const auto& b : split(backend)) {
    if (b == "all") {
      for (const auto& reg : backends()) o.run.backends.push_back(reg.name), o.run.backend_devices.push_back(-1);
      continue;
    }
    const auto [name, index] = backend_and_device(b);
    o.run.backends.push_back(find_backend(name).name);
    o.run.backend_devices.push_back(index);
    named_devices = named_devices || index >= 0;
  }
  if (o.run.backends.empty()) throw UsageError("--backend needs at least one backend");
  if (named_devices && (o.run.device >= 0 || !o.run.device_group.empty() || o.run.all_devices))
    throw UsageError("--backend " + backend + " names its devices: --device is for a single backend without one");
  if ((o.run.device >= 0 || !o.run.device_group.empty()) && o.run.backends.size() > 1)
    throw UsageError("--device N needs a single --backend (device numbers are per backend; --backend cuda:0,opencl:1 "
                     "names a device of each)");
  for (const auto& p : split(precision)) {
    if (p == "all") o.run.precisions.insert(o.run.precisions.end(), {Precision::f32, Precision::f64});
    else o.run.precisions.push_back(parse_precision(p));
  }
  if (o.run.precisions.empty()) throw UsageError("--precision needs a value (f32, f64, all)");
  for (const auto& v : split(variant)) o.run.variants.push_back(v);
  if (o.run.variants.size() > 1 && std::find(o.run.variants.begin(), o.run.variants.end(), "all") != o.run.variants.end())
    throw UsageError("--variant all already names every variant: give all, or a list without it");
  if (o.run.variants == std::vector<std::string>{"all"}) o.run.variants.clear();
  const auto same = [](const std::string& s) { return s; };
  std::vector<std::string> where;
  for (std::size_t k = 0; k < o.run.backends.size(); ++k)
    where.push_back(o.run.backends[k] + (o.run.backend_devices[k] >= 0 ? ":" + std::to_string(o.run.backend_devices[k]) : ""));
  check_unique("--backend", where, same);
  if (const auto v = raw.one("--filter")) {
    o.run.filter = *v;
    try {
      std::regex check(*v);
    } catch (const std::regex_error& e) {
      throw UsageError("--filter " + *v + " is not a regular expression: " + e.what());
    }
  }
  check_unique("--precision", o.run.precisions, [](Precision p) { return to_string(p); });
  check_unique("--variant", o.run.variants, same);
  return o;
}

}  // namespace gpubench
