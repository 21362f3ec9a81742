// The tuning database (docs/tuning-db.md): per device, the measured ceilings and the best
// launch parameters the sweeper found, keyed by suite, kernel, precision and size buckets. It is
// layered: runs and sweeps write a per-user directory, and read beneath it the committed
// tuning-db/ of the source tree, which only an explicit --tuning-db names for writing.
// One file of it is bench/tuning_db_file.hpp.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/ceilings.hpp"
#include "backends/device.hpp"
#include "bench/tuning_db_file.hpp"

namespace gpubench {

enum class TuningSource { exact, nearest_size, device_default, heuristic, off };
const char* to_string(TuningSource s);  // "tuned", "tuned (nearest size)", "device default", "heuristic", "off"

struct TuningChoice {
  nlohmann::json params;
  TuningSource source = TuningSource::heuristic;
  std::string detail;  // where it came from: the file, the entry's key and problem, or why the heuristic
};

class TuningDb {
 public:
  // `write_dir` is read and written; beneath it the `read_only` directories are read, the upper
  // first. No directory is created before something is written to it.
  explicit TuningDb(std::string write_dir, std::vector<std::string> read_only = {});
  const std::string& dir() const { return layers_.front(); }      // the write layer
  const std::vector<std::string>& layers() const { return layers_; }  // the write layer first
  std::string path_for(const DeviceInfo& d) const;                 // its file in the write layer

  // Reading throws InputError naming the file when a layer's file for the device is not valid
  // JSON, has another schema or a version this gpubench does not read, or describes another
  // device than its name says. A missing file (or directory) is an empty layer.
  // The upper layer's ceilings, else the lower's.
  std::optional<Ceilings> ceilings(const DeviceInfo& d) const;
  // Fallback chain: the exact key (the write layer, then the lower ones); the nearest size over
  // the union of the layers (same suite, kernel, precision and bucket names; the smallest sum of
  // |bucket differences|, ties to the larger size, then to the upper layer); the device's
  // default for suite/kernel ("defaults", the upper layer first); `heuristic`.
  TuningChoice lookup(const DeviceInfo& d, const TuningKey& key, const nlohmann::json& heuristic) const;
  // The entries lookup chooses from: every layer's, an upper one hiding an equal key below.
  std::vector<TuningEntry> entries(const DeviceInfo& d) const;

  // Writes go to the write layer only (bench/tuning_db_file.hpp: locked, merged, atomic). An
  // entry replaces the one with the same key, unless that one is faster with other parameters
  // (for the same objective) and `replace` is false: then the stored one stays. Other entries
  // stay. Returns a line per entry: what was stored, replaced or kept. The first entry recorded for
  // a suite/kernel also becomes the device's default for it in that file, unless one is set.
  void store_ceilings(const DeviceInfo& d, const Ceilings& c);
  std::vector<std::string> record(const DeviceInfo& d, const std::vector<TuningEntry>& entries, bool replace = false);

  // What `tuning show` prints; an empty field matches everything.
  struct ShowFilter {
    std::string backend;  // the files of this backend's devices
    std::string device;   // devices whose name contains this (case-insensitive)
    std::string suite, kernel;  // entries of this suite, this kernel
  };
  // Each layer (its path, whether it is written) and every file in it, readable: device,
  // ceilings, defaults, entries with their buckets and parameters; only what `filter` matches.
  // Says what is wrong with an entry's or a default's parameters ("" when nothing): what `show`
  // checks each one with, besides the file's own form.
  using ParamsCheck = std::function<std::string(const std::string& suite, const std::string& kernel,
                                                const nlohmann::json& params)>;
  void show(std::ostream& out, const ShowFilter& filter = {}, const ParamsCheck& check = nullptr) const;

 private:
  std::vector<std::string> layers_;
};

// The write layer when --tuning-db is not given: $GPUBENCH_TUNING_DB if set, else
// $XDG_CACHE_HOME/gpubench, else $HOME/.cache/gpubench. InputError when none of them is set.
std::string default_tuning_db_dir();
// The committed database: tuning-db/ under data_dir() (installed: <prefix>/share/gpubench). The tests set
// $GPUBENCH_COMMITTED_TUNING_DB to replace it (empty: none), so that what they measure on this
// machine does not depend on what is committed for it.
std::string committed_tuning_db_dir();
// The database a run uses: `write_dir` (--tuning-db DIR; empty: default_tuning_db_dir()) above
// the committed one, when that exists and is not `write_dir` itself.
TuningDb open_tuning_db(const std::string& write_dir);

}  // namespace gpubench
