// Runs that nobody can quietly spoil (issue 31): Ctrl-C and SIGTERM keep the verified points
// (bench/interrupt.hpp), and a run with a test hook set says so everywhere its figures go
// (common/test_hooks.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/test_hooks.hpp"
#include "tests/test_paths.hpp"

namespace {

using testing::HasSubstr;
using testing::Not;

using gpubench::test::read_json;
using gpubench::test::temp_path;

// gpubench started in the background, its stdout and stderr read together as it goes.
class Running {
 public:
  Running(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      ::setpgid(0, 0);  // a group of its own, as a shell gives a job: Ctrl-C reaches every process in it
      for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> argv;
      const std::string binary = gpubench::test::gpubench_binary();
      argv.push_back(const_cast<char*>(binary.c_str()));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    fd_ = fds[0];
  }
  ~Running() {
    if (pid_ > 0 && code_ < 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) ::close(fd_);
  }
  // Reads until `text` appears in the output (true) or the process ends or `seconds` pass (false).
  bool wait_for(const std::string& text, double seconds) {
    if (fd_ < 0) return output_.find(text) != std::string::npos;  // the reader closed (close_reader)
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (output_.find(text) == std::string::npos) {
      const auto left = std::chrono::duration<double, std::milli>(end - std::chrono::steady_clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) return output_.find(text) != std::string::npos;
      output_.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  // Ctrl-C at a terminal: the signal to the whole process group.
  void signal_group(int sig) const { ::kill(-pid_, sig); }
  // A scheduler or `kill PID`: the signal to the process started only.
  void signal_process(int sig) const { ::kill(pid_, sig); }
  // Waits (reading the rest of the output) for the exit code; -1 after `seconds`.
  int finish(double seconds) {
    wait_for("\x01never\x02", seconds);
    int status = 0;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > end) return -1;
      ::usleep(20000);
    }
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return code_;
  }
  const std::string& output() const { return output_; }
  // The reader goes away (gpubench ... | head): the pipe's read end closes.
  void close_reader() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  int code_ = -1;
  std::string output_;
};

struct Stop {
  std::string name;
  std::vector<std::string> extra;  // --isolate off
  int sig;
  bool group;  // to the process group (Ctrl-C), else to the process alone (kill PID)
  int code;
  std::string reason;
};

class Interrupted : public testing::TestWithParam<Stop> {};

// Enough repetitions that a point takes a second or more on one core.
const std::string kRepetitions = "3000";

// Three points of CG on the host, each some seconds of repetitions; the signal comes once the
// first is verified: that point is written whole, the one under way is not reported, the context
// says why, the table says so, and the exit code is 128 + the signal.
TEST_P(Interrupted, WritesTheVerifiedPointsAndExitsWithTheSignalsCode) {
  const Stop& s = GetParam();
  const std::string out = temp_path(s.name + ".json");
  std::vector<std::string> args = {"--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:32", "--variant",
                                   "classic,form1,form2", "--iterations", "20", "--repetitions", kRepetitions,
                                   "--format", "json", "--out", out};
  args.insert(args.end(), s.extra.begin(), s.extra.end());
  Running run(args, {"OMP_NUM_THREADS=1"});
  ASSERT_TRUE(run.wait_for("classic/f64 verified", 300)) << run.output();
  if (s.group) run.signal_group(s.sig);
  else run.signal_process(s.sig);
  const int code = run.finish(60);
  EXPECT_EQ(code, s.code) << run.output();
  EXPECT_THAT(run.output(), HasSubstr(s.reason));
  EXPECT_THAT(run.output(), HasSubstr("ENDED EARLY (" + s.reason + " after 1 of 3 points)"));  // the table
  ASSERT_TRUE(std::filesystem::exists(out)) << run.output();
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j.at("context").at("ended_early").get<std::string>(), s.reason + " after 1 of 3 points");
  int repetitions = 0;
  for (const auto& b : j.at("benchmarks")) {
    EXPECT_EQ(b.at("run_name"), "cg/poisson2d:32/openmp:0/classic/f64");
    EXPECT_EQ(b.value("verified", false), true);
    repetitions += b.at("run_type") == "iteration" ? 1 : 0;
  }
  EXPECT_EQ(std::to_string(repetitions), kRepetitions);
  EXPECT_FALSE(j.contains("failed_benchmarks") && !j.at("failed_benchmarks").empty());
  std::filesystem::remove(out);
}

