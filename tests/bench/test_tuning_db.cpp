#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "bench/tuning_db.hpp"
#include "bench/tuning_db_file.hpp"

namespace gpubench {

// Readable gtest messages (found by argument-dependent lookup, so not in the unnamed namespace).
void PrintTo(TuningSource s, std::ostream* os) { *os << to_string(s); }

namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;
using testing::Not;

DeviceInfo h100() {
  DeviceInfo d;
  d.backend = "opencl";
  d.index = 1;
  d.api = "OpenCL 3.0 CUDA";
  d.platform = "NVIDIA CUDA";
  d.vendor = "NVIDIA Corporation";
  d.name = "NVIDIA H100 80GB HBM3";
  d.driver = "580.159.04";
  d.compute_units = 132;
  return d;
}

DeviceInfo host_cpu() {
  DeviceInfo d;
  d.backend = "openmp";
  d.api = "OpenMP 4.5";
  d.platform = "host";
  d.vendor = "GenuineIntel";
  d.name = "Intel(R) Xeon(R) Platinum 8480+";
  d.driver = "libgomp";
  d.compute_units = 16;
  return d;
}

TuningKey key(int rows, int nnz, Precision p = Precision::f64, const std::string& kernel = "spmv") {
  TuningKey k;
  k.suite = "cg";
  k.kernel = kernel;
  k.precision = p;
  k.buckets = {{"rows", rows}, {"nnz", nnz}};
  return k;
}

TuningEntry entry(const TuningKey& k, int work_group_size, double seconds = 1e-3) {
  TuningEntry e;
  e.key = k;
  e.problem = "poisson2d:" + std::to_string(1 << (k.bucket("rows").value_or(0) / 2));
  e.params = {{"work_group_size", work_group_size}, {"work_groups_per_cu", 4}};
  e.seconds = seconds;
  e.gflops = 123.456789;
  e.roofline_pct = 87.5;
  e.baseline_seconds = 2 * seconds;
  e.date = "2026-11-23T10:00:00Z";
  e.commit = "abc1234";
  return e;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A fresh directory per test, removed afterwards. (Named TuningDb* for --gtest_filter='TuningDb*'.)
class TuningDbFiles : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("gpubench-tuning-db-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir() const { return (dir_ / "db").string(); }  // not created: writes must create it

  fs::path dir_;
};

TEST(TuningDb, SizeBucketRoundsLog2) {
  EXPECT_EQ(size_bucket(0), 0);
  EXPECT_EQ(size_bucket(-5), 0);
  EXPECT_EQ(size_bucket(1), 0);
  EXPECT_EQ(size_bucket(2), 1);
  EXPECT_EQ(size_bucket(1 << 24), 24);
  EXPECT_EQ(size_bucket((1 << 24) + 1000), 24);
  EXPECT_EQ(size_bucket(23726566), 24);   // 2^24.5 = 23726566.4
  EXPECT_EQ(size_bucket(23726567), 25);
  EXPECT_EQ(size_bucket(std::int64_t{1} << 40), 40);
}

TEST(TuningDb, KeyTextAndSourceNames) {
  EXPECT_EQ(key(24, 26).text(), "cg/spmv/f64/rows~2^24/nnz~2^26");
  const TuningKey ep = TuningKey::of_sizes("ep", "tally", Precision::f64, {{"m", std::int64_t{1} << 30}});
  EXPECT_EQ(ep.text(), "ep/tally/f64/m~2^30");
  const TuningKey gemm = TuningKey::of_sizes("gemm", "tile", Precision::f32, {{"m", 4000}, {"n", 1000}, {"k", 1}});
  EXPECT_EQ(gemm.text(), "gemm/tile/f32/m~2^12/n~2^10/k~2^0");
  EXPECT_EQ(gemm.bucket("n"), 10);
  EXPECT_FALSE(gemm.bucket("rows").has_value());
  // The same buckets in another order are the same key; other names or values are not.
  EXPECT_TRUE(key(24, 26).same_as({"cg", "spmv", Precision::f64, {{"nnz", 26}, {"rows", 24}}}));
  EXPECT_FALSE(key(24, 26).same_as({"cg", "spmv", Precision::f64, {{"rows", 24}}}));
  EXPECT_FALSE(key(24, 26).same_as({"cg", "spmv", Precision::f64, {{"rows", 24}, {"nnz", 25}}}));
  EXPECT_FALSE(key(24, 26).same_as(key(24, 26, Precision::f32)));
  EXPECT_STREQ(to_string(TuningSource::exact), "tuned");
  EXPECT_STREQ(to_string(TuningSource::nearest_size), "tuned (nearest size)");
  EXPECT_STREQ(to_string(TuningSource::device_default), "device default");
  EXPECT_STREQ(to_string(TuningSource::heuristic), "heuristic");
  EXPECT_STREQ(to_string(TuningSource::off), "off");
}

TEST(TuningDb, FileNameIsReadableShortAndDistinct) {
  const DeviceIdentity id = DeviceIdentity::of(h100());
  EXPECT_EQ(id.api, "OpenCL 3.0 CUDA");
  EXPECT_EQ(id.compute_units, 132);
  const std::string name = id.file_name();
  EXPECT_THAT(name, testing::MatchesRegex("opencl-3.0-cuda_nvidia-h100-80gb-hbm3_132cu_580.159.04_[0-9a-f]{8}\\.json"));
  EXPECT_EQ(name, DeviceIdentity::of(h100()).file_name());  // stable

  const std::string cpu = DeviceIdentity::of(host_cpu()).file_name();
  EXPECT_THAT(cpu, testing::StartsWith("openmp-4.5_intel-r-xeon-r-platinum-8480_16cu_libgomp_"));

  DeviceInfo other_platform = h100();
  other_platform.platform = "Portable Computing Language";
  EXPECT_NE(DeviceIdentity::of(other_platform).file_name(), name);
  DeviceInfo other_index = h100();
  other_index.index = 3;
  other_index.backend = "viennacl";
  EXPECT_EQ(DeviceIdentity::of(other_index).file_name(), name);  // the same device

  EXPECT_EQ(DeviceIdentity::from_json(id.to_json()), id);
  EXPECT_ANY_THROW(DeviceIdentity::from_json(nlohmann::json{{"api", "x"}}));
}

TEST_F(TuningDbFiles, RoundTrip) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  EXPECT_TRUE(db.entries(d).empty());
  EXPECT_FALSE(db.ceilings(d).has_value());

  const TuningEntry a = entry(key(24, 26), 256, 1.234567890123e-3);
  const TuningEntry b = entry(key(20, 22, Precision::f32, "dot"), 128, 2.5e-5);
  db.record(d, {a, b});
  EXPECT_TRUE(fs::exists(db.path_for(d)));
  EXPECT_EQ(fs::path(db.path_for(d)).filename().string(), DeviceIdentity::of(d).file_name());

  const auto got = db.entries(d);
  ASSERT_EQ(got.size(), 2u);
  // Sorted by key: cg/dot before cg/spmv.
  const TuningEntry& gb = got[0];
  const TuningEntry& ga = got[1];
  EXPECT_EQ(ga.key.text(), a.key.text());
  EXPECT_EQ(ga.problem, a.problem);
  EXPECT_EQ(ga.params, a.params);
  EXPECT_EQ(ga.seconds, a.seconds);  // exactly: doubles round-trip through the JSON
  EXPECT_EQ(ga.gflops, a.gflops);
  EXPECT_EQ(ga.roofline_pct, a.roofline_pct);
  EXPECT_EQ(ga.baseline_seconds, a.baseline_seconds);
  EXPECT_EQ(ga.date, a.date);
  EXPECT_EQ(ga.commit, a.commit);
  EXPECT_EQ(gb.key.text(), b.key.text());
  EXPECT_EQ(gb.key.precision, Precision::f32);
  EXPECT_EQ(gb.params, b.params);

  const TuningChoice c = db.lookup(d, a.key, {{"work_group_size", 64}});
  EXPECT_EQ(c.source, TuningSource::exact);
  EXPECT_EQ(c.params, a.params);
  EXPECT_THAT(c.detail, HasSubstr("cg/spmv/f64/rows~2^24/nnz~2^26"));
  EXPECT_THAT(c.detail, HasSubstr("swept on " + a.problem));
  EXPECT_THAT(c.detail, HasSubstr(DeviceIdentity::of(d).file_name()));

  // The file itself: schema first, pretty-printed, ceilings absent until measured.
  const std::string text = read_bytes(db.path_for(d));
  EXPECT_EQ(text.rfind("{\n  \"schema\": \"gpubench-tuning-db\",\n  \"version\": 2,\n", 0), 0u) << text;
  EXPECT_THAT(text, Not(HasSubstr("\"ceilings\"")));
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["device"], DeviceIdentity::of(d).to_json());
  EXPECT_EQ(j["defaults"]["cg/spmv"], a.params);
  EXPECT_EQ(j["defaults"]["cg/dot"], b.params);
}

