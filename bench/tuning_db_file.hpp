// One file of the tuning database (schema in docs/tuning-db.md): what it holds, reading it
// (versions 1 and 2), and replacing it atomically under its directory's lock (version 2).
// The layers and the lookup over them are bench/tuning_db.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/ceilings.hpp"
#include "backends/device.hpp"
#include "common/errors.hpp"
#include "common/precision.hpp"

namespace gpubench {

inline constexpr int tuning_db_version = 2;  // what is written; versions 1 and 2 are read

// What identifies a device in the database: API, platform, vendor, name, compute units, driver.
// (Not the backend name or index: the same device seen through the same API is the same entry.)
struct DeviceIdentity {
  std::string api, platform, vendor, name, driver;
  int compute_units = 0;

  static DeviceIdentity of(const DeviceInfo& d);
  // "opencl-3.0-cuda_nvidia-h100-80gb-hbm3_132cu_580.159.04_1a2b3c4d.json": api, name, compute
  // units, driver, and 8 hex digits of a hash of the whole identity (so that platform and vendor
  // still tell files apart); lower case, [a-z0-9.-_] only.
  std::string file_name() const;
  nlohmann::json to_json() const;
  static DeviceIdentity from_json(const nlohmann::json& j);  // throws std::exception if malformed
  std::string describe() const;  // "NVIDIA H100 80GB HBM3 (OpenCL 3.0 CUDA, platform ..., driver ...)"
  bool operator==(const DeviceIdentity&) const = default;
};

// Problem sizes share an entry when they round to the same power of two: bucket = round(log2 n).
int size_bucket(std::int64_t n);

// Where a kernel's best parameters are stored: suite, kernel, precision and the problem's size
// buckets, named and in the order the suite declares them (CG: rows, nnz; EP: m).
struct TuningKey {
  std::string suite, kernel;
  Precision precision = Precision::f64;
  using Buckets = std::vector<std::pair<std::string, int>>;
  Buckets buckets;

  // Each size becomes its bucket: of_sizes("cg", "spmv", f64, {{"rows", 1 << 24}, {"nnz", 1 << 26}}).
  static TuningKey of_sizes(std::string suite, std::string kernel, Precision precision,
                            const std::vector<std::pair<std::string, std::int64_t>>& sizes);
  std::optional<int> bucket(std::string_view name) const;
  std::string text() const;  // "cg/spmv/f64/rows~2^24/nnz~2^26"
  // Same suite, kernel, precision and buckets (the same names with the same values, in any order).
  bool same_as(const TuningKey& other) const;
};

struct TuningEntry {
  TuningKey key;
  std::string problem;         // the problem it was swept on ("poisson2d:4096")
  nlohmann::json params;       // {"NAME": 16, ..}: the kernel's declared parameters
  double seconds = 0;          // per call, with these params
  double gflops = 0;
  double roofline_pct = 0;     // 0 when the device had no ceilings
  double baseline_seconds = 0; // per call of the sweep's baseline configuration (KernelSweep::baseline)
  std::string date, commit;
  nlohmann::json extra = nlohmann::json::object();  // fields this gpubench does not know: kept as they are
};

// A file or directory of the database that cannot be written (no directory, no permission, a
// read-only file): the data already there is sound, only this write is lost. A damaged file is
// a plain InputError.
class UnwritableError : public InputError {
 public:
  using InputError::InputError;
};

// The file a write of `path` replaces (a link's target), its directory made: UnwritableError when
// the directory or the file may not be written (a file without write permission, even for root).
std::string writable_tuning_db_file(const std::string& path);

// What one file holds, parsed and checked.
struct TuningDbFile {
  std::optional<DeviceIdentity> device;  // nullopt only for a file that does not exist (yet)
  int version = tuning_db_version;       // as read; written files are always tuning_db_version
  std::optional<Ceilings> ceilings;
  nlohmann::json defaults = nlohmann::json::object();  // "suite/kernel" -> params
  std::vector<TuningEntry> entries;
  nlohmann::json extra = nlohmann::json::object();  // top-level fields this gpubench does not know: kept
};

// Every reader throws InputError naming the file (and saying it was left alone) when it is not
// valid JSON, has another schema or version, has a malformed field, or is not a regular file.
// A missing file reads as an empty TuningDbFile (no device).
// A device's ceilings in their one JSON shape: the database's, the records' (with the figures of a
// point's roof added) and the worker's hand-off. Reading throws std::runtime_error naming what is
// missing or wrong.
nlohmann::json ceilings_json(const Ceilings& c);
Ceilings ceilings_of_json(const nlohmann::json& j);

TuningDbFile read_tuning_db_file(const std::string& path);
// As read_tuning_db_file, and its "device" block must be `expected`.
TuningDbFile read_tuning_db_file(const std::string& path, const DeviceIdentity& expected);

// Version 2, pretty-printed, entries sorted by key, so that diffs show only what changed.
std::string serialize(const DeviceIdentity& device, const TuningDbFile& db);

// A database directory whose lock another process held for longer than the busy timeout.
class TuningDbBusy : public UnwritableError {
 public:
  using UnwritableError::UnwritableError;
};
// How long a write waits for another process's lock on the directory (--busy-timeout; 30 s).
extern double tuning_db_busy_timeout_s;

// Read, change and replace `path` (for `device`) under an exclusive flock on its directory
// (created when missing): the file is re-read under the lock, so concurrent writers lose
// nothing, and replaced by a temporary in the same directory renamed over it, so readers never
// see half a file. On any failure the file is unchanged and the temporary removed.
void update_tuning_db_file(const std::string& path, const DeviceIdentity& device,
                           const std::function<void(TuningDbFile&)>& change);

// Every complaint about a database file: names the file and says it was left alone.
[[noreturn]] void tuning_db_file_error(const std::string& path, const std::string& what);

}  // namespace gpubench
