// What the LU suite's end-to-end tests share: a temporary folder per test process (nothing is
// written into the source tree), Matrix Market files written there, one gpubench run with its
// JSON records read back, and the checks every verified or refused point must pass.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_paths.hpp"

namespace gpubench::lu::test_support {

using ::testing::HasSubstr;
using ::testing::Not;

// This process's own folder under the system's temporary directory, made on first use and
// removed when the process ends.
inline const std::filesystem::path& temp_dir() {
  struct Dir {
    std::filesystem::path path;
    Dir() : path(std::filesystem::temp_directory_path() / ("gpubench_lu_" + std::to_string(::getpid()))) {
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}
inline std::string temp(const std::string& name) { return (temp_dir() / name).string(); }

inline std::string number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// An n x n matrix as a dense Matrix Market "array" file (column by column; `symmetric`: the
// lower triangle only, as the format keeps it). Returns the path.
inline std::string write_array(const std::string& name, std::int64_t n, const std::function<double(std::int64_t, std::int64_t)>& a,
                               bool symmetric = false) {
  const std::string path = temp(name);
  std::ofstream f(path);
  f << "%%MatrixMarket matrix array real " << (symmetric ? "symmetric" : "general") << "\n% written by the LU tests\n"
    << n << " " << n << "\n";
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = symmetric ? j : 0; i < n; ++i) f << number(a(i, j)) << "\n";
  return path;
}

// The nonzeros of an n x n matrix as a "coordinate real general" file. Returns the path.
inline std::string write_coordinate(const std::string& name, std::int64_t n,
                                    const std::function<double(std::int64_t, std::int64_t)>& a) {
  std::vector<std::string> lines;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i)
      if (const double v = a(i, j); v != 0) lines.push_back(std::to_string(i + 1) + " " + std::to_string(j + 1) + " " + number(v));
  const std::string path = temp(name);
  std::ofstream f(path);
  f << "%%MatrixMarket matrix coordinate real general\n" << n << " " << n << " " << lines.size() << "\n";
  for (const auto& l : lines) f << l << "\n";
  return path;
}

// Values in [-0.5, 0.5) that depend on (i, j) and `seed` alone.
inline double noise(std::int64_t i, std::int64_t j, std::uint64_t seed) {
  std::mt19937_64 r(seed * 1000003u + static_cast<std::uint64_t>(i) * 7919u + static_cast<std::uint64_t>(j) * 104729u);
  r.discard(3);
  return std::ldexp(static_cast<double>(r() >> 11), -53) - 0.5;
}

// The matrices the tests need pivoting for, refusal by the study's forms and breakdown.
// [[0 1] [1 0]]-like: a zero diagonal, every other element nonzero; nonsingular.
inline double zero_diagonal(std::int64_t i, std::int64_t j) { return i == j ? 0.0 : 1.0 + noise(i, j, 11); }
// 3 x 3 with a zero diagonal: [[0 2 1] [1 0 3] [4 1 0]], determinant 25.
inline double zero_diagonal3(std::int64_t i, std::int64_t j) {
  static const double a[3][3] = {{0, 2, 1}, {1, 0, 3}, {4, 1, 0}};
  return a[i][j];
}
// Diagonally dominant by rows (no pivoting needed): noise off the diagonal, n on it.
inline double dominant(std::int64_t n, std::int64_t i, std::int64_t j) {
  return i == j ? static_cast<double>(n) : noise(i, j, 5);
}

// One gpubench run: its exit code, its output (stdout and stderr) and its JSON records (null
// where no file was written).
struct LuRun {
  int exit_code = -1;
  std::string output;
  nlohmann::json records;
};

inline LuRun lu_run(const std::string& args, const std::string& env = {}) {
  static int count = 0;
  const std::string out = temp("run" + std::to_string(++count) + ".json");
  LuRun r;
  const test::Result result =
      test::gpubench("run --suite lu --repetitions 1 --format json --out " + out + " " + args, env);
  r.exit_code = result.exit_code;
  r.output = result.output;
  std::ifstream f(out);
  if (f) r.records = nlohmann::json::parse(f, nullptr, false);
  std::filesystem::remove(out);
  return r;
}

// LAPACK's FLOP count of getrf, (4 n^3 - 3 n^2 + 5 n) / 6 = 2/3 n^3 - 1/2 n^2 + 5/6 n.
inline double getrf_flops(std::int64_t n) {
  const auto x = static_cast<double>(n);
  return (4 * x * x * x - 3 * x * x + 5 * x) / 6;
}

// The verified points of a run by "backend/variant/precision"; every one is checked: verified
// by HPL's scaled residual (finite, below 16), on the problem asked for, of order n.
inline std::set<std::string> verified_points(const LuRun& r, const std::string& problem, std::int64_t n) {
  std::set<std::string> points;
  if (!r.records.is_object() || !r.records.contains("benchmarks")) {
    ADD_FAILURE() << "no records for " << problem << ":\n" << r.output;
    return points;
  }
  for (const auto& b : r.records["benchmarks"]) {
    if (b.value("run_type", "") != "iteration") continue;
    const std::string point = b["backend"].get<std::string>() + "/" + b["variant"].get<std::string>() + "/" +
                              b["precision"].get<std::string>();
    EXPECT_TRUE(points.insert(point).second) << point << " twice in " << problem;
    EXPECT_EQ(b["suite"], "lu");
    EXPECT_EQ(b["problem"], problem) << point;
    EXPECT_EQ(b["n"], n) << problem << " " << point;
    EXPECT_TRUE(b["verified"].get<bool>()) << problem << " " << point << ": " << b.dump();
    EXPECT_THAT(b["verification"].get<std::string>(), HasSubstr("HPL's scaled residual")) << problem << " " << point;
    const double residual = b["hpl_scaled_residual"].get<double>();
    EXPECT_TRUE(std::isfinite(residual) && residual >= 0 && residual < 16) << problem << " " << point << ": " << residual;
    EXPECT_DOUBLE_EQ(b["flops_per_iteration"].get<double>(), getrf_flops(n)) << problem << " " << point;
    EXPECT_GT(b["real_time"].get<double>(), 0) << problem << " " << point;
  }
  for (const auto& f : r.records.value("failed_benchmarks", nlohmann::json::array()))
    ADD_FAILURE() << problem << ": a point failed: " << f.value("name", "?") << ": " << f.value("error_message", "?");
  return points;
}

// The run's "unavailable" lines (context.unavailable).
inline std::vector<std::string> unavailable(const LuRun& r) {
  std::vector<std::string> lines;
  if (r.records.is_object() && r.records.contains("context"))
    for (const auto& u : r.records["context"].value("unavailable", nlohmann::json::array()))
      lines.push_back(u.get<std::string>());
  return lines;
}
// The line that begins with `prefix` ("naive on opencl"), or "" where there is none.
inline std::string unavailable_line(const LuRun& r, const std::string& prefix) {
  for (const auto& u : unavailable(r))
    if (u.rfind(prefix, 0) == 0) return u;
  return {};
}

// A form without pivoting, refused on `problem`: listed as unavailable, saying that it does not
// pivot and why the matrix needs it.
inline void expect_refused_for_pivoting(const LuRun& r, const std::string& variant, const std::string& backend,
                                        const std::string& problem) {
  const std::string line = unavailable_line(r, variant + " on " + backend + " (");
  EXPECT_THAT(line, HasSubstr("does not pivot, and " + problem + ": "))
      << variant << " on " << backend << " for " << problem << ":\n" << r.output;
  EXPECT_THAT(line, HasSubstr("is not diagonally dominant")) << line;
  EXPECT_THAT(line, HasSubstr("an LU without pivoting may divide by a zero or tiny pivot")) << line;
}

// The singular matrix's points: each failed (not verified), its message naming the column where
// the factorisation broke down and the zero pivot, never a residual, a NaN or an infinity.
// Returns the failed points by "backend/variant/precision".
inline std::set<std::string> singular_points(const LuRun& r, std::int64_t column) {
  std::set<std::string> points;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  if (!r.records.is_object()) {
    ADD_FAILURE() << "no records:\n" << r.output;
    return points;
  }
  for (const auto& b : r.records.value("benchmarks", nlohmann::json::array()))
    if (b.value("run_type", "") == "iteration") ADD_FAILURE() << "a singular matrix verified: " << b.dump();
  const std::string c = std::to_string(column);
  for (const auto& f : r.records.value("failed_benchmarks", nlohmann::json::array())) {
    const std::string point = f["backend"].get<std::string>() + "/" + f["variant"].get<std::string>() + "/" +
                              f["precision"].get<std::string>();
    points.insert(point);
    const std::string message = f.value("error_message", "");
    EXPECT_EQ(message, "verification failed: the factorisation broke down at column " + c + ": pivot U(" + c + "," + c +
                           ") = 0 (the matrix is singular, or numerically so, there)")
        << point;
    for (const char* number_word : {"nan", "inf", "residual"}) EXPECT_THAT(message, Not(HasSubstr(number_word))) << point;
    EXPECT_EQ(f.value("singular_column", std::int64_t{0}), column) << point;
    EXPECT_FALSE(f.value("verified", true)) << point;
    // The output names the column too, for this point.
    EXPECT_THAT(r.output, HasSubstr(f["name"].get<std::string>() + ": verification failed: the factorisation broke down at column " + c));
  }
  return points;
}

// Whether the openmp backend's vendor LU (LAPACKE) was built: if not, the run says why.
inline bool openmp_vendor_built(const LuRun& r) {
  const std::string line = unavailable_line(r, "vendor on openmp");
  if (line.empty()) return true;
  EXPECT_THAT(line, HasSubstr("LAPACKE was not found")) << line;
  return false;
}

// A tuning database in a temporary folder holding this machine's measured ceilings (copied from
// the tests' database, so that the sweep need not measure them again) and no tuning entries.
inline std::string clean_tuning_db(const std::string& name, const std::string& backend) {
  // A plain run first: the tests' database then holds the device's ceilings.
  const LuRun warm = lu_run("--backend " + backend + " --precision f64 --variant blocked --problem 2");
  EXPECT_EQ(warm.exit_code, 0) << warm.output;
  const std::string db = temp(name);
  std::filesystem::remove_all(db);
  std::filesystem::create_directories(db);
  if (const char* tests_db = std::getenv("GPUBENCH_TUNING_DB"); tests_db && std::filesystem::is_directory(tests_db))
    for (const auto& entry : std::filesystem::directory_iterator(tests_db)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
      if (!j.is_object()) continue;
      j.erase("entries");
      j.erase("defaults");
      std::ofstream(std::filesystem::path(db) / entry.path().filename()) << j.dump(1);
    }
  return db;
}

// The blocked LU's launch as each record of a run of blocked says it: "from", nb and base.
inline std::vector<nlohmann::json> blocked_launches(const std::string& backend, const std::string& problem, const std::string& db) {
  const LuRun r = lu_run("--backend " + backend + " --precision f32,f64 --variant blocked --problem " + problem +
                       " --tuning-db " + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<nlohmann::json> launches;
  if (r.records.is_object())
    for (const auto& b : r.records["benchmarks"]) {
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      launches.push_back(b["params"]["launch"]["blocked"]);
    }
  EXPECT_EQ(launches.size(), 2u) << r.output;
  return launches;
}

// The profiled pass's per-step rows of each blocked point: every step's time lands in its row
// (the panel's too: an order within one panel is all panel), and the FLOPs the rows are
// credited with add up to LAPACK's count (within 2%: the steps' own count differs by O(n^2)).
inline void expect_breakdown_accounts_for_every_step(const LuRun& r, std::int64_t n) {
  ASSERT_TRUE(r.records.is_object()) << r.output;
  int points = 0;
  for (const auto& b : r.records["benchmarks"]) {
    if (b["variant"] != "blocked") continue;
    ++points;
    double counted = 0, panel_ms = 0;
    std::set<std::string> rows;
    for (const auto& k : b["kernels"]) {
      rows.insert(k["kernel"].get<std::string>());
      counted += k["gflops"].get<double>() * k["ms_per_iteration"].get<double>() * 1e6;
      if (k["kernel"] == "panel") panel_ms = k["ms_per_iteration"].get<double>();
    }
    EXPECT_TRUE(rows.count("panel") && rows.count("laswp") && rows.count("overhead")) << b["kernels"].dump();
    EXPECT_GT(panel_ms, 0) << b["name"] << ": the panel's time went elsewhere: " << b["kernels"].dump();
    EXPECT_NEAR(counted, getrf_flops(n), 0.02 * getrf_flops(n)) << b["name"] << ": " << b["kernels"].dump();
  }
  EXPECT_GT(points, 0) << r.output;
}

}  // namespace gpubench::lu::test_support