TEST_F(TuningDbFiles, CeilingsRoundTrip) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  Ceilings c;
  c.copy_gbps = 3012.345678;
  c.triad_gbps = 3101.5;
  c.f32_gflops = 51234.5;
  c.f64_gflops = 25617.25;
  c.array_bytes = std::uint64_t{1} << 31;
  c.backend = "opencl";
  c.date = "2026-11-23T09:00:00Z";
  c.commit = "def5678";
  db.record(d, {entry(key(24, 26), 256)});
  db.store_ceilings(d, c);
  const auto got = db.ceilings(d);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->copy_gbps, c.copy_gbps);
  EXPECT_EQ(got->triad_gbps, c.triad_gbps);
  EXPECT_EQ(got->f32_gflops, c.f32_gflops);
  EXPECT_EQ(got->f64_gflops, c.f64_gflops);
  EXPECT_EQ(got->array_bytes, c.array_bytes);
  EXPECT_EQ(got->backend, c.backend);
  EXPECT_EQ(got->date, c.date);
  EXPECT_EQ(got->commit, c.commit);
  EXPECT_EQ(db.entries(d).size(), 1u);  // storing ceilings keeps the entries

  c.copy_gbps = 1.0;
  db.store_ceilings(d, c);  // replaces the block
  EXPECT_EQ(db.ceilings(d)->copy_gbps, 1.0);
  db.record(d, {entry(key(20, 22), 64)});
  EXPECT_EQ(db.ceilings(d)->copy_gbps, 1.0);  // recording keeps the ceilings
}

