#include "bench/sweep_cache.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <iostream>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/build_info.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "common/input_file.hpp"

namespace gpubench {

namespace {

nlohmann::json space_json(const TunableSpace& space) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& t : space.params) j.push_back({{"name", t.name}, {"values", t.values}});
  return j;
}

nlohmann::json legal_json(const TunableSpace& space, const std::vector<Params>& legal) {
  nlohmann::json j = nlohmann::json::array();
  for (const Params& p : legal) {
    nlohmann::json row = nlohmann::json::array();
    for (const auto& t : space.params) row.push_back(p.at(t.name));
    j.push_back(row);
  }
  return j;
}

}  // namespace

std::string sweep_cache_id(const DeviceInfo& device, const std::string& problem, Precision precision,
                           const std::string& kernel) {
  return device.backend + " " + device.name + " | " + problem + " | " + to_string(precision) + " | " + kernel;
}

nlohmann::json sweep_cache_fingerprint(const SweepTarget& target, const TunableKernel& kernel) {
  nlohmann::json f = {{"gpubench_commit", build_commit},  {"backend", target.device.backend},
                      {"device", target.device.name},     {"platform", target.device.platform},
                      {"api", target.device.api},         {"driver", target.device.driver},
                      {"problem", target.problem},        {"precision", to_string(target.precision)},
                      {"kernel", kernel.name()},          {"key", kernel.key().text()}};
  const nlohmann::json provenance = kernel.provenance();
  for (const auto& [name, value] : provenance.items()) f[name] = value;
  return f;
}

namespace {

// 64-bit FNV-1a of the fingerprint's text, 12 hex digits: what tells two fingerprints' lines apart.
std::string fingerprint_hash(const nlohmann::json& fingerprint) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : fingerprint.dump()) h = (h ^ c) * 0x100000001b3ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return std::string(out, 12);
}

// What differs between what a cached sweep was measured with and what this one would be.
std::string differences(const nlohmann::json& then, const nlohmann::json& now) {
  if (!then.is_object()) return "it was written by a gpubench that kept no fingerprint of what it measured";
  std::string list;
  for (const auto& [name, value] : now.items()) {
    const nlohmann::json was = then.contains(name) ? then.at(name) : nlohmann::json("nothing");
    if (was != value) list += (list.empty() ? "" : ", ") + name + " " + was.dump() + " (now " + value.dump() + ")";
  }
  for (const auto& [name, value] : then.items())
    if (!now.contains(name)) list += (list.empty() ? "" : ", ") + name + " " + value.dump() + " (now nothing)";
  return "measured with " + (list.empty() ? std::string("another fingerprint") : list);
}

// A cache line's integer: a JSON integer within int's range, else an InputError naming it.
int strict_int(const nlohmann::json& v, const std::string& what) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < std::numeric_limits<int>::min() ||
      v.get<std::int64_t>() > std::numeric_limits<int>::max() ||
      (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max())))
    throw InputError(what + " is " + v.dump() + ": not an integer that a tunable takes");
  return v.get<int>();
}

Params strict_params(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) throw InputError(what + " is " + j.dump() + ": not {\"NAME\": VALUE}");
  Params p;
  for (const auto& [k, v] : j.items()) p[k] = strict_int(v, what + "." + k);
  return p;
}

}  // namespace

