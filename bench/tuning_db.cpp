#include "bench/tuning_db.hpp"

#include "bench/tunable.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <tuple>
#include <utility>

#include "common/errors.hpp"

namespace gpubench {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr const char* schema_name = "gpubench-tuning-db";

// What a file holds, parsed and checked.
struct DbContents {
  std::optional<DeviceIdentity> device;  // nullopt only for a file that does not exist yet
  std::optional<Ceilings> ceilings;
  json defaults = json::object();  // "suite/kernel" -> params
  std::vector<TuningEntry> entries;
};

// Every complaint about a file says which file, what is wrong, and that it was left alone.
[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("tuning database " + path + ": " + what +
                   "; it was not changed (move it away or use --tuning-db DIR)");
}

// A field of a file that is missing or of the wrong type; turned into fail() by parse().
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json& field(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw Malformed(where + ": \"" + key + "\" is missing");
  return *it;
}

std::string string_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (!v.is_string()) throw Malformed(where + ": \"" + key + "\" is not a string");
  return v.get<std::string>();
}

double number_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (!v.is_number()) throw Malformed(where + ": \"" + key + "\" is not a number");
  return v.get<double>();
}

std::int64_t integer_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (!v.is_number_integer()) throw Malformed(where + ": \"" + key + "\" is not an integer");
  return v.get<std::int64_t>();
}