TEST_F(TuningDbFiles, LookupFallbackChain) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  const nlohmann::json heuristic = {{"work_group_size", 64}};

  // No file at all.
  TuningChoice c = db.lookup(d, key(24, 26), heuristic);
  EXPECT_EQ(c.source, TuningSource::heuristic);
  EXPECT_EQ(c.params, heuristic);
  EXPECT_THAT(c.detail, HasSubstr("no tuning database file " + db.path_for(d)));

  db.record(d, {entry(key(20, 22), 128), entry(key(24, 26), 256)});

  c = db.lookup(d, key(24, 26), heuristic);
  EXPECT_EQ(c.source, TuningSource::exact);
  EXPECT_EQ(c.params["work_group_size"], 256);

  // Nearest: (21, 23) is 2 from (20, 22) and 6 from (24, 26).
  c = db.lookup(d, key(21, 23), heuristic);
  EXPECT_EQ(c.source, TuningSource::nearest_size);
  EXPECT_EQ(c.params["work_group_size"], 128);
  EXPECT_THAT(c.detail, HasSubstr("rows~2^20/nnz~2^22"));
  EXPECT_THAT(c.detail, HasSubstr("rows~2^21/nnz~2^23"));
  c = db.lookup(d, key(30, 30), heuristic);
  EXPECT_EQ(c.source, TuningSource::nearest_size);
  EXPECT_EQ(c.params["work_group_size"], 256);

  // Tie (4 from each): the larger size wins.
  c = db.lookup(d, key(22, 24), heuristic);
  EXPECT_EQ(c.source, TuningSource::nearest_size);
  EXPECT_EQ(c.params["work_group_size"], 256);

  // Another precision: no entry of its own, so the suite/kernel default (the first recorded).
  c = db.lookup(d, key(24, 26, Precision::f32), heuristic);
  EXPECT_EQ(c.source, TuningSource::device_default);
  EXPECT_EQ(c.params["work_group_size"], 128);
  EXPECT_THAT(c.detail, HasSubstr("cg/spmv"));

  // Entries with other bucket names are never the nearest size.
  c = db.lookup(d, {"cg", "spmv", Precision::f64, {{"rows", 24}}}, heuristic);
  EXPECT_EQ(c.source, TuningSource::device_default);

  // Another kernel: nothing at all, the heuristic.
  c = db.lookup(d, key(24, 26, Precision::f64, "dot"), heuristic);
  EXPECT_EQ(c.source, TuningSource::heuristic);
  EXPECT_EQ(c.params, heuristic);
  EXPECT_THAT(c.detail, HasSubstr("no entry for cg/dot/f64/rows~2^24/nnz~2^26 in "));
}

TEST_F(TuningDbFiles, DefaultIsTheFirstRecordedAndHandEditsStay) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  db.record(d, {entry(key(20, 22), 128)});
  db.record(d, {entry(key(24, 26), 512)});
  auto j = nlohmann::json::parse(read_bytes(db.path_for(d)));
  EXPECT_EQ(j["defaults"]["cg/spmv"]["work_group_size"], 128);

  // A hand edit of the default stays through later records.
  j["defaults"]["cg/spmv"] = {{"work_group_size", 32}};
  write_bytes(db.path_for(d), j.dump(2));
  db.record(d, {entry(key(26, 28), 1024)});
  const TuningChoice c = db.lookup(d, key(24, 26, Precision::f32), {});
  EXPECT_EQ(c.source, TuningSource::device_default);
  EXPECT_EQ(c.params, (nlohmann::json{{"work_group_size", 32}}));
}