std::vector<CachedKernel> read_sweep_cache(const std::string& path, std::ostream* log, std::size_t* whole_bytes) {
  const std::string text = read_input_file(path, "sweep cache", max_sweep_cache_bytes);
  if (std::size_t at; holds_nul(text, &at))
    throw InputError("sweep cache " + path + ": not a sweep cache (binary data: a NUL byte at offset " +
                     std::to_string(at) + ")");
  const bool last_whole = text.empty() || text.back() == '\n';
  if (whole_bytes) *whole_bytes = last_whole ? text.size() : text.rfind('\n') + 1;  // npos + 1 = 0
  std::vector<std::string> lines;
  std::istringstream split(text);
  for (std::string l; std::getline(split, l);) lines.push_back(l);
  std::vector<CachedKernel> kernels;
  std::map<std::string, std::size_t> by_id;
  std::map<std::size_t, std::set<Params>> legal_sets;  // each kernel's legal configurations
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty()) continue;
    const std::string where = "sweep cache " + path + " line " + std::to_string(i + 1) + ": ";
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(l);
    } catch (const nlohmann::json::exception&) {
      // A sweep stopped while writing it: the start of one of its objects.
      if (i + 1 == lines.size() && !last_whole && l.front() == '{') {
        if (log) *log << "gpubench: " << where << "cut short (the sweep that wrote it stopped): left out" << std::endl;
        continue;
      }
      throw InputError(where + (kernels.empty() ? "not JSON: not a sweep cache" : "not JSON"));
    }
    try {
      if (!j.is_object()) throw InputError(where + "not a JSON object: not a sweep cache line");
      if (j.contains("kernel")) {
        CachedKernel k;
        k.header = j;
        for (const auto& t : j.at("space")) {
          std::vector<int> values;
          for (const auto& v : t.at("values")) values.push_back(strict_int(v, where + "a value of " + t.at("name").dump()));
          Tunable tunable = Tunable::list(t.at("name").get<std::string>(), values);
          k.space.params.push_back(std::move(tunable));
        }
        for (const auto& row : j.at("legal")) {
          if (!row.is_array() || row.size() != k.space.params.size())
            throw InputError(where + "a legal configuration of the wrong length");
          Params p;
          for (std::size_t t = 0; t < row.size(); ++t) {
            const std::string& name = k.space.params[t].name;
            p[name] = strict_int(row[t], where + "legal configuration " + row.dump() + "'s " + name);
            if (!k.space.params[t].allows(p[name]))
              throw InputError(where + "legal configuration " + row.dump() + ": " + name + " " + std::to_string(p[name]) +
                               " is not one of its values");
          }
          if (!legal_sets[kernels.size()].insert(p).second) throw InputError(where + "legal configuration " + row.dump() + " is listed twice");
          k.legal.push_back(std::move(p));
        }
        k.strategy = j.value("strategy", "");
        k.space.strategy = k.strategy;
        if (j.contains("heuristic")) k.heuristic = strict_params(j.at("heuristic"), where + "heuristic");
        const std::string id = k.id();
        if (by_id.count(id)) throw InputError(where + "a second line for kernel '" + id + "'");
        by_id[id] = kernels.size();
        kernels.push_back(std::move(k));
      } else if (j.contains("of")) {
        const std::string id = j.at("of").get<std::string>();
        const auto it = by_id.find(id);
        if (it == by_id.end()) throw InputError(where + "a configuration of '" + id + "', which no earlier line declares");
        CachedKernel& k = kernels[it->second];
        ConfigResult r;
        r.params = strict_params(j.at("params"), where + "params");
        if (std::string why; !k.space.legal(r.params, &why)) throw InputError(where + "its parameters: " + why);
        if (!legal_sets[it->second].count(r.params))
          throw InputError(where + "its parameters " + format_params(r.params) + " are not among the kernel's legal configurations");
        r.status = j.at("status").get<std::string>();
        r.reason = j.value("reason", "");
        const auto finite = [&](const char* field, double v) {
          if (!std::isfinite(v) || v < 0) throw InputError(where + field + " is " + j.at(field).dump() + ": not a time");
          return v;
        };
        if (r.ok()) {
          r.timing.seconds = j.at("seconds").get<double>();
          for (const auto& s : j.value("samples", nlohmann::json::array())) r.timing.samples.push_back(finite("samples", s.get<double>()));
          r.timing.joules = j.value("joules", 0.0);
          if (!(r.timing.seconds > 0) || !std::isfinite(r.timing.seconds))
            throw InputError(where + "a verified configuration without a positive time");
          r.gflops = j.value("gflops", 0.0);
          r.gbps = j.value("gbps", 0.0);
          r.roofline_pct = j.value("roofline_pct", 0.0);
        }
        k.wall_s[r.params] = j.contains("wall_s") ? finite("wall_s", j.at("wall_s").get<double>()) : (r.ok() ? r.timing.seconds : 0.0);
        k.configs[r.params] = std::move(r);
      } else {
        throw InputError(where + "neither a kernel line nor a configuration line");
      }
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + e.what());
    }
  }
  // Legal = declared legal: a replayed constraint is membership in the list the sweep wrote.
  for (auto& k : kernels) {
    auto legal = std::make_shared<std::set<Params>>(k.legal.begin(), k.legal.end());
    k.space.constraints.push_back({"one of the cache's legal configurations",
                                   [legal](const Params& p) { return legal->count(p) > 0; }});
  }
  return kernels;
}

