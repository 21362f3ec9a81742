#include "bench/replay.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <mutex>
#include <thread>

#include "bench/format.hpp"
#include "bench/harness.hpp"
#include "bench/strategy.hpp"
#include "bench/sweep.hpp"
#include "bench/sweep_cache.hpp"
#include "common/errors.hpp"

namespace gpubench {

namespace {

// The quantile q of `v`, in any order.
double quantile_of(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return quantile(v, q);
}

// One strategy, one seed, one budget: the best time after each evaluation.
std::vector<double> trajectory(const CachedKernel& k, const TunableSpace& space, const Strategy& strategy,
                               std::uint64_t seed, std::size_t budget, const ReplayOptions& options) {
  std::vector<double> best_after;
  double best = std::numeric_limits<double>::infinity();
  double clock = 0;
  auto measure = [&](const Params& p) {
    const auto it = k.configs.find(p);
    if (it == k.configs.end())  // the space replayed is what the cache holds: a bug if reached
      throw Error(ExitCode::internal, "replay: " + format_params(p) + " is not in the cache");
    clock += k.wall_s.at(p);
    const Measured m = measured_of(it->second);
    if (m.ok) best = std::min(best, m.seconds);
    best_after.push_back(best);
    return m;
  };
  Search search(space, k.heuristic, measure, SearchBudget{budget, options.time_budget_s}, [&] { return clock; }, seed);
  search.patience = options.patience;
  try {
    strategy.run(search);
  } catch (const BudgetSpent&) {
  }
  return best_after;
}

}  // namespace

std::vector<std::size_t> target_budgets(std::size_t space) {
  auto at_least = [&](double fraction, std::size_t floor) {
    return std::min(space, std::max(floor, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(space)))));
  };
  return {at_least(0.10, 20), at_least(0.25, 40)};
}

std::vector<ReplayKernel> replay(const std::vector<std::string>& files, const ReplayOptions& options, std::ostream& log) {
  std::vector<ReplayKernel> out;
  for (const auto& file : files) {
    for (const CachedKernel& k : read_sweep_cache(file, &log)) {
      const auto start = std::chrono::steady_clock::now();
      ReplayKernel r;
      r.file = file;
      r.id = k.id();
      r.declared = k.legal.size();
      // The space replayed: the declared one, legal where the cache holds a result.
      TunableSpace space = k.space;
      auto held = std::make_shared<std::set<Params>>();
      double optimum = std::numeric_limits<double>::infinity();
      for (const auto& [p, c] : k.configs) {
        held->insert(p);
        if (!c.ok()) ++r.failed;
        else if (c.timing.seconds < optimum) {
          optimum = c.timing.seconds;
          r.optimum = p;
        }
      }
      r.measured = held->size();
      if (r.measured == 0 || !std::isfinite(optimum)) {
        log << "gpubench: replay " << file << ": '" << r.id << "' holds no verified configuration: left out" << std::endl;
        continue;
      }
      r.optimum_s = optimum;
      space.constraints.push_back({"held by the cache", [held](const Params& p) { return held->count(p) > 0; }});
      std::vector<std::size_t> budgets =
          options.max_evals ? std::vector<std::size_t>{std::min(*options.max_evals, r.measured)} : target_budgets(r.measured);
      budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());  // a small space: one budget, the whole
      for (const auto& name : options.strategies) {
        const Strategy& strategy = strategy_named(name);
        for (std::size_t budget : budgets) {
          // Seeds over the host's threads; each run is independent.
          std::vector<std::vector<double>> runs(static_cast<std::size_t>(options.seeds));
          std::atomic<int> next{0};
          std::exception_ptr failure;
          std::mutex failure_mutex;
          auto work = [&] {
            for (int i; (i = next++) < options.seeds;) {
              try {
                runs[static_cast<std::size_t>(i)] =
                    trajectory(k, space, strategy, options.seed + static_cast<std::uint64_t>(i), budget, options);
              } catch (...) {
                const std::lock_guard<std::mutex> lock(failure_mutex);
                if (!failure) failure = std::current_exception();
              }
            }
          };
          const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
          std::vector<std::thread> pool;
          for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
          work();
          for (auto& t : pool) t.join();
          if (failure) std::rethrow_exception(failure);

          ReplayRun run;
          run.strategy = name;
          run.budget = budget;
          std::vector<double> used, to97;
          for (const auto& t : runs) {
            used.push_back(static_cast<double>(t.size()));
            double reached = std::numeric_limits<double>::infinity();
            for (std::size_t e = 0; e < t.size(); ++e)
              if (optimum / t[e] >= 0.97) {
                reached = static_cast<double>(e + 1);
                break;
              }
            to97.push_back(reached);
          }
          for (std::size_t e = 0; e < budget; ++e) {
            std::vector<double> fractions;
            for (const auto& t : runs) {
              // A run that ended early keeps its last best.
              const double best = t.empty() ? INFINITY : t[std::min(e, t.size() - 1)];
              fractions.push_back(std::isfinite(best) ? optimum / best : 0.0);
            }
            run.median.push_back(quantile_of(fractions, 0.5));
            run.p10.push_back(quantile_of(fractions, 0.1));
          }
          run.final_median = run.median.empty() ? 0 : run.median.back();
          run.final_p10 = run.p10.empty() ? 0 : run.p10.back();
          run.evaluations_median = quantile_of(used, 0.5);
          const double m97 = quantile_of(to97, 0.5);
          if (std::isfinite(m97)) run.to_97_median = m97;
          r.runs.push_back(std::move(run));
        }
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      out.push_back(std::move(r));
    }
  }
  return out;
}