int int_field(const json& obj, const char* key, const std::string& where) {
  const std::int64_t v = integer_field(obj, key, where);
  if (v < -1000000 || v > 1000000) throw Malformed(where + ": \"" + key + "\" is out of range");
  return static_cast<int>(v);
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is the useful part.
std::string without_json_prefix(const std::string& what) {
  if (what.starts_with("[json.exception.")) {
    const auto end = what.find("] ");
    if (end != std::string::npos) return what.substr(end + 2);
  }
  return what;
}

Ceilings ceilings_from_json(const json& j) {
  const std::string where = "ceilings";
  if (!j.is_object()) throw Malformed(where + " is not an object");
  Ceilings c;
  c.copy_gbps = number_field(j, "copy_gbps", where);
  c.triad_gbps = number_field(j, "triad_gbps", where);
  c.f32_gflops = number_field(j, "f32_gflops", where);
  c.f64_gflops = number_field(j, "f64_gflops", where);
  const std::int64_t bytes = integer_field(j, "array_bytes", where);
  if (bytes < 0) throw Malformed(where + ": \"array_bytes\" is negative");
  c.array_bytes = static_cast<std::uint64_t>(bytes);
  c.backend = string_field(j, "backend", where);
  c.date = string_field(j, "date", where);
  c.commit = string_field(j, "commit", where);
  return c;
}

ordered_json ceilings_to_json(const Ceilings& c) {
  ordered_json j;
  j["copy_gbps"] = c.copy_gbps;
  j["triad_gbps"] = c.triad_gbps;
  j["f32_gflops"] = c.f32_gflops;
  j["f64_gflops"] = c.f64_gflops;
  j["array_bytes"] = c.array_bytes;
  j["backend"] = c.backend;
  j["date"] = c.date;
  j["commit"] = c.commit;
  return j;
}

TuningEntry entry_from_json(const json& j, std::size_t index) {
  const std::string where = "entries[" + std::to_string(index) + "]";
  if (!j.is_object()) throw Malformed(where + " is not an object");
  TuningEntry e;
  e.key.suite = string_field(j, "suite", where);
  e.key.kernel = string_field(j, "kernel", where);
  const std::string precision = string_field(j, "precision", where);
  if (precision != "f32" && precision != "f64")
    throw Malformed(where + ": \"precision\" is \"" + precision + "\", not f32 or f64");
  e.key.precision = parse_precision(precision);
  e.key.rows_bucket = int_field(j, "rows_bucket", where);
  e.key.nnz_bucket = int_field(j, "nnz_bucket", where);
  e.problem = string_field(j, "problem", where);
  e.params = field(j, "params", where);
  if (!e.params.is_object()) throw Malformed(where + ": \"params\" is not an object");
  e.seconds = number_field(j, "seconds", where);
  e.gflops = number_field(j, "gflops", where);
  e.roofline_pct = number_field(j, "roofline_pct", where);
  e.baseline_seconds = number_field(j, "baseline_seconds", where);
  e.date = string_field(j, "date", where);
  e.commit = string_field(j, "commit", where);
  return e;
}

ordered_json entry_to_json(const TuningEntry& e) {
  ordered_json j;
  j["suite"] = e.key.suite;
  j["kernel"] = e.key.kernel;
  j["precision"] = to_string(e.key.precision);
  j["rows_bucket"] = e.key.rows_bucket;
  j["nnz_bucket"] = e.key.nnz_bucket;
  j["problem"] = e.problem;
  j["params"] = ordered_json(e.params);
  j["seconds"] = e.seconds;
  j["gflops"] = e.gflops;
  j["roofline_pct"] = e.roofline_pct;
  j["baseline_seconds"] = e.baseline_seconds;
  j["date"] = e.date;
  j["commit"] = e.commit;
  return j;
}

bool same_key(const TuningKey& a, const TuningKey& b) {
  return a.suite == b.suite && a.kernel == b.kernel && a.precision == b.precision &&
         a.rows_bucket == b.rows_bucket && a.nnz_bucket == b.nnz_bucket;
}

// Entries in a stable order, so that diffs of the file show only what changed.
bool key_less(const TuningKey& a, const TuningKey& b) {
  return std::make_tuple(a.suite, a.kernel, std::string(to_string(a.precision)), a.rows_bucket, a.nnz_bucket) <
         std::make_tuple(b.suite, b.kernel, std::string(to_string(b.precision)), b.rows_bucket, b.nnz_bucket);
}

std::string default_name(const TuningKey& k) { return k.suite + "/" + k.kernel; }

// Throws InputError (via fail) for anything but a well-formed version-1 file.
DbContents parse(const std::string& path, const std::string& text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, "not valid JSON (" + without_json_prefix(e.what()) + ")");
  }
  if (!root.is_object()) fail(path, "not a JSON object");
  const auto schema = root.find("schema");
  if (schema == root.end() || !schema->is_string())
    fail(path, std::string("no \"schema\": \"") + schema_name + "\", so it is not a gpubench tuning database");
  if (schema->get<std::string>() != schema_name)
    fail(path, "schema \"" + schema->get<std::string>() + "\", expected \"" + schema_name + "\"");
  const auto version = root.find("version");
  const std::string reads = "this gpubench reads version " + std::to_string(tuning_db_version);
  if (version == root.end()) fail(path, "no \"version\", " + reads);
  if (!version->is_number_integer()) fail(path, "version " + version->dump() + ", " + reads);
  if (version->get<std::int64_t>() != tuning_db_version)
    fail(path, "version " + version->dump() + ", " + reads);

  DbContents db;
  try {
    try {
      db.device = DeviceIdentity::from_json(field(root, "device", "the file"));
    } catch (const Malformed&) {
      throw;
    } catch (const std::exception&) {
      throw Malformed("\"device\" is not an object of strings api, platform, vendor, name, driver and "
                      "integer compute_units");
    }
    if (const auto c = root.find("ceilings"); c != root.end()) db.ceilings = ceilings_from_json(*c);
    if (const auto d = root.find("defaults"); d != root.end()) {
      if (!d->is_object()) throw Malformed("\"defaults\" is not an object");
      for (const auto& [name, params] : d->items())
        if (!params.is_object()) throw Malformed("defaults[\"" + name + "\"] is not an object of parameters");
      db.defaults = *d;
    }
    if (const auto e = root.find("entries"); e != root.end()) {
      if (!e->is_array()) throw Malformed("\"entries\" is not an array");
      for (std::size_t i = 0; i < e->size(); ++i) db.entries.push_back(entry_from_json((*e)[i], i));
    }
  } catch (const Malformed& m) {
    fail(path, m.what());
  }
  return db;
}

// nullopt when the file does not exist.
std::optional<std::string> read_text(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return std::nullopt;
  if (ec) fail(path, "cannot be examined (" + ec.message() + ")");
  if (!fs::is_regular_file(status)) fail(path, "is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot be read (") + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(path, "cannot be read");
  return text.str();
}

std::string describe(const DeviceIdentity& d) {
  return d.name + " (" + d.api + ", platform " + d.platform + ", vendor " + d.vendor + ", " +
         std::to_string(d.compute_units) + " CUs, driver " + d.driver + ")";
}

// The file for `expected`, read fresh from disk: empty (and no device) when it does not exist.
DbContents load(const std::string& path, const DeviceIdentity& expected) {
  const auto text = read_text(path);
  if (!text) return {};
  DbContents db = parse(path, *text);
  if (!(*db.device == expected))
    fail(path, "its \"device\" block describes " + describe(*db.device) + ", not the device asked for, " +
                   describe(expected));
  return db;
}

