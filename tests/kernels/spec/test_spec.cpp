// Users' kernel specs (issue 37): the expressions, the examples run, sweep and verify on OpenCL
// (PoCL without a GPU), a planted wrong kernel and a planted overrun fail their points by name,
// and each mistake a user will make gets its message and exit code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/errors.hpp"
#include "kernels/spec/expression.hpp"
#include "kernels/spec/openmp.hpp"
#include "kernels/spec/spec.hpp"
#include "tests/test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using gpubench::test::gpubench;
using gpubench::test::Result;
using testing::HasSubstr;
using namespace gpubench::spec;

// ---- expressions ----

TEST(SpecExpression, IntegersAreExactAndWhatPassesTwoToThe53IsRefused) {
  const IntVars v{{"n", 4096}, {"m", 2048}, {"tile", 32}};
  EXPECT_EQ(eval_int("n * m", v), 8388608);
  EXPECT_EQ(eval_int("n / tile * 3 + n % 5", v), 128 * 3 + 1);
  EXPECT_EQ(eval_int("ceil_div(n + 1, tile)", v), 129);
  EXPECT_EQ(eval_int("round_up(n + 1, tile)", v), 4128);
  EXPECT_EQ(eval_int("n % tile == 0 && tile * tile <= 1024 || 0", v), 1);
  EXPECT_EQ(eval_int("n > m ? n - m : m - n", v), 2048);
  EXPECT_EQ(eval_int("2^53", v), std::int64_t{1} << 53);
  // 2^53 + 1 is not a double: refused, not rounded to 2^53.
  EXPECT_THROW(eval_int("2^53 + 1", v), ExpressionError);
  // A step past 2^53 that a later division would bring back is refused too.
  try {
    eval_int("n * n * n * n * n / (n * n)", v);
    FAIL() << "n^5 passes 2^53";
  } catch (const ExpressionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("passes 2^53"));
  }
  // And past 2^63, where int64 itself overflows.
  EXPECT_THROW(eval_int("n * n * n * n * n * n", v), ExpressionError);
  try {
    eval_int("n * q", v);
    FAIL();
  } catch (const ExpressionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("names `q`"));
    EXPECT_THAT(e.what(), HasSubstr("known: m, n, tile"));
  }
  EXPECT_THROW(eval_int("n *", v), ExpressionError);
  EXPECT_THROW(eval_int("n / (m - 2048)", v), ExpressionError);
  EXPECT_THROW(eval_int("1.5 * n", v), ExpressionError);
  EXPECT_DOUBLE_EQ(eval_real("2.5 * n", {{"n", 4}}), 10.0);
}

TEST(SpecCompare, NamesTheElementsOffAndHowFar) {
  const float want[4] = {1, 2, 3, 4}, got[4] = {1, 2.5f, 3, 4.000001f};
  EXPECT_EQ(compare("out", Elem::f32, gpubench::Precision::f32, want, want, 4, 0, 0), "");
  const std::string s = compare("out", Elem::f32, gpubench::Precision::f32, got, want, 4, 0, 1e-6);
  EXPECT_THAT(s, HasSubstr("buffer `out`: 1 of 4 elements off"));
  EXPECT_THAT(s, HasSubstr("the first at [1]: 2.5 against 2"));
}

TEST(SpecGuard, SaysHowFarPastTheEndAKernelWrote) {
  std::vector<unsigned char> zone(guard_elements * 4, canary);
  EXPECT_EQ(guard_damage("out", zone.data(), zone.size(), 4), "");
  zone[2 * 4 + 1] = 0;  // the third element past the end
  EXPECT_EQ(guard_damage("out", zone.data(), zone.size(), 4), "wrote past the end of buffer `out` by 3 elements");
}

