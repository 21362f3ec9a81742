// The host BLAS baselines say what they are (issue 36 item 3): which library, version, kernels and
// threads ran, in the records; a library whose kernels use a narrower instruction set than the
// host's is flagged, in the records, the run's table and gpubench report's, with the setting that
// chooses better ones; BLIS is a second host vendor beside OpenBLAS, each calling its own dgemm_.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/openmp/host_blas.hpp"
#include "tests/test_paths.hpp"

namespace gpubench::host_blas {
namespace {

using testing::HasSubstr;

BlasInfo classified(const std::string& library, const std::string& core, const std::string& host) {
  BlasInfo info;
  info.library = library;
  info.core = core;
  classify(info, host);
  return info;
}

TEST(HostBlas, KernelsNarrowerThanTheHostAreFlaggedWithTheSettingThatChoosesTheHosts) {
  const BlasInfo prescott = classified("OpenBLAS", "Prescott", "AVX-512");
  EXPECT_EQ(prescott.core_isa, "SSE3");
  EXPECT_EQ(prescott.host_isa, "AVX-512");
  EXPECT_THAT(prescott.weaker, HasSubstr("OpenBLAS runs its Prescott kernels (SSE3) on a host with AVX-512"));
  EXPECT_THAT(prescott.weaker, HasSubstr("OPENBLAS_CORETYPE=SkylakeX"));
  EXPECT_THAT(classified("OpenBLAS", "Sandybridge", "AVX2").weaker, HasSubstr("OPENBLAS_CORETYPE=Haswell"));
  EXPECT_THAT(classified("BLIS", "generic", "AVX2").weaker, HasSubstr("BLIS_ARCH_TYPE=haswell"));
  EXPECT_THAT(classified("BLIS", "zen3", "AVX-512").weaker, HasSubstr("BLIS_ARCH_TYPE=skx"));
  // OpenBLAS's core names in any case; the host's own kernels, or wider ones, are not flagged.
  for (const auto& [library, core, host] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"OpenBLAS", "SKYLAKEX", "AVX-512"},
                                                                      {"OpenBLAS", "Haswell", "AVX2"},
                                                                      {"OpenBLAS", "Zen", "AVX2"},
                                                                      {"OpenBLAS", "Cooperlake", "AVX2"},
                                                                      {"BLIS", "skx", "AVX-512"},
                                                                      {"BLIS", "zen4", "AVX-512"}}) {
    const BlasInfo info = classified(library, core, host);
    EXPECT_EQ(info.weaker, "") << library << " " << core << " on " << host;
    EXPECT_NE(info.core_isa, "") << library << " " << core;
  }
  // A name it does not know (another architecture, a newer core) is not guessed at.
  const BlasInfo unknown = classified("OpenBLAS", "NEOVERSEV1", "AVX-512");
  EXPECT_EQ(unknown.core_isa, "");
  EXPECT_EQ(unknown.weaker, "");
  EXPECT_EQ(classified("LAPACK", "", "AVX2").weaker, "");
}

TEST(HostBlas, TheDescriptionAndTheRecordsSayWhatRan) {
  BlasInfo info = classified("OpenBLAS", "Prescott", "AVX2");
  info.version = "0.3.21";
  info.threads = 16;
  info.file = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so";
  EXPECT_EQ(info.description(),
            "OpenBLAS 0.3.21, core Prescott (SSE3), 16 threads, "
            "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so");
  const nlohmann::json j = info.to_json();
  EXPECT_EQ(j.at("library"), "OpenBLAS");
  EXPECT_EQ(j.at("core"), "Prescott");
  EXPECT_EQ(j.at("core_isa"), "SSE3");
  EXPECT_EQ(j.at("host_isa"), "AVX2");
  EXPECT_EQ(j.at("threads"), 16);
  EXPECT_THAT(j.at("weaker_than_host").get<std::string>(), HasSubstr("OPENBLAS_CORETYPE=Haswell"));
  EXPECT_FALSE(j.contains("planted"));
}

