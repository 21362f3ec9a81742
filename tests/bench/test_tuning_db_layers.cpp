// The layered tuning database: the write layer above the committed one, where writes go, the
// default directories, what a write leaves in its directory, version-1 files and their
// migration, and a whole run that must not touch the source tree.
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bench/tuning_db.hpp"
#include "common/errors.hpp"
#include "tests/test_paths.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

DeviceInfo h100_opencl() {
  DeviceInfo d;
  d.backend = "opencl";
  d.api = "OpenCL 3.0 CUDA";
  d.platform = "NVIDIA CUDA";
  d.vendor = "NVIDIA Corporation";
  d.name = "NVIDIA H100 80GB HBM3";
  d.driver = "580.159.04";
  d.compute_units = 132;
  return d;
}

TuningKey cg_key(int rows, int nnz, const std::string& kernel = "spmv") {
  return {"cg", kernel, Precision::f64, {{"rows", rows}, {"nnz", nnz}}};
}

TuningEntry layer_entry(const TuningKey& k, int work_group_size) {
  TuningEntry e;
  e.key = k;
  e.problem = "poisson2d:64";
  e.params = {{"work_group_size", work_group_size}};
  e.seconds = 1e-3;
  e.baseline_seconds = 2e-3;
  e.date = "2026-11-23T10:00:00Z";
  e.commit = "abc1234";
  return e;
}

// Valid ceilings (every one positive: a file with zero or negative ones is refused), told
// apart by their copy bandwidth.
Ceilings ceilings(double copy_gbps) {
  Ceilings c;
  c.copy_gbps = copy_gbps;
  c.triad_gbps = 3000;
  c.f32_gflops = 60000;
  c.f64_gflops = 30000;
  c.backend = "opencl";
  return c;
}

// Every file under `dir` (relative path -> size and modification time), to compare before and after.
std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> listing(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> files;
  if (!fs::exists(dir)) return files;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    files[fs::relative(f.path(), dir).string()] = {f.is_regular_file() ? f.file_size() : 0, f.last_write_time()};
  return files;
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& f : fs::directory_iterator(dir)) names.insert(f.path().filename().string());
  return names;
}

// Sets an environment variable (or unsets it, for nullopt) for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh directory per test with two layers in it, removed afterwards. (TuningDb* for the filter.)
class TuningDbLayers : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("gpubench-tuning-layers-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string user() const { return (root_ / "user").string(); }  // not created: writes must create it
  std::string committed() const { return (root_ / "committed").string(); }
  TuningDb layered() const { return TuningDb(user(), {committed()}); }

  fs::path root_;
};

TEST_F(TuningDbLayers, UserEntryWinsAndTheCommittedOneIsTheFallback) {
  const DeviceInfo d = h100_opencl();
  TuningDb(committed()).record(d, {layer_entry(cg_key(20, 22), 128), layer_entry(cg_key(24, 26), 256)});
  TuningDb db = layered();
  const std::string user_file = db.path_for(d);
  const std::string committed_file = TuningDb(committed()).path_for(d);

  // Nothing written above: every answer comes from beneath, and names that file.
  TuningChoice c = db.lookup(d, cg_key(24, 26), {});
  EXPECT_EQ(c.source, TuningSource::exact);
  EXPECT_EQ(c.params["work_group_size"], 256);
  EXPECT_THAT(c.detail, HasSubstr(committed_file));
  EXPECT_FALSE(fs::exists(user()));  // reading creates nothing

  db.record(d, {layer_entry(cg_key(24, 26), 512), layer_entry(cg_key(16, 18), 32)});
  c = db.lookup(d, cg_key(24, 26), {});
  EXPECT_EQ(c.source, TuningSource::exact);
  EXPECT_EQ(c.params["work_group_size"], 512);
  EXPECT_THAT(c.detail, HasSubstr(user_file));
  c = db.lookup(d, cg_key(20, 22), {});  // only beneath: an exact key below beats a near one above
  EXPECT_EQ(c.source, TuningSource::exact);
  EXPECT_EQ(c.params["work_group_size"], 128);
  EXPECT_THAT(c.detail, HasSubstr(committed_file));

  // Nearest size over the union: (21, 23) is 2 from the committed (20, 22), 10 from (16, 18).
  c = db.lookup(d, cg_key(21, 23), {});
  EXPECT_EQ(c.source, TuningSource::nearest_size);
  EXPECT_EQ(c.params["work_group_size"], 128);
  // An equal key in both layers: the upper one's, also as the nearest.
  c = db.lookup(d, cg_key(25, 27), {});
  EXPECT_EQ(c.source, TuningSource::nearest_size);
  EXPECT_EQ(c.params["work_group_size"], 512);
  EXPECT_THAT(c.detail, HasSubstr(user_file));

  // entries(): the union, the upper layer hiding its equal key below.
  const auto all = db.entries(d);
  ASSERT_EQ(all.size(), 3u);
  for (const auto& e : all)
    if (e.key.same_as(cg_key(24, 26))) {
      EXPECT_EQ(e.params["work_group_size"], 512);
    }
}