TEST(SpecHash, IsSha256) {
  EXPECT_EQ(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// ---- the command line, on OpenCL ----

bool has_opencl() { return gpubench("--list-devices --backend opencl").output.find("opencl:\n  [0]") != std::string::npos; }

std::string examples() { return gpubench::test::source_dir() + "/examples"; }

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("gpubench_spec_" + std::to_string(getpid()) + "_" +
                                               std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

TEST(SpecExamples, RunVerifyAndSweepWithRandomAndAnnealingOnOpencl) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  const TempDir db;
  const std::vector<std::pair<std::string, std::string>> small = {
      {"transpose/transpose.json", "n=64,m=128"}, {"reduction/reduction.json", "n=65536"}, {"jacobi2d/jacobi2d.json", "n=64,m=64"}};
  for (const auto& [spec, problem] : small) {
    const std::string file = examples() + "/" + spec;
    Result r = gpubench("--spec " + file + " --backend opencl --problem " + problem + " --precision all --repetitions 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, testing::Not(HasSubstr("FAILED"))) << spec;
    EXPECT_EQ(std::regex_search(r.output, std::regex(R"(f32 .* yes)")), true) << r.output;
    EXPECT_EQ(std::regex_search(r.output, std::regex(R"(f64 .* yes)")), true) << r.output;
    for (const char* strategy : {"random", "annealing"}) {
      r = gpubench("sweep --spec " + file + " --backend opencl --problem " + problem +
                   " --precision f32 --max-evals 4 --strategy " + strategy + " --tuning-db " + db.path.string());
      EXPECT_EQ(r.exit_code, 0) << spec << " " << strategy << "\n" << r.output;
      EXPECT_THAT(r.output, HasSubstr("strategy " + std::string(strategy))) << r.output;
    }
    // The next run reads what the sweep stored, keyed by the spec's name and the sizes' buckets.
    r = gpubench("--spec " + file + " --backend opencl --problem " + problem +
                 " --precision f32 --repetitions 2 --format json --out " + (db.path / "run.json").string() +
                 " --tuning-db " + db.path.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(db.path / "run.json");
    const auto records = nlohmann::json::parse(in);
    const auto& b = records["benchmarks"][0];
    const std::string name = b["spec"].get<std::string>();
    EXPECT_EQ(b["params"]["launch"][name]["from"], "tuned") << b.dump();
    EXPECT_THAT(b["params"]["launch"][name]["detail"].get<std::string>(), HasSubstr("spec/" + name + "/f32"));
    EXPECT_EQ(b["spec_sha256"].get<std::string>().size(), 64u);
    EXPECT_GT(b["gbps"].get<double>(), 0);
  }
}

// A scaling kernel and a spec over it, with what each test changes.
constexpr const char* scale_cl = R"(__kernel void scale(__global real* out, __global const real* in, int n) {
  const int i = get_global_id(0);
  if (i < LIMIT) out[i] = (real)2 * in[i] + (i == WRONG ? (real)1 : (real)0);
}
__kernel void scale_reference(__global real* out, __global const real* in, int n) {
  const int i = get_global_id(0);
  if (i < n) out[i] = (real)2 * in[i];
}
)";

nlohmann::json scale_spec() {
  return nlohmann::json::parse(R"({
    "schema": "gpubench-kernel-spec", "version": 1, "name": "scale",
    "sources": {"opencl": "scale.cl"},
    "sizes": {"n": 1024},
    "buffers": {"out": {"type": "real", "length": "n", "output": true},
                "in": {"type": "real", "length": "n", "init": {"ramp": [0, 1]}}},
    "tunables": {"group": [32, 64]},
    "constraints": ["n % group == 0"],
    "steps": [{"kernel": "scale", "args": ["out", "in", {"int": "n"}], "global": ["n"], "local": ["group"]}],
    "work": {"flops": "n", "bytes": "2 * n * real_bytes"},
    "verify": {"reference": {"steps": [{"kernel": "scale_reference", "args": ["out", "in", {"int": "n"}],
                                        "global": ["n"], "local": ["32"]}]},
               "tolerance": {"abs": 0, "rel": 0}}
  })");
}

struct Scale {
  TempDir dir;
  std::string spec;
  explicit Scale(const nlohmann::json& s, const std::string& source = scale_cl) {
    dir.file("scale.cl", source);
    spec = dir.file("scale.json", s.dump(2));
  }
  Result run(const std::string& more = "", const std::string& defines_limit = "n", int wrong = -1) const {
    // LIMIT and WRONG plant the faults: written into the source as defines of its own.
    std::ofstream(dir.path / "scale.cl") << "#define LIMIT (" + defines_limit + ")\n#define WRONG (" +
                                                std::to_string(wrong) + ")\n" + scale_cl;
    return gpubench("--spec " + spec + " --backend opencl --precision f32 --repetitions 2 " + more);
  }
};

TEST(SpecFaults, AWrongKernelFailsItsPointsWithTheElementsOff) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  const Scale s(scale_spec());
  Result r = s.run();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = s.run("", "n", 5);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("buffer `out`: 1 of 1024 elements off"));
  EXPECT_THAT(r.output, HasSubstr("the first at [5]: 11 against 10"));
}

TEST(SpecFaults, TheGuardZoneCatchesAKernelThatWritesPastItsBuffer) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  auto j = scale_spec();
  j["steps"][0]["global"] = {"round_up(n + 3, group)"};
  const Scale s(j);
  const Result r = s.run("", "n + 3");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote past the end of buffer `out` by 3 elements"));
}

