// The CG kernels as the sweeper sees them: set up with known inputs, verified after every launch
// change, timed. A deliberately wrong backend shows that verification catches each kind of error.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "backends/registry.hpp"
#include "bench/sweep.hpp"
#include "common/errors.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "kernels/cg/tune.hpp"
#include "kernels/cg/work.hpp"
#include "tests/kernels/cg/forwarding_operations.hpp"

namespace gpubench::cg {
namespace {

using testing::HasSubstr;

std::shared_ptr<const Problem> small_problem() {
  static const auto p = std::make_shared<const Problem>(make_problem("poisson2d:24"));
  return p;
}

// The openmp operations with one kernel made wrong, registered as a backend that takes launch
// parameters, so that make_sweep_target builds its kernels on it.
class Wrong final : public ForwardingOperations {
 public:
  using ForwardingOperations::ForwardingOperations;
  static inline std::string broken;  // which kernel is wrong
  static inline int launches_set = 0;

  void spmv(Slot in, Slot out) override {
    if (broken != "spmv") inner().spmv(in, out);  // a skipped write
  }
  double dot(Slot a, Slot b) override { return inner().dot(a, b) * (broken == "dot" ? 1.001 : 1.0); }
  void axpy(double alpha, Slot x, Slot y) override { inner().axpy(broken == "axpy" ? alpha * 1.01 : alpha, x, y); }
  std::array<double, 2> dot2(Slot r, Slot w) override {
    auto v = inner().dot2(r, w);
    if (broken == "dot2") v[1] = -v[1];
    return v;
  }
  std::array<double, 2> spmv_dot2(Slot r, Slot w) override {
    auto v = inner().spmv_dot2(r, w);
    if (broken == "spmv_dot2") v[0] *= 1.001;
    return v;
  }
  void three_term_update(double rho, double gamma, Slot x, Slot xp, Slot r, Slot rp, Slot w) override {
    inner().three_term_update(rho, broken == "three_term_update" ? 0 : gamma, x, xp, r, rp, w);
  }
  void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) override {
    inner().cg_update(alpha, broken == "cg_update" ? beta / 2 : beta, r, w, p, s, x);
  }
  double stop_timer() override { return inner().stop_timer() + 1e-9; }  // never zero
  void set_launch(const std::string& kernel, const Params& launch) override {
    check_set_launch(kernel, launch, 128, DeviceInfo{});
    ++launches_set;
  }
};

GPUBENCH_REGISTER_CG_OPERATIONS(
    "test_wrong",
    [](const DeviceInfo&, const CsrMatrix& a, Precision p, const Params& l) -> std::unique_ptr<Operations> {
      return std::make_unique<Wrong>((*find_operations("openmp"))(find_device("openmp", 0), a, p, l));
    },
    "", true);

DeviceInfo wrong_device() {
  DeviceInfo d = find_device("openmp", 0);
  d.backend = "test_wrong";
  d.max_work_group_size = 128;
  return d;
}

TEST(CgTune, EveryKernelVerifiesAndTimesOnACorrectBackend) {
  Wrong::broken.clear();
  SweepTarget t = make_sweep_target(wrong_device(), small_problem(), Precision::f64, "");
  ASSERT_EQ(t.kernels.size(), tunable_kernels().size());
  for (auto& k : t.kernels) {
    SCOPED_TRACE(k->name());
    const KernelTiming timing = k->measure(k->heuristic(), 10);
    EXPECT_GT(timing.seconds, 0);
    EXPECT_EQ(timing.samples.size(), 5u);
    EXPECT_GT(k->bytes_per_call(), 0);
    EXPECT_EQ(k->key().kernel, k->name());
    EXPECT_EQ(k->key().bucket("rows").value_or(-1), 9);  // 576 rows
    const TunableSpace tunables = k->tunables();
    ASSERT_FALSE(tunables.params.empty());
    EXPECT_EQ(tunables.params[0].name, "work_group_size");
    EXPECT_EQ(tunables.params[0].values.back(), 128);
    std::vector<std::string> names;
    for (const Tunable& param : tunables.params) names.push_back(param.name);
    const std::vector<std::string> expected =
        k->name() == "spmv"        ? std::vector<std::string>{"work_group_size", "slabs", "slab_lanes", "slab_cache_kib"}
        : k->name() == "spmv_dot2" ? std::vector<std::string>{"work_group_size", "row_runs", "slabs", "slab_lanes",
                                                                         "slab_cache_kib"}
                                   : std::vector<std::string>{"work_group_size", "work_groups_per_cu"};
    EXPECT_EQ(names, expected);
    EXPECT_TRUE(tunables.legal(k->heuristic()));
  }
}

TEST(CgTune, AWrongKernelFailsVerificationNamingIt) {
  for (const std::string& kernel : tunable_kernels()) {
    if (kernel == "xpay" || kernel == "scale") continue;  // Wrong breaks the others
    SCOPED_TRACE(kernel);
    Wrong::broken = kernel;
    SweepTarget t = make_sweep_target(wrong_device(), small_problem(), Precision::f64, kernel);
    ASSERT_EQ(t.kernels.size(), 1u);
    try {
      t.kernels[0]->measure(t.kernels[0]->heuristic(), 10);
      ADD_FAILURE() << "a wrong " << kernel << " verified";
    } catch (const VerificationError& e) {
      EXPECT_THAT(e.what(), HasSubstr(kernel));
    }
  }
  Wrong::broken.clear();
}

TEST(CgTune, MeasureSetsTheKernelsLaunchAndChecksIt) {
  Wrong::broken.clear();
  SweepTarget t = make_sweep_target(wrong_device(), small_problem(), Precision::f32, "dot");
  const int before = Wrong::launches_set;
  t.kernels[0]->measure({{"work_group_size", 64}, {"work_groups_per_cu", 2}}, 10);
  EXPECT_EQ(Wrong::launches_set, before + 1);
  EXPECT_THROW(t.kernels[0]->measure({{"work_group_size", 256}, {"work_groups_per_cu", 2}}, 10), DeviceError);
  EXPECT_THROW(t.kernels[0]->measure({{"tile", 4}}, 10), UsageError);
  // A call slower than the limit is refused (with ExitCode::point_failed), not timed.
  try {
    t.kernels[0]->measure({{"work_group_size", 64}, {"work_groups_per_cu", 2}}, 1e-12);
    ADD_FAILURE() << "no time limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::point_failed);
    EXPECT_THAT(e.what(), HasSubstr("time limit"));
  }
}

TEST(CgTune, RefusesUnknownKernelsAndListsUntunableBackends) {
  EXPECT_THROW(make_sweep_target(wrong_device(), small_problem(), Precision::f64, "copy"), UsageError);
  const SweepTarget openmp = make_sweep_target(find_device("openmp", 0), small_problem(), Precision::f64, "");
  EXPECT_TRUE(openmp.kernels.empty());
  ASSERT_EQ(openmp.untunable.size(), 1u);
  EXPECT_THAT(openmp.untunable[0], HasSubstr("pick their own launch sizes"));
}

TEST(CgTune, HeuristicIsTheDefaultLaunchWithinTheDevice) {
  EXPECT_EQ(heuristic_params("dot", 1024), (Params{{"work_group_size", 256}, {"work_groups_per_cu", 8}}));
  EXPECT_EQ(heuristic_params("spmv", 1024),
            (Params{{"work_group_size", 256}, {"slabs", 1}, {"slab_lanes", 0}, {"slab_cache_kib", 0}}));
  EXPECT_EQ(heuristic_params("spmv_dot2", 1024), (Params{{"work_group_size", 256},
                                                          {"row_runs", 2},
                                                          {"slabs", 1},
                                                          {"slab_lanes", 0},
                                                          {"slab_cache_kib", 0}}));
  // slab_lanes only with the slab SpMV.
  const TunableSpace spmv = kernel_tunables("spmv", 1024);
  EXPECT_TRUE(spmv.legal(Params{{"work_group_size", 256}, {"slabs", 1}, {"slab_lanes", 8}, {"slab_cache_kib", 0}}));
  std::string why;
  EXPECT_FALSE(spmv.legal(Params{{"work_group_size", 256}, {"slabs", 0}, {"slab_lanes", 8}, {"slab_cache_kib", 0}}, &why));
  EXPECT_THAT(why, HasSubstr("slab_lanes == 0 unless slabs == 1"));
  EXPECT_TRUE(spmv.legal(Params{{"work_group_size", 256}, {"slabs", 1}, {"slab_lanes", 8}, {"slab_cache_kib", 128}}));
  EXPECT_FALSE(spmv.legal(Params{{"work_group_size", 256}, {"slabs", 0}, {"slab_lanes", 0}, {"slab_cache_kib", 128}}, &why));
  EXPECT_THAT(why, HasSubstr("slab_cache_kib == 0 unless slabs == 1"));
  EXPECT_EQ(heuristic_params("axpy", 128), (Params{{"work_group_size", 128}, {"work_groups_per_cu", 8}}));
  EXPECT_EQ(heuristic_params("copy", 1024), Params{});
  const auto t = kernel_tunables("dot", 1000).params;  // not a power of two: the largest below
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].values, (std::vector<int>{32, 64, 128, 256, 512}));
  EXPECT_EQ(t[0].legal, "powers of two in [32, 512]");
  EXPECT_EQ(t[1].name, "work_groups_per_cu");
  EXPECT_EQ(t[1].values.front(), 1);
  EXPECT_EQ(t[1].values.back(), 64);
  EXPECT_TRUE(kernel_tunables("copy", 1024).params.empty());
  // The heuristic is legal on every device, however small its work-groups.
  for (const std::string& kernel : tunable_kernels())
    for (std::size_t largest : {1u, 16u, 32u, 100u, 128u, 1000u, 1024u, 4096u})
      EXPECT_TRUE(kernel_tunables(kernel, largest).legal(heuristic_params(kernel, largest))) << kernel << " " << largest;
}

