#include "bench/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "common/errors.hpp"
#include "common/out_of_memory.hpp"
#include "bench/energy.hpp"
#include "bench/format.hpp"
#include "bench/isolation.hpp"
#include "bench/result_json.hpp"
#include "bench/roofline.hpp"
#include "bench/sweep_cache.hpp"

namespace gpubench {

namespace {

// "A=64,B=128": a configuration in a unit's name (no spaces).
std::string params_text(const Params& p) {
  std::string s;
  for (const auto& [name, value] : p) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

int parse_int(const std::string& text, const std::string& what) {
  int v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw UsageError("--param " + what + ": '" + text + "' is not an integer");
  return v;
}

// The space a sweep visits: `declared`, with the values --param gives in place of the declared
// ones. Throws UsageError for a value outside the declared ones, or one that no legal
// configuration can take, naming what it breaks.
TunableSpace restrict_to_options(const TunableSpace& declared, const SweepOptions& options) {
  TunableSpace space = declared;
  for (const auto& [name, values] : options.params) {
    Tunable* t = nullptr;
    for (auto& p : space.params)
      if (p.name == name) t = &p;
    if (!t) continue;  // a parameter of another kernel
    for (int v : values)
      if (!t->allows(v))
        throw UsageError("--param " + name + "=" + std::to_string(v) + " is outside its legal range (" + t->legal +
                         " on this device)");
    t->values = values;
  }
  for (const auto& [name, values] : options.params) {
    if (!space.find(name)) continue;
    for (int v : values) {
      TunableSpace fixed_here = space;
      for (auto& p : fixed_here.params)
        if (p.name == name) p.values = {v};
      if (!fixed_here.enumerate(1).empty()) continue;
      // Why not: what the configurations with this value break, over a bounded number of them.
      TunableSpace unconstrained = fixed_here;
      unconstrained.constraints.clear();
      std::set<std::string> broken;
      for (const Params& q : unconstrained.enumerate(100000)) {
        std::string why;
        if (!fixed_here.legal(q, &why)) broken.insert(why);
      }
      std::string list;
      for (const auto& b : broken) list += (list.empty() ? "" : "; ") + b;
      throw UsageError("--param " + name + "=" + std::to_string(v) +
                       " leaves no legal configuration: with it, " + list);
    }
  }
  return space;
}

// A progress bar on a terminal, one line per configuration otherwise. It counts the
// configurations against the evaluation budget (none: the count alone); a search within a time
// budget counts its time instead (budget).
class Progress {
 public:
  Progress(std::ostream& log, bool terminal, std::string label) : log_(log), terminal_(terminal), label_(std::move(label)) {}
  void kernel(const std::string& name, std::size_t configs) {
    kernel_ = name;
    done_ = 0;
    most_ = configs;
    budget_ = 0;
  }
  void budget(const std::string& name, double seconds, std::function<double()> now) {
    kernel(name, 0);
    budget_ = seconds;
    now_ = std::move(now);
    start_ = now_();
  }
  void config(const ConfigResult& r) {
    ++done_;
    char time[48];
    if (r.ok()) std::snprintf(time, sizeof time, "%.4f ms", r.timing.seconds * 1e3);
    else std::snprintf(time, sizeof time, "%s", r.status.c_str());
    double fraction = 0;
    std::string count = std::to_string(done_);
    if (budget_ > 0) {
      const double spent = std::min(now_() - start_, budget_);
      fraction = spent / budget_;
      count += " configs, " + fixed(spent, 0) + " of " + fixed(budget_, 0) + " s";
    } else {
      fraction = most_ > 0 ? std::min(1.0, static_cast<double>(done_) / static_cast<double>(most_)) : 0.0;
      if (most_ > 0) count += "/" + std::to_string(std::max(most_, done_));
    }
    if (!terminal_) {
      log_ << "gpubench: sweep " << label_ << " " << kernel_ << " [" << count << "] " << format_params(r.params) << ": "
           << time << (r.ok() ? "" : " (" + r.reason + ")") << std::endl;
      return;
    }
    const std::size_t width = 24, filled = static_cast<std::size_t>(fraction * width);
    log_ << "\r\033[K" << label_ << " " << kernel_ << " [" << std::string(filled, '#') << std::string(width - filled, '.')
         << "] " << count << "  " << format_params(r.params) << "  " << time << std::flush;
  }
  void end_kernel() {
    if (terminal_) log_ << "\r\033[K" << std::flush;
  }

 private:
  std::ostream& log_;
  bool terminal_;
  std::string label_, kernel_;
  std::size_t done_ = 0, most_ = 0;
  double budget_ = 0, start_ = 0;
  std::function<double()> now_;
};

}  // namespace

nlohmann::json params_json(const Params& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p) j[k] = v;
  return j;
}

Params params_of(const nlohmann::json& j) {
  Params p;
  for (const auto& [k, v] : j.items()) p[k] = v.get<int>();
  return p;
}

Measured measured_of(const ConfigResult& r, Objective objective) {
  Measured m;
  m.ok = r.ok();
  m.seconds = cost(r.timing, objective);
  m.not_launched = r.status == "launch failed";
  // Half the relative spread of its samples, at least 1%: what counts as noise.
  const auto& s = r.timing.samples;
  if (s.size() >= 2 && r.timing.seconds > 0) {
    const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    m.noise = std::max(0.01, (*hi - *lo) / r.timing.seconds / 2);
  }
  return m;
}

ConfigResult evaluate(TunableKernel& k, const Params& params, const SweepOptions& options,
                      const std::optional<Ceilings>& ceilings, Precision precision, const std::string& unit) {
  // The measurement as JSON: the form a worker hands back to the journal.
  const nlohmann::json measured = isolation::unit(unit, [&] {
    nlohmann::json j = {{"status", "verified"}, {"reason", ""}};
    try {
      const KernelTiming timing = k.measure(params, options.time_limit_s);
      if (!(timing.seconds > 0)) throw Error(ExitCode::device, "the device timer reported no time");
      j["seconds"] = timing.seconds;
      j["samples"] = timing.samples;
      if (timing.joules > 0) j["joules"] = timing.joules;
    } catch (const VerificationError& e) {
      j = {{"status", "wrong result"}, {"reason", e.what()}};
    } catch (const DeviceError& e) {
      j = {{"status", "launch failed"}, {"reason", e.what()}};
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      j = {{"status", e.code() == ExitCode::point_failed ? "time limit" : "error"}, {"reason", e.what()}};
    } catch (const std::bad_alloc&) {
      j = {{"status", "error"}, {"reason", OutOfMemoryError("host", "measuring this configuration").what()}};
    } catch (const std::exception& e) {
      j = {{"status", "error"}, {"reason", e.what()}};
    }
    return j;
  });
  ConfigResult r;
  r.params = params;
  if (const auto crash = isolation::crash_of(measured)) {
    r.status = "crashed";
    r.reason = *crash;
    return r;
  }
  r.status = measured.at("status").get<std::string>();
  r.reason = measured.at("reason").get<std::string>();
  if (!r.ok()) return r;
  r.timing.seconds = measured.at("seconds").get<double>();
  r.timing.samples = measured.at("samples").get<std::vector<double>>();
  r.timing.joules = measured.value("joules", 0.0);
  const double t = r.timing.seconds;
  r.gflops = k.flops_per_call() / t / 1e9;
  r.gbps = k.bytes_per_call() / t / 1e9;
  if (ceilings) r.roofline_pct = place(k.flops_per_call(), k.bytes_per_call(), t, *ceilings, precision).roofline_pct;
  return r;
}

std::pair<std::string, std::vector<int>> parse_param(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--param needs NAME=VALUES (e.g. NAME=8,16 or NAME=1:16), got '" +
                     text + "'");
  const std::string name = text.substr(0, eq);
  std::vector<int> values;
  std::stringstream in(text.substr(eq + 1));
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) throw UsageError("--param " + name + ": empty value in '" + text + "'");
    if (const auto colon = part.find(':'); colon != std::string::npos) {
      const int from = parse_int(part.substr(0, colon), name), to = parse_int(part.substr(colon + 1), name);
      if (from > to) throw UsageError("--param " + name + ": range " + part + " is empty (from > to)");
      if (to - from > 100000) throw UsageError("--param " + name + ": range " + part + " is too long");
      for (int v = from; v <= to; ++v) values.push_back(v);
    } else {
      values.push_back(parse_int(part, name));
    }
  }
  return {name, values};
}