// --interleave: Ctrl-C in a round writes the whole rounds before it, every point with the same
// count of verified repetitions, and says which round it ended in.
TEST(InterruptedInterleave, WritesTheWholeRoundsAndSaysWhereItEnded) {
  const std::string out = temp_path("interleave-ctrl-c.json");
  Running run({"--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:32", "--variant", "classic,form1,form2",
               "--iterations", "20", "--repetitions", kRepetitions, "--interleave", "3", "--format", "json", "--out", out},
              {"OMP_NUM_THREADS=1"});
  ASSERT_TRUE(run.wait_for("[round 3/", 300)) << run.output();
  run.signal_group(SIGINT);
  EXPECT_EQ(run.finish(60), 130) << run.output();
  EXPECT_THAT(run.output(), HasSubstr("interrupted by SIGINT (Ctrl-C) in round "));
  ASSERT_TRUE(std::filesystem::exists(out)) << run.output();
  const nlohmann::json j = read_json(out);
  EXPECT_THAT(j.at("context").at("ended_early").get<std::string>(), HasSubstr(" of " + kRepetitions));
  const int rounds = j.at("context").at("interleave").at("rounds").get<int>();
  EXPECT_GE(rounds, 2);
  std::map<std::string, int> repetitions;
  for (const auto& b : j.at("benchmarks")) {
    EXPECT_EQ(b.value("verified", false), true) << b.dump();
    if (b.at("run_type") == "iteration") ++repetitions[b.at("run_name").get<std::string>()];
  }
  ASSERT_EQ(repetitions.size(), 3u) << j.dump();
  for (const auto& [name, n] : repetitions) EXPECT_EQ(n, rounds) << name;
  std::filesystem::remove(out);
}

// A step that never ends (the planted hang): the first Ctrl-C is asked of it in vain, the second
// ends the run at once, with or without a worker process.
class SecondInterrupt : public testing::TestWithParam<std::vector<std::string>> {};

TEST_P(SecondInterrupt, ExitsAtOnce) {
  std::vector<std::string> args = {"--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:32",
                                   "--variant", "form1", "--iterations", "20", "--repetitions", "2"};
  args.insert(args.end(), GetParam().begin(), GetParam().end());
  Running run(args, {"OMP_NUM_THREADS=1", "GPUBENCH_FAULT=hang@form1"});
  ASSERT_TRUE(run.wait_for("4992 nonzeros", 120)) << run.output();  // the point hangs as it begins
  ::usleep(500000);
  run.signal_group(SIGINT);
  ASSERT_TRUE(run.wait_for("stopping after the current step", 10)) << run.output();
  run.signal_group(SIGINT);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run.finish(10), 130) << run.output();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  EXPECT_THAT(run.output(), HasSubstr("interrupted again: exiting now"));
}

// Issue 55 item 10: with --isolate off no worker can be killed, so a hung step ends the run by
// --point-timeout, and a signal's "after the current step" waits for it 10 s at most.
TEST(NoWorker, AHangEndsTheRunAtThePointTimeoutAndASignalWithinSeconds) {
  // The device's ceilings first: their probe is a unit of its own, which a 2 s timeout would end.
  const auto warm =
      gpubench::test::gpubench("--suite cg --backend openmp --problem poisson2d:8 --repetitions 1", "OMP_NUM_THREADS=1");
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  const std::vector<std::string> args = {"--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:32",
                                         "--variant", "form1", "--iterations", "20", "--repetitions", "2",
                                         "--isolate", "off", "--point-timeout", "2"};
  {
    Running run(args, {"OMP_NUM_THREADS=1", "GPUBENCH_FAULT=hang@form1"});
    EXPECT_EQ(run.finish(60), 1) << run.output();
    EXPECT_THAT(run.output(), HasSubstr("no progress for 2 s (--point-timeout)"));
    EXPECT_THAT(run.output(), HasSubstr("--isolate on fails this point alone"));
  }
  std::vector<std::string> patient = args;
  patient.back() = "600";
  Running run(patient, {"OMP_NUM_THREADS=1", "GPUBENCH_FAULT=hang@form1"});
  ASSERT_TRUE(run.wait_for("4992 nonzeros", 120)) << run.output();  // the point hangs as it begins
  ::usleep(500000);
  run.signal_process(SIGTERM);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run.finish(60), 143) << run.output();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30);
  EXPECT_THAT(run.output(), HasSubstr("did not end within 10 s of signal 15 (SIGTERM)"));
}

INSTANTIATE_TEST_SUITE_P(Isolation, SecondInterrupt,
                         testing::Values(std::vector<std::string>{}, std::vector<std::string>{"--isolate", "off"}),
                         [](const testing::TestParamInfo<std::vector<std::string>>& i) {
                           return i.param.empty() ? std::string("worker") : std::string("no_worker");
                         });