std::string serialize(const DeviceIdentity& device, const DbContents& db) {
  ordered_json root;
  root["schema"] = schema_name;
  root["version"] = tuning_db_version;
  ordered_json dev;
  dev["api"] = device.api;
  dev["platform"] = device.platform;
  dev["vendor"] = device.vendor;
  dev["name"] = device.name;
  dev["compute_units"] = device.compute_units;
  dev["driver"] = device.driver;
  root["device"] = dev;
  if (db.ceilings) root["ceilings"] = ceilings_to_json(*db.ceilings);
  root["defaults"] = ordered_json(db.defaults);  // json objects iterate sorted by name
  std::vector<TuningEntry> sorted = db.entries;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const TuningEntry& a, const TuningEntry& b) { return key_less(a.key, b.key); });
  root["entries"] = ordered_json::array();
  for (const auto& e : sorted) root["entries"].push_back(entry_to_json(e));
  return root.dump(2) + "\n";
}

// An exclusive flock on "<file>.lock", held for the lifetime of the object. flock locks belong
// to the open file description, so two writers in one process exclude each other too.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw InputError("tuning database lock " + path + ": cannot be opened (" + std::strerror(errno) + ")");
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd_);
      throw InputError("tuning database lock " + path + ": cannot be locked (" + std::strerror(err) + ")");
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// The temporary file, written and flushed to disk, then renamed over `path`; the directory is
// synced so the rename itself survives a crash. Called with the lock held. On failure the old
// file is untouched and the temporary removed.
void replace_file_durably(const std::string& path, const std::string& content) {
  const fs::path target(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw InputError("tuning database " + path + ": cannot create its directory (" + ec.message() + ")");
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto failed = [&](const std::string& what) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw InputError("tuning database " + path + ": cannot be written: " + what + " " + tmp + " (" +
                     std::strerror(err) + ")");
  };
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) failed("cannot create");
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
      const ssize_t n = ::write(fd.get(), p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        failed("cannot write");
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0) failed("cannot sync");
    if (::close(fd.release()) != 0) failed("cannot close");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) failed("cannot rename");
  const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  Fd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dirfd.get() >= 0) ::fsync(dirfd.get());  // best effort: some file systems refuse it
}

// Reads, changes and replaces a device's file under its lock.
template <typename Change>
void update(const std::string& path, const DeviceIdentity& device, Change change) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) throw InputError("tuning database " + path + ": cannot create its directory (" + ec.message() + ")");
  const FileLock lock(path + ".lock");
  DbContents db = load(path, device);  // fresh: another writer may have changed it since
  change(db);
  replace_file_durably(path, serialize(device, db));
}

