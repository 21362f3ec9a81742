#include "bench/tuning_db_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/errors.hpp"

namespace gpubench {

namespace fs = std::filesystem;

double tuning_db_busy_timeout_s = 30;
using nlohmann::json;
using nlohmann::ordered_json;

void tuning_db_file_error(const std::string& path, const std::string& what) {
  throw InputError("tuning database " + path + ": " + what +
                   "; it was not changed (move it away or use --tuning-db DIR)");
}

namespace {

constexpr const char* schema_name = "gpubench-tuning-db";

// A field of a file that is missing or of the wrong type; turned into tuning_db_file_error by parse().
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const ordered_json& field(const ordered_json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw Malformed(where + ": \"" + key + "\" is missing");
  return *it;
}

std::string string_field(const ordered_json& obj, const char* key, const std::string& where) {
  const ordered_json& v = field(obj, key, where);
  if (!v.is_string()) throw Malformed(where + ": \"" + key + "\" is not a string");
  return v.get<std::string>();
}

double number_field(const ordered_json& obj, const char* key, const std::string& where) {
  const ordered_json& v = field(obj, key, where);
  if (!v.is_number()) throw Malformed(where + ": \"" + key + "\" is not a number");
  return v.get<double>();
}

std::int64_t integer_field(const ordered_json& obj, const char* key, const std::string& where) {
  const ordered_json& v = field(obj, key, where);
  if (!v.is_number_integer()) throw Malformed(where + ": \"" + key + "\" is not an integer");
  return v.get<std::int64_t>();
}

int int_field(const ordered_json& obj, const char* key, const std::string& where) {
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

Ceilings ceilings_from_json(const ordered_json& j) {
  const std::string where = "ceilings";
  if (!j.is_object()) throw Malformed(where + " is not an object");
  Ceilings c;
  // A ceiling divides every roofline figure: zero or less would print "-5.0 GB/s" and worse.
  // f64 may be 0: a device without fp64.
  auto positive = [&](const char* key, bool zero_allowed) {
    const double v = number_field(j, key, where);
    if (!std::isfinite(v) || v < 0 || (v == 0 && !zero_allowed))
      throw Malformed(where + ": \"" + key + "\" is " + j.at(key).dump() + ", not a positive number");
    return v;
  };
  c.copy_gbps = positive("copy_gbps", false);
  c.triad_gbps = positive("triad_gbps", false);
  c.f32_gflops = positive("f32_gflops", false);
  c.f64_gflops = positive("f64_gflops", true);
  const std::int64_t bytes = integer_field(j, "array_bytes", where);
  if (bytes < 0) throw Malformed(where + ": \"array_bytes\" is negative");
  c.array_bytes = static_cast<std::uint64_t>(bytes);
  // Trials and their spread came later: files without them hold one trial.
  if (j.contains("trials")) {
    c.trials = int_field(j, "trials", where);
    if (c.trials < 1) throw Malformed(where + ": \"trials\" is " + j.at("trials").dump() + ", not at least 1");
    c.worst_bandwidth_gbps = positive("worst_bandwidth_gbps", false);
  }
  c.backend = string_field(j, "backend", where);
  c.date = string_field(j, "date", where);
  c.commit = string_field(j, "commit", where);
  // The machine, and the compute trials' spread, came later still.
  if (j.contains("host")) c.host = string_field(j, "host", where);
  if (j.contains("worst_f32_gflops")) c.worst_f32_gflops = positive("worst_f32_gflops", true);
  if (j.contains("worst_f64_gflops")) c.worst_f64_gflops = positive("worst_f64_gflops", true);
  if (j.contains("unconfirmed")) c.unconfirmed = string_field(j, "unconfirmed", where);
  // The cache levels and the settings came later again.
  if (j.contains("l2_gbps")) c.l2_gbps = positive("l2_gbps", true);
  if (j.contains("l1_gbps")) c.l1_gbps = positive("l1_gbps", true);
  for (const auto& [key, sweep] : {std::pair{"l2_sweep", &c.l2_sweep}, std::pair{"l1_sweep", &c.l1_sweep}}) {
    if (!j.contains(key)) continue;
    const ordered_json& s = j.at(key);
    if (!s.is_array()) throw Malformed(where + ": \"" + key + "\" is not an array of [bytes, GB/s] pairs");
    for (const auto& point : s) {
      if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number() ||
          !(point[0].get<double>() > 0) || !(point[1].get<double>() >= 0))
        throw Malformed(where + ": \"" + key + "\" holds " + point.dump() + ", not a [bytes, GB/s] pair");
      sweep->emplace_back(point[0].get<double>(), point[1].get<double>());
    }
  }
  // The tensor cores' peaks came later again.
  if (j.contains("unit_gflops")) {
    const ordered_json& u = j.at("unit_gflops");
    if (!u.is_object()) throw Malformed(where + ": \"unit_gflops\" is not an object of GFLOP/s by unit");
    for (const auto& [unit, value] : u.items()) {
      if (unit.empty() || !value.is_number() || !std::isfinite(value.get<double>()) || !(value.get<double>() > 0))
        throw Malformed(where + ": \"unit_gflops\" holds \"" + unit + "\": " + value.dump() + ", not a positive number");
      c.unit_gflops[unit] = value.get<double>();
    }
  }
  if (j.contains("settings")) {
    if (!j.at("settings").is_object()) throw Malformed(where + ": \"settings\" is not an object");
    c.settings = j.at("settings").dump();
  }
  if (j.contains("settings_differ")) c.settings_differ = string_field(j, "settings_differ", where);
  return c;
}

// Launch parameters are integers: 64.0 or "big" is a damaged file,
// not a value to skip while the table says "tuned".
const ordered_json& integer_params(const ordered_json& params, const std::string& where) {
  if (!params.is_object()) throw Malformed(where + " is not an object of parameters");
  for (const auto& [name, value] : params.items()) {
    if (!value.is_number_integer()) throw Malformed(where + "." + name + " is " + value.dump() + ", not an integer");
    if (value.get<std::int64_t>() < std::numeric_limits<int>::min() ||
        value.get<std::int64_t>() > std::numeric_limits<int>::max())
      throw Malformed(where + "." + name + " is " + value.dump() + ", out of range");
  }
  return params;
}

ordered_json ceilings_to_json(const Ceilings& c) {
  ordered_json j;
  j["copy_gbps"] = c.copy_gbps;
  j["triad_gbps"] = c.triad_gbps;
  j["f32_gflops"] = c.f32_gflops;
  j["f64_gflops"] = c.f64_gflops;
  j["array_bytes"] = c.array_bytes;
  if (c.worst_bandwidth_gbps > 0) {
    j["trials"] = c.trials;
    j["worst_bandwidth_gbps"] = c.worst_bandwidth_gbps;
  }
  j["backend"] = c.backend;
  j["date"] = c.date;
  j["commit"] = c.commit;
  if (!c.host.empty()) j["host"] = c.host;
  if (c.worst_f32_gflops > 0) j["worst_f32_gflops"] = c.worst_f32_gflops;
  if (c.worst_f64_gflops > 0) j["worst_f64_gflops"] = c.worst_f64_gflops;
  if (!c.unconfirmed.empty()) j["unconfirmed"] = c.unconfirmed;
  if (c.l2_gbps > 0) j["l2_gbps"] = c.l2_gbps;
  if (c.l1_gbps > 0) j["l1_gbps"] = c.l1_gbps;
  for (const auto& [key, sweep] : {std::pair{"l2_sweep", &c.l2_sweep}, std::pair{"l1_sweep", &c.l1_sweep}}) {
    if (sweep->empty()) continue;
    ordered_json s = ordered_json::array();
    for (const auto& [bytes, gbps] : *sweep) s.push_back({bytes, gbps});
    j[key] = s;
  }
  if (!c.unit_gflops.empty()) {
    ordered_json u = ordered_json::object();
    for (const auto& [unit, gflops] : c.unit_gflops) u[unit] = gflops;
    j["unit_gflops"] = u;
  }
  if (!c.settings.empty()) j["settings"] = ordered_json::parse(c.settings);
  if (!c.settings_differ.empty()) j["settings_differ"] = c.settings_differ;
  return j;
}


// Version 1 keyed an entry by rows_bucket and nnz_bucket; EP put its class's m in rows_bucket.
TuningKey::Buckets v1_buckets(const std::string& suite, const ordered_json& j, const std::string& where) {
  const int rows = int_field(j, "rows_bucket", where);
  if (suite == "ep") return {{"m", rows}};
  return {{"rows", rows}, {"nnz", int_field(j, "nnz_bucket", where)}};
}

TuningKey::Buckets v2_buckets(const ordered_json& j, const std::string& where) {
  const ordered_json& b = field(j, "buckets", where);
  if (!b.is_object()) throw Malformed(where + ": \"buckets\" is not an object of named size buckets");
  TuningKey::Buckets buckets;
  for (const auto& [name, value] : b.items()) buckets.emplace_back(name, int_field(b, name.c_str(), where + ".buckets"));
  return buckets;
}

TuningEntry entry_from_json(const ordered_json& j, std::size_t index, int version) {
  const std::string where = "entries[" + std::to_string(index) + "]";
  if (!j.is_object()) throw Malformed(where + " is not an object");
  TuningEntry e;
  e.key.suite = string_field(j, "suite", where);
  e.key.kernel = string_field(j, "kernel", where);
  const std::string precision = string_field(j, "precision", where);
  if (precision != "f32" && precision != "f64")
    throw Malformed(where + ": \"precision\" is \"" + precision + "\", not f32 or f64");
  e.key.precision = parse_precision(precision);
  e.key.buckets = version == 1 ? v1_buckets(e.key.suite, j, where) : v2_buckets(j, where);
  e.problem = string_field(j, "problem", where);
  e.params = json(integer_params(field(j, "params", where), where + ".params"));
  e.seconds = number_field(j, "seconds", where);
  e.gflops = number_field(j, "gflops", where);
  e.roofline_pct = number_field(j, "roofline_pct", where);
  e.baseline_seconds = number_field(j, "baseline_seconds", where);
  e.date = string_field(j, "date", where);
  e.commit = string_field(j, "commit", where);
  static const std::set<std::string> known = {"suite", "kernel", "precision", "buckets", "rows_bucket", "nnz_bucket",
                                              "problem", "params", "seconds", "gflops", "roofline_pct",
                                              "baseline_seconds", "date", "commit"};
  for (const auto& [name, value] : j.items())
    if (!known.count(name)) e.extra[name] = json(value);
  return e;
}

ordered_json entry_to_json(const TuningEntry& e) {
  ordered_json j;
  j["suite"] = e.key.suite;
  j["kernel"] = e.key.kernel;
  j["precision"] = to_string(e.key.precision);
  ordered_json buckets = ordered_json::object();
  for (const auto& [name, value] : e.key.buckets) buckets[name] = value;
  j["buckets"] = buckets;
  j["problem"] = e.problem;
  j["params"] = ordered_json(e.params);
  j["seconds"] = e.seconds;
  j["gflops"] = e.gflops;
  j["roofline_pct"] = e.roofline_pct;
  j["baseline_seconds"] = e.baseline_seconds;
  j["date"] = e.date;
  j["commit"] = e.commit;
  for (const auto& [name, value] : e.extra.items()) j[name] = ordered_json(value);
  return j;
}

// Entries in a stable order, so that diffs of the file show only what changed.
bool key_less(const TuningKey& a, const TuningKey& b) {
  return std::make_tuple(a.suite, a.kernel, std::string(to_string(a.precision)), a.buckets) <
         std::make_tuple(b.suite, b.kernel, std::string(to_string(b.precision)), b.buckets);
}

// Throws InputError (via tuning_db_file_error) for anything but a well-formed file of version 1 or 2.
TuningDbFile parse(const std::string& path, const std::string& text) {
  ordered_json root;  // ordered: a key's buckets keep the order the suite declared them in
  try {
    root = ordered_json::parse(text);
  } catch (const json::exception& e) {  // a parse error, or a number out of range ("1e400")
    tuning_db_file_error(path, "not valid JSON (" + without_json_prefix(e.what()) + ")");
  }
  if (!root.is_object()) tuning_db_file_error(path, "not a JSON object");
  const auto schema = root.find("schema");
  if (schema == root.end() || !schema->is_string())
    tuning_db_file_error(path, std::string("no \"schema\": \"") + schema_name +
                                   "\", so it is not a gpubench tuning database");
  if (schema->get<std::string>() != schema_name)
    tuning_db_file_error(path, "schema \"" + schema->get<std::string>() + "\", expected \"" + schema_name + "\"");
  const auto version = root.find("version");
  const std::string reads = "this gpubench reads versions 1 and " + std::to_string(tuning_db_version);
  if (version == root.end()) tuning_db_file_error(path, "no \"version\", " + reads);
  if (!version->is_number_integer() || version->get<std::int64_t>() < 1 ||
      version->get<std::int64_t>() > tuning_db_version)
    tuning_db_file_error(path, "version " + version->dump() + ", " + reads);

  TuningDbFile db;
  db.version = version->get<int>();
  try {
    try {
      db.device = DeviceIdentity::from_json(json(field(root, "device", "the file")));
    } catch (const Malformed&) {
      throw;
    } catch (const std::exception&) {
      throw Malformed("\"device\" is not an object of strings api, platform, vendor, name, driver and "
                      "integer compute_units");
    }
    if (const auto c = root.find("ceilings"); c != root.end()) db.ceilings = ceilings_from_json(*c);
    if (const auto d = root.find("defaults"); d != root.end()) {
      if (!d->is_object()) throw Malformed("\"defaults\" is not an object");
      for (const auto& [name, params] : d->items()) integer_params(params, "defaults[\"" + name + "\"]");
      db.defaults = json(*d);
    }
    if (const auto e = root.find("entries"); e != root.end()) {
      if (!e->is_array()) throw Malformed("\"entries\" is not an array");
      for (std::size_t i = 0; i < e->size(); ++i) db.entries.push_back(entry_from_json((*e)[i], i, db.version));
    }
    for (const auto& [name, value] : root.items())
      if (name != "schema" && name != "version" && name != "device" && name != "ceilings" && name != "defaults" &&
          name != "entries")
        db.extra[name] = json(value);
  } catch (const Malformed& m) {
    tuning_db_file_error(path, m.what());
  }
  return db;
}

// nullopt when the file does not exist.
std::optional<std::string> read_text(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return std::nullopt;
  if (ec) tuning_db_file_error(path, "cannot be examined (" + ec.message() + ")");
  if (!fs::is_regular_file(status)) tuning_db_file_error(path, "is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) tuning_db_file_error(path, std::string("cannot be read (") + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) tuning_db_file_error(path, "cannot be read");
  return text.str();
}

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


std::string format_seconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

// Who holds the flock on the file open as `fd`: "process 1234 (gpubench sweep ...)", from
// /proc/locks (the lock's device and inode) and the holder's command line.
std::string lock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "another process";
  std::ifstream locks("/proc/locks");
  char wanted[64];
  std::snprintf(wanted, sizeof wanted, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  for (std::string line; std::getline(locks, line);) {
    std::istringstream f(line);
    std::string n, kind, mode, type, pid, where;
    f >> n >> kind;
    if (kind == "->") f >> kind;  // a waiter
    f >> mode >> type >> pid >> where;
    if (kind != "FLOCK" || where != wanted || pid == std::to_string(::getpid())) continue;
    std::ifstream cmd("/proc/" + pid + "/cmdline", std::ios::binary);
    std::string args{std::istreambuf_iterator<char>(cmd), std::istreambuf_iterator<char>()};
    std::replace(args.begin(), args.end(), '\0', ' ');
    while (!args.empty() && args.back() == ' ') args.pop_back();
    if (args.size() > 120) args = args.substr(0, 117) + "...";
    return "process " + pid + (args.empty() ? std::string() : " (" + args + ")");
  }
  return "another process";
}

// An exclusive flock on a directory, held for the lifetime of the object. Locking the directory
// itself (not a lock file beside the data) leaves nothing behind. flock locks belong to the
// open file description, so two writers in one process exclude each other too.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_.get() < 0)
      throw UnwritableError("tuning database directory " + dir + ": cannot be opened for locking (" +
                       std::strerror(errno) + ")");
    // Waited for up to the busy timeout, saying who holds it; then nothing is written.
    const auto start = std::chrono::steady_clock::now();
    bool said = false;
    while (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK)
        throw UnwritableError("tuning database directory " + dir + ": cannot be locked (" + std::strerror(errno) + ")");
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited >= tuning_db_busy_timeout_s)
        throw TuningDbBusy("tuning database directory " + dir + ": " + lock_holder(fd_.get()) + " holds its lock (waited " +
                           format_seconds(tuning_db_busy_timeout_s) + " s; --busy-timeout S waits longer); nothing was written");
      if (!said && waited >= 1) {  // a writer done within a second is not worth a line
        std::cerr << "gpubench: tuning database directory " << dir << ": " << lock_holder(fd_.get())
                  << " holds its lock; waiting up to " << format_seconds(tuning_db_busy_timeout_s) << " s (--busy-timeout)"
                  << std::endl;
        said = true;
      }
      ::usleep(50000);
    }
  }
  ~DirectoryLock() { ::flock(fd_.get(), LOCK_UN); }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  Fd fd_;
};