// Issue 55 item 8: a write far past the end (an offset by n and more) is caught, not only a few elements.
TEST(SpecFaults, Issue55_8_TheGuardZoneCatchesAWriteFarPastTheEnd) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  const Scale s(scale_spec(), "");
  std::ofstream(s.dir.path / "scale.cl")
      << "#define LIMIT (n)\n#define WRONG (-1)\n" << scale_cl
      << "__kernel void scale_far(__global real* out, __global const real* in, int n) {\n"
         "  const int i = get_global_id(0);\n  out[i] = (real)2 * in[i];\n  if (i == 0) out[n + 5000] = 7;\n}\n";
  auto j = scale_spec();
  j["steps"][0]["kernel"] = "scale_far";
  std::ofstream(s.spec) << j.dump(2);
  const Result r = gpubench("--spec " + s.spec + " --backend opencl --precision f32 --repetitions 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote past the end of buffer `out` by 5001 elements"));
  EXPECT_EQ(gpubench::spec::guard_elements_of(1024, 4), 16384);              // 64 KiB of f32
  EXPECT_EQ(gpubench::spec::guard_elements_of(1 << 20, 8), 1 << 20);         // as long as the buffer
  EXPECT_EQ(gpubench::spec::guard_elements_of(std::int64_t(1) << 30, 4), std::int64_t(16) << 20);  // 64 MiB at most
}

// Issue 55 item 11: what a spec gets wrong is found when it is read (exit 3), by field, before a point runs.
TEST(SpecErrors, Issue55_11_HostileSpecsAreRefusedByFieldBeforeAnyPoint) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  struct Case {
    std::string what;
    std::function<void(nlohmann::json&, const TempDir&)> change;
    std::vector<std::string> messages;
  };
  const std::vector<Case> cases = {
      {"negative work", [](nlohmann::json& j, const TempDir&) { j["work"]["bytes"] = "-n"; },
       {"scale.json: work.bytes: `-n`", "a count of work is a number >= 0"}},
      {"a step's flops 0/0", [](nlohmann::json& j, const TempDir&) { j["steps"][0]["flops"] = "0/0"; },
       {"scale.json: steps[0].flops"}},
      {"a tunable in two capitals", [](nlohmann::json& j, const TempDir&) { j["tunables"]["GROUP"] = {32}; },
       {"tunables.group", "-DGROUP"}},
      {"an integer ramp of halves", [](nlohmann::json& j, const TempDir&) {
         j["buffers"]["idx"] = {{"type", "i32"}, {"length", "n"}, {"init", {{"ramp", {0, 0.5}}}}}; },
       {"buffers.idx.init.ramp[1]", "not a whole number that i32 holds"}},
      {"an integer random of fractions", [](nlohmann::json& j, const TempDir&) {
         j["buffers"]["idx"] = {{"type", "i32"}, {"length", "n"}, {"init", {{"random", {0.5, 0.7}}, {"seed", 1}}}}; },
       {"buffers.idx.init.random[0]"}},
      {"3e9 in i32", [](nlohmann::json& j, const TempDir&) {
         j["buffers"]["idx"] = {{"type", "i32"}, {"length", "n"}, {"init", {{"constant", 3e9}}}}; },
       {"buffers.idx.init.constant", "i32"}},
      {"-1 in u32", [](nlohmann::json& j, const TempDir&) {
         j["buffers"]["idx"] = {{"type", "u32"}, {"length", "n"}, {"init", {{"constant", -1}}}}; },
       {"buffers.idx.init.constant", "u32"}},
      {"a ramp past i32 at its length", [](nlohmann::json& j, const TempDir&) {
         j["buffers"]["idx"] = {{"type", "i32"}, {"length", "n"}, {"init", {{"ramp", {2147483000, 1000}}}}}; },
       {"buffers.idx.init.ramp", "more than i32 holds"}},
      {"a source that is a directory", [](nlohmann::json& j, const TempDir& d) {
         fs::create_directories(d.path / "src.cl");
         j["sources"]["opencl"] = "src.cl"; },
       {"sources.opencl", "is a directory"}},
      {"a data file of the wrong size", [](nlohmann::json& j, const TempDir& d) {
         d.file("in.bin", std::string(100, 'x'));
         j["buffers"]["in"]["init"] = {{"file", "in.bin"}}; },
       {"buffers.in.init.file", "holds 100 bytes", "4096 bytes"}},
      {"a data file that never ends", [](nlohmann::json& j, const TempDir&) {
         j["buffers"]["in"]["init"] = {{"file", "/dev/zero"}}; },
       {"buffers.in.init.file", "character device"}},
      {"an expected file of the wrong size", [](nlohmann::json& j, const TempDir& d) {
         d.file("out.bin", std::string(8, 'x'));
         j["verify"] = {{"expected", {{"out", "out.bin"}}}, {"tolerance", {{"abs", 0}, {"rel", 0}}}}; },
       {"verify.expected.out", "holds 8 bytes"}},
  };
  for (const auto& c : cases) {
    auto j = scale_spec();
    const Scale s(j);
    c.change(j, s.dir);
    std::ofstream(s.spec) << j.dump(2);
    const Result r = s.run();
    EXPECT_EQ(r.exit_code, 3) << c.what << "\n" << r.output;
    for (const auto& m : c.messages) EXPECT_THAT(r.output, HasSubstr(m)) << c.what;
    EXPECT_THAT(r.output, testing::Not(HasSubstr("internal error"))) << c.what;
  }
  // Text no JSON object can be written as: a key twice, a number past a double's range.
  const Scale s(scale_spec());
  std::string text = scale_spec().dump(2);
  std::ofstream(s.spec) << "{\"name\": \"other\", " << text.substr(1);
  Result r = s.run();
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the key \"name\" is given twice"));
  std::ofstream(s.spec) << std::regex_replace(text, std::regex("\"n\": 1024"), "\"n\": 1" + std::string(400, '0'));
  r = s.run();
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("not valid JSON"));
  EXPECT_THAT(r.output, testing::Not(HasSubstr("internal error")));
}

