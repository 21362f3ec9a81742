#include "bench/records.hpp"

#include <algorithm>
#include <map>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "bench/format.hpp"
#include "bench/record_fields.hpp"
#include "bench/roofline.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace gpubench {

namespace {

// Fixed below `wide` (keeps columns aligned), else 3 significant digits with an exponent: a
// compute-bound kernel's FLOP/B and theoretical GFLOP/s run to 1e18.
std::string compact(double v, int digits, double wide = 1e6) {
  if (std::abs(v) < wide) return fixed(v, digits);
  std::ostringstream s;
  s << std::setprecision(3) << v;
  return s.str();
}

// `v` to `digits` significant digits, as %g writes it: 11.9, 0.0612, 1.2e+04.
std::string significant(double v, int digits) {
  std::ostringstream o;
  o << std::setprecision(digits) << v;
  return o.str();
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}


std::string summary_of(const PointResult& p) {
  // The suite summary (e.g. NAS CG's zeta, NAS EP's time and Mop/s) of the verified repetition
  // whose time per iteration is nearest the row's median, so that a time in it is the row's.
  const Outcome* chosen = nullptr;
  double nearest = 0;
  for (const Outcome& o : p.repetitions) {
    if (!o.verified || !o.fields.contains("summary")) continue;
    const double distance = std::abs(o.seconds / std::max(o.iterations, 1) - p.median_seconds_per_iteration);
    if (chosen == nullptr || distance < nearest) chosen = &o, nearest = distance;
  }
  return chosen ? chosen->fields["summary"].get<std::string>() : "";
}

struct BaselineSpec {
  std::string backend, variant;
  int device = -1;  // any
  bool matches(const PointId& id) const {
    return id.backend == backend && id.variant == variant && (device < 0 || id.device.index == device);
  }
};

BaselineSpec parse_baseline(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  BaselineSpec spec;
  if (parts.size() == 2) {
    spec.backend = parts[0];
    spec.variant = parts[1];
  } else if (parts.size() == 3) {
    spec.backend = parts[0];
    spec.variant = parts[2];
    try {
      std::size_t used = 0;
      spec.device = std::stoi(parts[1], &used);
      if (used != parts[1].size() || spec.device < 0) throw std::invalid_argument("device");
    } catch (const std::exception&) {
      throw UsageError("--baseline " + text + ": the device in BACKEND:DEVICE:VARIANT must be an index, got '" +
                       parts[1] + "'");
    }
  }
  if (spec.backend.empty() || spec.variant.empty())
    throw UsageError("--baseline " + text + " is not BACKEND[:DEVICE]:VARIANT (e.g. cuda:vendor, opencl:1:classic)");
  return spec;
}

// The row each row's speedup divides: the baseline row of the same precision if there is one,
// else the first verified baseline row; none when the baseline did not verify.
const PointResult* baseline_row(const RunReport& report, const std::string& baseline, const PointResult& row) {
  const PointResult* any = nullptr;
  for (const auto& p : report.points) {
    if (p.failed || p.median_seconds_per_iteration <= 0) continue;
    if (baseline.empty()) return &p;  // the first verified row
    if (!parse_baseline(baseline).matches(p.id)) continue;
    if (p.id.precision == row.id.precision) return &p;
    if (!any) any = &p;
  }
  return any;
}

}  // namespace

void check_baseline(const std::string& baseline, const std::vector<PointId>& points) {
  if (baseline.empty()) return;
  const BaselineSpec spec = parse_baseline(baseline);
  std::string valid;
  for (const auto& id : points) {
    if (spec.matches(id)) return;
    const std::string row = id.backend + ":" + std::to_string(id.device.index) + ":" + id.variant;
    if (valid.find(row) == std::string::npos) valid += (valid.empty() ? "" : ", ") + row;
  }
  throw UsageError("--baseline " + baseline + " matches no planned row (planned: " + valid + ")");
}

