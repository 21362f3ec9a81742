// Issue 12.17: running out of memory is said as such (which memory, while doing what, the
// address-space limit) and exits 4, for a point, and outside any point.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <new>
#include <sstream>

#include "bench/harness.hpp"
#include "common/out_of_memory.hpp"

namespace gpubench {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// A point that runs out of host memory where it is told to, else verifies instantly.
class FakePoint final : public Point {
 public:
  enum class Fail { none, prepare, run, verification };
  FakePoint(const std::string& variant, Fail fail) : Point(id_of(variant)), fail_(fail) {}

  void prepare() override {
    if (fail_ == Fail::prepare) throw std::bad_alloc();
  }
  Outcome run() override {
    if (fail_ == Fail::run && ++runs_ == 2) throw std::bad_alloc();
    Outcome o;
    o.seconds = 1e-3;
    o.iterations = 1;
    o.verified = fail_ != Fail::verification;
    o.verification = o.verified ? "exact" : "planted wrong result";
    return o;
  }
  Profile profile() override { return {}; }
  double flops_per_iteration() const override { return 1e6; }
  double bytes_per_iteration() const override { return 1e6; }
  std::string time_includes() const override { return "nothing"; }
  void release() override {}

 private:
  static PointId id_of(const std::string& variant) {
    PointId id;
    id.suite = "fake";
    id.problem = "p";
    id.backend = "openmp";
    id.variant = variant;
    id.precision = Precision::f64;
    id.device.backend = "openmp";
    id.device.name = "test host";
    return id;
  }
  Fail fail_;
  int runs_ = 0;
};

RunReport run(std::vector<std::pair<std::string, FakePoint::Fail>> points) {
  Plan plan;
  for (const auto& [variant, fail] : points) plan.points.push_back(std::make_unique<FakePoint>(variant, fail));
  std::ostringstream log;
  return run_plan(plan, 3, {}, log);
}

TEST(OutOfMemory, APointThatRunsOutOfHostMemoryNamesItAndExitsFour) {
  const RunReport prepared = run({{"ok", FakePoint::Fail::none}, {"prep", FakePoint::Fail::prepare}});
  ASSERT_EQ(prepared.points.size(), 2u);
  EXPECT_FALSE(prepared.points[0].failed);
  EXPECT_TRUE(prepared.points[1].failed);
  EXPECT_THAT(prepared.points[1].error, AllOf(HasSubstr("out of host memory preparing"), HasSubstr("/prep/"),
                                              Not(HasSubstr("std::bad_alloc"))));
  EXPECT_EQ(prepared.exit_code(), 4);

  const RunReport running = run({{"second", FakePoint::Fail::run}});
  EXPECT_THAT(running.points[0].error, HasSubstr("out of host memory running"));
  EXPECT_EQ(running.exit_code(), 4);
}

TEST(OutOfMemory, OtherFailuresStayExitOneAndMemoryIsTheMoreSevere) {
  EXPECT_EQ(run({{"ok", FakePoint::Fail::none}}).exit_code(), 0);
  const RunReport wrong = run({{"wrong", FakePoint::Fail::verification}});
  EXPECT_THAT(wrong.points[0].error, HasSubstr("planted wrong result"));
  EXPECT_EQ(wrong.exit_code(), 1);
  EXPECT_EQ(run({{"wrong", FakePoint::Fail::verification}, {"prep", FakePoint::Fail::prepare}}).exit_code(), 4);
}

TEST(OutOfMemory, TheMessageNamesTheAddressSpaceLimitWhenOneIsSet) {
  rlimit current{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &current), 0);
  if (current.rlim_cur == RLIM_INFINITY) {
    EXPECT_THAT(OutOfMemoryError("host", "reading x").what(),
                AllOf(HasSubstr("out of host memory reading x"), Not(HasSubstr("ulimit"))));
  }
  // In a child, so that the limit does not outlive the check.
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    rlimit limit{64ull << 30, current.rlim_max};
    if (current.rlim_max != RLIM_INFINITY && limit.rlim_cur > current.rlim_max) limit.rlim_cur = current.rlim_max;
    const bool set = setrlimit(RLIMIT_AS, &limit) == 0;
    const std::string text = set ? OutOfMemoryError("H100", "in cudaMalloc").what() : std::string("setrlimit failed");
    if (::write(pipe_fds[1], text.data(), text.size()) < 0) _exit(2);
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_THAT(text, AllOf(HasSubstr("out of H100 memory in cudaMalloc"),
                          HasSubstr("address-space limit (ulimit -v) is 68.72 GB")));
  EXPECT_EQ(OutOfMemoryError("host", "x").code(), ExitCode::device);
}

}  // namespace
}  // namespace gpubench