TEST_F(TuningDbFiles, RecordReplacesEqualKeysAndKeepsOthers) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  db.record(d, {entry(key(20, 22), 128), entry(key(24, 26), 256)});
  db.record(d, {entry(key(24, 26), 512), entry(key(24, 26, Precision::f32), 64)});
  const auto got = db.entries(d);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(db.lookup(d, key(20, 22), {}).params["work_group_size"], 128);
  EXPECT_EQ(db.lookup(d, key(24, 26), {}).params["work_group_size"], 512);
  EXPECT_EQ(db.lookup(d, key(24, 26, Precision::f32), {}).params["work_group_size"], 64);
}

// Issue 55 item 4: a narrowed sweep's slower best does not replace a faster stored entry of other
// parameters, unless told; what was kept is said.
TEST_F(TuningDbFiles, Issue55_4_AFasterStoredEntryIsKeptUnlessReplaceIsAsked) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  db.record(d, {entry(key(24, 26), 32, 6.13e-6)});
  const auto notes = db.record(d, {entry(key(24, 26), 16, 6.46e-6)});
  EXPECT_EQ(db.lookup(d, key(24, 26), {}).params["work_group_size"], 32);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("kept the stored"));
  EXPECT_THAT(notes[0], HasSubstr("6.13 us"));
  EXPECT_THAT(notes[0], HasSubstr("--replace"));
  // The same parameters measured again, or a faster best, are stored.
  db.record(d, {entry(key(24, 26), 32, 7e-6)});
  EXPECT_DOUBLE_EQ(db.entries(d).at(0).seconds, 7e-6);
  db.record(d, {entry(key(24, 26), 64, 5e-6)});
  EXPECT_EQ(db.lookup(d, key(24, 26), {}).params["work_group_size"], 64);
  // --replace: the sweep's, slower or not.
  const auto replaced = db.record(d, {entry(key(24, 26), 16, 9e-6)}, true);
  EXPECT_EQ(db.lookup(d, key(24, 26), {}).params["work_group_size"], 16);
  EXPECT_THAT(replaced.at(0), HasSubstr("replacing"));
}

// Issue 55 item 10: a write waits for another process's lock up to the busy timeout, says who
// holds it, and then writes nothing.
TEST_F(TuningDbFiles, Issue55_10_AWriteWaitsForAnothersLockThenSaysWhoHoldsIt) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  db.record(d, {entry(key(20, 22), 128)});
  const std::string before = read_bytes(db.path_for(d));
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    const int fd = ::open(dir().c_str(), O_RDONLY | O_DIRECTORY);
    ::flock(fd, LOCK_EX);
    (void)!::write(ready[1], "x", 1);
    ::sleep(30);
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const double saved = tuning_db_busy_timeout_s;
  tuning_db_busy_timeout_s = 0.3;
  std::string message;
  try {
    db.record(d, {entry(key(24, 26), 256)});
  } catch (const TuningDbBusy& e) {
    message = e.what();
  }
  tuning_db_busy_timeout_s = saved;
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_THAT(message, HasSubstr("process " + std::to_string(holder)));
  EXPECT_THAT(message, HasSubstr("--busy-timeout"));
  EXPECT_THAT(message, HasSubstr("nothing was written"));
  EXPECT_EQ(read_bytes(db.path_for(d)), before);
  db.record(d, {entry(key(24, 26), 256)});  // the lock gone, the write goes through
  EXPECT_EQ(db.entries(d).size(), 2u);
}

TEST_F(TuningDbFiles, EntriesAreWrittenSorted) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  db.record(d, {entry(key(24, 26), 1), entry(key(9, 11), 2), entry(key(20, 22, Precision::f32), 3),
                entry(key(20, 22), 4)});
  const std::string first = read_bytes(db.path_for(d));
  const auto j = nlohmann::json::parse(first);
  ASSERT_EQ(j["entries"].size(), 4u);
  EXPECT_EQ(j["entries"][0]["precision"], "f32");
  EXPECT_EQ(j["entries"][1]["buckets"]["rows"], 9);
  EXPECT_EQ(j["entries"][2]["buckets"]["rows"], 20);
  EXPECT_EQ(j["entries"][3]["buckets"]["rows"], 24);
  // The same content recorded in another order gives the same bytes.
  fs::remove(db.path_for(d));
  db.record(d, {entry(key(20, 22), 4), entry(key(9, 11), 2), entry(key(20, 22, Precision::f32), 3)});
  db.record(d, {entry(key(24, 26), 1)});
  auto again = nlohmann::json::parse(read_bytes(db.path_for(d)));
  again["defaults"] = j["defaults"];  // the default is the first recorded, which differs here
  EXPECT_EQ(again.dump(2) + "\n", j.dump(2) + "\n");
  EXPECT_EQ(again["entries"], j["entries"]);
}