TEST(SpecErrors, EachMistakeIsNamedWithTheFileTheFieldAndItsExitCode) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  struct Case {
    std::string what;
    std::function<void(nlohmann::json&)> change;
    std::string more;
    int exit_code;
    std::vector<std::string> messages;
  };
  const std::vector<Case> cases = {
      {"missing source", [](nlohmann::json& j) { j["sources"]["opencl"] = "nothere.cl"; }, "", 3,
       {"scale.json: sources.opencl: file ", "nothere.cl: cannot read it"}},
      {"expression that does not parse", [](nlohmann::json& j) { j["buffers"]["out"]["length"] = "n *"; }, "", 3,
       {"scale.json: buffers.out.length: `n *` does not parse"}},
      {"unknown size", [](nlohmann::json& j) { j["steps"][0]["global"] = {"q"}; }, "", 3,
       {"scale.json: steps[0].global[0]: `q` names `q`", "known:"}},
      {"constraint no configuration meets", [](nlohmann::json& j) { j["constraints"] = {"group > 1000"}; }, "", 3,
       {"scale.json: constraints: no configuration of the tunables meets them"}},
      {"buffer length that overflows", [](nlohmann::json& j) { j["buffers"]["in"]["length"] = "n * n * n * n * n * n"; },
       "", 3, {"scale.json: buffers.in.length:", "2^53"}},
      {"length past 2^53 bytes", [](nlohmann::json& j) { j["buffers"]["in"]["length"] = "n * n * n * n * n * 4"; }, "", 3,
       {"scale.json: buffers.in.length:", "pass 2^53 bytes"}},
      {"buffer larger than the device allocates", [](nlohmann::json& j) { j["buffers"]["in"]["length"] = "n * n * n * n"; },
       "", 3, {"scale.json: buffers.in.length:", "pass the largest buffer"}},
      {"no verification", [](nlohmann::json& j) { j.erase("verify"); }, "", 3,
       {"scale.json: verify: missing: a spec without verification is refused"}},
      {"launch that does not divide", [](nlohmann::json& j) { j["steps"][0]["global"] = {"n + 1"}; }, "", 3,
       {"scale.json: steps[0].global[0]: `n + 1` = 1025 is not a multiple of local"}},
      {"unknown size on the command line", [](nlohmann::json&) {}, "--problem q=4", 3,
       {"scale.json: sizes: --problem names 'q', which is not a size of the spec (sizes: n)"}},
      {"--spec beside another suite", [](nlohmann::json&) {}, "--suite cg", 2, {"--spec runs your kernel"}},
      {"a variant that names no spec", [](nlohmann::json&) {}, "--variant other", 2, {"names none of the specs"}},
  };
  for (const auto& c : cases) {
    auto j = scale_spec();
    c.change(j);
    const Scale s(j);
    const Result r = s.run(c.more);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.what << "\n" << r.output;
    for (const auto& m : c.messages) EXPECT_THAT(r.output, HasSubstr(m)) << c.what;
    EXPECT_THAT(r.output, testing::Not(HasSubstr("GB/s  "))) << c.what;
  }
  // A compile error fails the point with the compiler's log and the configuration it was built with.
  const Scale broken(scale_spec(), "__kernel void scale(__global real* out) { out[0] = undefined_name; }\n");
  std::ofstream(broken.dir.path / "scale.cl") << "__kernel void scale(__global real* out) { out[0] = undefined_name; }\n";
  const Result r = gpubench("--spec " + broken.spec + " --backend opencl --precision f32 --repetitions 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("(scale, real=f32 group=32)"));
  EXPECT_THAT(r.output, HasSubstr("-DGROUP=32"));
  EXPECT_THAT(r.output, HasSubstr("undefined_name"));
}

