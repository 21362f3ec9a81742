// The tuning database (tuning-db/, schema in tuning-db/README.md): one JSON file per device
// holding its measured ceilings and the best launch parameters the sweeper found, keyed by
// suite, kernel, precision and bucketed problem size. Every run reads it; sweeps write it.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/ceilings.hpp"
#include "backends/device.hpp"
#include "common/precision.hpp"

namespace gpubench {

inline constexpr int tuning_db_version = 1;

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
  bool operator==(const DeviceIdentity&) const = default;
};

// Problem sizes share an entry when they round to the same power of two: bucket = round(log2 n).
int size_bucket(std::int64_t n);

struct TuningKey {
  std::string suite, kernel;
  Precision precision = Precision::f64;
  int rows_bucket = 0, nnz_bucket = 0;  // size_bucket of the problem's rows and nonzeros
  std::string text() const;             // "cg/spmv/f64/rows~2^24/nnz~2^26"
};

struct TuningEntry {
  TuningKey key;
  std::string problem;         // the problem it was swept on ("poisson2d:4096")
  nlohmann::json params;       // {"work_group_size": 256, "work_groups_per_cu": 4}
  double seconds = 0;          // per call, with these params
  double gflops = 0;
  double roofline_pct = 0;     // 0 when the device had no ceilings
  double baseline_seconds = 0; // per call at the search's first configuration (1 WG/CU)
  std::string date, commit;
};

enum class TuningSource { exact, nearest_size, device_default, heuristic, off };
const char* to_string(TuningSource s);  // "tuned", "tuned (nearest size)", "device default", "heuristic", "off"

struct TuningChoice {
  nlohmann::json params;
  TuningSource source = TuningSource::heuristic;
  std::string detail;  // where it came from: the entry's key and problem, or why the heuristic
};

class TuningDb {
 public:
  explicit TuningDb(std::string dir);
  const std::string& dir() const { return dir_; }
  std::string path_for(const DeviceInfo& d) const;  // dir/file_name

  // Reading throws InputError naming the file when it is not valid JSON, has another schema
  // version, or describes another device than its name says. A missing file is an empty db.
  std::optional<Ceilings> ceilings(const DeviceInfo& d) const;
  // Fallback chain: the exact key; the nearest size bucket (same suite, kernel, precision; the
  // smallest |rows difference| + |nnz difference|, ties to the larger); the device's default
  // for suite/kernel ("defaults" in the file); `heuristic`.
  TuningChoice lookup(const DeviceInfo& d, const TuningKey& key, const nlohmann::json& heuristic) const;
  std::vector<TuningEntry> entries(const DeviceInfo& d) const;

  // Writes take an exclusive lock (flock on "<file>.lock"), re-read the file, merge, and replace
  // it atomically (temporary file in the same directory, then rename), so concurrent writers
  // lose nothing. An entry replaces the one with the same key; other entries stay. The first
  // entry recorded for a suite/kernel also becomes the device's default for it, unless one is set.
  void store_ceilings(const DeviceInfo& d, const Ceilings& c);
  void record(const DeviceInfo& d, const std::vector<TuningEntry>& entries);

  // Every file in the directory, readable: device, ceilings, defaults, entries.
  void show(std::ostream& out) const;

 private:
  std::string dir_;
};

// The default directory: $GPUBENCH_TUNING_DB if set, else the source tree's tuning-db/.
std::string default_tuning_db_dir();

}  // namespace gpubench