TEST_F(TuningDbLayers, DefaultsAndCeilingsComeFromTheUpperLayerFirst) {
  const DeviceInfo d = h100_opencl();
  TuningDb below(committed());
  below.record(d, {layer_entry(cg_key(20, 22, "dot"), 64)});
  below.store_ceilings(d, ceilings(3000));
  TuningDb db = layered();

  EXPECT_EQ(db.ceilings(d)->copy_gbps, 3000);  // the committed ceilings, none above
  TuningChoice c = db.lookup(d, {"cg", "dot", Precision::f32, {{"rows", 20}, {"nnz", 22}}}, {});
  EXPECT_EQ(c.source, TuningSource::device_default);
  EXPECT_EQ(c.params["work_group_size"], 64);

  db.record(d, {layer_entry(cg_key(10, 12, "dot"), 1024)});  // becomes the upper file's cg/dot default
  db.store_ceilings(d, ceilings(2500));
  EXPECT_EQ(db.ceilings(d)->copy_gbps, 2500);
  c = db.lookup(d, {"cg", "dot", Precision::f32, {{"rows", 20}, {"nnz", 22}}}, {});
  EXPECT_EQ(c.source, TuningSource::device_default);
  EXPECT_EQ(c.params["work_group_size"], 1024);
  EXPECT_EQ(below.ceilings(d)->copy_gbps, 3000);

  // No file in any layer: the heuristic, naming every place looked at.
  DeviceInfo other = d;
  other.compute_units = 114;
  c = db.lookup(other, cg_key(20, 22), {{"work_group_size", 7}});
  EXPECT_EQ(c.source, TuningSource::heuristic);
  EXPECT_THAT(c.detail, HasSubstr(db.path_for(other) + " or " + below.path_for(other)));
}

TEST_F(TuningDbLayers, WritingTouchesOnlyTheWriteLayer) {
  const DeviceInfo d = h100_opencl();
  TuningDb(committed()).record(d, {layer_entry(cg_key(20, 22), 128)});
  TuningDb(committed()).store_ceilings(d, ceilings(3000));
  const auto before = listing(committed());
  const std::string committed_bytes = [&] {
    std::ifstream in(TuningDb(committed()).path_for(d));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();

  TuningDb db = layered();
  db.record(d, {layer_entry(cg_key(20, 22), 999), layer_entry(cg_key(30, 32), 256)});
  db.store_ceilings(d, ceilings(1));

  EXPECT_EQ(listing(committed()), before);
  std::ifstream in(TuningDb(committed()).path_for(d));
  std::ostringstream after;
  after << in.rdbuf();
  EXPECT_EQ(after.str(), committed_bytes);
  EXPECT_EQ(names_in(user()), std::set<std::string>{DeviceIdentity::of(d).file_name()});
  // The upper file holds what was written to it and nothing copied from beneath.
  const auto upper = TuningDb(user()).entries(d);
  EXPECT_EQ(upper.size(), 2u);
  EXPECT_EQ(TuningDb(user()).ceilings(d)->copy_gbps, 1);
}

TEST_F(TuningDbLayers, ACorruptFileInAnyLayerIsAnErrorNamingIt) {
  const DeviceInfo d = h100_opencl();
  fs::create_directories(committed());
  const std::string bad = TuningDb(committed()).path_for(d);
  std::ofstream(bad) << "{ not json";
  TuningDb db = layered();
  for (const auto& f : std::vector<std::function<void()>>{[&] { db.lookup(d, cg_key(1, 1), {}); },
                                                          [&] { db.ceilings(d); }, [&] { db.entries(d); }}) {
    try {
      f();
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr(bad));
      EXPECT_THAT(e.what(), HasSubstr("not valid JSON"));
    }
  }
  std::ostringstream out;
  EXPECT_THROW(db.show(out), InputError);
  EXPECT_THAT(out.str(), HasSubstr("== " + committed() + " (read only)"));
  EXPECT_THAT(out.str(), HasSubstr("not valid JSON"));
}

