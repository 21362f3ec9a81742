#include "bench/sweep_cache.hpp"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <iostream>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "bench/build_info.hpp"
#include "common/errors.hpp"

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

std::vector<CachedKernel> read_sweep_cache(const std::string& path, std::ostream* log) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read sweep cache " + path + ": " + std::strerror(errno));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const bool last_whole = text.empty() || text.back() == '\n';
  std::vector<std::string> lines;
  std::istringstream split(text);
  for (std::string l; std::getline(split, l);) lines.push_back(l);
  std::vector<CachedKernel> kernels;
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty()) continue;
    const std::string where = "sweep cache " + path + " line " + std::to_string(i + 1) + ": ";
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(l);
    } catch (const nlohmann::json::exception&) {
      if (i + 1 == lines.size() && !last_whole) {  // a sweep stopped while writing it
        if (log) *log << "gpubench: " << where << "cut short (the sweep that wrote it stopped): left out" << std::endl;
        continue;
      }
      throw InputError(where + "not JSON");
    }
    try {
      if (j.contains("kernel")) {
        CachedKernel k;
        k.header = j;
        for (const auto& t : j.at("space")) {
          Tunable tunable = Tunable::list(t.at("name").get<std::string>(), t.at("values").get<std::vector<int>>());
          k.space.params.push_back(std::move(tunable));
        }
        for (const auto& row : j.at("legal")) {
          if (row.size() != k.space.params.size()) throw InputError(where + "a legal configuration of the wrong length");
          Params p;
          for (std::size_t t = 0; t < row.size(); ++t) p[k.space.params[t].name] = row[t].get<int>();
          k.legal.push_back(std::move(p));
        }
        k.strategy = j.value("strategy", "");
        k.space.strategy = k.strategy;
        if (j.contains("heuristic")) k.heuristic = params_of(j.at("heuristic"));
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
        r.params = params_of(j.at("params"));
        if (std::string why; !k.space.legal(r.params, &why)) throw InputError(where + "its parameters: " + why);
        r.status = j.at("status").get<std::string>();
        r.reason = j.value("reason", "");
        if (r.ok()) {
          r.timing.seconds = j.at("seconds").get<double>();
          r.timing.samples = j.value("samples", std::vector<double>{});
          r.timing.joules = j.value("joules", 0.0);
          if (!(r.timing.seconds > 0)) throw InputError(where + "a verified configuration without a positive time");
          r.gflops = j.value("gflops", 0.0);
          r.gbps = j.value("gbps", 0.0);
          r.roofline_pct = j.value("roofline_pct", 0.0);
        }
        k.wall_s[r.params] = j.value("wall_s", r.ok() ? r.timing.seconds : 0.0);
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

SweepCache::SweepCache(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UsageError("--cache " + path + ": cannot open it for writing: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw UsageError("--cache " + path + ": another sweep is writing it");
  }
  try {
    read_ = read_sweep_cache(path, &std::cerr);
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
  const std::string id = sweep_cache_id(target.device, target.problem, target.precision, k.name());
  if (const auto it = kernels_.find(id); it != kernels_.end()) return *it->second;
  auto entry = std::make_unique<Kernel>();
  entry->cache_ = this;
  entry->id_ = id;
  const std::vector<Params> legal = declared.enumerate();
  const nlohmann::json space = space_json(declared), legal_list = legal_json(declared, legal);
  bool found = false;
  for (const CachedKernel& c : read_) {
    if (c.id() != id) continue;
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
            {"gpubench_commit", build_commit}});
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