// One portable body, compiled as OpenCL C with the macros of docs/spec.md.
TEST(SpecPortable, OneBodyRunsOnOpencl) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  const TempDir dir;
  dir.file("k.h", R"(GB_KERNEL void twice(GB_GLOBAL real* GB_RESTRICT out, GB_GLOBAL const real* GB_RESTRICT in, int n) {
  GB_LOCAL real s[GROUP];
  const long i = GB_GLOBAL_ID(0);
  s[GB_LOCAL_ID(0)] = i < n ? in[i] : (real)0;
  GB_BARRIER();
  if (i < n) out[i] = (real)2 * s[GB_LOCAL_ID(0)] + (real)(GB_LOCAL_SIZE(0) - GROUP) + (real)(GB_NUM_GROUPS(0) * GROUP - n);
}
GB_KERNEL void twice_reference(GB_GLOBAL real* out, GB_GLOBAL const real* in, int n) {
  const long i = GB_GLOBAL_ID(0);
  if (i < n) out[i] = (real)2 * in[i];
}
)");
  const std::string spec = dir.file("k.json", R"({"schema": "gpubench-kernel-spec", "version": 1, "name": "twice",
    "sources": {"portable": "k.h"}, "sizes": {"n": 256},
    "buffers": {"out": {"type": "real", "length": "n", "output": true},
                "in": {"type": "real", "length": "n", "init": {"random": [-1, 1], "seed": 3}}},
    "tunables": {"group": [16, 32, 64]}, "constraints": ["n % group == 0"],
    "steps": [{"kernel": "twice", "args": ["out", "in", {"int": "n"}], "global": ["n"], "local": ["group"]}],
    "work": {"flops": "n", "bytes": "2 * n * real_bytes"},
    "verify": {"reference": {"steps": [{"kernel": "twice_reference", "args": ["out", "in", {"int": "n"}],
                                        "global": ["n"], "local": ["1"]}]}, "tolerance": {"abs": 0, "rel": 0}}})");
  const Result r = gpubench("--spec " + spec + " --backend opencl --precision all --repetitions 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::regex_search(r.output, std::regex(R"(twice +f64 .* yes)")), true) << r.output;
}

// A tracked set names a spec relative to its own folder, and the nightly records it like a suite.
TEST(SpecTrack, ATrackedSetCanNameASpec) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (scripts/setup installs PoCL)";
  const TempDir dir;
  fs::create_directories(dir.path / "specs");
  for (const char* f : {"transpose.json", "transpose.cl", "transpose.cu"})
    fs::copy_file(examples() + "/transpose/" + f, dir.path / "specs" / f);
  const std::string set = dir.file("set.json", R"({"repetitions": 2, "runs": [{"name": "mine", "args":
      ["--spec", "specs/transpose.json", "--backend", "opencl", "--problem", "n=64,m=64", "--precision", "f32"]}]})");
  const std::string history = (dir.path / "h.sqlite").string();
  Result r = gpubench("track run --set " + set + " --history " + history + " --records " + (dir.path / "rec").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = gpubench("track show --history " + history);
  EXPECT_THAT(r.output, HasSubstr("spec/n=64,m=64/opencl:0/transpose/f32"));
}

// Issue 57 item 3: users' kernels on OpenMP, compiled at run time by the host compiler.
bool has_openmp() { return gpubench("--list-devices --backend openmp").output.find("openmp:\n  [0]") != std::string::npos; }

// A scaling step in C++ with OpenMP, its reference, and faults planted by defines of the source's own;
// `offload`: each loop in a target region over the device's pointers (an omp_target source).
std::string scale_cpp(const std::string& limit, int wrong, bool offload = false) {
  const std::string region = offload ? "#pragma omp target teams distribute parallel for device(GB_DEVICE) is_device_ptr(out, in)\n" : "";
  return "#define LIMIT (" + limit + ")\n#define WRONG (" + std::to_string(wrong) + ")\n" +
         "void scale(real* out, const real* in, std::int32_t n) {\n  const std::int64_t items = GB_GLOBAL_SIZE(0);\n" +
         (offload ? region : "#pragma omp parallel for\n") +
         "  for (std::int64_t i = 0; i < items; ++i)\n    if (i < LIMIT) out[i] = (real)2 * in[i] + (i == WRONG ? (real)1 : (real)0);\n}\n"
         "void scale_reference(real* out, const real* in, std::int32_t n) {\n" + region +
         "  for (std::int32_t i = 0; i < n; ++i) out[i] = (real)2 * in[i];\n}\n";
}

nlohmann::json scale_openmp_spec() {
  auto j = scale_spec();
  j["sources"] = {{"openmp", "scale.cpp"}};
  return j;
}

