#include "bench/records.hpp"

#include <algorithm>
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

// The time each row's speedup divides: the baseline row of the same precision if there is
// one, else the first verified baseline row; 0 when the baseline did not verify.
double baseline_time(const RunReport& report, const std::string& baseline, const PointResult& row) {
  const PointResult* any = nullptr;
  for (const auto& p : report.points) {
    if (p.failed || p.median_seconds_per_iteration <= 0) continue;
    if (baseline.empty()) return p.median_seconds_per_iteration;  // the first verified row
    if (!parse_baseline(baseline).matches(p.id)) continue;
    if (p.id.precision == row.id.precision) return p.median_seconds_per_iteration;
    if (!any) any = &p;
  }
  return any ? any->median_seconds_per_iteration : 0;
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

void write_json(const RunReport& report, std::ostream& out) {
  // Google Benchmark's compare.py (1.7) reads every entry of "benchmarks" as a time: a failed
  // point's entries (error_occurred, no times) go beside them, so that a failure can neither
  // read as a speed-up nor stop compare.py.
  nlohmann::json measured = nlohmann::json::array(), failed = nlohmann::json::array();
  for (const auto& b : report.benchmarks) (b.value("error_occurred", false) ? failed : measured).push_back(b);
  out << nlohmann::json{{"context", report.context}, {"benchmarks", measured}, {"failed_benchmarks", failed}}.dump(2)
      << "\n";
}

void write_csv(const RunReport& report, std::ostream& out) {
  out << "name,suite,problem,backend,device_index,device,variant,precision,run_type,aggregate_name,"
         "repetition_index,real_time_ms,gflops,gbps,roofline_pct,verified,kernels_ms_per_iteration,error_message\n";
  for (const auto& b : report.benchmarks) {
    std::string kernels;
    for (const auto& k : b["kernels"]) {
      if (!kernels.empty()) kernels += ';';
      kernels += k["kernel"].get<std::string>() + ":" + fixed(k["ms_per_iteration"].get<double>(), 6);
    }
    auto num = [&](const char* key) { return b.contains(key) ? fixed(b[key].get<double>(), 6) : std::string(); };
    out << csv_quote(b["name"].get<std::string>()) << "," << b["suite"].get<std::string>() << ","
        << csv_quote(b["problem"].get<std::string>()) << "," << b["backend"].get<std::string>() << ","
        << b["device_index"].get<int>() << "," << csv_quote(b["device"].get<std::string>()) << ","
        << b["variant"].get<std::string>() << "," << b["precision"].get<std::string>() << ","
        << b["run_type"].get<std::string>() << "," << b.value("aggregate_name", std::string()) << ","
        << (b.contains("repetition_index") ? std::to_string(b["repetition_index"].get<long>()) : std::string()) << ","
        << (b.contains("real_time") ? fixed(b["real_time"].get<double>() / 1e6, 6) : std::string()) << "," << num("gflops") << ","
        << num("gbps") << "," << num("roofline_pct") << "," << (b["verified"].get<bool>() ? "true" : "false") << "," << kernels << ","
        << csv_quote(b.value("error_message", std::string())) << "\n";
  }
}

void write_table(const RunReport& report, std::ostream& out, const std::string& baseline) {
  if (report.points.empty()) {
    out << "no points were planned\n";
    return;
  }
  const PointResult& first = report.points.front();
  out << first.id.suite << " " << first.id.problem << "  (time per iteration: median of "
      << (first.repetitions.empty() ? 0 : first.repetitions.size()) << " repetitions; speedup against "
      << (baseline.empty() ? std::string("the first row") : baseline) << ")\n\n";
  out << column("backend", 16) << column("device", 32) << column("variant", 9) << column("prec", 5) << column("ms/iter", 11, true)
      << column("GFLOP/s", 10, true) << column("GB/s", 10, true) << column("% roof", 8, true) << column("speedup", 9, true)
      << "  verified\n";
  for (const auto& p : report.points) {
    const std::string backend = p.id.backend + ":" + std::to_string(p.id.device.index);
    out << column(backend, 16) << column(p.id.device.name, 31) << " " << column(p.id.variant, 9)
        << column(to_string(p.id.precision), 5);
    if (p.failed || p.median_seconds_per_iteration <= 0) {
      out << column("-", 11, true) << column("-", 10, true) << column("-", 10, true) << column("-", 8, true) << column("-", 9, true)
          << "  FAILED\n";
      continue;
    }
    const double t = p.median_seconds_per_iteration;
    const double base = baseline_time(report, baseline, p);
    out << column(fixed(t * 1e3, 4), 11, true) << column(fixed(p.gflops(), 2), 10, true) << column(fixed(p.gbps(), 1), 10, true)
        << column(p.ceilings ? fixed(p.roofline().roofline_pct, 1) : "-", 8, true) << column(base > 0 ? fixed(base / t, 2) + "x" : "-", 9, true) << "  yes";
    if (const std::string s = summary_of(p); !s.empty()) out << "  " << s;
    out << "\n";
  }
  std::vector<std::string> shown;
  for (const auto& p : report.points) {
    const std::string key = device_key(p.id.device);
    if (std::find(shown.begin(), shown.end(), key) != shown.end()) continue;
    shown.push_back(key);
    if (shown.size() == 1) out << "\nroofline ceilings (% roof = GFLOP/s / min(peak, FLOP/B x bandwidth)):\n";
    out << "  " << column(key, 14);
    if (!p.ceilings) {
      out << "none (no ceiling probe for this backend)\n";
      continue;
    }
    out << fixed(p.ceilings->bandwidth_gbps(), 1) << " GB/s, peak " << fixed(p.ceilings->f32_gflops, 0)
        << " GFLOP/s f32, " << fixed(p.ceilings->f64_gflops, 0) << " f64 (measured " << p.ceilings->date << " with "
        << p.ceilings->backend << " kernels)\n";
  }
  for (const auto& p : report.points) {
    if (p.failed || p.kernels.empty()) continue;
    const double total = p.median_seconds_per_iteration;
    out << "\n" << p.id.backend << ":" << p.id.device.index << " " << p.id.variant << " " << to_string(p.id.precision)
        << " per kernel (profiled pass; overhead = timed total - kernels)\n";
    out << "  " << column("kernel", 19) << column("calls/iter", 11, true) << column("ms/iter", 11, true)
        << column("% of iter", 10, true) << column("GFLOP/s", 10, true) << column("GB/s", 10, true) << column("FLOP/B", 9, true)
        << column("theor GF/s", 11, true) << column("% theor", 8, true) << column("% roof", 8, true) << "  launch: from\n";
    const nlohmann::json launch = p.id.params.value("launch", nlohmann::json::object());
    for (const auto& k : p.kernels) {
      const double s = k.seconds_per_iteration;
      const bool has_work = k.bytes_per_iteration > 0 && s > 0;
      const bool placed = has_work && p.ceilings.has_value();
      const RooflinePlace r = placed ? p.roofline(k) : RooflinePlace{};
      std::string used;
      if (auto it = launch.find(k.kernel); it != launch.end()) {
        Params params;  // every integer is a parameter; "from" and "detail" say where they came from
        for (const auto& [name, value] : it->items())
          if (value.is_number_integer()) params[name] = value.get<int>();
        used = format_params(params) + ": " + it->value("from", std::string());
      }
      out << "  " << column(k.kernel, 19) << column(k.kernel == "overhead" ? "" : fixed(k.calls_per_iteration, 2), 11, true)
          << column(fixed(s * 1e3, 4), 11, true) << column(fixed(total > 0 ? 100 * s / total : 0, 1), 10, true)
          << column(has_work ? fixed(k.flops_per_iteration / s / 1e9, 2) : "", 10, true)
          << column(has_work ? fixed(k.bytes_per_iteration / s / 1e9, 1) : "", 10, true)
          << column(has_work ? compact(k.flops_per_iteration / k.bytes_per_iteration, 3, 1e4) : "", 9, true)
          << column(placed ? compact(r.theoretical_gflops, 1) : "", 11, true)
          << column(placed ? fixed(r.theoretical_pct, 1) : "", 8, true)
          << column(placed ? fixed(r.roofline_pct, 1) : "", 8, true) << (used.empty() ? "" : "  " + used) << "\n";
    }
  }
  if (!report.unavailable.empty()) {
    out << "\nunavailable here (not run):\n";
    for (const auto& u : report.unavailable) out << "  " << u << "\n";
  }
  bool header = false;
  for (const auto& p : report.points) {
    if (!p.failed) continue;
    if (!header) out << "\nFAILED points (no figures are reported for them):\n";
    header = true;
    out << "  " << p.id.name() << ": " << p.error << "\n";
  }
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
