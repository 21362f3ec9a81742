// A sweep's cache (gpubench sweep --cache FILE): every configuration a sweep measured, its time
// or its failure and why, one JSON object a line, appended (and flushed) as each is measured, so
// that a sweep stopped anywhere loses at most the configuration it was measuring. A later sweep
// with the same cache takes what it holds instead of measuring again, so a sweep of a large
// space continues where the last one stopped. `gpubench sweep --replay FILE` answers a
// strategy's evaluations from it with no device (bench/replay.hpp).
//
// Lines: {"kernel": ID, "space": [{"name", "values"}], "legal": [[values in the space's order]],
// "heuristic": {...}, "strategy": the kernel's own, "device", "backend", "problem", "precision",
// "name", "key", "flops_per_call", "bytes_per_call", "gpubench_commit"} once per kernel, then
// {"of": ID, "params": {...}, "status", "reason", "seconds", "samples", "wall_s"} per
// configuration. ID names the device, the problem, the precision and the kernel.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sweep.hpp"

namespace gpubench {

// One kernel's part of a cache, as read.
struct CachedKernel {
  nlohmann::json header;                // the kernel line
  TunableSpace space;                   // the declared parameters and values, legal = `legal`
  std::vector<Params> legal;            // the declared space's legal configurations
  std::string strategy;                 // the kernel's own default strategy ("" none)
  Params heuristic;                     // the kernel's heuristic (empty in a cache without it)
  std::map<Params, ConfigResult> configs;
  std::map<Params, double> wall_s;      // what measuring each took (compiling included)
  std::string id() const { return header.at("kernel").get<std::string>(); }
};

// The most a cache may hold (a million configurations of a few hundred bytes each).
inline constexpr std::uint64_t max_sweep_cache_bytes = std::uint64_t(1) << 30;

// Reads `path` (InputError naming the line and what is wrong, or that it is not a sweep cache:
// binary, not a regular file, larger than max_sweep_cache_bytes; a last line cut short by a
// stopped sweep is left out, and said on `log` when given). `whole_bytes`: where the whole lines
// end (before a cut-short last line).
std::vector<CachedKernel> read_sweep_cache(const std::string& path, std::ostream* log = nullptr,
                                           std::size_t* whole_bytes = nullptr);

class SweepCache {
 public:
  // Opens (creating) `path` for appending, under an exclusive lock: a second sweep on the same
  // cache is a UsageError. Reads what it holds; a last line cut short by a stopped sweep is
  // removed from the file before anything is appended. Says on `log` what it does not reuse.
  explicit SweepCache(const std::string& path, std::ostream* log = nullptr);
  ~SweepCache();
  SweepCache(const SweepCache&) = delete;
  SweepCache& operator=(const SweepCache&) = delete;

  class Kernel {
   public:
    const ConfigResult* find(const Params& p) const;
    void add(const ConfigResult& r, double wall_s);
    std::size_t size() const { return configs_.size(); }

   private:
    friend class SweepCache;
    SweepCache* cache_ = nullptr;
    std::string id_;
    std::map<Params, ConfigResult> configs_;
  };
  // `kernel`'s part (its line written when new). Its ID ends in a hash of its fingerprint
  // (sweep_cache_fingerprint): a cached sweep of the same kernel measured with anything else
  // (another spec or source, gpubench build, driver, device) is not reused, and `log` says why.
  // A cache whose line for the same ID declares another space is an InputError.
  Kernel& kernel(const SweepTarget& target, TunableKernel& kernel, const TunableSpace& declared);
  const std::string& path() const { return path_; }

 private:
  void append(const nlohmann::json& line);
  std::string path_;
  std::ostream* log_ = nullptr;
  int fd_ = -1;
  std::vector<CachedKernel> read_;
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
};

// The ID of a kernel's sweep in a cache, less its fingerprint's hash: "cuda NVIDIA H100 80GB
// HBM3 | 8192 | f32 | tuned".
std::string sweep_cache_id(const DeviceInfo& device, const std::string& problem, Precision precision,
                           const std::string& kernel);
// Everything that decides a kernel's measurements besides its parameters: gpubench's commit,
// the device, its platform, API and driver version, the problem, the precision, the kernel's
// tuning key and its provenance (a spec's SHA-256 over it and its sources).
nlohmann::json sweep_cache_fingerprint(const SweepTarget& target, const TunableKernel& kernel);

}  // namespace gpubench