namespace {

// `j` with `first` (those it has) in that order, then its other keys: Google Benchmark's JSON
// reporter (1.7.1) writes its fields in this order, and a reader comparing by eye expects it.
nlohmann::ordered_json in_order(const nlohmann::json& j, const std::vector<const char*>& first) {
  nlohmann::ordered_json o;
  for (const char* key : first)
    if (j.contains(key)) o[key] = j[key];
  for (const auto& [key, value] : j.items())
    if (!o.contains(key)) o[key] = value;
  return o;
}

const std::vector<const char*> benchmark_keys = {
    "name",           "family_index", "per_family_instance_index", "run_name",      "run_type",
    "repetitions",    "repetition_index", "threads",               "aggregate_name", "aggregate_unit",
    "error_occurred", "error_message", "iterations",               "real_time",     "cpu_time",
    "time_unit"};
const std::vector<const char*> context_keys = {"date",      "host_name",           "executable", "num_cpus",
                                               "mhz_per_cpu", "cpu_scaling_enabled", "caches",     "load_avg",
                                               "library_build_type"};

}  // namespace

void write_json(const RunReport& report, std::ostream& out) {
  // Google Benchmark's compare.py (1.7) reads every entry of "benchmarks" as a time: a failed
  // point's entries (error_occurred, no times) go beside them, so that a failure can neither
  // read as a speed-up nor stop compare.py.
  nlohmann::ordered_json measured = nlohmann::ordered_json::array(), failed = nlohmann::ordered_json::array();
  for (const auto& b : report.benchmarks)
    (b.value("error_occurred", false) ? failed : measured).push_back(in_order(b, benchmark_keys));
  nlohmann::ordered_json records;
  records["context"] = in_order(report.context, context_keys);
  records["benchmarks"] = measured;
  records["failed_benchmarks"] = failed;
  out << records.dump(2) << "\n";
}

namespace {

// Full precision, without the trailing digits of a fixed format: a CSV is read by programs.
std::string number(double v) {
  std::ostringstream s;
  s << std::setprecision(9) << v;
  return s.str();
}

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return {};
  if (v.is_string()) return csv_quote(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return number(v.get<double>());
  return csv_quote(v.dump());
}

// The record fields with a CSV column: the point's own (where and when it was measured, first in
// both CSV tables), with `repetitions` a repetition's too.
std::vector<const RecordField*> csv_columns(bool repetitions) {
  std::vector<const RecordField*> columns;
  for (const auto& f : record_fields())
    if (!f.csv.empty() && (f.scope == RecordField::Scope::point || (repetitions && f.scope == RecordField::Scope::repetition)))
      columns.push_back(&f);
  return columns;
}
std::string csv_header(const std::vector<const RecordField*>& columns) {
  std::string header;
  for (const RecordField* f : columns) {
    if (!header.empty()) header += ',';
    header += f->csv;
  }
  return header;
}
std::string csv_row(const std::vector<const RecordField*>& columns, const RecordRow& row) {
  std::string cells;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) cells += ',';
    cells += csv_cell(columns[c]->value(row));
  }
  return cells;
}

}  // namespace

void write_csv(const RunReport& report, std::ostream& out) {
  const std::vector<const RecordField*> columns = csv_columns(true);
  out << csv_header(columns) << "\n";
  for (const auto& p : report.points) {
    for (std::size_t r = 0; r < p.repetitions.size(); ++r) {
      const Outcome& o = p.repetitions[r];
      // A repetition that failed or did not verify has no figures: its error instead.
      const bool figures = !p.failed && o.verified && o.iterations > 0 && o.seconds > 0;
      out << csv_row(columns, RecordRow{p, figures ? &o : nullptr, r, &report.context}) << "\n";
    }
  }
}

void write_kernel_csv(const RunReport& report, std::ostream& out) {
  const std::vector<const RecordField*> provenance = csv_columns(false);
  out << csv_header(provenance) << ",kernel,calls_per_iteration,ms_per_iteration,pct_of_profiled_iteration,gflops,gbps,"
         "roofline_pct\n";
  for (const auto& p : report.points) {
    if (p.failed) continue;
    const std::string where = csv_row(provenance, RecordRow{p, nullptr, 0, &report.context});
    for (const auto& k : p.kernels) {
      const double s = k.seconds_per_iteration;
      const bool overhead = k.kernel == "overhead";
      const bool memory = !overhead && s > 0 && memory_applies(k.flops_per_iteration, k.bytes_per_iteration);
      out << where << "," << csv_quote(k.kernel) << "," << (overhead ? "" : number(k.calls_per_iteration))
          << "," << number(s * 1e3) << ","
          << (p.profiled_seconds_per_iteration > 0 ? number(100 * s / p.profiled_seconds_per_iteration) : "") << ","
          << (!overhead && s > 0 && k.flops_per_iteration > 0 ? number(k.flops_per_iteration / s / 1e9) : "") << ","
          << (memory ? number(k.bytes_per_iteration / s / 1e9) : "") << ","
          << (memory && p.ceilings ? number(p.roofline(k).roofline_pct) : "") << "\n";
    }
  }
}