TEST_F(TuningDbLayers, WritesLeaveNoLockOrTemporaryFiles) {
  const DeviceInfo d = h100_opencl();
  TuningDb db(user());
  for (int i = 0; i < 3; ++i) db.record(d, {layer_entry(cg_key(10 + i, 12 + i), 32 << i)});
  db.store_ceilings(d, ceilings(10));
  EXPECT_EQ(names_in(user()), std::set<std::string>{DeviceIdentity::of(d).file_name()});
}

// A write that fails half-way (the file size limit stops the temporary's write): the error
// names the file, the old file is unchanged and no temporary stays. In a child process, whose
// limit and signal disposition die with it.
TEST_F(TuningDbLayers, AFailedWriteLeavesTheFileAndNoTemporary) {
  const DeviceInfo d = h100_opencl();
  TuningDb db(user());
  db.record(d, {layer_entry(cg_key(10, 12), 32)});
  const auto before = listing(user());
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
    const rlimit limit{512, 512};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::vector<TuningEntry> many;
    for (int i = 0; i < 50; ++i) many.push_back(layer_entry(cg_key(i, i + 2), 64));
    try {
      db.record(d, many);
    } catch (const InputError& e) {
      const std::string what = e.what();
      ::_exit(what.find(db.path_for(d)) != std::string::npos && what.find("cannot write") != std::string::npos ? 0 : 2);
    }
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the write did not fail; 2: its error did not name the file";
  EXPECT_EQ(listing(user()), before);
  EXPECT_EQ(db.entries(d).size(), 1u);
}

TEST_F(TuningDbLayers, DefaultDirectoryFromTheEnvironment) {
  {
    const ScopedEnv a("GPUBENCH_TUNING_DB", "/some/where/db"), b("XDG_CACHE_HOME", "/xdg"), c("HOME", "/home/u");
    EXPECT_EQ(default_tuning_db_dir(), "/some/where/db");
  }
  {
    const ScopedEnv a("GPUBENCH_TUNING_DB", ""), b("XDG_CACHE_HOME", "/xdg"), c("HOME", "/home/u");
    EXPECT_EQ(default_tuning_db_dir(), "/xdg/gpubench");
  }
  {
    const ScopedEnv a("GPUBENCH_TUNING_DB", std::nullopt), b("XDG_CACHE_HOME", std::nullopt), c("HOME", "/home/u");
    EXPECT_EQ(default_tuning_db_dir(), "/home/u/.cache/gpubench");
  }
  {  // a relative XDG_CACHE_HOME is ignored, as the XDG base directory rules say
    const ScopedEnv a("GPUBENCH_TUNING_DB", std::nullopt), b("XDG_CACHE_HOME", "rel"), c("HOME", "/home/u");
    EXPECT_EQ(default_tuning_db_dir(), "/home/u/.cache/gpubench");
  }
  {
    const ScopedEnv a("GPUBENCH_TUNING_DB", std::nullopt), b("XDG_CACHE_HOME", std::nullopt), c("HOME", std::nullopt);
    try {
      default_tuning_db_dir();
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr("--tuning-db DIR"));
    }
  }
}

TEST_F(TuningDbLayers, TheCommittedLayerIsReadBeneathUnlessItIsTheWrittenOne) {
  const ScopedEnv hook("GPUBENCH_COMMITTED_TUNING_DB", std::nullopt);  // tuning_db_env.cpp's
  const TuningDb db = open_tuning_db(user());
  ASSERT_EQ(db.layers().size(), 2u);
  EXPECT_EQ(db.dir(), user());
  EXPECT_EQ(db.layers()[1], committed_tuning_db_dir());
  EXPECT_FALSE(fs::exists(user()));

  // --tuning-db naming the committed directory, however spelt: one layer, written.
  for (const std::string& same : {committed_tuning_db_dir(), committed_tuning_db_dir() + "/.",
                                  std::string(GPUBENCH_SOURCE_DIR) + "/tests/../tuning-db"}) {
    const TuningDb only = open_tuning_db(same);
    EXPECT_EQ(only.layers(), std::vector<std::string>{same});
  }

  const ScopedEnv env("GPUBENCH_TUNING_DB", committed());
  EXPECT_EQ(open_tuning_db("").dir(), committed());

  // The tests' hook: another committed directory, or none.
  {
    const ScopedEnv other("GPUBENCH_COMMITTED_TUNING_DB", user());
    fs::create_directories(user());
    EXPECT_EQ(open_tuning_db(committed()).layers(), (std::vector<std::string>{committed(), user()}));
  }
  const ScopedEnv none("GPUBENCH_COMMITTED_TUNING_DB", "");
  EXPECT_EQ(open_tuning_db(user()).layers(), std::vector<std::string>{user()});
}