INSTANTIATE_TEST_SUITE_P(
    Signals, Interrupted,
    testing::Values(Stop{"ctrl_c", {}, SIGINT, true, 130, "interrupted by SIGINT (Ctrl-C)"},
                    Stop{"sigterm", {}, SIGTERM, false, 143, "interrupted by signal 15 (SIGTERM)"},
                    Stop{"ctrl_c_no_worker", {"--isolate", "off"}, SIGINT, true, 130, "interrupted by SIGINT (Ctrl-C)"},
                    Stop{"sigterm_no_worker", {"--isolate", "off"}, SIGTERM, false, 143,
                         "interrupted by signal 15 (SIGTERM)"},
                    // Issue 55 item 7: a closed terminal (SIGHUP) keeps the finished points too.
                    Stop{"sighup", {}, SIGHUP, false, 129, "interrupted by signal 1 (SIGHUP: the terminal closed)"},
                    Stop{"sighup_no_worker", {"--isolate", "off"}, SIGHUP, false, 129,
                         "interrupted by signal 1 (SIGHUP: the terminal closed)"}),
    [](const testing::TestParamInfo<Stop>& i) { return i.param.name; });

// ---------------------------------------------------------------------------------- test hooks

// `gpubench ... | head`: the reader of its output goes away mid-run; the run is not killed by
// SIGPIPE with its records unwritten (issue 59's H100 call lost a run so): it finishes and writes them.
TEST(ClosedOutput, AReaderThatGoesAwayLosesNothing) {
  const std::string out = temp_path("piped.json");
  Running run({"--suite", "ep", "--backend", "openmp", "--problem", "S", "--repetitions", "10", "--format", "json",
               "--out", out});
  ASSERT_TRUE(run.wait_for("\n", 60)) << run.output();
  run.close_reader();
  EXPECT_EQ(run.finish(120), 0);
  const nlohmann::json j = read_json(out);
  ASSERT_FALSE(j.at("benchmarks").empty());
  for (const auto& b : j.at("benchmarks")) EXPECT_TRUE(b.at("verified").get<bool>()) << b.dump();
  std::filesystem::remove(out);
}

TEST(TestHooks, ARunWithOneSetSaysSoInItsTableRecordsAndStderr) {
  const std::string out = temp_path("hooked.json");
  const auto r = gpubench::test::gpubench(
      "--suite ep --backend openmp --problem S --repetitions 2 --format json --out " + out,
      "GPUBENCH_SLOWDOWN=10@ep/");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("TEST HOOKS SET, this run's figures may be planted"));
  EXPECT_THAT(r.output, HasSubstr("GPUBENCH_SLOWDOWN=10@ep/ (multiplies the timed region"));
  EXPECT_THAT(r.output, HasSubstr("TEST HOOKS SET: these figures may be planted, not measured: GPUBENCH_SLOWDOWN=10@ep/"));
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j.at("context").at("test_hooks"), (nlohmann::json{{"GPUBENCH_SLOWDOWN", "10@ep/"}}));
  std::filesystem::remove(out);
}

TEST(TestHooks, ARunWithNoneSetIsUnmarked) {
  const std::string out = temp_path("clean.json");
  std::string unset = "-u GPUBENCH_HOST_MEMORY_AVAILABLE";
  for (const auto& h : gpubench::kTestHooks) unset += " -u " + std::string(h.name);
  const auto r = gpubench::test::gpubench("--suite ep --backend openmp --problem S --repetitions 2 --format json --out " + out,
                                          unset);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("TEST HOOKS")));
  EXPECT_FALSE(read_json(out).at("context").contains("test_hooks"));
  std::filesystem::remove(out);
}

TEST(TestHooks, AnEmptyHookIsUnset) {
  ::setenv("GPUBENCH_SLOWDOWN", "", 1);
  EXPECT_EQ(gpubench::test_hook("GPUBENCH_SLOWDOWN"), nullptr);
  EXPECT_TRUE(gpubench::test_hooks_set().empty() || !gpubench::test_hooks_set().count("GPUBENCH_SLOWDOWN"));
  ::setenv("GPUBENCH_SLOWDOWN", "2@x", 1);
  EXPECT_STREQ(gpubench::test_hook("GPUBENCH_SLOWDOWN"), "2@x");
  ::unsetenv("GPUBENCH_SLOWDOWN");
  EXPECT_THROW(gpubench::test_hook("GPUBENCH_NOT_A_HOOK"), std::logic_error);
}

}  // namespace