SweepCache::SweepCache(const std::string& path, std::ostream* log) : path_(path), log_(log) {
  check_input_file(path, "--cache");  // a missing cache is made below
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UsageError("--cache " + path + ": cannot open it for writing: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw UsageError("--cache " + path + ": another sweep is writing it");
  }
  try {
    std::size_t whole = 0;
    read_ = read_sweep_cache(path, log, &whole);
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > whole) {
      // The cut-short line goes: what this sweep appends then starts a line of its own.
      if (::ftruncate(fd_, static_cast<off_t>(whole)) != 0)
        throw Error(ExitCode::input, "--cache " + path + ": cannot remove its cut-short last line: " + std::strerror(errno));
      if (log) *log << "gpubench: --cache " << path << ": its cut-short last line removed" << std::endl;
    }
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

SweepCache::~SweepCache() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepCache::append(const nlohmann::json& line) {
  const std::string text = line.dump() + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ExitCode::input, "writing sweep cache " + path_ + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

SweepCache::Kernel& SweepCache::kernel(const SweepTarget& target, TunableKernel& k, const TunableSpace& declared) {
  const std::string base = sweep_cache_id(target.device, target.problem, target.precision, k.name());
  const nlohmann::json fingerprint = sweep_cache_fingerprint(target, k);
  const std::string id = base + " | " + fingerprint_hash(fingerprint);
  if (const auto it = kernels_.find(id); it != kernels_.end()) return *it->second;
  auto entry = std::make_unique<Kernel>();
  entry->cache_ = this;
  entry->id_ = id;
  const std::vector<Params> legal = declared.enumerate();
  const nlohmann::json space = space_json(declared), legal_list = legal_json(declared, legal);
  bool found = false;
  for (const CachedKernel& c : read_) {
    const std::string other = c.id();
    if (other != id) {
      if ((other == base || other.rfind(base + " | ", 0) == 0) && log_)
        *log_ << "gpubench: --cache " << path_ << ": its " << c.configs.size() << " configurations of '" << base
              << "' are not reused: " << differences(c.header.value("fingerprint", nlohmann::json()), fingerprint)
              << std::endl;
      continue;
    }
    found = true;
    if (c.header.at("space") != space || c.header.at("legal") != legal_list)
      throw InputError("--cache " + path_ + ": its sweep of '" + id +
                       "' declares other parameters or legal configurations than this build does: use another file");
    entry->configs_ = c.configs;
  }
  if (!found) {
    append({{"kernel", id},
            {"name", k.name()},
            {"device", target.device.name},
            {"backend", target.device.backend},
            {"problem", target.problem},
            {"precision", to_string(target.precision)},
            {"key", k.key().text()},
            {"space", space},
            {"legal", legal_list},
            {"heuristic", params_json(k.heuristic())},
            {"strategy", declared.strategy},
            {"flops_per_call", k.flops_per_call()},
            {"bytes_per_call", k.bytes_per_call()},
            {"gpubench_commit", build_commit},
            {"fingerprint", fingerprint}});
  }
  return *(kernels_[id] = std::move(entry));
}

const ConfigResult* SweepCache::Kernel::find(const Params& p) const {
  const auto it = configs_.find(p);
  return it == configs_.end() ? nullptr : &it->second;
}

void SweepCache::Kernel::add(const ConfigResult& r, double wall_s) {
  nlohmann::json j = {{"of", id_}, {"params", params_json(r.params)}, {"status", r.status}, {"wall_s", wall_s}};
  if (r.ok()) {
    j["seconds"] = r.timing.seconds;
    j["samples"] = r.timing.samples;
    if (r.timing.joules > 0) j["joules"] = r.timing.joules;
    j["gflops"] = r.gflops;
    j["gbps"] = r.gbps;
    j["roofline_pct"] = r.roofline_pct;
  } else {
    j["reason"] = r.reason;
  }
  cache_->append(j);
  configs_[r.params] = r;
}


}  // namespace gpubench