// The committed H100 CUDA file as it was in version 1 (tests/data/tuning-db-v1/) and as it was
// migrated to version 2 (tests/data/tuning-db-v2-migrated/, frozen there: tuning-db/ itself moves
// on with every sweep stored in it): the same defaults and entries (and those of suites tuned
// since), and every lookup the same, at each key of the file and at the sizes around them. (The
// ceilings were measured again since, in 3 trials: both files hold them, no longer the same.)
TEST(TuningDbMigration, VersionOneAndItsMigrationChooseTheSame) {
  const std::string name = "cuda-runtime-13.0_nvidia-h100-80gb-hbm3_132cu_580.159.04_72906222.json";
  const std::string v1_dir = test::test_data_dir() + "/tuning-db-v1";
  const TuningDbFile v1 = read_tuning_db_file(v1_dir + "/" + name);
  const std::string committed_dir = test::test_data_dir() + "/tuning-db-v2-migrated";
  const TuningDbFile v2 = read_tuning_db_file(committed_dir + "/" + name);
  ASSERT_TRUE(v1.device && v2.device);
  EXPECT_EQ(v1.version, 1);
  EXPECT_EQ(v2.version, 2);
  EXPECT_EQ(*v1.device, *v2.device);
  // Suites tuned since (GEMM) add their own defaults and entries; what version 1 held is kept.
  for (const auto& [kernel, params] : v1.defaults.items()) EXPECT_EQ(v2.defaults.at(kernel), params) << kernel;
  ASSERT_TRUE(v1.ceilings && v2.ceilings);
  EXPECT_EQ(v1.ceilings->trials, 1);  // version 1 kept no trials
  EXPECT_EQ(v2.ceilings->trials, 3);
  EXPECT_EQ(v1.ceilings->backend, v2.ceilings->backend);
  ASSERT_GE(v2.entries.size(), v1.entries.size());
  ASSERT_GT(v1.entries.size(), 10u);

  DeviceInfo d;
  d.api = v1.device->api;
  d.platform = v1.device->platform;
  d.vendor = v1.device->vendor;
  d.name = v1.device->name;
  d.driver = v1.device->driver;
  d.compute_units = v1.device->compute_units;
  const TuningDb old_db(v1_dir), new_db(committed_dir);

  std::vector<TuningKey> keys;
  bool ep = false;
  for (const auto& e : v1.entries) {
    keys.push_back(e.key);
    ep = ep || e.key.suite == "ep";
    for (int delta : {-3, -1, 1, 2})
      for (std::size_t b = 0; b < e.key.buckets.size(); ++b) {
        TuningKey near = e.key;
        near.buckets[b].second += delta;
        keys.push_back(near);
      }
    TuningKey other_precision = e.key;
    other_precision.precision = e.key.precision == Precision::f64 ? Precision::f32 : Precision::f64;
    keys.push_back(other_precision);
  }
  keys.push_back(cg_key(24, 26, "no_such_kernel"));
  ASSERT_TRUE(ep) << "the file should hold EP entries, whose version-1 key differs";

  const nlohmann::json heuristic = {{"work_group_size", 3}};
  int exact = 0, nearest = 0;
  for (const auto& k : keys) {
    const TuningChoice a = old_db.lookup(d, k, heuristic), b = new_db.lookup(d, k, heuristic);
    EXPECT_EQ(a.source, b.source) << k.text();
    EXPECT_EQ(a.params, b.params) << k.text();
    exact += a.source == TuningSource::exact;
    nearest += a.source == TuningSource::nearest_size;
  }
  EXPECT_GE(exact, static_cast<int>(v1.entries.size()));
  EXPECT_GT(nearest, 0);

  // EP's version-1 rows_bucket is its class's m: class A (m = 28) finds its entry exactly.
  const TuningChoice a = new_db.lookup(d, TuningKey::of_sizes("ep", "tally", Precision::f64, {{"m", 1LL << 28}}), {});
  EXPECT_EQ(a.source, TuningSource::exact);
  EXPECT_THAT(a.detail, HasSubstr("npb:A"));
}