TEST_F(TuningDbFiles, AnotherDeviceGetsAnotherFile) {
  TuningDb db(dir());
  db.record(h100(), {entry(key(24, 26), 256)});
  const DeviceInfo cpu = host_cpu();
  EXPECT_NE(db.path_for(cpu), db.path_for(h100()));
  EXPECT_TRUE(db.entries(cpu).empty());
  EXPECT_EQ(db.lookup(cpu, key(24, 26), {{"work_group_size", 8}}).source, TuningSource::heuristic);
  db.record(cpu, {entry(key(24, 26), 16)});
  EXPECT_EQ(db.lookup(cpu, key(24, 26), {}).params["work_group_size"], 16);
  EXPECT_EQ(db.lookup(h100(), key(24, 26), {}).params["work_group_size"], 256);

  // The same name on another platform is another device.
  DeviceInfo pocl = h100();
  pocl.platform = "Portable Computing Language";
  EXPECT_TRUE(db.entries(pocl).empty());
}

TEST_F(TuningDbFiles, AtomicWriteLeavesNoTemporaryFiles) {
  TuningDb db(dir());
  const DeviceInfo d = h100();
  for (int i = 0; i < 5; ++i) db.record(d, {entry(key(10 + i, 12 + i), 32 << i)});
  Ceilings c;
  c.copy_gbps = c.triad_gbps = 3000;
  c.f32_gflops = c.f64_gflops = 30000;
  db.store_ceilings(d, c);
  for (const auto& f : fs::directory_iterator(dir()))
    EXPECT_THAT(f.path().filename().string(), Not(HasSubstr(".tmp"))) << f.path();
  EXPECT_EQ(db.entries(d).size(), 5u);
}

TEST_F(TuningDbFiles, RecordOverAPreExistingFileKeepsItsEntries) {
  const DeviceInfo d = h100();
  const DeviceIdentity id = DeviceIdentity::of(d);
  fs::create_directories(dir());
  // A file written by hand (or an older run), not by this process.
  const nlohmann::json file = {
      {"schema", "gpubench-tuning-db"},
      {"version", 1},
      {"device", id.to_json()},
      {"defaults", {{"cg/dot", {{"work_group_size", 1024}}}}},
      {"entries",
       {{{"suite", "cg"}, {"kernel", "spmv"}, {"precision", "f64"}, {"rows_bucket", 12}, {"nnz_bucket", 14},
         {"problem", "poisson2d:64"}, {"params", {{"work_group_size", 96}}}, {"seconds", 1e-5}, {"gflops", 3.5},
         {"roofline_pct", 0}, {"baseline_seconds", 2e-5}, {"date", "2026-01-01"}, {"commit", "0000000"}}}}};
  write_bytes(fs::path(dir()) / id.file_name(), file.dump(1));

  TuningDb db(dir());
  db.record(d, {entry(key(24, 26), 256)});
  EXPECT_EQ(db.entries(d).size(), 2u);
  EXPECT_EQ(db.lookup(d, key(12, 14), {}).params["work_group_size"], 96);
  EXPECT_EQ(db.lookup(d, key(12, 14), {}).source, TuningSource::exact);
  EXPECT_EQ(db.lookup(d, key(24, 26), {}).params["work_group_size"], 256);
  EXPECT_EQ(db.lookup(d, key(1, 1, Precision::f64, "dot"), {}).params["work_group_size"], 1024);
  // The file had no cg/spmv default: record() sets it from the first entry it records.
  const auto j = nlohmann::json::parse(read_bytes(db.path_for(d)));
  EXPECT_EQ(j["defaults"]["cg/spmv"]["work_group_size"], 256);
  EXPECT_EQ(j["defaults"]["cg/dot"]["work_group_size"], 1024);
}

