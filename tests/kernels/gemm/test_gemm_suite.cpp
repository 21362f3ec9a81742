// The GEMM suite end to end on the openmp backend (and on opencl, PoCL without a GPU): every variant verifies in both precisions on
// square, rectangular and odd shapes, NN and TN, through the reference and through Freivalds'
// check; a planted wrong result fails; a sweep of the tile stores an entry the next run uses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_paths.hpp"

namespace gpubench::gemm {
namespace {

using ::testing::HasSubstr;

using gpubench::test::temp_path;

nlohmann::json records(const std::string& args, const std::string& env, int expected_exit,
                       const std::string& backend = "openmp") {
  const std::string out = temp_path("run.json");
  const test::Result r =
      test::gpubench("--suite gemm --backend " + backend + " --repetitions 2 --format json --out " + out + " " + args, env);
  EXPECT_EQ(r.exit_code, expected_exit) << r.output;
  std::ifstream f(out);
  nlohmann::json j = f ? nlohmann::json::parse(f) : nlohmann::json();
  std::filesystem::remove(out);
  return j;
}

TEST(GemmSuite, EveryVariantVerifiesInBothPrecisionsAndLayouts) {
  // Square, odd, thin (k small) and degenerate (m, n or k equal to 1) shapes (issue 59 item 3).
  for (const char* problem : {"33", "40x70x20", "67x45x91:TN", "70x60x3", "1x70x40", "70x1x40:TN", "70x60x1"}) {
    const nlohmann::json j = records(std::string("--precision all --problem ") + problem, "", 0);
    std::set<std::string> points;
    for (const auto& b : j["benchmarks"]) {
      if (b["run_type"] != "iteration") continue;
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      EXPECT_THAT(b["verification"].get<std::string>(), HasSubstr("host reference"));
      points.insert(b["variant"].get<std::string>() + "/" + b["precision"].get<std::string>());
    }
    // naive, tiled, packed, serial, vendor (OpenBLAS, where it was found) and blis (where it loads) x f32, f64.
    bool vendor_listed_unavailable = false;
    int blis_unavailable = 0;
    for (const auto& u : j["context"]["unavailable"]) {
      const std::string why = u.get<std::string>();
      vendor_listed_unavailable = vendor_listed_unavailable || why.rfind("vendor on openmp", 0) == 0;
      if (why.rfind("blis f32 on openmp", 0) == 0 || why.rfind("blis f64 on openmp", 0) == 0) {
        EXPECT_THAT(why, HasSubstr("BLIS cannot be loaded")) << why;
        ++blis_unavailable;
      }
    }
    EXPECT_EQ(points.size(), (vendor_listed_unavailable ? 8u : 10u) + 2u - static_cast<unsigned>(blis_unavailable))
        << problem;
    if (!vendor_listed_unavailable) {
      EXPECT_TRUE(points.count("vendor/f32"));
    }
  }
}

TEST(GemmSuite, LargeSizesAreCheckedByFreivaldsAndSampledElements) {
  const nlohmann::json j = records("--variant tiled --precision f32 --problem 600x500x700", "", 0);
  ASSERT_FALSE(j["benchmarks"].empty());
  EXPECT_THAT(j["benchmarks"][0]["verification"].get<std::string>(), HasSubstr("Freivalds"));
}

TEST(GemmSuite, APlantedWrongResultFailsVerification) {
  for (const char* problem : {"67x45x91:TN", "600x500x700"}) {
    const nlohmann::json j =
        records(std::string("--variant naive,tiled --precision f64 --problem ") + problem, "GPUBENCH_WRONG_RESULT=tiled", 1);
    for (const auto& b : j["benchmarks"]) EXPECT_EQ(b["variant"], "naive") << problem;
    ASSERT_FALSE(j["failed_benchmarks"].empty()) << problem;
    for (const auto& b : j["failed_benchmarks"]) {
      EXPECT_EQ(b["variant"], "tiled");
      EXPECT_THAT(b["error_message"].get<std::string>(), HasSubstr("beyond the rounding bound")) << problem;
    }
  }
}

TEST(GemmSuite, ASweepOfTheTileStoresAnEntryTheNextRunUses) {
  const std::string db = temp_path("db");
  std::filesystem::remove_all(db);
  const test::Result sweep =
      test::gpubench("sweep --suite gemm --backend openmp --problem 64 --precision f64 --tuning-db " + db);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_THAT(sweep.output, HasSubstr("tiled"));
  const test::Result run = test::gpubench("--suite gemm --backend openmp --problem 64 --precision f64 --variant tiled "
                                          "--repetitions 1 --breakdown --tuning-db " + db);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr(": tuned\n"));
  std::filesystem::remove_all(db);
}

// On OpenCL (PoCL without a GPU): naive, tiled, tuned and CLBlast verify in both precisions, A
// transposed, on a shape no tile divides; a wrong result planted in the tuned kernel's C fails.
// A degenerate shape on OpenCL runs tuned on the memory-bound kernels of its own (gemv.h), with
// their parameters, which the records and the tuning choice name; a thin one on the tiles.
TEST(GemmSuite, DegenerateShapesRunTheirOwnKernelsOnOpenclAndVerify) {
  for (const char* problem : {"1x300x200", "300x1x200:TN", "300x250x1", "2x1x3000", "150x170x2"}) {
    const nlohmann::json j = records(std::string("--precision all --variant tuned,naive --problem ") + problem, "", 0, "opencl");
    int tuned = 0;
    for (const auto& b : j["benchmarks"]) {
      if (b["run_type"] != "iteration") continue;
      EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
      if (b["variant"] != "tuned") continue;
      ++tuned;
      const nlohmann::json& params = b["params"]["launch"]["gemm_tuned"];
      EXPECT_EQ(params["from"], "heuristic") << params.dump();
      if (std::string(problem) == "150x170x2") {
        EXPECT_TRUE(params.contains("bm") && !params.contains("waves")) << params.dump();
      } else {
        EXPECT_EQ(params.value("group", 0), 256) << problem << " " << params.dump();
        EXPECT_EQ(params.value("waves", 0), 4) << problem << " " << params.dump();
      }
    }
    EXPECT_EQ(tuned, 2 * 2) << problem;  // f32 and f64, two repetitions each
  }
}

TEST(GemmSuite, OpenclVariantsVerifyAndAPlantedWrongResultFails) {
  const nlohmann::json j = records("--precision all --problem 40x70x20:TN", "GPUBENCH_WRONG_RESULT=tuned/f32", 1, "opencl");
  std::set<std::string> points;
  for (const auto& b : j["benchmarks"]) {
    if (b["run_type"] != "iteration") continue;
    EXPECT_TRUE(b["verified"].get<bool>()) << b.dump();
    points.insert(b["variant"].get<std::string>() + "/" + b["precision"].get<std::string>());
  }
  for (const char* p : {"naive/f32", "naive/f64", "tiled/f32", "tiled/f64", "tuned/f64"}) EXPECT_TRUE(points.count(p)) << p;
  // The tensor variant (FP64 tensor cores through inline PTX) runs on NVIDIA's OpenCL only: on any
  // other device it is listed unavailable, with the reason, and never compiled.
  std::set<std::string> unavailable;
  for (const auto& u : j["context"]["unavailable"]) unavailable.insert(u.get<std::string>());
  const bool nvidia = std::any_of(j["context"]["devices"].begin(), j["context"]["devices"].end(),
                                  [](const auto& d) { return d.value("vendor", "").find("NVIDIA") != std::string::npos; });
  if (!nvidia) {
    EXPECT_EQ(points.count("tensor/f64"), 0u);
    EXPECT_TRUE(std::any_of(unavailable.begin(), unavailable.end(), [](const std::string& u) {
      return u.rfind("tensor f64 on opencl: tensor needs NVIDIA's OpenCL on compute capability 8.0 or later", 0) == 0 &&
             u.find("is not an NVIDIA device") != std::string::npos;
    })) << j["context"]["unavailable"].dump();
  }
  EXPECT_TRUE(unavailable.count("tensor f32 on opencl: tensor runs f64 only (FP64 tensor cores; FP32 on tensor cores "
                                "would be TF32)")) << j["context"]["unavailable"].dump();
  ASSERT_FALSE(j["failed_benchmarks"].empty());
  for (const auto& b : j["failed_benchmarks"]) {
    EXPECT_EQ(b["variant"], "tuned");
    EXPECT_EQ(b["precision"], "f32");
    EXPECT_THAT(b["error_message"].get<std::string>(), HasSubstr("beyond the rounding bound"));
  }
}

// A transposed A is a shape class of its own in the tuning database (gemm/tiled:TN): a sweep on
// TN stores it, an NN run does not take it, and a TN run with only NN entries takes the NN one of
// its sizes, saying so, until TN has its own.
TEST(GemmSuite, TransposedAIsAShapeClassOfItsOwnInTheTuningDatabase) {
  const std::string db = temp_path("tn-db"), out = temp_path("tn-run.json");
  std::filesystem::remove_all(db);
  const auto launch = [&](const std::string& problem) {
    const test::Result run = test::gpubench("--suite gemm --backend openmp --variant tiled --precision f64 --repetitions 1 "
                                            "--problem " + problem + " --tuning-db " + db + " --format json --out " + out);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    nlohmann::json records;
    std::ifstream(out) >> records;
    return records["benchmarks"][0]["params"]["launch"]["gemm_tiled"];
  };
  const auto sweep = [&](const std::string& problem) {
    const test::Result r = test::gpubench("sweep --suite gemm --backend openmp --kernel tiled --precision f64 --problem " +
                                          problem + " --tuning-db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  };
  sweep("48x40x24:TN");
  const test::Result show = test::gpubench("tuning show --tuning-db " + db);
  EXPECT_THAT(show.output, HasSubstr("gemm/tiled:TN/f64"));
  EXPECT_THAT(show.output, testing::Not(HasSubstr("error:")));
  EXPECT_EQ(launch("48x40x24:TN")["from"], "tuned");
  EXPECT_EQ(launch("48x40x24")["from"], "heuristic");  // NN is not TN's class
  std::filesystem::remove_all(db);
  sweep("48x40x24");
  const nlohmann::json tn = launch("48x40x24:TN");
  EXPECT_EQ(tn["from"], "tuned (nearest size)");
  EXPECT_THAT(tn["detail"].get<std::string>(), HasSubstr("no TN entry: the NN one"));
  EXPECT_EQ(launch("48x40x24")["from"], "tuned");
  std::filesystem::remove_all(db);
  std::filesystem::remove(out);
}

// A tiny sweep of the tuned kernel on OpenCL (the space cut down with --param) stores its best,
// and the next run takes it from the database, a neighbouring size as its nearest. A thin C
// (fewer 64 x 64 blocks than 4 a compute unit, 64 x 256 on PoCL's 2, and K >= 1024) is a class of its own
// (gemm/tuned:thin): it never borrows a square size's entry, and its heuristic splits K (issue 59:
// 64x8000x8000 on the H100 ran 8192's 128 x 128 blocks, 63 of them for 132 SMs).
TEST(GemmSuite, ASweepOfTheTunedKernelStoresAnEntryWhichAThinCDoesNotBorrow) {
  const std::string db = temp_path("thin-db"), out = temp_path("thin-run.json");
  std::filesystem::remove_all(db);
  const test::Result sweep = test::gpubench(
      "sweep --suite gemm --backend opencl --kernel tuned --problem 256 --precision f32 --param bm=32 --param bn=32 "
      "--param bk=8 --param tm=4 --param tn=4 --param vw=1 --tuning-db " + db);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_THAT(sweep.output, HasSubstr("stored 1 entries"));
  const auto launch = [&](const std::string& problem) {
    const test::Result run = test::gpubench("--suite gemm --backend opencl --variant tuned --precision f32 --repetitions 1 "
                                            "--problem " + problem + " --tuning-db " + db + " --format json --out " + out);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    nlohmann::json records;
    std::ifstream(out) >> records;
    EXPECT_TRUE(records["benchmarks"][0]["verified"].get<bool>()) << records["benchmarks"][0].dump();
    return records["benchmarks"][0]["params"]["launch"]["gemm_tuned"];
  };
  EXPECT_EQ(launch("256")["from"], "tuned");
  EXPECT_EQ(launch("400")["from"], "tuned (nearest size)");  // a square neighbour takes the entry
  const nlohmann::json thin = launch("64x256x4096");
  EXPECT_EQ(thin["from"], "heuristic") << thin.dump();
  EXPECT_THAT(thin["detail"].get<std::string>(), HasSubstr("gemm/tuned:thin/f32"));
  EXPECT_EQ(thin["bm"], 64);
  EXPECT_EQ(thin["bn"], 128);
  EXPECT_EQ(thin["splitk"], 4);  // 2 blocks of 64 x 128, split until 4 a compute unit
  // A short K is not thin (LU's updates, K = nb, keep deterministic sums): the square entry.
  EXPECT_EQ(launch("64x256x512")["from"], "tuned (nearest size)");
  std::filesystem::remove_all(db);
  std::filesystem::remove(out);
}

// A size the host cannot hold is refused before anything is allocated (the hook stands in for
// MemAvailable: 1 GB; 20000 x 20000 in f64 needs about 26 GB).
TEST(GemmSuite, AProblemTooLargeForTheHostIsRefusedBeforeAllocating) {
  const test::Result r = test::gpubench("--suite gemm --backend openmp --problem 20000 --precision f64",
                                        "GPUBENCH_HOST_MEMORY_AVAILABLE=1000000000");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("GEMM problem 20000 in f64 needs"));
  EXPECT_THAT(r.output, HasSubstr("of host memory; 1.00 GB is available"));
}

TEST(GemmSuite, BadProblemsAreInputErrors) {
  const test::Result r = test::gpubench("--suite gemm --backend openmp --problem 12xx4");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'' is not a size"));
}

}  // namespace
}  // namespace gpubench::gemm