namespace {

// Why a point above the DRAM roof has no cache level to place it against: a GPU's caches are
// measured by the roofline probe (on a remeasure), a CPU's are not (issue 58 item 6: the hint led
// nowhere there).
std::string caches_unmeasured(const DeviceInfo& d) {
  if (d.type == "gpu") return "the caches' bandwidths were not measured: gpubench roofline --remeasure";
  return "the roofline probe measures caches' bandwidths on GPUs only, not on this " + (d.type.empty() ? std::string("device") : d.type);
}


// Seconds of the whole timed region (one solve, one run) of a verified point: the median over
// its repetitions. With a tolerance, variants can need different iteration counts: then time to
// solution, not time per iteration, says which is faster.
double median_total_seconds(const PointResult& p) {
  std::vector<double> v;
  for (const auto& o : p.repetitions)
    if (o.verified) v.push_back(o.seconds);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int median_iterations(const PointResult& p) {
  std::vector<int> v;
  for (const auto& o : p.repetitions)
    if (o.verified) v.push_back(o.iterations);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Whether verified rows of one precision took different iteration counts.
bool iteration_counts_differ(const RunReport& report) {
  std::map<Precision, int> seen;
  for (const auto& p : report.points) {
    if (p.failed || p.median_seconds_per_iteration <= 0) continue;
    const int n = median_iterations(p);
    if (auto [it, fresh] = seen.emplace(p.id.precision, n); !fresh && it->second != n) return true;
  }
  return false;
}


// "% roof" above 100 is marked, not printed as if the roof held: the roof is drawn with the
// memory bandwidth, and data a cache holds comes faster.
std::string roof_cell(double pct, bool& marked) {
  if (pct <= 100) return fixed(pct, 1);
  marked = true;
  return fixed(pct, 1) + "*";
}

// " (L2 36.5%)": a place above the DRAM roof against the cache level that served it; "" for none.
std::string level_cell(const RooflinePlace& r) {
  return r.level.empty() ? std::string() : " (" + r.level + " " + fixed(r.level_pct, 1) + "%)";
}

std::string megabytes(double bytes) { return fixed(bytes / 1e6, bytes < 1e7 ? 2 : 0) + " MB"; }

// Why a row is above its roof: under the bandwidth side, data a cache serves faster than the
// measured memory bandwidth; under the FLOP side, a faster path than the probe's FMA chains.
void write_roof_footnote(const RunReport& report, std::ostream& out) {
  out << "* above the measured roof:\n";
  for (const auto& p : report.points) {
    if (p.failed || !p.ceilings) continue;
    const RooflinePlace r = p.roofline();
    if (r.roofline_pct <= 100) continue;
    out << "  " << p.id.name() << ": ";
    if (r.attainable_gflops < r.theoretical_gflops) {
      if (r.unit_unmeasured)
        out << "it runs on the " << r.unit << " unit, whose peak these ceilings (measured with " << p.ceilings->backend
            << " kernels) do not hold: placed against the FMA-chain probe's peak (" << fixed(r.peak_gflops, 0)
            << " GFLOP/s) instead (gpubench roofline --remeasure with a backend whose probe measures it: cuda)\n";
      else if (!r.unit.empty())
        out << "faster than the probe's " << r.unit << " peak (" << fixed(r.peak_gflops, 0)
            << " GFLOP/s): the probe ran slow, or the kernel has a faster path\n";
      else
        out << "faster than the FMA-chain probe's peak (" << fixed(r.peak_gflops, 0)
            << " GFLOP/s): the probe ran slow, or the kernel has a faster path\n";
      continue;
    }
    const auto cache = p.id.device.cache_bytes;
    out << megabytes(p.bytes_per_iteration) << " moved per iteration";
    if (cache > 0)
      out << (p.bytes_per_iteration <= static_cast<double>(cache) ? ", within" : ", against") << " the device's "
          << megabytes(static_cast<double>(cache)) << " last-level cache";
    if (!r.level.empty()) {
      const double gbps = r.level == "L2" ? p.ceilings->l2_gbps : p.ceilings->l1_gbps;
      out << ": " << (r.level_pct <= 100 ? "served by " : "above even ") << r.level << ", " << fixed(r.level_pct, 1)
          << "% of its measured roof (" << fixed(gbps, 0) << " GB/s)\n";
      continue;
    }
    out << ": a cache serves it faster than the measured memory bandwidth the roof is drawn with ("
        << caches_unmeasured(p.id.device) << ")\n";
  }
}

// What the table's figures are (the statistic, the baseline), and marks that say they may not be
// measured or not all there (test hooks, an early end).
void write_heading(const RunReport& report, std::ostream& out, const std::string& baseline, bool to_solution) {
  const PointResult& first = report.points.front();
  const bool context = report.context.is_object();
  const int warmup = context ? report.context.value("warmup_runs", 0) : 0;
  const double min_time = context ? report.context.value("min_time_s", 0.0) : 0.0;
  out << first.id.suite << " " << first.id.problem << "  (time per iteration: median of "
      << (first.repetitions.empty() ? 0 : first.repetitions.size()) << " repetitions"
      << (min_time > 0 ? ", each at least " + compact(min_time, 3) + " s of runs" : std::string())
      << (warmup > 0 ? " after " + std::to_string(warmup) + " warm-up runs" : std::string()) << "; speedup against "
      << (baseline.empty() ? std::string("the first row") : baseline)
      << (to_solution ? ", by time to solution: the variants took different iteration counts" : "") << ")\n\n";
  if (const auto hooks = report.context.find("test_hooks"); hooks != report.context.end()) {
    out << "TEST HOOKS SET: these figures may be planted, not measured:";
    for (const auto& [name, value] : hooks->items()) out << " " << name << "=" << value.get<std::string>();
    out << "\n\n";
  }
  if (const auto early = report.context.find("ended_early"); early != report.context.end())
    out << "ENDED EARLY (" << early->get<std::string>() << "): the points below are those measured before\n\n";
}

// The "verified" cell: yes, the outliers, and the point's own summary.
std::string verified_cell(const PointResult& p) {
  std::string verified = "yes";
  if (!p.outlier_seconds.empty()) {
    std::string times;
    for (std::size_t k = 0; k < p.outlier_seconds.size() && k < 3; ++k)
      times += (k ? ", " : "") + significant(p.outlier_seconds[k] * 1e3, 3) + " ms";
    if (p.outlier_seconds.size() > 3) times += ", ...";
    verified += "  " + std::to_string(p.outlier_seconds.size()) + " outlier" + (p.outlier_seconds.size() > 1 ? "s" : "") +
                "* (" + times + ")";
  }
  if (const std::string s = summary_of(p); !s.empty()) verified += "  " + s;
  return verified;
}

// One row per point: its time, spread, rates, place under the roof, speedup; then the footnotes.
// Under --energy: why a row has no energy figure, where its pass ran mostly host work, and how the
// counter and the power samples agreed.
void write_energy_footnote(const RunReport& report, std::ostream& out) {
  std::vector<std::string> lines;
  const auto add = [&](const std::string& line) {
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  };
  double worst_disagreement = -1;
  std::string worst_point;
  for (const auto& p : report.points) {
    if (p.failed) continue;
    const auto e = p.measured.find("energy");
    if (e == p.measured.end() || !e->is_object()) continue;
    if (e->contains("none")) {
      add("  - " + p.id.where() + ": no energy figure: " + e->at("none").get<std::string>());
      continue;
    }
    if (e->value("duty", 1.0) < 0.9)
      add("  ~ " + p.id.name() + ": the device ran timed work " + fixed(100 * e->value("duty", 1.0), 0) +
          "% of the energy pass; the rest was host work between runs, so its power is an average over both");
    if (e->contains("samples_vs_counter")) {
      const double d = std::abs(e->at("samples_vs_counter").get<double>());
      if (d > worst_disagreement) worst_disagreement = d, worst_point = p.id.name();
    }
  }
  if (worst_disagreement >= 0)
    add("  the power samples' energy against the counter's: within " + fixed(100 * worst_disagreement, 1) +
        "% on every point (the worst: " + worst_point + ")");
  if (lines.empty()) return;
  out << "energy (J/iter = the energy pass's average power x its time per iteration):\n";
  for (const auto& l : lines) out << l << "\n";
}

// The points during which other processes kept the host's CPUs busy (harness.cpp's machine_load):
// their figures may be slow, and a tracked night can refuse them (track run --quiet-machine).
void write_machine_load(const RunReport& report, std::ostream& out) {
  std::string lines;
  for (const auto& p : report.points) {
    const auto m = p.measured.find("machine_load");
    if (m == p.measured.end() || !m->is_object() || !m->value("busy", false)) continue;
    std::string what;
    if (m->value("others_cpu_fraction", 0.0) >= busy_cpu_fraction)
      what = fixed(100 * m->value("others_cpu_fraction", 0.0), 0) + "% of the " + std::to_string(m->value("cpus", 0)) +
             " CPUs it may run on, over its " + fixed(m->value("seconds", 0.0), 1) + " s";
    if (m->value("gpu_busy", false))
      for (const auto& o : m->value("gpu_others", nlohmann::json::array()))
        if (o.value("sm_pct", 0.0) >= busy_gpu_sm_pct)
          what += std::string(what.empty() ? "" : "; ") + "process " + std::to_string(o.value("pid", 0)) + " (" +
                  o.value("name", std::string("?")) + ") used " + fixed(o.value("sm_pct", 0.0), 0) + "% of " +
                  p.id.device.label() + "'s SMs";
    lines += "  " + p.id.name() + ": " + what + "\n";
  }
  if (!lines.empty())
    out << "BUSY MACHINE: other processes used the CPUs or the device while these points ran (their figures may be "
           "slow):\n"
        << lines;
}

void write_summary(const RunReport& report, std::ostream& out, const std::string& baseline, bool to_solution,
                   bool energy) {
  std::vector<const RecordField*> figures;  // the fields with a column
  for (const auto& f : record_fields())
    if (!f.column.empty() && (energy || !f.energy_column)) figures.push_back(&f);
  std::vector<std::string> header = {"backend", "device", "variant", "prec"};
  std::vector<bool> right = {false, false, false, false};
  for (const RecordField* f : figures) header.push_back(f->column), right.push_back(true);
  header.push_back("% roof");
  right.push_back(true);
  if (to_solution) {
    header.insert(header.end(), {"iters", "ms/solve"});
    right.insert(right.end(), {true, true});
  }
  header.insert(header.end(), {"speedup", "verified"});
  right.insert(right.end(), {true, false});
  TextTable summary(header, right);
  bool above_roof = false, any_outliers = false;
  for (const auto& p : report.points) {
    std::vector<std::string> row = {p.id.where() + (p.id.ranks > 0 ? " (" + std::to_string(p.id.ranks) + " ranks)" : std::string()), p.id.device.name,
                                    p.id.variant, to_string(p.id.precision)};
    if (p.failed || p.median_seconds_per_iteration <= 0) {
      row.insert(row.end(), figures.size() + (to_solution ? 4 : 2), "-");
      row.push_back("FAILED");
      summary.add(row);
      continue;
    }
    const double t = p.median_seconds_per_iteration;
    const PointResult* base = baseline_row(report, baseline, p);
    for (const RecordField* f : figures) row.push_back(f->cell(p));
    if (!p.outlier_seconds.empty()) any_outliers = true;
    row.push_back(p.ceilings ? roof_cell(p.roofline().roofline_pct, above_roof) + level_cell(p.roofline()) : "-");
    std::string speedup = "-";
    if (to_solution) {
      const double total = median_total_seconds(p);
      row.push_back(std::to_string(median_iterations(p)));
      row.push_back(fixed(total * 1e3, 3));
      if (base && total > 0) speedup = ratio(median_total_seconds(*base) / total);
    } else if (base) {
      speedup = ratio(base->median_seconds_per_iteration / t);
    }
    row.push_back(speedup);
    row.push_back(verified_cell(p));
    summary.add(row);
  }
  summary.print(out);
  out << "(spread: the repetitions' interquartile range over the median)\n";
  if (any_outliers)
    out << "* outlier: a repetition more than 14 median absolute deviations from the median (hyperfine's rule): "
           "something else used the device or the host then; the median stands, but more --repetitions, --warmup "
           "or --min-time would tell\n";
  if (above_roof) write_roof_footnote(report, out);
  // A host BLAS whose kernels use a narrower instruction set than the host has (host_blas.hpp),
  // flagged with the setting that chooses kernels for the host.
  std::vector<std::string> weaker;
  for (const auto& p : report.points)
    for (const Outcome& o : p.repetitions)
      if (const auto b = o.fields.find("host_blas"); b != o.fields.end() && b->contains("weaker_than_host")) {
        const std::string text = p.id.where() + " " + p.id.variant + ": " + (*b)["weaker_than_host"].get<std::string>();
        if (std::find(weaker.begin(), weaker.end(), text) == weaker.end()) weaker.push_back(text);
      }
  for (const std::string& w : weaker) out << "WARNING: " << w << "\n";
  // Where a point took a slower path than another API's on its device, and what forces it (the
  // records' gap_causes, bench/suite.hpp): said here so that a gap is not read as the API's alone.
  std::vector<std::string> gaps;
  for (const auto& p : report.points)
    for (const Outcome& o : p.repetitions)
      if (const auto c = o.fields.find("gap_causes"); c != o.fields.end() && c->is_array())
        for (const auto& cause : *c) {
          const std::string by = cause.value("by", "");
          const std::string text = p.id.where() + " " + p.id.variant + ": " + cause.value("cause", "") + " [" +
                                   (by == "gpubench" ? "gpubench's choice" : "forced by the " + by) + "]";
          if (std::find(gaps.begin(), gaps.end(), text) == gaps.end()) gaps.push_back(text);
        }
  if (!gaps.empty()) {
    out << "slower paths than another API's on the device (gpubench report models: the ledger):\n";
    for (const std::string& g : gaps) out << "  " << g << "\n";
  }
}

// Each device's ceilings, where and when they were measured, and warnings when they are not this
// machine's or not confirmed.
void write_ceilings(const RunReport& report, std::ostream& out) {
  TextTable ceilings({"device", "bandwidth", "trials", "peak f32", "peak f64", "tensor cores", "L2", "L1/shared", "measured"},
                     {false, true, false, true, true, false, true, true, false});
  std::vector<std::string> shown, elsewhere, unconfirmed, settings;
  const std::string here = this_host();
  for (const auto& p : report.points) {
    const bool several = p.id.devices.size() > 1;
    const std::string key = several ? p.id.where() : device_key(p.id.device);
    if (std::find(shown.begin(), shown.end(), key) != shown.end()) continue;
    shown.push_back(key);
    if (several) {
      ceilings.add({key, "-", "none: a solve across devices has no one device's roofline"});
      continue;
    }
    if (!p.ceilings) {
      ceilings.add({key, "-", "none: this backend has no ceiling probe"});
      continue;
    }
    const Ceilings& c = *p.ceilings;
    const auto level = [](double gbps) { return gbps > 0 ? fixed(gbps, 0) + " GB/s" : std::string("-"); };
    std::string units;  // "f64 58.1, tf32 ... TFLOP/s"
    for (const auto& [unit, gflops] : c.unit_gflops)
      units += (units.empty() ? "" : ", ") + unit.substr(0, unit.find(' ')) + " " + fixed(gflops / 1000, 1);
    ceilings.add({key, fixed(c.bandwidth_gbps(), 1) + " GB/s", trials_text(c), fixed(c.f32_gflops, 0) + " GFLOP/s",
                  c.f64_gflops > 0 ? fixed(c.f64_gflops, 0) + " GFLOP/s" : "-", units.empty() ? "-" : units + " TFLOP/s",
                  level(c.l2_gbps), level(c.l1_gbps),
                  c.date + " on " + (c.host.empty() ? std::string("an unrecorded machine") : c.host) + " with " +
                      c.backend + " kernels"});
    if (!c.unconfirmed.empty()) unconfirmed.push_back(key + ": " + c.unconfirmed);
    if (!c.settings_differ.empty()) settings.push_back(key + ": " + c.settings_differ);
    if (c.host != here) elsewhere.push_back(key + (c.host.empty() ? " (the machine was not recorded)" : " (" + c.host + ")"));
  }
  out << "\nroofline ceilings (% roof = GFLOP/s / min(peak, FLOP/B x bandwidth)):\n";
  ceilings.print(out, "  ");
  for (const auto& u : unconfirmed)
    out << "  UNCONFIRMED ceilings (no second trial came within 20% of the best: gpubench roofline --remeasure on a "
           "quiet machine): " << u << "\n";
  for (const auto& s : settings)
    out << "  SETTINGS DIFFER: ceilings measured at other settings than this run's (" << s
        << "): % roof is against those (gpubench roofline --remeasure)\n";
  if (!elsewhere.empty()) {
    out << "  WARNING: ceilings measured on another machine than this one (" << here << "):";
    for (const auto& e : elsewhere) out << " " << e;
    out << "; % roof is against that machine's (gpubench roofline --remeasure measures this one's)\n";
  }
}

// The launch parameters kernel row `k` ran with, and where they came from ("" when none).
// A spec's steps all run with its one configuration, stored under the spec's name (issue 58 item 6).
std::string launch_cell(const nlohmann::json& launch, const KernelRow& k, bool one_for_all) {
  auto it = launch.find(k.kernel);
  if (it == launch.end() && one_for_all && launch.size() == 1 && k.kernel != "overhead") it = launch.begin();
  if (it == launch.end()) return {};
  Params params;  // every integer is a parameter; "from" and "detail" say where they came from
  for (const auto& [name, value] : it->items())
    if (value.is_number_integer()) params[name] = value.get<int>();
  return format_params(params) + ": " + it->value("from", std::string());
}

// One point's profiled pass, kernel by kernel.
void write_kernels(const PointResult& p, std::ostream& out) {
  const double pass = p.profiled_seconds_per_iteration;
  out << "\n" << p.id.where() << " " << p.id.variant << " " << to_string(p.id.precision)
      << " per kernel: a profiled pass, each kernel timed alone between waits (" << fixed(pass * 1e3, 4)
      << " ms/iter; the timed iterations " << fixed(p.median_seconds_per_iteration * 1e3, 4)
      << "); overhead = the pass's time outside its kernels\n";
  TextTable kernels({"kernel", "calls/iter", "ms/iter", "% of pass", "GFLOP/s", "GB/s", "FLOP/B", "theor GF/s",
                     "% theor", "% roof", "launch: from"},
                    {false, true, true, true, true, true, true, true, true, true, false});
  const nlohmann::json launch = p.id.params.value("launch", nlohmann::json::object());
  bool marked = false;
  for (const auto& k : p.kernels) {
    const double s = k.seconds_per_iteration;
    const bool overhead = k.kernel == "overhead";
    const bool has_work = !overhead && s > 0;
    const bool memory = has_work && memory_applies(k.flops_per_iteration, k.bytes_per_iteration);
    // Work without FLOPs (a copy, a transpose) sits against the bandwidth alone: % roof, no FLOP columns.
    const bool placed = memory && p.ceilings.has_value(), flops = k.flops_per_iteration > 0;
    const RooflinePlace r = placed ? p.roofline(k) : RooflinePlace{};
    const std::string na = overhead ? "" : "-";
    kernels.add({k.kernel, overhead ? "" : fixed(k.calls_per_iteration, 2), fixed(s * 1e3, 4),
                 fixed(pass > 0 ? 100 * s / pass : 0, 1),
                 has_work && k.flops_per_iteration > 0 ? fixed(k.flops_per_iteration / s / 1e9, 2) : na,
                 memory ? fixed(k.bytes_per_iteration / s / 1e9, 1) : na,
                 memory && k.flops_per_iteration > 0 ? compact(k.flops_per_iteration / k.bytes_per_iteration, 3, 1e4) : na,
                 placed && flops ? compact(r.theoretical_gflops, 1) : na, placed && flops ? fixed(r.theoretical_pct, 1) : na,
                 placed ? roof_cell(r.roofline_pct, marked) + level_cell(r) : na, launch_cell(launch, k, p.id.suite == "spec")});
  }
  kernels.print(out, "  ");
  if (marked)
    out << "  * above the DRAM roof: this kernel's data is served from a cache faster than the measured memory bandwidth"
        << (p.ceilings && p.ceilings->l2_gbps > 0 ? "; (L2 n%) is its place against the first cache level whose roof holds it"
                                                 : " (" + caches_unmeasured(p.id.device) + ")")
        << "\n";
}

// What was asked for and not run, and the points that failed.
void write_not_measured(const RunReport& report, std::ostream& out) {
  if (!report.unavailable.empty()) {
    out << "\nunavailable here (not run):\n";
    for (const auto& u : report.unavailable) out << "  " << u << "\n";
  }
  bool header_done = false;
  for (const auto& p : report.points) {
    if (!p.failed) continue;
    if (!header_done) out << "\nFAILED points (no figures are reported for them):\n";
    header_done = true;
    out << "  " << p.id.name() << ": " << p.error << "\n";
  }
}

}  // namespace

void write_table(const RunReport& report, std::ostream& out, const std::string& baseline, bool breakdown, bool energy) {
  if (report.points.empty()) {
    out << "no points were planned\n";
    return;
  }
  // A table per problem (--problem a list or a range), each with its own heading and speedups.
  std::vector<std::string> problems;
  for (const auto& p : report.points)
    if (std::find(problems.begin(), problems.end(), p.id.problem) == problems.end()) problems.push_back(p.id.problem);
  const auto write_part = [&](const RunReport& part) {
    const bool to_solution = iteration_counts_differ(part);
    write_heading(part, out, baseline, to_solution);
    write_summary(part, out, baseline, to_solution, energy);
  };
  if (problems.size() == 1) write_part(report);
  for (std::size_t i = 0; problems.size() > 1 && i < problems.size(); ++i) {
    RunReport part;
    part.context = report.context;
    for (const auto& p : report.points)
      if (p.id.problem == problems[i]) part.points.push_back(p);
    if (i > 0) out << "\n";
    write_part(part);
  }
  write_machine_load(report, out);
  if (energy) write_energy_footnote(report, out);
  write_ceilings(report, out);
  bool any_kernels = false;
  for (const auto& p : report.points) any_kernels = any_kernels || (!p.failed && !p.kernels.empty());
  if (any_kernels && !breakdown) out << "\n(--breakdown adds each point's per-kernel times)\n";
  if (breakdown)
    for (const auto& p : report.points)
      if (!p.failed && !p.kernels.empty()) write_kernels(p, out);
  write_not_measured(report, out);
}

namespace {

namespace fs = std::filesystem;

// What --out names, with its symlinks followed: writing replaces the file a link points at,
// never the link.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? fs::path(path) : p;
}

std::string reason() { return std::strerror(errno); }

}  // namespace

std::string kernel_csv_path(const std::string& out) {
  const fs::path p(out);
  const std::string stem = p.extension() == ".csv" ? p.stem().string() : p.filename().string();
  return (p.parent_path() / (stem + ".kernels.csv")).string();
}

void check_writable(const std::string& path) {
  const fs::path target = resolved(path);
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_directory(st)) throw UsageError("--out " + path + " is a directory, not a file");
  if (fs::exists(st)) {
    if (access(target.c_str(), W_OK) != 0) throw UsageError("--out " + path + " cannot be written: " + reason());
    if (!fs::is_regular_file(st)) return;  // a FIFO or a device: written in place
  }
  // The temporary file goes beside the target, so the directory must take new files.
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw UsageError("--out " + path + ": the directory " + dir.string() + " does not exist");
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError("--out " + path + ": cannot create files in " + dir.string() + ": " + reason());
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const fs::path target = resolved(path);
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_directory(st)) throw InputError("cannot write " + path + ": it is a directory");
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    // A FIFO, a terminal or a device: a rename would replace it with a regular file.
    std::ofstream f(target, std::ios::binary);
    if (!f) throw InputError("cannot write " + path + ": " + reason());
    f << content;
    f.close();
    if (!f) throw InputError("cannot write " + path + ": " + reason());
    return;
  }
  // A fresh name (mkstemp creates it exclusively): a file of the user's that happens to be
  // called "<out>.tmp" is never overwritten, nor one of another run writing the same --out.
  std::string tmp = target.string() + ".tmp.XXXXXX";
  {
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw InputError("cannot write " + path + ": cannot create a file beside it: " + reason());
    ::close(fd);
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (f) f << content;
    if (f) f.close();
    if (!f) {
      const std::string why = reason();
      fs::remove(tmp, ec);
      throw InputError("cannot write " + path + ": " + why);
    }
  }
  // mkstemp makes the file 0600: a new --out gets the umask's mode like any file; an old one keeps its own.
  if (!fs::exists(st)) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    fs::permissions(tmp, static_cast<fs::perms>(0666 & ~mask), ec);
  }
  if (fs::exists(st)) fs::permissions(tmp, st.permissions(), ec);  // keep the target's mode
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw InputError("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace gpubench
