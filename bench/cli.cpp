#include "bench/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <iostream>
#include <sstream>

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

// A value listed twice would plan the same points twice.
template <class T, class Name>
void check_unique(const std::string& option, const std::vector<T>& values, Name name) {
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j]) throw UsageError(option + " names " + name(values[i]) + " twice");
}

}  // namespace

std::string usage() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return "usage: gpubench [options]                  run a suite: time, verify, place on the roofline\n"
         "       gpubench sweep [options]            tune the suite's kernels, store the best in the tuning db\n"
         "       gpubench roofline [options]         print (measure when missing) each device's ceilings\n"
         "       gpubench tuning show [--tuning-db DIR]   print what the tuning database holds\n"
         "\n"
         "  --suite NAME          suite to run (" + join(suite_names()) + "; default cg)\n"
         "  --backend B[,B..]     " + join(names) + " or all (default all)\n"
         "  --device N            device index within the backend, as --list-devices numbers them\n"
         "                        (default: the backend's first GPU, else its first device)\n"
         "  --list-devices        list every backend's devices and exit\n"
         "  --problem SPEC        the suite's problem (below; default: the suite's own)\n"
         "  --precision P         f32, f64 or all (default f64)\n"
         "  --variant V[,V..]     the suite's variants (below) or all (default all)\n"
         "  --repetitions R       timed repetitions per point (default " + std::to_string(RunOptions{}.repetitions) +
         "; compare.py's U test needs 9)\n"
         "  --format F            table, json (Google Benchmark layout) or csv (one row per point and\n"
         "                        repetition; default table)\n"
         "  --out FILE            write the format to FILE (the table still goes to stdout); with csv, the\n"
         "                        per-kernel table goes beside it: run.csv -> run.kernels.csv\n"
         "  --breakdown           the table adds each point's per-kernel times (a profiled pass)\n"
         "  --baseline B[:D]:V    the row speedups are computed against, e.g. cuda:vendor or opencl:1:classic\n"
         "                        (speedup = baseline time / row time; default: the first row)\n"
         "  --tuning on|off       take each kernel's launch parameters from the tuning database (default on;\n"
         "                        off: the built-in heuristic)\n"
         "  --tuning-db DIR       the tuning database written (default $GPUBENCH_TUNING_DB, else\n"
         "                        $XDG_CACHE_HOME/gpubench, else ~/.cache/gpubench); the source tree's\n"
         "                        tuning-db/ is read beneath it (write it with --tuning-db tuning-db)\n"
         "  --isolate on|off      run points (and sweep configurations) in a worker process, so that a crash or\n"
         "                        hang in a driver, compiler or kernel fails that point only (default on)\n"
         "  --point-timeout S     a point or sweep configuration that makes no progress for S seconds (its\n"
         "                        setup, profiled pass, one repetition) is killed and FAILED as a hang\n"
         "                        (default 600)\n"
         "  --help                this text\n"
         "\n"
         "sweep options (with --suite, --backend, --device, --problem, --precision, --format json, --out):\n"
         "  --kernel NAME         sweep one kernel (default all tunable kernels)\n"
         "  --param NAME=VALUES   visit these values only: a list and/or ranges, e.g. work_group_size=64,128\n"
         "                        or work_groups_per_cu=1:16 (repeatable)\n"
         "  --exhaustive          every legal configuration: every WG/CU value in the walk (instead of stopping\n"
         "                        when steps stop improving), the whole space of a kernel without WG/CU\n"
         "                        (instead of the search below)\n"
         "  --time-limit S        a configuration whose one call takes longer fails (default 2)\n"
         "  --time-budget S       seconds per kernel for the search of a space of more than 256 legal\n"
         "                        configurations: a random sample, then hill climbing (default 120)\n"
         "  --seed N              the search's random sample (default 1; the same seed, the same sample)\n"
         "roofline options (with --backend, --device):\n"
         "  --remeasure           measure again even when the database has the ceilings\n"
         "\n"
         + suites_help() +
         "\nExit codes: 0 all points verified, 1 a point failed, 2 usage, 3 input, 4 device.\n";
}