TEST(SpecOpenmp, TheReductionExampleRunsVerifiesSweepsAndIsCompiledOnce) {
  if (!has_openmp()) GTEST_SKIP() << "the openmp backend is not in this build";
  const TempDir dir;
  const std::string file = examples() + "/reduction/reduction.json", cache = "GPUBENCH_KERNEL_CACHE=" + (dir.path / "cache").string();
  Result r = gpubench("--spec " + file + " --backend openmp --problem n=65536 --precision all --repetitions 2", cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("FAILED")));
  EXPECT_THAT(r.output, HasSubstr("(OpenMP)..."));
  EXPECT_EQ(std::regex_search(r.output, std::regex(R"(openmp:0 .* reduction +f32 .* yes)")), true) << r.output;
  EXPECT_EQ(std::regex_search(r.output, std::regex(R"(openmp:0 .* reduction +f64 .* yes)")), true) << r.output;
  // The objects are kept: the same run again compiles nothing.
  r = gpubench("--spec " + file + " --backend openmp --problem n=65536 --precision all --repetitions 2", cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("(OpenMP)..."))) << r.output;
  // The sweep's database starts from the tests' own (tests/tuning_db_env.cpp), which holds the host's
  // ceilings since the run above: measuring them again would take most of this test's time.
  if (const char* shared = std::getenv("GPUBENCH_TUNING_DB"); shared && fs::is_directory(shared))
    for (const auto& e : fs::directory_iterator(shared))
      if (e.path().filename().string().rfind("openmp-", 0) == 0 && e.path().extension() == ".json")
        fs::copy_file(e.path(), dir.path / e.path().filename());
  r = gpubench("sweep --spec " + file + " --backend openmp --problem n=65536 --precision f32 --max-evals 2 --strategy random --tuning-db " +
               dir.path.string(), cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("strategy random")) << r.output;
  // Every step's row of the breakdown names the spec's configuration it ran with, and a CPU's
  // above-the-roof note does not send the user to a remeasure that measures no cache there.
  r = gpubench("--spec " + file + " --backend openmp --problem n=65536 --precision f32 --repetitions 2 --breakdown", cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::regex_search(r.output, std::regex(R"(\n  reduce_partial .* (final=\d+ group=\d+ items=\d+): [a-z]+\n)")), true)
      << r.output;
  EXPECT_EQ(std::regex_search(r.output, std::regex(R"(\n  reduce_final .* (final=\d+ group=\d+ items=\d+): [a-z]+\n)")), true)
      << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("roofline --remeasure)"))) << r.output;
  // The baseline of a sweep that visits the spec's defaults is named as those, not as a built-in
  // heuristic (issue 58 item 6).
  r = gpubench("sweep --spec " + file + " --backend openmp --problem n=65536 --precision f32 --param group=256 "
               "--param items=8 --param final=64,256 --exhaustive --tuning off", cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("* baseline: the spec's defaults (" + file + ")")) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("built-in heuristic"))) << r.output;
  r = gpubench("--spec " + file + " --backend openmp --problem n=65536 --precision f32 --repetitions 2 --format json --out " +
                   (dir.path / "run.json").string() + " --tuning-db " + dir.path.string(), cache);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(dir.path / "run.json");
  const auto records = nlohmann::json::parse(in);
  const auto& b = records["benchmarks"][0];
  EXPECT_EQ(b["params"]["launch"]["reduction"]["from"], "tuned") << b.dump();
  EXPECT_GT(b["gbps"].get<double>(), 0);
}

TEST(SpecOpenmp, AWrongResultAndAWritePastTheEndFailTheirPointsByName) {
  if (!has_openmp()) GTEST_SKIP() << "the openmp backend is not in this build";
  const TempDir dir;
  const std::string spec = dir.file("scale.json", scale_openmp_spec().dump(2)), cache = "GPUBENCH_KERNEL_CACHE=" + (dir.path / "cache").string();
  const auto run = [&](const std::string& limit, int wrong) {
    dir.file("scale.cpp", scale_cpp(limit, wrong));
    return gpubench("--spec " + spec + " --backend openmp --precision f32 --repetitions 2", cache);
  };
  Result r = run("n", -1);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run("n", 5);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("buffer `out`: 1 of 1024 elements off"));
  EXPECT_THAT(r.output, HasSubstr("the first at [5]: 11 against 10"));
  // The launch's global size, 3 more than the buffer: the guard zone catches the overrun.
  auto j = scale_openmp_spec();
  j["steps"][0]["global"] = {"round_up(n + 3, group)"};
  std::ofstream(spec) << j.dump(2);
  r = run("n + 3", -1);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote past the end of buffer `out` by 3 elements"));
}