// Removes the temporary file when it goes out of scope before the rename made it the real one:
// every failure path, exceptions from anywhere included, leaves nothing behind.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  ~TemporaryFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }
  void renamed() { path_.clear(); }

 private:
  std::string path_;
};

// The temporary file, written and flushed to disk, then renamed over `path`; the directory is
// synced so the rename itself survives a crash. Called with the directory lock held.
void replace_file_durably(const std::string& path, const std::string& content) {
  const fs::path target(path);
  TemporaryFile tmp(path + ".tmp." + std::to_string(::getpid()));
  auto failed = [&](const std::string& what) {
    throw UnwritableError("tuning database " + path + ": cannot be written: " + what + " " + tmp.path() + " (" +
                     std::strerror(errno) + ")");
  };
  {
    Fd fd(::open(tmp.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
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
  if (::rename(tmp.path().c_str(), path.c_str()) != 0) failed("cannot rename");
  tmp.renamed();
  const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  Fd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dirfd.get() >= 0) ::fsync(dirfd.get());  // best effort: some file systems refuse it
}

// The temporaries ("<file>.tmp.<pid>") of writers that were killed before they could remove
// theirs. Called with the directory lock held, so no live writer's temporary is among them.
void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const std::string name = item.path().filename().string();
    const auto at = name.rfind(".tmp.");
    if (at == std::string::npos || !name.substr(0, at).ends_with(".json")) continue;
    const std::string pid_text = name.substr(at + 5);
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(item.path(), ec);
  }
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

nlohmann::json ceilings_json(const Ceilings& c) { return nlohmann::json(ceilings_to_json(c)); }

Ceilings ceilings_of_json(const nlohmann::json& j) {
  try {
    return ceilings_from_json(ordered_json(j));
  } catch (const Malformed& m) {
    throw std::runtime_error(m.what());
  }
}

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

std::string DeviceIdentity::describe() const {
  return name + " (" + api + ", platform " + platform + ", vendor " + vendor + ", " + std::to_string(compute_units) +
         " CUs, driver " + driver + ")";
}

TuningKey TuningKey::of_sizes(std::string suite, std::string kernel, Precision precision,
                              const std::vector<std::pair<std::string, std::int64_t>>& sizes) {
  TuningKey k{std::move(suite), std::move(kernel), precision, {}};
  for (const auto& [name, size] : sizes) k.buckets.emplace_back(name, size_bucket(size));
  return k;
}

std::optional<int> TuningKey::bucket(std::string_view name) const {
  for (const auto& [n, value] : buckets)
    if (n == name) return value;
  return std::nullopt;
}

std::string TuningKey::text() const {
  std::string s = suite + "/" + kernel + "/" + to_string(precision);
  for (const auto& [name, value] : buckets) s += "/" + name + "~2^" + std::to_string(value);
  return s;
}

bool TuningKey::same_as(const TuningKey& other) const {
  if (suite != other.suite || kernel != other.kernel || precision != other.precision) return false;
  const std::map<std::string, int> mine(buckets.begin(), buckets.end()), theirs(other.buckets.begin(), other.buckets.end());
  return mine.size() == buckets.size() && mine == theirs;
}

TuningDbFile read_tuning_db_file(const std::string& path) {
  const auto text = read_text(path);
  if (!text) return {};
  return parse(path, *text);
}

TuningDbFile read_tuning_db_file(const std::string& path, const DeviceIdentity& expected) {
  TuningDbFile db = read_tuning_db_file(path);
  if (db.device && !(*db.device == expected))
    tuning_db_file_error(path, "its \"device\" block describes " + db.device->describe() +
                                   ", not the device asked for, " + expected.describe());
  return db;
}

std::string serialize(const DeviceIdentity& device, const TuningDbFile& db) {
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
  for (const auto& [name, value] : db.extra.items()) root[name] = ordered_json(value);
  return root.dump(2) + "\n";
}

namespace {

// The directory of the database file `path`, made if missing; UnwritableError when it may not be
// written.
std::string writable_directory(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UnwritableError("tuning database " + path + ": cannot create its directory (" + ec.message() + ")");
  if (::access(dir.c_str(), W_OK) != 0)
    throw UnwritableError("tuning database " + dir + ": the directory is not writable (" + std::strerror(errno) +
                          "; write another layer with --tuning-db DIR)");
  return dir;
}

// The file a write of `path` replaces (a link's target); UnwritableError for a file without
// write permission.
std::string writable_target(const std::string& path) {
  std::error_code ec;
  // A symbolic link is written through (its target replaced), never replaced by a regular file.
  std::string target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    target = fs::weakly_canonical(path, ec).string();
    if (ec) throw InputError("tuning database " + path + ": cannot follow its link (" + ec.message() + ")");
  }
  ec.clear();
  // A file without write permission is the user's "leave it alone", even for root, who could.
  if (const auto status = fs::status(target, ec); !ec && fs::exists(status) &&
      (status.permissions() & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) ==
          fs::perms::none)
    throw UnwritableError("tuning database " + target + " is read-only: not replaced (make it writable, or write "
                     "another layer with --tuning-db DIR)");
  return target;
}

}  // namespace

std::string writable_tuning_db_file(const std::string& path) {
  writable_directory(path);
  return writable_target(path);
}

void update_tuning_db_file(const std::string& path, const DeviceIdentity& device,
                           const std::function<void(TuningDbFile&)>& change) {
  const std::string dir = writable_directory(path);
  const DirectoryLock lock(dir);
  remove_stale_temporaries(dir);
  const std::string target = writable_target(path);  // under the lock: a link's target as it is now
  TuningDbFile db = read_tuning_db_file(path, device);  // fresh: another writer may have changed it since
  change(db);
  replace_file_durably(target, serialize(device, db));
}

}  // namespace gpubench