nlohmann::json run(const std::string& args, const std::string& env, test::Result& r) {
  const auto out = std::filesystem::temp_directory_path() / ("host_blas_" + std::to_string(::getpid()) + ".json");
  r = test::gpubench(args + " --format json --out " + out.string(), env);
  nlohmann::json j;
  if (std::ifstream f(out); f) j = nlohmann::json::parse(f, nullptr, false);
  std::filesystem::remove(out);
  return j;
}

// A planted core (GPUBENCH_BLAS_CORE) stands in for the one the library chose: the records of
// GEMM's and LU's vendor points carry it marked as planted, flagged against this host, and the
// run's table warns with the setting that fixes it.
TEST(HostBlas, APlantedWeakCoreIsFlaggedInTheRecordsAndTheTable) {
  BlasInfo host;
  classify(host);
  if (host.host_isa.empty() || host.host_isa == "SSE2" || host.host_isa == "SSE3")
    GTEST_SKIP() << "this host has nothing wider than Prescott's SSE3 (" << host.host_isa << ")";
  for (const char* suite : {"gemm", "lu"}) {
    test::Result r;
    const nlohmann::json j =
        run(std::string("--suite ") + suite + " --backend openmp --problem 48 --variant vendor --precision f64 --repetitions 2",
            "GPUBENCH_BLAS_CORE=Prescott", r);
    if (r.output.find("no BLAS library was found") != std::string::npos ||
        r.output.find("no LU library") != std::string::npos)
      GTEST_SKIP() << "no OpenBLAS or LAPACKE in this build";
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("WARNING: openmp:0 vendor: OpenBLAS runs its Prescott kernels (SSE3) on a host with"))
        << suite;
    EXPECT_THAT(r.output, HasSubstr("TEST HOOKS SET")) << suite;
    int entries = 0;
    for (const auto& b : j.at("benchmarks")) {
      if (b.at("run_type") != "iteration") continue;
      ++entries;
      const auto& blas = b.at("host_blas");
      EXPECT_EQ(blas.at("library"), "OpenBLAS") << suite;
      EXPECT_EQ(blas.at("core"), "Prescott") << suite;
      EXPECT_EQ(blas.at("planted"), true) << suite;
      EXPECT_NE(blas.at("version"), "") << suite;
      EXPECT_GT(blas.at("threads").get<int>(), 0) << suite;
      EXPECT_THAT(blas.at("weaker_than_host").get<std::string>(), HasSubstr("OPENBLAS_CORETYPE=")) << suite;
    }
    EXPECT_EQ(entries, 2) << suite;
  }
}

// BLIS runs as its own variant, verified on square, odd, thin and transposed shapes in both
// precisions, with its own kernels (its configuration in the records, not OpenBLAS's core).
TEST(HostBlas, BlisIsASecondHostVendorBesideOpenblas) {
  if (const std::string missing = blis_missing(); !missing.empty()) GTEST_SKIP() << missing;
  for (const char* shape : {"64", "67x45x91", "129x3x200", "67x45x91:TN"}) {
    test::Result r;
    const nlohmann::json j = run(std::string("--suite gemm --backend openmp --variant vendor,blis --precision all --repetitions 2 "
                                             "--problem ") + shape, "", r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::set<std::string> libraries;
    int blis = 0;
    for (const auto& b : j.at("benchmarks")) {
      if (b.at("run_type") != "iteration") continue;
      EXPECT_TRUE(b.at("verified").get<bool>()) << shape << " " << b.dump();
      libraries.insert(b.at("host_blas").at("library").get<std::string>());
      if (b.at("variant") == "blis") {
        ++blis;
        EXPECT_EQ(b.at("host_blas").at("core"), blis_info().core) << shape;
        EXPECT_GT(b.at("host_blas").at("threads").get<int>(), 0) << shape;
      }
    }
    EXPECT_EQ(blis, 4) << shape << " (f32 and f64, 2 repetitions)";
    EXPECT_EQ(libraries.count("BLIS"), 1u) << shape;
  }
}

}  // namespace
}  // namespace gpubench::host_blas
