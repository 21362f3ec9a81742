#include "bench/tuning_db.hpp"

#include "backends/registry.hpp"
#include "bench/data_dir.hpp"
#include "bench/roofline.hpp"

#include "bench/format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "common/errors.hpp"

namespace gpubench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// One layer's file for a device: where it is and what it holds (no device when it is missing).
struct LayerFile {
  std::string path;
  TuningDbFile file;
};

std::string default_name(const TuningKey& k) { return k.suite + "/" + k.kernel; }

std::set<std::string> bucket_names(const TuningKey& k) {
  std::set<std::string> names;
  for (const auto& b : k.buckets) names.insert(b.first);
  return names;
}

// The key's size for breaking ties: the sum of its buckets, then its buckets in the declared
// order of `order` from the last (CG: the larger nnz), whose launch shape carries down better.
std::vector<int> size_rank(const TuningKey& k, const TuningKey& order) {
  std::vector<int> rank{0};
  for (auto it = order.buckets.rbegin(); it != order.buckets.rend(); ++it) {
    const int v = k.bucket(it->first).value_or(0);
    rank.front() += v;
    rank.push_back(v);
  }
  return rank;
}

std::string layer_role(std::size_t index) { return index == 0 ? "written" : "read only"; }

std::string entry_source(const TuningEntry& e) {
  std::string s = "swept on " + e.problem;
  if (!e.date.empty()) s += ", " + e.date;
  return "(" + s + ")";
}