// The sweep walks CG's declared space as the thesis did: each work-group size, WG/CU from 1 up.
TEST(CgTune, TheSweepWalksEveryWorkGroupSizeFromOneWorkGroupPerCu) {
  Wrong::broken.clear();
  SweepTarget t = make_sweep_target(wrong_device(), small_problem(), Precision::f64, "axpy");
  SweepOptions o;
  o.params = {parse_param("work_groups_per_cu=1:2")};
  std::ostringstream log;
  const SweepReport r = sweep(t, o, std::nullopt, log, false);
  ASSERT_EQ(r.kernels.size(), 1u);
  std::vector<Params> visited;
  for (const auto& c : r.kernels[0].configs) visited.push_back(c.params);
  const std::vector<Params> expected = {{{"work_group_size", 32}, {"work_groups_per_cu", 1}},
                                        {{"work_group_size", 32}, {"work_groups_per_cu", 2}},
                                        {{"work_group_size", 64}, {"work_groups_per_cu", 1}},
                                        {{"work_group_size", 64}, {"work_groups_per_cu", 2}},
                                        {{"work_group_size", 128}, {"work_groups_per_cu", 1}},
                                        {{"work_group_size", 128}, {"work_groups_per_cu", 2}}};
  EXPECT_EQ(visited, expected);
  EXPECT_EQ(r.kernels[0].strategy, "auto: walk");  // CG declares the walk its default
}

// A database value CG's declaration refuses (not a power of two) is an InputError naming it.
TEST(CgTune, ADatabaseWorkGroupSizeOutsideTheDeclaredValuesIsRefused) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpubench-cg-tune-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const DeviceInfo d = wrong_device();
  const TuningKey key = TuningKey::of_sizes("cg", "dot", Precision::f64, {{"rows", 512}, {"nnz", 2048}});
  TuningDb db(dir.string());
  TuningEntry e;
  e.key = key;
  e.problem = "poisson2d:24";
  e.params = {{"work_group_size", 96}, {"work_groups_per_cu", 2}};
  e.seconds = 1e-5;
  db.record(d, {e});
  try {
    choose_launch_params(&db, d, key, heuristic_params("dot", 128), kernel_tunables("dot", 128));
    ADD_FAILURE() << "no error";
  } catch (const InputError& err) {
    EXPECT_THAT(err.what(), HasSubstr("work_group_size = 96 is outside its legal values powers of two in [32, 128]"));
    EXPECT_THAT(err.what(), HasSubstr(d.label()));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench::cg