CliOptions parse_cli(const std::vector<std::string>& args) {
  CliOptions o;
  o.run.suite = "cg";
  std::string backend = "all", precision = "f64", variant = "all";
  std::size_t first = 0;
  if (!args.empty() && args[0].rfind("-", 0) != 0) {
    if (args[0] == "run") o.command = Command::run;
    else if (args[0] == "sweep") o.command = Command::sweep;
    else if (args[0] == "roofline") o.command = Command::roofline;
    else if (args[0] == "tuning") {
      if (args.size() < 2 || args[1] != "show") throw UsageError("'gpubench tuning' needs a subcommand: tuning show");
      o.command = Command::tuning_show;
      first = 1;
    } else {
      throw UsageError("unknown command '" + args[0] + "' (valid: run, sweep, roofline, tuning show)");
    }
    first += 1;
  }
  std::vector<std::string> sweep_only, roofline_only;
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string key = arg, value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    auto next = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) throw UsageError(key + " needs a value");
      return args[++i];
    };
    if (key == "--help" || key == "-h") o.help = true;
    else if (key == "--list-devices") o.list_devices = true;
    else if (key == "--suite") o.run.suite = next();
    else if (key == "--backend") backend = next();
    else if (key == "--device") o.run.device = parse_number<int>(key, next(), 0);
    else if (key == "--problem") o.run.problem = next();
    else if (key == "--precision") precision = next();
    else if (key == "--variant") variant = next();
    else if (key == "--repetitions") o.run.repetitions = parse_number<int>(key, next(), 1);
    else if (key == "--format") {
      const std::string f = next();
      if (f == "table") o.format = Format::table;
      else if (f == "json") o.format = Format::json;
      else if (f == "csv") o.format = Format::csv;
      else throw UsageError("unknown format '" + f + "' (valid: table, json, csv)");
    } else if (key == "--out") o.out = next();
    else if (key == "--baseline") o.baseline = next();
    else if (key == "--breakdown") o.breakdown = true;
    else if (key == "--tuning") {
      const std::string t = next();
      if (t != "on" && t != "off") throw UsageError("--tuning takes on or off, got '" + t + "'");
      o.tuning = t == "on";
    } else if (key == "--tuning-db") {
      o.tuning_db = next();
      if (o.tuning_db.empty()) throw UsageError("--tuning-db needs a directory");
    } else if (key == "--isolate") {
      const std::string t = next();
      if (t != "on" && t != "off") throw UsageError("--isolate takes on or off, got '" + t + "'");
      o.isolate = t == "on";
    } else if (key == "--point-timeout") {
      o.point_timeout_s = parse_positive<double>(key, next());
    } else if (key == "--kernel") {
      o.kernel = next();
      sweep_only.push_back(key);
    } else if (key == "--param") {
      o.sweep.params.push_back(parse_param(next()));
      sweep_only.push_back(key);
    } else if (key == "--exhaustive") {
      o.sweep.exhaustive = true;
      sweep_only.push_back(key);
    } else if (key == "--time-limit") {
      o.sweep.time_limit_s = parse_positive<double>(key, next());
      sweep_only.push_back(key);
    } else if (key == "--time-budget") {
      o.sweep.time_budget_s = parse_positive<double>(key, next());
      sweep_only.push_back(key);
    } else if (key == "--seed") {
      o.sweep.seed = parse_number<std::uint64_t>(key, next(), 0);
      sweep_only.push_back(key);
    } else if (key == "--remeasure") {
      o.remeasure = true;
      roofline_only.push_back(key);
    } else if (key.rfind("--", 0) == 0 && key.size() > 2) {
      // Not ours: perhaps an option of the suite, which is known only once every option is read.
      const std::string name = key.substr(2);
      if (!declared_by_a_suite(name)) throw UsageError("unknown option '" + arg + "' (see --help)");
      if (o.run.suite_options.count(name)) throw UsageError(key + " is given twice");
      o.run.suite_options[name] = next();
    } else throw UsageError("unknown option '" + arg + "' (see --help)");
  }
  if (o.help || o.list_devices) return o;
  if (o.command != Command::sweep && !sweep_only.empty())
    throw UsageError(sweep_only.front() + " is a sweep option: gpubench sweep " + sweep_only.front() + " ...");
  if (o.command != Command::roofline && !roofline_only.empty())
    throw UsageError(roofline_only.front() + " is a roofline option: gpubench roofline " + roofline_only.front());
  for (std::size_t i = 0; i < o.sweep.params.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (o.sweep.params[i].first == o.sweep.params[j].first)
        throw UsageError("--param " + o.sweep.params[i].first + " is given twice");
  if (o.command == Command::sweep && !o.tuning)
    std::cerr << "gpubench: note: --tuning off: the sweep's results are not stored" << std::endl;

  check_suite_options(*make_suite(o.run.suite), o.run);
  for (const auto& b : split(backend)) {
    if (b == "all") {
      for (const auto& reg : backends()) o.run.backends.push_back(reg.name);
    } else {
      o.run.backends.push_back(find_backend(b).name);
    }
  }
  if (o.run.backends.empty()) throw UsageError("--backend needs at least one backend");
  if (o.run.device >= 0 && o.run.backends.size() > 1)
    throw UsageError("--device N needs a single --backend (device numbers are per backend)");
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
  check_unique("--backend", o.run.backends, same);
  check_unique("--precision", o.run.precisions, [](Precision p) { return to_string(p); });
  check_unique("--variant", o.run.variants, same);
  return o;
}

}  // namespace gpubench