std::string params_text(const json& params) {
  std::string s;
  for (const auto& [k, v] : params.items()) {
    if (!s.empty()) s += " ";
    s += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s.empty() ? "-" : s;
}

std::string buckets_text(const TuningKey& k) {
  std::string s;
  for (const auto& [name, value] : k.buckets) s += (s.empty() ? "" : " ") + name + "~2^" + std::to_string(value);
  return s.empty() ? "-" : s;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The backend whose devices a file describes, from its API and platform: "OpenCL 3.0 CUDA" ->
// opencl, "ViennaCL 1.7 / OpenMP 4.5" -> viennacl_host, "OpenMP 202011 target, libomptarget
// (Clang 19.1.7) ..." -> omp_target_clang (one API, told apart by the runtime).
std::string backend_of(const DeviceIdentity& d) {
  const std::string a = lower(d.api + ", " + d.platform);
  for (const Backend& b : backends()) {
    const std::string pattern = b.api.empty() ? b.name : b.api;
    if (std::regex_search(a, std::regex("^(" + pattern + ")", std::regex::icase))) return b.name;
  }
  return a.substr(0, a.find(' '));
}

bool shows_device(const TuningDb::ShowFilter& f, const DeviceIdentity& d) {
  return (f.backend.empty() || backend_of(d) == f.backend) &&
         (f.device.empty() || lower(d.name).find(lower(f.device)) != std::string::npos);
}

bool shows_entry(const TuningDb::ShowFilter& f, const TuningEntry& e) {
  return (f.suite.empty() || e.key.suite == f.suite) && (f.kernel.empty() || e.key.kernel == f.kernel);
}

// Prints one file's contents; returns how many of the entries and defaults shown `check` refuses
// (each said on an "error:" line).
std::size_t show_contents(const TuningDbFile& db, const TuningDb::ShowFilter& filter, const TuningDb::ParamsCheck& check,
                          std::ostream& out) {
  std::vector<std::string> refused;
  const auto checked = [&](const std::string& what, const std::string& suite, const std::string& kernel,
                           const nlohmann::json& params) {
    if (!check) return;
    if (const std::string why = check(suite, kernel, params); !why.empty())
      refused.push_back(what + " " + params_text(params) + ": " + why);
  };
  out << "  device:   " << db.device->describe() << "\n";
  if (db.ceilings) {
    const Ceilings& c = *db.ceilings;
    out << "  ceilings: copy " << fixed(c.copy_gbps, 1) << " GB/s, triad " << fixed(c.triad_gbps, 1)
        << " GB/s, f32 " << fixed(c.f32_gflops, 1) << " GFLOP/s, f64 " << fixed(c.f64_gflops, 1)
        << " GFLOP/s (" << c.backend << " kernels, arrays of " << c.array_bytes / (1024 * 1024) << " MiB, trials "
        << trials_text(c) << ", " << c.date << ", " << c.commit << ")\n";
  } else {
    out << "  ceilings: not measured\n";
  }
  // Defaults are keyed "suite/kernel".
  std::vector<std::pair<std::string, std::string>> defaults;
  for (const auto& [name, params] : db.defaults.items()) {
    const auto slash = name.find('/');
    const std::string suite = name.substr(0, slash), kernel = slash == std::string::npos ? "" : name.substr(slash + 1);
    if ((filter.suite.empty() || suite == filter.suite) && (filter.kernel.empty() || kernel == filter.kernel))
      defaults.emplace_back(name, params_text(params)), checked("default " + name, suite, kernel, params);
  }
  if (defaults.empty()) {
    out << "  defaults: none\n";
  } else {
    out << "  defaults:\n";
    for (const auto& [name, params] : defaults) out << "    " << name << ": " << params << "\n";
  }
  std::vector<const TuningEntry*> shown;
  for (const auto& e : db.entries)
    if (shows_entry(filter, e)) shown.push_back(&e);
  for (const TuningEntry* e : shown)
    checked("entry " + e->key.text(), e->key.suite, e->key.kernel, e->params);
  const auto say_refused = [&] {
    for (const auto& r : refused) out << "  error: " << r << " (a run refuses it)\n";
    return refused.size();
  };
  if (shown.empty()) {
    out << (db.entries.empty() ? "  entries:  none\n" : "  entries:  none of this suite and kernel\n");
    return say_refused();
  }
  // In the order the file keeps them (sorted by key when written).
  const std::vector<std::string> header = {"kernel", "buckets", "problem", "params", "ms", "GFLOP/s", "% roofline",
                                           "date"};
  const std::vector<bool> right = {false, false, false, false, true, true, true, false};
  std::vector<std::vector<std::string>> rows;
  for (const TuningEntry* entry : shown) {
    const TuningEntry& e = *entry;
    rows.push_back({e.key.suite + "/" + e.key.kernel + "/" + to_string(e.key.precision), buckets_text(e.key),
                    e.problem, params_text(e.params), fixed(e.seconds * 1e3, 3), fixed(e.gflops, 1),
                    e.roofline_pct > 0 ? fixed(e.roofline_pct, 1) : "-", e.date.empty() ? "-" : e.date});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    width[i] = header[i].size();
    for (const auto& r : rows) width[i] = std::max(width[i], r[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = "  ";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      s += "  ";
      s += column(cells[i], width[i], right[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  };
  out << "  entries:\n";
  line(header);
  for (const auto& r : rows) line(r);
  return say_refused();
}

// The *.json files of a layer, sorted; none when the directory does not exist.
std::vector<fs::path> layer_files(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  if (status.type() == fs::file_type::not_found) return files;
  if (ec) throw InputError("tuning database directory " + dir + ": cannot be examined (" + ec.message() + ")");
  if (!fs::is_directory(status)) throw InputError("tuning database directory " + dir + " is not a directory");
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec) throw InputError("tuning database directory " + dir + ": cannot be listed (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  return files;
}

// Shows one layer's files and counts them; returns the paths of those that cannot be read.
std::vector<std::string> show_layer(const std::string& dir, std::size_t index, const TuningDb::ShowFilter& filter,
                                    const TuningDb::ParamsCheck& check, std::size_t& count, std::ostream& out) {
  out << "== " << dir << " (" << layer_role(index) << ")\n";
  const std::vector<fs::path> files = layer_files(dir);
  count += files.size();
  if (files.empty()) out << "no tuning database files\n";
  std::vector<std::string> bad;
  for (const auto& file : files) {
    const std::string path = file.string();
    const std::string name = file.filename().string();
    try {
      const TuningDbFile db = read_tuning_db_file(path);
      if (!db.device) tuning_db_file_error(path, "vanished while being read");
      if (db.device->file_name() != name)
        tuning_db_file_error(path, "its \"device\" block describes " + db.device->describe() + ", whose file is " +
                                       db.device->file_name());
      if (!shows_device(filter, *db.device)) continue;
      out << name << "\n";
      if (const std::size_t refused = show_contents(db, filter, check, out))
        bad.push_back(path + " (" + std::to_string(refused) + " entr" + (refused == 1 ? "y" : "ies") + " a run refuses)");
    } catch (const InputError& e) {
      out << name << "\n  error: " << e.what() << "\n";
      bad.push_back(path);
    }
  }
  return bad;
}

bool same_directory(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a), ec1), cb = fs::weakly_canonical(fs::absolute(b), ec2);
  return !ec1 && !ec2 && ca == cb;
}

std::vector<LayerFile> load_layers(const std::vector<std::string>& layers, const DeviceInfo& d) {
  const DeviceIdentity id = DeviceIdentity::of(d);
  std::vector<LayerFile> files;
  for (const auto& dir : layers) {
    const std::string path = (fs::path(dir) / id.file_name()).string();
    files.push_back({path, read_tuning_db_file(path, id)});
  }
  return files;
}

}  // namespace

const char* to_string(TuningSource s) {
  switch (s) {
    case TuningSource::exact: return "tuned";
    case TuningSource::nearest_size: return "tuned (nearest size)";
    case TuningSource::device_default: return "device default";
    case TuningSource::heuristic: return "heuristic";
    case TuningSource::off: return "off";
  }
  return "?";
}

TuningDb::TuningDb(std::string write_dir, std::vector<std::string> read_only) {
  layers_.push_back(std::move(write_dir));
  for (auto& d : read_only) layers_.push_back(std::move(d));
}

std::string TuningDb::path_for(const DeviceInfo& d) const {
  return (fs::path(dir()) / DeviceIdentity::of(d).file_name()).string();
}

std::optional<Ceilings> TuningDb::ceilings(const DeviceInfo& d) const {
  for (const auto& layer : load_layers(layers_, d))
    if (layer.file.ceilings) return layer.file.ceilings;
  return std::nullopt;
}

std::vector<TuningEntry> TuningDb::entries(const DeviceInfo& d) const {
  std::vector<TuningEntry> all;
  for (const auto& layer : load_layers(layers_, d))
    for (const auto& e : layer.file.entries)
      if (std::none_of(all.begin(), all.end(), [&](const TuningEntry& x) { return x.key.same_as(e.key); }))
        all.push_back(e);
  return all;
}

TuningChoice TuningDb::lookup(const DeviceInfo& d, const TuningKey& key, const nlohmann::json& heuristic) const {
  const std::vector<LayerFile> files = load_layers(layers_, d);
  if (std::none_of(files.begin(), files.end(), [](const LayerFile& f) { return f.file.device.has_value(); })) {
    std::string paths;
    for (const auto& f : files) paths += (paths.empty() ? "" : " or ") + f.path;
    return {heuristic, TuningSource::heuristic, "no tuning database file " + paths};
  }

  for (const auto& f : files)
    for (const auto& e : f.file.entries)
      if (e.key.same_as(key))
        return {e.params, TuningSource::exact, "tuning-db " + f.path + ": " + e.key.text() + " " + entry_source(e)};

  // Nearest size over every layer: the upper layer is searched first and only a strictly
  // better entry replaces the best, so it wins between equal keys.
  const std::set<std::string> names = bucket_names(key);
  const TuningEntry* best = nullptr;
  const LayerFile* best_file = nullptr;
  int best_distance = 0;
  for (const auto& f : files)
    for (const auto& e : f.file.entries) {
      if (e.key.suite != key.suite || e.key.kernel != key.kernel || e.key.precision != key.precision ||
          bucket_names(e.key) != names)
        continue;
      int distance = 0;
      for (const auto& [name, value] : key.buckets) distance += std::abs(*e.key.bucket(name) - value);
      if (!best || distance < best_distance ||
          (distance == best_distance && size_rank(e.key, key) > size_rank(best->key, key))) {
        best = &e;
        best_file = &f;
        best_distance = distance;
      }
    }
  if (best)
    return {best->params, TuningSource::nearest_size,
            "tuning-db " + best_file->path + ": " + best->key.text() + " for " + key.text() + " " +
                entry_source(*best)};

  for (const auto& f : files)
    if (const auto it = f.file.defaults.find(default_name(key)); it != f.file.defaults.end())
      return {*it, TuningSource::device_default,
              "tuning-db " + f.path + ": default for " + default_name(key) + " (no entry for " + key.text() + ")"};

  std::string where;
  for (const auto& f : files)
    if (f.file.device) where += (where.empty() ? "" : " or ") + f.path;
  return {heuristic, TuningSource::heuristic, "no entry for " + key.text() + " in " + where};
}

void TuningDb::store_ceilings(const DeviceInfo& d, const Ceilings& c) {
  Ceilings stored = c;
  stored.settings_differ.clear();  // said against each run's settings, never stored
  update_tuning_db_file(path_for(d), DeviceIdentity::of(d), [&](TuningDbFile& db) { db.ceilings = stored; });
}

namespace {
std::string us(double seconds) {
  std::ostringstream o;
  o << std::setprecision(4) << seconds * 1e6 << " us";
  return o.str();
}
}  // namespace

std::vector<std::string> TuningDb::record(const DeviceInfo& d, const std::vector<TuningEntry>& new_entries, bool replace) {
  const std::string path = path_for(d);
  for (const auto& e : new_entries)
    if (!e.params.is_object())
      throw InputError("tuning database " + path + ": the params of " + e.key.text() + " are not a JSON object (" +
                       e.params.dump() + ")");
  std::vector<std::string> notes;
  update_tuning_db_file(path, DeviceIdentity::of(d), [&](TuningDbFile& db) {
    notes.clear();  // the update may be retried
    for (const auto& e : new_entries) {
      const auto same = std::find_if(db.entries.begin(), db.entries.end(),
                                     [&](const TuningEntry& x) { return x.key.same_as(e.key); });
      if (same != db.entries.end()) {
        // A better entry of other parameters stays (a narrowed sweep may not have seen them), unless told.
        const bool same_objective = same->extra.value("objective", nlohmann::json("time")) ==
                                    e.extra.value("objective", nlohmann::json("time"));
        if (!replace && same_objective && same->params != e.params && same->seconds > 0 && same->seconds < e.seconds) {
          notes.push_back(e.key.text() + ": kept the stored " + same->params.dump() + " (" + us(same->seconds) + ", " +
                          same->date + "), faster than this sweep's best " + e.params.dump() + " (" + us(e.seconds) +
                          "); --replace stores this sweep's");
          continue;
        }
        notes.push_back(e.key.text() + ": stored " + e.params.dump() + " (" + us(e.seconds) + "), replacing " +
                        (same->params == e.params ? "its earlier measurement" : same->params.dump()) + " (" +
                        us(same->seconds) + ")");
        *same = e;
      } else {
        db.entries.push_back(e);
        notes.push_back(e.key.text() + ": stored " + e.params.dump() + " (" + us(e.seconds) + ")");
      }
      if (!db.defaults.contains(default_name(e.key))) db.defaults[default_name(e.key)] = e.params;
    }
  });
  return notes;
}

void TuningDb::show(std::ostream& out, const ShowFilter& filter, const ParamsCheck& check) const {
  out << "tuning database layers, the first written, the others read beneath it in order:\n";
  std::string only;
  for (const auto& [what, value] : {std::pair<const char*, const std::string&>{"backend", filter.backend},
                                    {"device", filter.device}, {"suite", filter.suite}, {"kernel", filter.kernel}})
    if (!value.empty()) only += std::string(only.empty() ? "" : ", ") + what + " " + value;
  for (std::size_t i = 0; i < layers_.size(); ++i) out << "  " << i + 1 << ". " << layers_[i] << " (" << layer_role(i) << ")\n";
  if (!only.empty()) out << "only: " << only << "\n";
  // A module's backend (cuda, omp_target, omp_target_clang) says how its devices' API reads once
  // it is loaded: the one asked for is (one that cannot be is matched by its name).
  if (!filter.backend.empty()) (void)load_backend(filter.backend);
  std::vector<std::string> bad;
  std::size_t files = 0;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    out << "\n";
    for (auto& b : show_layer(layers_[i], i, filter, check, files, out)) bad.push_back(std::move(b));
  }
  if (!bad.empty()) {
    std::string list;
    for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
    throw InputError("tuning database: " + std::to_string(bad.size()) + " of " + std::to_string(files) +
                     " files cannot be read or hold what a run refuses: " + list + " (see above)");
  }
}

std::string default_tuning_db_dir() {
  if (const char* env = std::getenv("GPUBENCH_TUNING_DB"); env && *env) return env;
  // The XDG base directory rules: a relative XDG_CACHE_HOME is ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/gpubench";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/gpubench";
  throw InputError("no directory for the tuning database: none of GPUBENCH_TUNING_DB, XDG_CACHE_HOME and HOME is "
                   "set; name one with --tuning-db DIR");
}

std::string committed_tuning_db_dir() {
  if (const char* hook = std::getenv("GPUBENCH_COMMITTED_TUNING_DB")) return hook;
  try {
    return data_dir() + "/tuning-db";
  } catch (const InputError&) {
    return "";  // none shipped: the user's database alone
  }
}

TuningDb open_tuning_db(const std::string& write_dir) {
  const std::string written = write_dir.empty() ? default_tuning_db_dir() : write_dir;
  const std::string committed = committed_tuning_db_dir();
  std::error_code ec;
  if (committed.empty() || !fs::is_directory(committed, ec) || same_directory(written, committed))
    return TuningDb(written);
  return TuningDb(written, {committed});
}

}  // namespace gpubench