// A whole run with no database anywhere (neither GPUBENCH_TUNING_DB nor --tuning-db, and no
// committed layer, so that it must measure and store the ceilings even on a machine whose device
// the committed files know): it writes only under $XDG_CACHE_HOME/gpubench, and the source
// tree's tuning-db/ is as it was.
TEST_F(TuningDbLayers, ARunWritesTheUserCacheAndNeverTheSourceTree) {
  const fs::path home = root_ / "home", cache = root_ / "cache";
  fs::create_directories(home);
  const std::string committed_dir = std::string(GPUBENCH_SOURCE_DIR) + "/tuning-db";
  const auto committed_before = listing(committed_dir);
  const std::string cmd = "env -u GPUBENCH_TUNING_DB GPUBENCH_COMMITTED_TUNING_DB= HOME=" + home.string() + " XDG_CACHE_HOME=" + cache.string() +
                          " " + test::gpubench_binary() +
                          " --suite cg --backend openmp --problem poisson2d:32 --iterations 5 --repetitions 1";
  ASSERT_EQ(std::system((cmd + " >" + (root_ / "out.txt").string() + " 2>&1").c_str()), 0)
      << std::ifstream(root_ / "out.txt").rdbuf();

  EXPECT_EQ(listing(committed_dir), committed_before);
  EXPECT_TRUE(fs::is_empty(home)) << "nothing under HOME when XDG_CACHE_HOME is set";
  const auto written = listing(cache);
  ASSERT_FALSE(written.empty());
  for (const auto& [path, info] : written) {
    EXPECT_TRUE(path == "gpubench" || path.starts_with("gpubench/")) << path;
    EXPECT_FALSE(path.ends_with(".lock") || path.find(".tmp") != std::string::npos) << path;
  }
  EXPECT_GE(names_in(cache / "gpubench").size(), 1u);
}

// Issue 12, 4.12: a database that cannot be written costs the next run a new measurement of the
// ceilings, not this run: it warns, and uses the values it measured.
TEST_F(TuningDbLayers, Issue12_12_AnUnwritableDatabaseCostsTheStoreNotTheRun) {
  const fs::path not_a_directory = root_ / "a-file";
  std::ofstream(not_a_directory) << "x";
  const std::string cmd = "env GPUBENCH_COMMITTED_TUNING_DB= " + test::gpubench_binary() +
                          " --suite cg --backend openmp --problem poisson2d:16 --iterations 5 --repetitions 1"
                          " --tuning-db " + (not_a_directory / "db").string();
  const fs::path out = root_ / "out.txt";
  const int status = std::system((cmd + " >" + out.string() + " 2>&1").c_str());
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  EXPECT_EQ(status, 0) << text.str();
  EXPECT_THAT(text.str(), HasSubstr("were measured but not stored"));
  EXPECT_THAT(text.str(), HasSubstr("with openmp kernels"));  // the measured ceilings place the points
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

// Issue 12, section 3: tuning show narrows to a backend, a device, a suite and a kernel.
TEST_F(TuningDbLayers, ShowFiltersByBackendDeviceSuiteAndKernel) {
  const DeviceInfo gpu = h100_opencl();
  DeviceInfo host = gpu;
  host.backend = "openmp";
  host.api = "OpenMP 4.5";
  host.name = "AMD EPYC";
  TuningEntry ep = layer_entry(cg_key(20, 22), 64);
  ep.key = TuningKey::of_sizes("ep", "tally", Precision::f64, {{"m", 1 << 24}});
  TuningDb db(user(), {});
  db.record(gpu, {layer_entry(cg_key(20, 22), 128), ep});
  db.record(host, {layer_entry(cg_key(20, 22), 32)});
  auto shown = [&](const TuningDb::ShowFilter& f) {
    std::ostringstream out;
    db.show(out, f);
    return out.str();
  };
  const std::string all = shown({});
  EXPECT_THAT(all, HasSubstr("AMD EPYC"));
  EXPECT_THAT(all, HasSubstr("H100"));
  const std::string opencl = shown({"opencl", "", "", ""});
  EXPECT_THAT(opencl, HasSubstr("H100"));
  EXPECT_THAT(opencl, Not(HasSubstr("AMD EPYC")));
  EXPECT_THAT(shown({"", "epyc", "", ""}), Not(HasSubstr("H100")));  // a part of the name, any case
  const std::string tally = shown({"", "", "ep", "tally"});
  EXPECT_THAT(tally, HasSubstr("ep/tally/f64"));
  EXPECT_THAT(tally, Not(HasSubstr("cg/")));
  EXPECT_THAT(tally, HasSubstr("only: suite ep, kernel tally"));
}

}  // namespace
}  // namespace gpubench