// Writers in separate processes, each recording one entry per call: every entry must survive.
// Without the lock, or with a read before taking it, interleaved read-modify-write cycles lose
// entries (checked by breaking the lock by hand).
TEST_F(TuningDbFiles, ConcurrentWritersFromProcessesLoseNothing) {
  const DeviceInfo d = h100();
  constexpr int writers = 4;
  constexpr int per_writer = 50;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      int status = 0;
      try {
        TuningDb db(dir());
        for (int i = 0; i < per_writer; ++i) {
          TuningEntry e = entry(key(w, i), 32 + i);
          e.problem = "writer" + std::to_string(w);
          db.record(d, {e});
        }
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "writer " << pid << " did not exit normally";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "writer " << pid << " threw";
  }
  TuningDb db(dir());
  const auto got = db.entries(d);
  EXPECT_EQ(got.size(), std::size_t{writers * per_writer});
  for (int w = 0; w < writers; ++w)
    for (int i = 0; i < per_writer; ++i) {
      const TuningChoice c = db.lookup(d, key(w, i), {});
      ASSERT_EQ(c.source, TuningSource::exact) << key(w, i).text();
      EXPECT_EQ(c.params["work_group_size"], 32 + i);
    }
  for (const auto& f : fs::directory_iterator(dir()))
    EXPECT_THAT(f.path().filename().string(), Not(HasSubstr(".tmp"))) << f.path();
}

// Each corrupt file: every read names it, and record/store_ceilings throw and leave it as it was.
void expect_refused(const std::string& dir, const DeviceInfo& d, const std::string& text, const std::string& why) {
  TuningDb db(dir);
  const std::string path = db.path_for(d);
  fs::create_directories(dir);
  write_bytes(path, text);
  SCOPED_TRACE(why);
  for (const std::string& message :
       {input_error([&] { db.lookup(d, key(24, 26), {}); }), input_error([&] { db.ceilings(d); }),
        input_error([&] { db.entries(d); }), input_error([&] { db.record(d, {entry(key(24, 26), 256)}); }),
        input_error([&] { db.store_ceilings(d, Ceilings{}); })}) {
    EXPECT_THAT(message, HasSubstr(path));
    EXPECT_THAT(message, HasSubstr(why));
    EXPECT_THAT(message, HasSubstr("it was not changed"));
  }
  EXPECT_EQ(read_bytes(path), text);
  for (const auto& f : fs::directory_iterator(dir))
    EXPECT_THAT(f.path().filename().string(), Not(HasSubstr(".tmp"))) << f.path();
}

TEST_F(TuningDbFiles, CorruptFilesAreReportedAndNeverOverwritten) {
  const DeviceInfo d = h100();
  nlohmann::json good = {{"schema", "gpubench-tuning-db"},
                         {"version", 2},
                         {"device", DeviceIdentity::of(d).to_json()},
                         {"defaults", nlohmann::json::object()},
                         {"entries", nlohmann::json::array()}};

  expect_refused(dir(), d, "{\"schema\": \"gpubench-tuning-db\", \"version\": 1,,}", "not valid JSON");
  expect_refused(dir(), d, "", "not valid JSON");

  nlohmann::json v3 = good;
  v3["version"] = 3;
  expect_refused(dir(), d, v3.dump(2), "version 3, this gpubench reads versions 1 and 2");
  nlohmann::json v0 = good;
  v0["version"] = 0;
  expect_refused(dir(), d, v0.dump(2), "version 0, this gpubench reads versions 1 and 2");
  nlohmann::json no_version = good;
  no_version.erase("version");
  expect_refused(dir(), d, no_version.dump(2), "no \"version\"");

  nlohmann::json other_schema = good;
  other_schema["schema"] = "something-else";
  expect_refused(dir(), d, other_schema.dump(2), "schema \"something-else\"");

  nlohmann::json other_device = good;
  other_device["device"]["compute_units"] = 114;
  expect_refused(dir(), d, other_device.dump(2), "not the device asked for");

  nlohmann::json bad_entry = good;
  bad_entry["entries"] = {{{"suite", "cg"}, {"kernel", "spmv"}}};
  expect_refused(dir(), d, bad_entry.dump(2), "entries[0]: \"precision\" is missing");
  bad_entry["entries"] = {{{"suite", "cg"}, {"kernel", "spmv"}, {"precision", "f64"}, {"buckets", {{"rows", "big"}}}}};
  expect_refused(dir(), d, bad_entry.dump(2), "entries[0].buckets: \"rows\" is not an integer");
  nlohmann::json v1_entry = bad_entry;
  v1_entry["version"] = 1;  // version 1 keys by rows_bucket and nnz_bucket, not buckets
  v1_entry["entries"] = {{{"suite", "cg"}, {"kernel", "spmv"}, {"precision", "f64"}, {"buckets", {{"rows", 3}}}}};
  expect_refused(dir(), d, v1_entry.dump(2), "entries[0]: \"rows_bucket\" is missing");

  nlohmann::json bad_ceilings = good;
  bad_ceilings["ceilings"] = {{"copy_gbps", "fast"}};
  expect_refused(dir(), d, bad_ceilings.dump(2), "ceilings: \"copy_gbps\" is not a number");
}