std::string entry_source(const TuningEntry& e) {
  std::string s = "swept on " + e.problem;
  if (!e.date.empty()) s += ", " + e.date;
  return "(" + s + ")";
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string params_text(const json& params) {
  std::string s;
  for (const auto& [k, v] : params.items()) {
    if (!s.empty()) s += " ";
    s += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s.empty() ? "-" : s;
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

void show_contents(const DbContents& db, std::ostream& out) {
  const DeviceIdentity& d = *db.device;
  out << "  device:   " << describe(d) << "\n";
  if (db.ceilings) {
    const Ceilings& c = *db.ceilings;
    out << "  ceilings: copy " << fixed(c.copy_gbps, 1) << " GB/s, triad " << fixed(c.triad_gbps, 1)
        << " GB/s, f32 " << fixed(c.f32_gflops, 1) << " GFLOP/s, f64 " << fixed(c.f64_gflops, 1)
        << " GFLOP/s (" << c.backend << " kernels, arrays of " << c.array_bytes / (1024 * 1024) << " MiB, "
        << c.date << ", " << c.commit << ")\n";
  } else {
    out << "  ceilings: not measured\n";
  }
  if (db.defaults.empty()) {
    out << "  defaults: none\n";
  } else {
    out << "  defaults:\n";
    for (const auto& [name, params] : db.defaults.items()) out << "    " << name << ": " << params_text(params) << "\n";
  }
  if (db.entries.empty()) {
    out << "  entries:  none\n";
    return;
  }
  std::vector<TuningEntry> sorted = db.entries;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const TuningEntry& a, const TuningEntry& b) { return key_less(a.key, b.key); });
  const std::vector<std::string> header = {"key", "problem", "params", "ms", "GFLOP/s", "% roofline", "date"};
  const std::vector<bool> right = {false, false, false, true, true, true, false};
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : sorted)
    rows.push_back({e.key.text(), e.problem, params_text(e.params), fixed(e.seconds * 1e3, 3), fixed(e.gflops, 1),
                    e.roofline_pct > 0 ? fixed(e.roofline_pct, 1) : "-", e.date.empty() ? "-" : e.date});
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    width[i] = header[i].size();
    for (const auto& r : rows) width[i] = std::max(width[i], r[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = "  ";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      s += "  ";
      s += pad(cells[i], width[i], right[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  };
  out << "  entries:\n";
  line(header);
  for (const auto& r : rows) line(r);
}

// Lower case; anything but [a-z0-9.-] becomes '-', runs of '-' collapse, no '-' at the ends.
std::string file_part(const std::string& s) {
  std::string r;
  for (char c : s) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool keep = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '-';
    if (!keep) l = '-';
    if (l == '-' && !r.empty() && r.back() == '-') continue;
    r += l;
  }
  while (!r.empty() && r.front() == '-') r.erase(r.begin());
  constexpr std::size_t max_part = 48;  // the hash keeps truncated names apart
  if (r.size() > max_part) r.resize(max_part);
  while (!r.empty() && r.back() == '-') r.pop_back();
  return r.empty() ? "unknown" : r;
}

std::uint32_t fnv1a(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

}  // namespace

DeviceIdentity DeviceIdentity::of(const DeviceInfo& d) {
  DeviceIdentity id;
  id.api = d.api;
  id.platform = d.platform;
  id.vendor = d.vendor;
  id.name = d.name;
  id.driver = d.driver;
  id.compute_units = d.compute_units;
  return id;
}

std::string DeviceIdentity::file_name() const {
  std::ostringstream hash;
  hash << std::hex << std::setw(8) << std::setfill('0') << fnv1a(to_json().dump());
  return file_part(api) + "_" + file_part(name) + "_" + std::to_string(compute_units) + "cu_" + file_part(driver) +
         "_" + hash.str() + ".json";
}

nlohmann::json DeviceIdentity::to_json() const {
  return {{"api", api},       {"platform", platform}, {"vendor", vendor},
          {"name", name},     {"driver", driver},     {"compute_units", compute_units}};
}

DeviceIdentity DeviceIdentity::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("device identity is not a JSON object");
  DeviceIdentity d;
  d.api = j.at("api").get<std::string>();
  d.platform = j.at("platform").get<std::string>();
  d.vendor = j.at("vendor").get<std::string>();
  d.name = j.at("name").get<std::string>();
  d.driver = j.at("driver").get<std::string>();
  if (!j.at("compute_units").is_number_integer()) throw std::invalid_argument("compute_units is not an integer");
  d.compute_units = j.at("compute_units").get<int>();
  return d;
}

int size_bucket(std::int64_t n) {
  if (n < 1) return 0;
  return static_cast<int>(std::lround(std::log2(static_cast<double>(n))));
}

std::string TuningKey::text() const {
  return suite + "/" + kernel + "/" + to_string(precision) + "/rows~2^" + std::to_string(rows_bucket) + "/nnz~2^" +
         std::to_string(nnz_bucket);
}

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

TuningDb::TuningDb(std::string dir) : dir_(std::move(dir)) {}

std::string TuningDb::path_for(const DeviceInfo& d) const {
  return (fs::path(dir_) / DeviceIdentity::of(d).file_name()).string();
}

std::optional<Ceilings> TuningDb::ceilings(const DeviceInfo& d) const {
  return load(path_for(d), DeviceIdentity::of(d)).ceilings;
}

std::vector<TuningEntry> TuningDb::entries(const DeviceInfo& d) const {
  return load(path_for(d), DeviceIdentity::of(d)).entries;
}

TuningChoice TuningDb::lookup(const DeviceInfo& d, const TuningKey& key, const nlohmann::json& heuristic) const {
  const std::string path = path_for(d);
  const std::string file = fs::path(path).filename().string();
  const DbContents db = load(path, DeviceIdentity::of(d));
  if (!db.device) return {heuristic, TuningSource::heuristic, "no tuning database file " + path};

  for (const auto& e : db.entries)
    if (same_key(e.key, key))
      return {e.params, TuningSource::exact, "tuning-db " + file + ": " + e.key.text() + " " + entry_source(e)};

  // Nearest size: the smallest |rows difference| + |nnz difference|; ties to the larger problem
  // (larger rows + nnz buckets, then larger nnz), whose launch shape tends to carry down better.
  const TuningEntry* best = nullptr;
  int best_distance = 0;
  for (const auto& e : db.entries) {
    if (e.key.suite != key.suite || e.key.kernel != key.kernel || e.key.precision != key.precision) continue;
    const int distance = std::abs(e.key.rows_bucket - key.rows_bucket) + std::abs(e.key.nnz_bucket - key.nnz_bucket);
    const auto size = [](const TuningEntry& x) {
      return std::make_pair(x.key.rows_bucket + x.key.nnz_bucket, x.key.nnz_bucket);
    };
    if (!best || distance < best_distance || (distance == best_distance && size(e) > size(*best))) {
      best = &e;
      best_distance = distance;
    }
  }
  if (best)
    return {best->params, TuningSource::nearest_size,
            "tuning-db " + file + ": " + best->key.text() + " for " + key.text() + " " + entry_source(*best)};

  if (const auto it = db.defaults.find(default_name(key)); it != db.defaults.end())
    return {*it, TuningSource::device_default,
            "tuning-db " + file + ": default for " + default_name(key) + " (no entry for " + key.text() + ")"};

  return {heuristic, TuningSource::heuristic, "no entry for " + key.text() + " in " + file};
}

void TuningDb::store_ceilings(const DeviceInfo& d, const Ceilings& c) {
  update(path_for(d), DeviceIdentity::of(d), [&](DbContents& db) { db.ceilings = c; });
}

void TuningDb::record(const DeviceInfo& d, const std::vector<TuningEntry>& new_entries) {
  const std::string path = path_for(d);
  for (const auto& e : new_entries)
    if (!e.params.is_object())
      throw InputError("tuning database " + path + ": the params of " + e.key.text() + " are not a JSON object (" +
                       e.params.dump() + ")");
  update(path, DeviceIdentity::of(d), [&](DbContents& db) {
    for (const auto& e : new_entries) {
      const auto same = std::find_if(db.entries.begin(), db.entries.end(),
                                     [&](const TuningEntry& x) { return same_key(x.key, e.key); });
      if (same != db.entries.end())
        *same = e;
      else
        db.entries.push_back(e);
      if (!db.defaults.contains(default_name(e.key))) db.defaults[default_name(e.key)] = e.params;
    }
  });
}

void TuningDb::show(std::ostream& out) const {
  std::vector<fs::path> files;
  std::error_code ec;
  const auto status = fs::status(dir_, ec);
  if (status.type() != fs::file_type::not_found) {
    if (ec) throw InputError("tuning database directory " + dir_ + ": cannot be examined (" + ec.message() + ")");
    if (!fs::is_directory(status)) throw InputError("tuning database directory " + dir_ + " is not a directory");
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") files.push_back(it->path());
    if (ec) throw InputError("tuning database directory " + dir_ + ": cannot be listed (" + ec.message() + ")");
  }
  if (files.empty()) {
    out << "no tuning database files in " << dir_ << "\n";
    return;
  }
  std::sort(files.begin(), files.end());

  std::vector<std::string> bad;
  bool first = true;
  for (const auto& file : files) {
    if (!first) out << "\n";
    first = false;
    const std::string path = file.string();
    const std::string name = file.filename().string();
    try {
      const auto text = read_text(path);
      if (!text) fail(path, "vanished while being read");
      const DbContents db = parse(path, *text);
      if (db.device->file_name() != name)
        fail(path, "its \"device\" block describes " + describe(*db.device) + ", whose file is " +
                       db.device->file_name());
      out << name << "\n";
      show_contents(db, out);
    } catch (const InputError& e) {
      out << name << "\n  error: " << e.what() << "\n";
      bad.push_back(name);
    }
  }
  if (!bad.empty()) {
    std::string list;
    for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
    throw InputError("tuning database " + dir_ + ": " + std::to_string(bad.size()) + " of " +
                     std::to_string(files.size()) + " files cannot be read: " + list + " (see above)");
  }
}

std::string default_tuning_db_dir() {
  if (const char* env = std::getenv("GPUBENCH_TUNING_DB"); env && *env) return env;
  return GPUBENCH_SOURCE_DIR "/tuning-db";
}

}  // namespace gpubench
