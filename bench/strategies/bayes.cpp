// Bayesian optimisation (after Kernel Tuner's bayes_opt, written anew): a Gaussian process
// models the logarithm of a configuration's time over the space's coordinates (each parameter's
// place along its values, in [0, 1]); each step measures the unmeasured configuration of largest
// expected improvement. A failed configuration counts as e times slower than the slowest that
// ran. The kernel is Matern 5/2 with one length scale, chosen by marginal likelihood among a few
// whenever the number of measurements doubles. The first measurements are the heuristic and
// random ones (a fifth of the evaluation budget, 3 to 10). Without an evaluation budget it ends
// when no configuration is expected to improve on the best by 0.1% (and never before 20
// measurements), or when the space is exhausted or the time budget spent.
//
// The Cholesky factor L of the measured points' covariance grows by one row a measurement, and
// each candidate keeps v = L^-1 k(measured, candidate), which grows by one entry: a step costs
// O(n) per candidate, so a replay of hundreds of seeds takes seconds.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "bench/strategy.hpp"

namespace gpubench::strategies_impl {

namespace {

constexpr double jitter = 1e-2;         // the noise variance of the normalised log times
constexpr double xi = 0.01;             // exploration in expected improvement
constexpr double enough_gain = 1e-3;    // in log time: 0.1%
constexpr std::size_t most_candidates = 4000;
constexpr double scales[] = {0.08, 0.15, 0.3, 0.6, 1.2};

double matern52(const std::vector<double>& a, const std::vector<double>& b, double scale) {
  double d2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d2 += (a[i] - b[i]) * (a[i] - b[i]);
  const double r = std::sqrt(5.0 * d2) / scale;
  return (1 + r + r * r / 3) * std::exp(-r);
}

class Gp {
 public:
  explicit Gp(double scale) : scale_(scale) {}
  double scale() const { return scale_; }
  std::size_t size() const { return x_.size(); }

  // Adds a point; false when it is too close to the others to factor (it is then left out).
  bool add(const std::vector<double>& x) {
    const std::size_t n = x_.size();
    std::vector<double> l(n);
    for (std::size_t i = 0; i < n; ++i) {
      double s = matern52(x_[i], x, scale_);
      for (std::size_t j = 0; j < i; ++j) s -= l_[i][j] * l[j];
      l[i] = s / l_[i][i];
    }
    double d = 1 + jitter;
    for (double v : l) d -= v * v;
    if (!(d > 1e-12)) return false;
    l.push_back(std::sqrt(d));
    l_.push_back(std::move(l));
    x_.push_back(x);
    return true;
  }

  // L^-1 k(points, x), extended from `v` (its first entries, for the points it was computed with).
  void extend(std::vector<double>& v, const std::vector<double>& x) const {
    for (std::size_t i = v.size(); i < x_.size(); ++i) {
      double s = matern52(x_[i], x, scale_);
      for (std::size_t j = 0; j < i; ++j) s -= l_[i][j] * v[j];
      v.push_back(s / l_[i][i]);
    }
  }

  // beta = L^-1 y.
  std::vector<double> solve(const std::vector<double>& y) const {
    std::vector<double> b(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      double s = y[i];
      for (std::size_t j = 0; j < i; ++j) s -= l_[i][j] * b[j];
      b[i] = s / l_[i][i];
    }
    return b;
  }

  // The log marginal likelihood of `y` (up to a constant).
  double likelihood(const std::vector<double>& y) const {
    const auto b = solve(y);
    double fit = 0, det = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
      fit += b[i] * b[i];
      det += std::log(l_[i][i]);
    }
    return -0.5 * fit - det;
  }

 private:
  double scale_;
  std::vector<std::vector<double>> x_;
  std::vector<std::vector<double>> l_;  // lower triangular, row by row
};

}  // namespace