TEST_F(TuningDbFiles, ShowPrintsGoodFilesAndNamesTheBadOnes) {
  TuningDb db(dir());
  {
    std::ostringstream out;
    db.show(out);  // missing directory
    EXPECT_THAT(out.str(), HasSubstr("1. " + dir() + " (written)\n"));
    EXPECT_THAT(out.str(), HasSubstr("== " + dir() + " (written)\nno tuning database files\n"));
    EXPECT_FALSE(fs::exists(dir()));  // showing creates nothing
    fs::create_directories(dir());
    std::ostringstream empty;
    db.show(empty);
    EXPECT_THAT(empty.str(), HasSubstr("no tuning database files\n"));
  }

  const DeviceInfo d = h100();
  Ceilings c;
  c.copy_gbps = 3000;
  c.triad_gbps = 3100;
  c.f32_gflops = 50000;
  c.f64_gflops = 25000;
  c.backend = "opencl";
  db.store_ceilings(d, c);
  db.record(d, {entry(key(24, 26), 256, 2.5e-3)});
  const DeviceInfo cpu = host_cpu();
  write_bytes(db.path_for(cpu), "{ not json");

  std::ostringstream out;
  const std::string message = input_error([&] { db.show(out); });
  const std::string text = out.str();
  const std::string good_name = DeviceIdentity::of(d).file_name();
  const std::string bad_name = DeviceIdentity::of(cpu).file_name();
  EXPECT_THAT(text, HasSubstr(good_name));
  EXPECT_THAT(text, HasSubstr("NVIDIA H100 80GB HBM3"));
  EXPECT_THAT(text, HasSubstr("copy 3000.0 GB/s"));
  EXPECT_THAT(text, HasSubstr("cg/spmv: work_group_size=256 work_groups_per_cu=4"));
  EXPECT_THAT(text, HasSubstr("cg/spmv/f64  rows~2^24 nnz~2^26"));
  EXPECT_THAT(text, HasSubstr("2.500"));    // ms
  EXPECT_THAT(text, HasSubstr("123.5"));    // GFLOP/s
  EXPECT_THAT(text, HasSubstr("87.5"));     // % roofline
  EXPECT_THAT(text, HasSubstr(bad_name));
  EXPECT_THAT(text, HasSubstr("not valid JSON"));
  EXPECT_THAT(message, HasSubstr(bad_name));
  EXPECT_THAT(message, Not(HasSubstr(good_name)));
  EXPECT_EQ(read_bytes(db.path_for(cpu)), "{ not json");

  // A good file alone: no error.
  fs::remove(db.path_for(cpu));
  std::ostringstream ok;
  EXPECT_NO_THROW(db.show(ok));
  EXPECT_THAT(ok.str(), HasSubstr(good_name));
}

// Issue 12, section 4: damaged files are refused by name, and writing loses nothing.

// A file as one valid entry would be written, with `edit` applied to its JSON text.
std::string valid_file_text(const DeviceInfo& d) {
  return R"({"schema": "gpubench-tuning-db", "version": 2, "device": )" + DeviceIdentity::of(d).to_json().dump() +
         R"(, "ceilings": {"copy_gbps": 3000.0, "triad_gbps": 3100.0, "f32_gflops": 60000.0, "f64_gflops": 30000.0,
          "array_bytes": 268435456, "backend": "opencl", "date": "2026-11-23", "commit": "abc"},
        "defaults": {}, "entries": [{"suite": "cg", "kernel": "spmv", "precision": "f64",
          "buckets": {"rows": 24, "nnz": 26}, "problem": "poisson2d:4096",
          "params": {"work_group_size": 256, "work_groups_per_cu": 4}, "seconds": 0.0025, "gflops": 123.4,
          "roofline_pct": 87.5, "baseline_seconds": 0.003, "date": "2026-11-23", "commit": "abc"}]})";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST_F(TuningDbFiles, Issue12_4_ANumberOutOfRangeNamesTheFile) {
  const DeviceInfo d = h100();
  TuningDb db(dir());
  fs::create_directories(dir());
  const std::string bad = replaced(valid_file_text(d), "0.0025", "1e400");
  write_bytes(db.path_for(d), bad);
  const std::string message = input_error([&] { db.entries(d); });
  EXPECT_THAT(message, HasSubstr(db.path_for(d)));
  EXPECT_THAT(message, HasSubstr("not valid JSON"));
  std::ostringstream out;
  EXPECT_THAT(input_error([&] { db.show(out); }), HasSubstr(db.path_for(d)));
  EXPECT_EQ(read_bytes(db.path_for(d)), bad);
}