void write_replay_table(const std::vector<ReplayKernel>& kernels, const ReplayOptions& options, std::ostream& out) {
  for (const auto& k : kernels) {
    out << "replay " << k.file << ": " << k.id << "\n  " << k.measured << " configurations";
    if (k.measured < k.declared) out << " of the " << k.declared << " legal (a partial cache: the replay searches those)";
    out << ", " << k.failed << " failed; optimum " << fixed(k.optimum_s * 1e3, 4) << " ms at " << format_params(k.optimum)
        << "; " << options.seeds << " seed" << (options.seeds == 1 ? "" : "s") << " from " << options.seed << " ("
        << fixed(k.seconds, 2) << " s)\n";
    out << "  " << column("strategy", 12) << column("budget", 8, true) << column("used", 7, true)
        << column("median % of optimum", 21, true) << column("10th pct", 10, true) << column("evals to 97%", 14, true)
        << "\n";
    for (const auto& r : k.runs) {
      out << "  " << column(r.strategy, 12) << column(std::to_string(r.budget), 8, true)
          << column(fixed(r.evaluations_median, 0), 7, true) << column(fixed(100 * r.final_median, 1), 21, true)
          << column(fixed(100 * r.final_p10, 1), 10, true)
          << column(r.to_97_median ? fixed(*r.to_97_median, 0) : "-", 14, true) << "\n";
    }
    out << "\n";
  }
}

nlohmann::json replay_json(const std::vector<ReplayKernel>& kernels, const ReplayOptions& options) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& k : kernels) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : k.runs) {
      nlohmann::json j = {{"strategy", r.strategy},      {"budget", r.budget},       {"median", r.median},
                          {"p10", r.p10},                {"final_median", r.final_median},
                          {"final_p10", r.final_p10},    {"evaluations_median", r.evaluations_median}};
      if (r.to_97_median) j["evaluations_to_97_median"] = *r.to_97_median;
      runs.push_back(j);
    }
    nlohmann::json optimum = nlohmann::json::object();
    for (const auto& [name, v] : k.optimum) optimum[name] = v;
    all.push_back({{"file", k.file},
                   {"kernel", k.id},
                   {"declared", k.declared},
                   {"measured", k.measured},
                   {"failed", k.failed},
                   {"optimum_ms", k.optimum_s * 1e3},
                   {"optimum", optimum},
                   {"seed", options.seed},
                   {"seeds", options.seeds},
                   {"runs", runs}});
  }
  return all;
}

}  // namespace gpubench