void bayes(Search& s) {
  const auto& legal = s.legal();
  const std::size_t budget = s.budget().evaluations ? *s.budget().evaluations : 0;
  const std::size_t initial = budget ? std::clamp<std::size_t>(budget / 5, 3, 10) : 10;

  std::vector<Params> measured;  // in the order the model saw them
  auto measure = [&](const Params& p) {
    s.cost(p);
    measured.push_back(p);
  };
  if (!s.heuristic().empty()) measure(s.heuristic());
  while (measured.size() < initial)
    if (const auto p = s.random_unmeasured()) measure(*p);
    else return;

  // The candidates: every unmeasured legal configuration (a random subset of a huge space).
  struct Candidate {
    const Params* params;
    std::vector<double> x, v;
    bool done = false;
  };
  std::vector<Candidate> candidates;
  {
    std::vector<const Params*> pool;
    for (const Params& p : legal)
      if (!s.known(p)) pool.push_back(&p);
    if (pool.size() > most_candidates) {
      std::shuffle(pool.begin(), pool.end(), s.random());
      pool.resize(most_candidates);
    }
    for (const Params* p : pool) candidates.push_back({p, s.coordinates(*p), {}});
  }

  auto targets = [&](const std::vector<std::size_t>& used) {
    double worst = -std::numeric_limits<double>::infinity();
    for (std::size_t i : used)
      if (const double c = s.cost(measured[i]); std::isfinite(c)) worst = std::max(worst, std::log(c));
    std::vector<double> y;
    for (std::size_t i : used) {
      const double c = s.cost(measured[i]);
      y.push_back(std::isfinite(c) ? std::log(c) : (std::isfinite(worst) ? worst + 1 : 0.0));
    }
    double mean = 0, var = 0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(y.size());
    for (double v : y) var += (v - mean) * (v - mean);
    const double sd = std::sqrt(var / static_cast<double>(y.size()));
    const double unit = sd > 1e-9 ? sd : 1.0;
    for (double& v : y) v = (v - mean) / unit;
    return std::pair{y, unit};
  };

  Gp gp(scales[2]);
  std::vector<std::size_t> used;  // indices into measured that the model holds
  std::size_t refit_at = 0;
  auto refit = [&] {
    std::vector<std::size_t> all(measured.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const auto y_all = targets(all).first;
    double best_l = -std::numeric_limits<double>::infinity();
    for (double scale : scales) {
      Gp trial(scale);
      std::vector<std::size_t> in;
      std::vector<double> y;
      for (std::size_t i : all)
        if (trial.add(s.coordinates(measured[i]))) {
          in.push_back(i);
          y.push_back(y_all[i]);
        }
      const double l = trial.likelihood(y);
      if (l > best_l) {
        best_l = l;
        gp = std::move(trial);
        used = std::move(in);
      }
    }
    for (auto& c : candidates) c.v.clear();
    refit_at = 2 * measured.size();
  };
  refit();

  while (!s.exhausted() && !s.spent()) {
    if (measured.size() >= refit_at) refit();
    const auto [y, unit] = targets(used);
    const auto beta = gp.solve(y);
    const double best_y = *std::min_element(y.begin(), y.end());
    Candidate* pick = nullptr;
    double pick_ei = -1;
    for (auto& c : candidates) {
      if (c.done) continue;
      if (s.known(*c.params)) {  // measured by the first round
        c.done = true;
        continue;
      }
      gp.extend(c.v, c.x);
      double mean = 0, var = 1 + jitter;
      for (std::size_t i = 0; i < c.v.size(); ++i) {
        mean += c.v[i] * beta[i];
        var -= c.v[i] * c.v[i];
      }
      const double sd = std::sqrt(std::max(var, 1e-12));
      const double gain = best_y - mean - xi, z = gain / sd;
      const double ei = gain * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
      if (ei > pick_ei) {
        pick_ei = ei;
        pick = &c;
      }
    }
    if (!pick) return;
    if (!budget && measured.size() >= 20 && pick_ei * unit < enough_gain) return;
    pick->done = true;
    measure(*pick->params);
    if (gp.add(s.coordinates(*pick->params))) used.push_back(measured.size() - 1);
  }
}

}  // namespace gpubench::strategies_impl