TEST_F(TuningDbFiles, Issue12_9_LaunchParametersThatAreNotIntegersAreRefused) {
  const DeviceInfo d = h100();
  TuningDb db(dir());
  fs::create_directories(dir());
  for (const std::string value : {"64.0", "\"big\"", "4294967296"}) {
    write_bytes(db.path_for(d), replaced(valid_file_text(d), "\"work_group_size\": 256", "\"work_group_size\": " + value));
    const std::string message = input_error([&] { db.lookup(d, key(24, 26), {{"work_group_size", 64}}); });
    EXPECT_THAT(message, HasSubstr(db.path_for(d)));
    EXPECT_THAT(message, HasSubstr("params.work_group_size is " + value +
                                   (value == "4294967296" ? ", out of range" : ", not an integer")));
  }
}

TEST_F(TuningDbFiles, Issue12_11_ZeroOrNegativeCeilingsAreRefused) {
  const DeviceInfo d = h100();
  TuningDb db(dir());
  fs::create_directories(dir());
  write_bytes(db.path_for(d), replaced(valid_file_text(d), "\"copy_gbps\": 3000.0", "\"copy_gbps\": -5.0"));
  EXPECT_THAT(input_error([&] { db.ceilings(d); }), HasSubstr("\"copy_gbps\" is -5.0, not a positive number"));
  write_bytes(db.path_for(d), replaced(valid_file_text(d), "\"triad_gbps\": 3100.0", "\"triad_gbps\": 0"));
  EXPECT_THAT(input_error([&] { db.ceilings(d); }), HasSubstr("\"triad_gbps\" is 0, not a positive number"));
  // f64 0 is a device without fp64.
  write_bytes(db.path_for(d), replaced(valid_file_text(d), "\"f64_gflops\": 30000.0", "\"f64_gflops\": 0"));
  ASSERT_TRUE(db.ceilings(d).has_value());
  EXPECT_EQ(db.ceilings(d)->f64_gflops, 0);
}

TEST_F(TuningDbFiles, Issue12_10_ASweepsRewriteKeepsUnknownFieldsAndRespectsReadOnlyFilesAndLinks) {
  const DeviceInfo d = h100();
  TuningDb db(dir());
  fs::create_directories(dir());
  // Fields this gpubench does not know, at the top and in an entry, survive a rewrite.
  write_bytes(db.path_for(d),
              replaced(replaced(valid_file_text(d), R"("defaults": {},)", R"("defaults": {}, "notes": {"by": "hand"},)"),
                       R"("commit": "abc"}])", R"("commit": "abc", "host": "node17"}])"));
  db.record(d, {entry(key(20, 22), 128)});
  const std::string after = read_bytes(db.path_for(d));
  EXPECT_THAT(after, HasSubstr(R"("notes": {)"));
  EXPECT_THAT(after, HasSubstr(R"("host": "node17")"));
  EXPECT_EQ(db.entries(d).size(), 2u);

  // A file without write permission is not replaced, even by root.
  fs::permissions(db.path_for(d), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_THAT(input_error([&] { db.record(d, {entry(key(18, 20), 64)}); }), HasSubstr("is read-only: not replaced"));
  EXPECT_EQ(read_bytes(db.path_for(d)), after);
  fs::permissions(db.path_for(d), fs::perms::owner_write, fs::perm_options::add);

  // A symbolic link stays a link; its target gets the entry.
  const fs::path real = fs::path(dir()) / "real.json";
  fs::rename(db.path_for(d), real);
  fs::create_symlink(real.filename(), db.path_for(d));
  db.record(d, {entry(key(16, 18), 32)});
  EXPECT_TRUE(fs::is_symlink(db.path_for(d)));
  EXPECT_EQ(db.entries(d).size(), 3u);
  EXPECT_THAT(read_bytes(real), HasSubstr("poisson2d:256"));
}

TEST_F(TuningDbFiles, Issue12_19_AKilledWritersTemporaryIsRemovedByTheNextWrite) {
  const DeviceInfo d = h100();
  TuningDb db(dir());
  db.record(d, {entry(key(24, 26), 256)});
  // A writer that no longer runs (no process has pid 4194303 here: it is the highest pid Linux
  // allows, and far above what this machine reaches) left its temporary; a live process's (our
  // parent's: ours is the name this write uses itself) must stay.
  const std::string stale = db.path_for(d) + ".tmp.4194303", live = db.path_for(d) + ".tmp." + std::to_string(::getppid());
  write_bytes(stale, "{ half");
  write_bytes(live, "{ half");
  db.record(d, {entry(key(20, 22), 128)});
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  fs::remove(live);
}

}  // namespace
}  // namespace gpubench