TEST(SpecOpenmp, ASourceThatDoesNotCompileNamesTheCompilerTheConfigurationAndTheLog) {
  if (!has_openmp()) GTEST_SKIP() << "the openmp backend is not in this build";
  const TempDir dir;
  const std::string spec = dir.file("scale.json", scale_openmp_spec().dump(2)), cache = "GPUBENCH_KERNEL_CACHE=" + (dir.path / "cache").string();
  dir.file("scale.cpp", scale_cpp("n", -1) + "void broken() { undeclared_name = 1; }\n");
  Result r = gpubench("--spec " + spec + " --backend openmp --precision f32 --repetitions 2", cache);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("does not compile with"));
  EXPECT_THAT(r.output, HasSubstr("-DGROUP="));
  EXPECT_THAT(r.output, HasSubstr("undeclared_name"));
  EXPECT_THAT(r.output, HasSubstr("scale.json"));
  // The reference is built first (every configuration is checked against its outputs): its
  // failure says it is the reference's, not the configuration's.
  EXPECT_THAT(r.output, HasSubstr("the reference steps (verify.reference.steps) of spec ")) << r.output;
  // A spec without an openmp source says so on openmp.
  const std::string cl_only = dir.file("cl.json", scale_spec().dump(2));
  dir.file("scale.cl", scale_cl);
  r = gpubench("--spec " + cl_only + " --backend openmp --precision f32 --repetitions 2", cache);
  EXPECT_THAT(r.output, HasSubstr("the spec gives no openmp source")) << r.output;
}

// The same through OpenMP offload (issue 57 item 3's offload half): the spec's omp_target source,
// its steps in target regions over the device's pointers, compiled at run time by each offload
// backend's own compiler with its offload flags (without a GPU, on OpenMP's initial device).
class SpecOffload : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (gpubench("--list-devices --backend " + GetParam()).output.find(GetParam() + ":\n  [") == std::string::npos)
      GTEST_SKIP() << "the " << GetParam() << " backend is not in this build";
  }
};
INSTANTIATE_TEST_SUITE_P(Compilers, SpecOffload, testing::Values("omp_target", "omp_target_clang"),
                         [](const auto& point) { return point.param; });

nlohmann::json scale_target_spec() {
  auto j = scale_spec();
  j["sources"] = {{"omp_target", "scale.cpp"}};
  return j;
}

TEST_P(SpecOffload, TheReductionExampleRunsVerifiesSweepsAndIsCompiledOnce) {
  const TempDir dir;
  const std::string file = examples() + "/reduction/reduction.json", cache = "GPUBENCH_KERNEL_CACHE=" + (dir.path / "cache").string();
  const std::string args = "--spec " + file + " --backend " + GetParam() + " --problem n=65536 --precision all --repetitions 2";
  Result r = gpubench(args, cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("FAILED")));
  EXPECT_THAT(r.output, HasSubstr(GetParam() == "omp_target" ? "(OpenMP)..." : "clang++-19 (OpenMP)...")) << r.output;
  for (const char* p : {"f32", "f64"})
    EXPECT_TRUE(std::regex_search(r.output, std::regex(GetParam() + R"(:0 .* reduction +)" + p + " .* yes"))) << p << "\n" << r.output;
  r = gpubench(args, cache);  // the objects are kept: nothing is compiled again
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("(OpenMP)..."))) << r.output;
  r = gpubench("sweep --spec " + file + " --backend " + GetParam() + " --problem n=65536 --precision f32 --max-evals 2 "
               "--strategy random --tuning-db " + dir.path.string(), cache);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("strategy random")) << r.output;
}

TEST_P(SpecOffload, AWrongResultAWritePastTheEndAndACompileErrorFailByName) {
  const TempDir dir;
  const std::string spec = dir.file("scale.json", scale_target_spec().dump(2)), cache = "GPUBENCH_KERNEL_CACHE=" + (dir.path / "cache").string();
  const auto run = [&](const std::string& source) {
    dir.file("scale.cpp", source);
    return gpubench("--spec " + spec + " --backend " + GetParam() + " --precision f32 --repetitions 2", cache);
  };
  Result r = run(scale_cpp("n", -1, true));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run(scale_cpp("n", 5, true));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("buffer `out`: 1 of 1024 elements off"));
  EXPECT_THAT(r.output, HasSubstr("the first at [5]: 11 against 10"));
  r = run(scale_cpp("n", -1, true) + "void broken() { undeclared_name = 1; }\n");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("does not compile with"));
  EXPECT_THAT(r.output, HasSubstr(GetParam() == "omp_target" ? "-foffload=nvptx-none" : "--offload-arch=")) << r.output;
  EXPECT_THAT(r.output, HasSubstr("undeclared_name"));
  // The launch's global size, 3 more than the buffer: the guard zone catches the overrun.
  auto j = scale_target_spec();
  j["steps"][0]["global"] = {"round_up(n + 3, group)"};
  std::ofstream(spec) << j.dump(2);
  r = run(scale_cpp("n + 3", -1, true));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote past the end of buffer `out` by 3 elements"));
  // A spec without an omp_target source says so, on either compiler.
  const std::string openmp_only = dir.file("host.json", scale_openmp_spec().dump(2));
  r = gpubench("--spec " + openmp_only + " --backend " + GetParam() + " --precision f32 --repetitions 2", cache);
  EXPECT_THAT(r.output, HasSubstr("the spec gives no omp_target source")) << r.output;
}