double KernelSweep::reduction_pct() const {
  if (best < 0 || baseline < 0) return 0;
  const double t1 = configs[static_cast<std::size_t>(baseline)].timing.seconds;
  const double tb = configs[static_cast<std::size_t>(best)].timing.seconds;
  return t1 > 0 ? 100 * (t1 - tb) / t1 : 0;
}

void check_objective(const DeviceInfo& device, Objective objective) {
  if (objective == Objective::time) return;
  std::string why;
  if (!energy_meter(device, why))
    throw UsageError("--objective " + to_string(objective) + " needs the energy of " + device.label() +
                     ", which gpubench cannot read: " + why);
}

SweepReport sweep(SweepTarget& target, const SweepOptions& options, const std::optional<Ceilings>& ceilings,
                  std::ostream& log, bool terminal) {
  // Under an energy objective every configuration's batches are followed by an energy pass.
  check_objective(target.device, options.objective);
  struct EnergyScope {
    explicit EnergyScope(const DeviceInfo* d) { measure_energy_on(d); }
    ~EnergyScope() { measure_energy_on(nullptr); }
  } energy_scope(options.objective == Objective::time ? nullptr : &target.device);
  const auto start = std::chrono::steady_clock::now();
  SweepReport report;
  report.objective = options.objective;
  report.device = target.device;
  report.problem = target.problem;
  report.precision = target.precision;
  report.ceilings = ceilings;
  report.untunable = target.untunable;

  // Every --param must name a parameter of some kernel here.
  for (const auto& [name, values] : options.params) {
    bool known = false;
    std::set<std::string> valid;
    for (const auto& k : target.kernels)
      for (const auto& t : k->tunables().params) {
        valid.insert(t.name);
        known = known || t.name == name;
      }
    if (!known && !target.kernels.empty()) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
      throw UsageError("--param " + name + ": no kernel swept here has it (parameters: " + list + ")");
    }
  }

  const std::string label = target.device.backend + ":" + std::to_string(target.device.index) + " " +
                            to_string(target.precision);
  std::function<double()> now = options.clock;
  if (!now)
    now = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  Progress progress(log, terminal, label);
  const Strategy& chosen = strategy_named(options.strategy);
  std::unique_ptr<SweepCache> cache;
  if (!options.cache.empty()) cache = std::make_unique<SweepCache>(options.cache, &log);
  for (auto& k : target.kernels) {
    KernelSweep ks;
    ks.kernel = k->name();
    ks.key = k->key();
    ks.flops_per_call = k->flops_per_call();
    ks.bytes_per_call = k->bytes_per_call();
    const TunableSpace declared = k->tunables();
    const Params heuristic = k->heuristic();
    if (std::string why; !declared.legal(heuristic, &why))
      throw Error(ExitCode::internal, "kernel " + ks.kernel + ": its heuristic " + format_params(heuristic) +
                                          " is not legal on " + target.device.label() + ": " + why);
    const TunableSpace space = restrict_to_options(declared, options);

    // "sweep/8192/cuda:0/f32/KERNEL/A=8,B=128": a name
    // that tells configurations apart across targets, for the crash journal.
    const std::string unit_prefix = "sweep/" + target.problem + "/" + target.device.backend + ":" +
                                    std::to_string(target.device.index) + "/" + to_string(target.precision) + "/" +
                                    ks.kernel + "/";
    SweepCache::Kernel* cached = cache ? &cache->kernel(target, *k, declared) : nullptr;
    std::map<Params, std::size_t> seen;  // index into ks.configs
    auto measure = [&](const Params& p) {
      seen[p] = ks.configs.size();
      const double before = now();
      // Under an energy objective, a cached configuration without its energy is measured again.
      const ConfigResult* c = cached ? cached->find(p) : nullptr;
      if (c && c->ok() && options.objective != Objective::time && !(c->timing.joules > 0)) c = nullptr;
      if (c) {
        ks.configs.push_back(*c);
        ++ks.from_cache;
      } else {
        ks.configs.push_back(evaluate(*k, p, options, ceilings, target.precision, unit_prefix + params_text(p)));
        if (cached) cached->add(ks.configs.back(), now() - before);
      }
      progress.config(ks.configs.back());
      return measured_of(ks.configs.back(), options.objective);
    };
    std::set<std::string> listed;
    for (const auto& given : options.params) listed.insert(given.first);
    Search search(space, heuristic, measure, SearchBudget{options.max_evals, options.time_budget_s}, now,
                  options.seed, listed);
    search.patience = options.patience;
    search.default_seconds = default_time_budget_s;
    search.on_prepare = [&](const std::vector<Params>& upcoming) {
      std::vector<Params> to_build;
      for (const Params& p : upcoming)
        if (!(cached && cached->find(p))) to_build.push_back(p);
      // A unit of its own: a compiler that crashes there costs the building ahead, not the sweep
      // (each configuration then builds in its own unit).
      if (!to_build.empty())
        isolation::unit(unit_prefix + "prepare", [&] {
          k->prepare(to_build);
          return nlohmann::json::object();
        });
    };
    // The bar counts against what the search may measure at most: the legal configurations, or
    // fewer under --max-evals; a time budget counts its seconds.
    if (options.time_budget_s) progress.budget(ks.kernel, *options.time_budget_s, now);
    else progress.kernel(ks.kernel, std::min(options.max_evals.value_or(search.legal().size()), search.legal().size()));
    try {
      chosen.run(search);
    } catch (const BudgetSpent&) {
      ks.budget_spent = true;
    }
    ks.strategy = chosen.name + (search.used.empty() ? "" : ": " + search.used);
    ks.budget_spent = ks.budget_spent || (search.spent() && !search.exhausted());
    progress.end_kernel();

    for (std::size_t i = 0; i < ks.configs.size(); ++i) {
      const auto& c = ks.configs[i];
      if (c.ok() && (ks.best < 0 || cost(c.timing, options.objective) <
                                        cost(ks.configs[static_cast<std::size_t>(ks.best)].timing, options.objective)))
        ks.best = static_cast<int>(i);
    }
    // The baseline: after a walk, the walked parameter at its first value with the best's others
    // (the thesis's starting point: 1 work-group per compute unit); otherwise the heuristic.
    ks.heuristic_source = k->heuristic_source();
    if (ks.best >= 0) {
      Params base = heuristic;
      if ((search.used == "walk" || chosen.name == "walk") && !space.params.empty()) {
        const Tunable& walked = space.params.back();
        base = ks.configs[static_cast<std::size_t>(ks.best)].params;
        base[walked.name] = walked.values.front();
        ks.baseline_name = walked.name + "=" + std::to_string(walked.values.front());
      }
      if (auto it = seen.find(base); it != seen.end() && ks.configs[it->second].ok())
        ks.baseline = static_cast<int>(it->second);
    }
    std::size_t failed = 0;
    for (const auto& c : ks.configs) failed += c.ok() ? 0 : 1;
    log << "gpubench: sweep " << label << " " << ks.kernel << ": " << ks.configs.size() << " configurations ("
        << ks.strategy << (ks.budget_spent ? ", budget spent" : "") << "), " << failed << " failed";
    if (ks.best >= 0)
      log << "; best " << format_params(ks.configs[static_cast<std::size_t>(ks.best)].params) << " "
          << fixed(ks.configs[static_cast<std::size_t>(ks.best)].timing.seconds * 1e3, 4) << " ms"
          << (options.objective == Objective::time
                  ? std::string()
                  : ", " + fixed(ks.configs[static_cast<std::size_t>(ks.best)].timing.joules * 1e3, 4) + " mJ" +
                        " per call (--objective " + to_string(options.objective) + ")");
    log << std::endl;
    report.kernels.push_back(std::move(ks));
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

void write_sweep_table(const std::vector<SweepReport>& reports, std::ostream& out) {
  for (const auto& r : reports) {
    out << "sweep " << r.problem << " on " << r.device.label() << ", " << to_string(r.precision) << " ("
        << fixed(r.seconds, 1) << " s)\n";
    if (!r.ceilings) out << "  (no ceilings for this device: % of roofline not shown)\n";
    out << "  " << column("kernel", 18) << column("baseline ms", 14, true) << column("best ms", 10, true)
        << "  " << column("best parameters", 24) << column("reduction", 10, true)
        << column("GFLOP/s", 9, true) << column("GB/s", 8, true) << column("% roof", 7, true) << column("configs", 9, true)
        << column("failed", 7, true) << "\n";
    for (const auto& k : r.kernels) {
      std::size_t failed = 0;
      for (const auto& c : k.configs) failed += c.ok() ? 0 : 1;
      out << "  " << column(k.kernel, 18);
      if (k.best < 0) {
        out << column("-", 14, true) << column("-", 10, true) << "  " << column("-", 24) << column("-", 10, true)
            << column("-", 9, true) << column("-", 8, true) << column("-", 7, true);
      } else {
        const auto& b = k.configs[static_cast<std::size_t>(k.best)];
        std::string base = "-";
        if (k.baseline >= 0) {
          base = fixed(k.configs[static_cast<std::size_t>(k.baseline)].timing.seconds * 1e3, 4);
          if (k.baseline_name.empty()) base += "*";
        }
        out << column(base, 14, true) << column(fixed(b.timing.seconds * 1e3, 4), 10, true) << "  "
            << column(format_params(b.params), 24)
            << column(k.baseline >= 0 ? fixed(k.reduction_pct(), 1) + "%" : "-", 10, true) << column(fixed(b.gflops, 1), 9, true)
            << column(fixed(b.gbps, 1), 8, true) << column(r.ceilings ? fixed(b.roofline_pct, 1) : "-", 7, true);
      }
      out << column(std::to_string(k.configs.size()), 9, true) << column(std::to_string(failed), 7, true) << "\n";
    }
    std::set<std::string> walked, starred;
    for (const auto& k : r.kernels) {
      if (k.baseline < 0) continue;
      if (k.baseline_name.empty())
        starred.insert(k.heuristic_source.empty() ? "the built-in heuristic's configuration" : k.heuristic_source);
      else walked.insert(k.baseline_name);
    }
    for (const auto& w : walked)
      out << "  baseline: " << w << " with the best's other parameters (where the walk starts)\n";
    for (const auto& s : starred) out << "  * baseline: " << s << "\n";
    std::map<std::string, std::string> by_strategy;  // strategy -> its kernels
    std::size_t from_cache = 0;
    for (const auto& k : r.kernels) {
      by_strategy[k.strategy] += (by_strategy[k.strategy].empty() ? "" : ", ") + k.kernel;
      from_cache += k.from_cache;
    }
    for (const auto& [strategy, kernels] : by_strategy) out << "  strategy " << strategy << ": " << kernels << "\n";
    if (from_cache) out << "  " << from_cache << " configurations taken from the cache, not measured again\n";
    for (const auto& k : r.kernels) {
      for (const auto& c : k.configs)
        if (!c.ok()) out << "  " << k.kernel << " " << format_params(c.params) << ": " << c.status << ": " << c.reason << "\n";
    }
    for (const auto& k : r.kernels)
      if (k.budget_spent)
        out << "  " << k.kernel << ": the budget (--max-evals, --time-budget) ran out before the search ended\n";
    for (const auto& u : r.untunable) out << "  not swept: " << u << "\n";
    out << "\n";
  }
}

nlohmann::json sweep_json(const std::vector<SweepReport>& reports) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : reports) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : r.kernels) {
      nlohmann::json configs = nlohmann::json::array();
      for (const auto& c : k.configs) {
        nlohmann::json j = {{"params", params_json(c.params)}, {"status", c.status}};
        if (c.ok()) {
          j["ms"] = c.timing.seconds * 1e3;
          nlohmann::json samples = nlohmann::json::array();
          for (double s : c.timing.samples) samples.push_back(s * 1e3);
          j["samples_ms"] = samples;
          j["gflops"] = c.gflops;
          j["gbps"] = c.gbps;
          if (r.ceilings) j["roofline_pct"] = c.roofline_pct;
          if (c.timing.joules > 0) j["joules"] = c.timing.joules;
        } else {
          j["reason"] = c.reason;
        }
        configs.push_back(j);
      }
      nlohmann::json kj = {{"kernel", k.kernel},
                           {"objective", to_string(r.objective)},
                           {"strategy", k.strategy},
                           {"budget_spent", k.budget_spent},
                           {"key", k.key.text()},
                           {"flops_per_call", k.flops_per_call},
                           {"bytes_per_call", k.bytes_per_call},
                           {"configs", configs}};
      if (k.best >= 0) {
        kj["best"] = params_json(k.configs[static_cast<std::size_t>(k.best)].params);
        kj["best_ms"] = k.configs[static_cast<std::size_t>(k.best)].timing.seconds * 1e3;
      }
      if (k.baseline >= 0) {
        kj["baseline"] = params_json(k.configs[static_cast<std::size_t>(k.baseline)].params);
        kj["baseline_ms"] = k.configs[static_cast<std::size_t>(k.baseline)].timing.seconds * 1e3;
        kj["reduction_pct"] = k.reduction_pct();
      }
      kernels.push_back(kj);
    }
    nlohmann::json rj = {{"device", DeviceIdentity::of(r.device).to_json()},
                         {"backend", r.device.backend},
                         {"device_index", r.device.index},
                         {"problem", r.problem},
                         {"precision", to_string(r.precision)},
                         {"seconds", r.seconds},
                         {"kernels", kernels},
                         {"not_swept", r.untunable}};
    if (r.ceilings) rj["ceilings"] = *r.ceilings;
    all.push_back(rj);
  }
  return all;
}

std::vector<TuningEntry> best_entries(const SweepReport& report, const std::string& date, const std::string& commit) {
  std::vector<TuningEntry> entries;
  for (const auto& k : report.kernels) {
    if (k.best < 0) continue;
    const auto& b = k.configs[static_cast<std::size_t>(k.best)];
    TuningEntry e;
    e.key = k.key;
    e.problem = report.problem;
    e.params = params_json(b.params);
    e.seconds = b.timing.seconds;
    e.gflops = b.gflops;
    e.roofline_pct = report.ceilings ? b.roofline_pct : 0;
    e.baseline_seconds = k.baseline >= 0 ? k.configs[static_cast<std::size_t>(k.baseline)].timing.seconds : 0;
    e.date = date;
    e.commit = commit;
    if (report.objective != Objective::time) {  // the best by energy, not time: said in the entry
      e.extra["objective"] = to_string(report.objective);
      e.extra["joules"] = b.timing.joules;
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace gpubench