// A machine without the compiler (the lent GPU machine has no offload compiler) runs the objects
// another machine compiled into the kernel cache it is given: the key then takes the version the
// backend was built with; a configuration the cache lacks fails naming the missing compiler.
TEST(SpecOpenmpObjects, AnObjectInTheCacheRunsWhereItsCompilerIsNotOrIsAnother) {
  const TempDir dir;
  const fs::path compiler = dir.path / "cxx";
  fs::create_symlink("/usr/bin/c++", compiler);
  std::string version;
  if (FILE* p = ::popen((compiler.string() + " --version").c_str(), "r")) {
    char line[512] = {};
    if (std::fgets(line, sizeof line, p)) version = line;
    ::pclose(p);
  }
  version = version.substr(0, version.find('\n'));
  ASSERT_FALSE(version.empty()) << "c++ --version printed nothing";
  ::setenv("GPUBENCH_KERNEL_CACHE", (dir.path / "cache").c_str(), 1);
  struct Memory final : OpenmpMemory {
    void* allocate(std::size_t bytes) override { return std::malloc(bytes); }
    void release(void* p) override { std::free(p); }
    void write(void* to, std::size_t offset, const void* from, std::size_t bytes) override {
      std::memcpy(static_cast<char*>(to) + offset, from, bytes);
    }
    void read(void* to, const void* from, std::size_t offset, std::size_t bytes) override {
      std::memcpy(to, static_cast<const char*>(from) + offset, bytes);
    }
  };
  gpubench::DeviceInfo device;
  device.backend = "omp_target";
  device.name = "this machine";
  const auto twice = [&](const std::string& body) {
    OpenmpToolchain t{compiler.string(), {"-O2", "-fPIC", "-shared", "-std=c++17"}, "openmp-kernels", 0, false, version};
    auto ops = make_openmp_operations(device, t, std::make_unique<Memory>());
    const int program = ops->build(body, false, {}, "a test's step");
    const int buffer = ops->allocate(sizeof(std::int32_t));
    std::int32_t x = 21;
    ops->write(buffer, &x, sizeof x, 0);
    Launch step;
    step.kernel = "twice";
    step.args.push_back(LaunchArg{buffer, {}, "int32_t*"});
    ops->run(program, {step}, 1, nullptr);
    ops->read(buffer, &x, sizeof x, 0);
    return x;
  };
  // A spec's source starts with a #line naming its file (kernels/spec/spec.cpp): the key has the
  // file's name, not its folder, so another checkout's copy finds the object.
  const std::string body = "#line 1 \"/home/one/checkout/examples/k.omp.cpp\"\nvoid twice(int32_t* x) { x[0] *= 2; }\n";
  const std::string moved = "#line 1 \"/work/another/examples/k.omp.cpp\"\nvoid twice(int32_t* x) { x[0] *= 2; }\n";
  EXPECT_EQ(twice(body), 42);   // compiled, into the cache
  fs::remove(compiler);         // the compiler is gone
  EXPECT_EQ(twice(body), 42);   // the cache's object
  EXPECT_EQ(twice(moved), 42);  // the same object, from another folder
  try {
    twice(body + "// another text\n");
    ADD_FAILURE() << "a configuration not in the cache ran without its compiler";
  } catch (const gpubench::DeviceError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cxx does not run here"));
    EXPECT_THAT(e.what(), HasSubstr("holds no object of a test's step made by " + version));
  }
  // Another compiler under its name, of another version (a GPU machine's own g++-12 without nvptx
  // offloading): it compiles nothing, and the cache's object runs.
  {
    std::ofstream other(compiler);
    other << "#!/bin/sh\necho 'c++ (Another build) 0.0.1'\nexit 0\n";
  }
  fs::permissions(compiler, fs::perms::owner_all);
  EXPECT_EQ(twice(body), 42);
  try {
    twice(body + "// another text\n");
    ADD_FAILURE() << "a configuration not in the cache was compiled by a compiler of another version";
  } catch (const gpubench::DeviceError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cxx here is c++ (Another build) 0.0.1, not " + version));
    EXPECT_THAT(e.what(), HasSubstr("holds no object of a test's step made by " + version));
  }
  ::unsetenv("GPUBENCH_KERNEL_CACHE");
}

}  // namespace
