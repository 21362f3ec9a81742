#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "backends/registry.hpp"
#include "bench/cli.hpp"
#include "bench/suite.hpp"
#include "common/errors.hpp"

namespace gpubench {
namespace {

using testing::HasSubstr;

std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_cli(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

// Issue 58 item 3: --problem takes a list and ranges, each problem its own points.
TEST(ProblemList, ListsAndRangesExpandInOrderEachOnce) {
  using V = std::vector<std::string>;
  EXPECT_EQ(problem_list("cg", ""), V{""});
  EXPECT_EQ(problem_list("cg", "poisson2d:32,poisson2d:48"), (V{"poisson2d:32", "poisson2d:48"}));
  EXPECT_EQ(problem_list("cg", "poisson2d:1024..8192*2"),
            (V{"poisson2d:1024", "poisson2d:2048", "poisson2d:4096", "poisson2d:8192"}));
  EXPECT_EQ(problem_list("gemm", "64..256"), (V{"64", "128", "256"}));  // doubling by default
  EXPECT_EQ(problem_list("gemm", "100..130+15,100"), (V{"100", "115", "130"}));  // each once
  EXPECT_EQ(problem_list("gemm", "1..10*3"), (V{"1", "3", "9"}));  // up to B, not past it
  EXPECT_EQ(problem_list("spec", "n=2^10..2^12"), (V{"n=1024", "n=2048", "n=4096"}));
  EXPECT_EQ(problem_list("spec", "n=1024,m=8"), V{"n=1024,m=8"});  // one problem of two sizes
  EXPECT_EQ(problem_list("spec", "n=1024,m=8,n=2048,m=8"), (V{"n=1024,m=8", "n=2048,m=8"}));  // a name again: the next
  EXPECT_EQ(problem_list("spec", "n=1..2,m=4..8"), (V{"n=1,m=4", "n=1,m=8", "n=2,m=4", "n=2,m=8"}));
  EXPECT_EQ(problem_list("cg", "mtx:../data/a..b.mtx"), V{"mtx:../data/a..b.mtx"});  // a path's dots
  EXPECT_EQ(problem_list("ep", "A"), V{"A"});
  const auto refused = [](const std::string& suite, const std::string& text) {
    try {
      problem_list(suite, text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(refused("gemm", "256..64"), HasSubstr("--problem 256..64: its range is not A..B"));
  EXPECT_THAT(refused("gemm", "64..256*1"), HasSubstr("F at least 2"));
  EXPECT_THAT(refused("gemm", "1..100000+1"), HasSubstr("more than 256 problems"));
  EXPECT_THAT(refused("cg", "poisson2d:32,,poisson2d:48"), HasSubstr("an empty problem in the list"));
  EXPECT_THAT(refused("gemm", "2^63..2^64"), HasSubstr("its range is not"));
  EXPECT_THAT(refused("gemm", "0..8"), HasSubstr("A at least 1 for *F"));  // 0 doubled is 0: no end
  EXPECT_EQ(problem_list("gemm", "0..8+4"), (V{"0", "4", "8"}));
}

TEST(Cli, Defaults) {
  const CliOptions o = parse_cli({"run"});
  EXPECT_EQ(o.run.suite, "cg");
  EXPECT_TRUE(o.run.suite_options.empty());
  EXPECT_EQ(o.run.repetitions, 9);  // compare.py's U test wants 9
  ASSERT_EQ(o.run.precisions.size(), 1u);
  EXPECT_EQ(o.run.precisions[0], Precision::f64);
  EXPECT_TRUE(o.run.variants.empty());  // all
  EXPECT_FALSE(o.run.backends.empty());
  EXPECT_EQ(o.format, Format::table);
}

TEST(Cli, ParsesEveryOption) {
  const CliOptions o = parse_cli({"--suite", "cg", "--backend", "openmp", "--device", "0", "--problem", "poisson3d:8",
                                  "--precision", "all", "--variant", "form1,form2", "--iterations", "7",
                                  "--repetitions=3", "--format", "json", "--out", "/tmp/x.json"});
  EXPECT_EQ(o.run.backends, std::vector<std::string>{"openmp"});
  EXPECT_EQ(o.run.device, 0);
  EXPECT_EQ(o.run.problem, "poisson3d:8");
  EXPECT_EQ(o.run.precisions.size(), 2u);
  EXPECT_EQ(o.run.variants, (std::vector<std::string>{"form1", "form2"}));
  EXPECT_EQ(o.run.suite_options, (std::map<std::string, std::string>{{"iterations", "7"}}));
  EXPECT_EQ(o.run.repetitions, 3);
  EXPECT_EQ(o.format, Format::json);
  EXPECT_EQ(o.out, "/tmp/x.json");
}

TEST(Cli, SuiteOptionsAreTheSuitesOwn) {
  // CG declares --iterations and --tolerance; the command line takes them only with CG, and CG
  // parses them (its plan reads the stop rule from them).
  EXPECT_EQ(parse_cli({"--tolerance", "1e-8", "--iterations=50"}).run.suite_options,
            (std::map<std::string, std::string>{{"iterations", "50"}, {"tolerance", "1e-8"}}));
  EXPECT_THAT(usage_error({"--suite", "ep", "--iterations", "5"}), HasSubstr("--iterations is an option of suite cg, not of ep"));
  EXPECT_THAT(usage_error({"--iterations", "5", "--iterations", "6"}), HasSubstr("--iterations is given twice"));
  EXPECT_THAT(usage_error({"--colour", "red"}), HasSubstr("unknown option '--colour'"));
  EXPECT_THAT(usage(), HasSubstr("--tolerance T"));
  EXPECT_THAT(usage(), HasSubstr("npb:S|W|A|B|C"));
  EXPECT_THAT(usage(), HasSubstr("reduce, partials, serial"));
}

TEST(Cli, UnknownValuesListTheValidOnes) {
  EXPECT_THAT(usage_error({"--backend", "metal"}), HasSubstr("valid in this build: "));
  EXPECT_THAT(usage_error({"--backend", "metal"}), HasSubstr("openmp"));
  EXPECT_THAT(usage_error({"--suite", "nbody"}), HasSubstr("valid: cg"));
  EXPECT_THAT(usage_error({"--precision", "f16"}), HasSubstr("valid: f32, f64"));
  EXPECT_THAT(usage_error({"--format", "xml"}), HasSubstr("valid: table, json, csv"));
  EXPECT_THAT(usage_error({"--frobnicate"}), HasSubstr("unknown option '--frobnicate'"));
}

// Issue 32 item 8: an empty value (an unset shell variable) is refused, not read as the default.
TEST(Cli, EmptyValuesAreRefusedNotTheDefault) {
  for (const std::string option : {"--problem", "--variant", "--backend", "--precision"})
    EXPECT_THAT(usage_error({"--suite", "cg", option, ""}), HasSubstr(option + " is empty")) << option;
}

// Issue 55 items 7 and 12: values that were silently accepted or ignored.
TEST(Cli, Issue55_ValuesOnceIgnoredOrUnboundedAreRefused) {
  EXPECT_THAT(usage_error({"--suite", "cg", "--out", ""}), HasSubstr("--out is empty"));
  EXPECT_THAT(usage_error({"--repetitions", "1000000000"}), HasSubstr("--repetitions"));
  EXPECT_THAT(usage_error({"sweep", "--replay", "c.jsonl", "--spec", "k.json"}), HasSubstr("--spec has no effect with --replay"));
  EXPECT_THAT(usage_error({"sweep", "--busy-timeout", "-1"}), HasSubstr("--busy-timeout"));
  EXPECT_TRUE(parse_cli({"sweep", "--replace", "--busy-timeout", "5"}).replace);
}

TEST(Cli, BadNumbersAreRejected) {
  EXPECT_THAT(usage_error({"--iterations", "ten"}), HasSubstr("--iterations needs a number, got 'ten'"));
  EXPECT_THAT(usage_error({"--iterations", "0"}), HasSubstr("at least 1"));
  EXPECT_THAT(usage_error({"--repetitions", "3x"}), HasSubstr("needs a number"));
  EXPECT_THAT(usage_error({"--tolerance", "2"}), HasSubstr("(0, 1)"));
  EXPECT_THAT(usage_error({"--check-every", "5"}), HasSubstr("give --tolerance too"));
  EXPECT_THAT(usage_error({"--tolerance", "1e-6", "--check-every", "0"}), HasSubstr("at least 1"));
  EXPECT_THAT(usage_error({"--device", "-1"}), HasSubstr("at least 0"));
  EXPECT_THAT(usage_error({"--problem"}), HasSubstr("--problem needs a value"));
}

TEST(Cli, AValueListedTwiceIsRefused) {
  EXPECT_THAT(usage_error({"--variant", "classic,classic"}), HasSubstr("--variant names classic twice"));
  EXPECT_THAT(usage_error({"--backend", "openmp,openmp"}), HasSubstr("--backend names openmp twice"));
  EXPECT_THAT(usage_error({"--backend", "all,openmp"}), HasSubstr("--backend names openmp twice"));
  EXPECT_THAT(usage_error({"--precision", "f64,f64"}), HasSubstr("--precision names f64 twice"));
  EXPECT_THAT(usage_error({"--precision", "all,f32"}), HasSubstr("--precision names f32 twice"));
  EXPECT_THAT(usage_error({"--variant", "all,form1"}), HasSubstr("--variant all already names every variant"));
  EXPECT_TRUE(parse_cli({"--variant", "all"}).run.variants.empty());
}

TEST(Cli, NumbersTooLargeOrNotPositiveSayWhy) {
  EXPECT_THAT(usage_error({"--repetitions", "2147483648"}), HasSubstr("--repetitions must be at most 100000"));
  EXPECT_THAT(usage_error({"--iterations", "2147483648"}), HasSubstr("--iterations must be at most 2147483647"));
  EXPECT_THAT(usage_error({"--iterations", "99999999999999999999"}), HasSubstr("at most 2147483647"));
  EXPECT_THAT(usage_error({"--device", "-99999999999999999999"}), HasSubstr("at least 0"));
  EXPECT_THAT(usage_error({"sweep", "--time-limit", "-1"}), HasSubstr("--time-limit must be positive (more than 0), got -1"));
  EXPECT_THAT(usage_error({"sweep", "--time-budget", "0"}), HasSubstr("more than 0"));
  EXPECT_THAT(usage_error({"--point-timeout", "1e400"}), HasSubstr("out of range"));
  EXPECT_EQ(parse_cli({"sweep", "--time-limit", "0.5"}).sweep.time_limit_s, 0.5);
}

TEST(Cli, NpbRefusesIterationsBeforeBuildingItsMatrix) {
  // Refused while parsing: no matrix is built for a run that cannot go on.
  EXPECT_THAT(usage_error({"--problem", "npb:C", "--iterations", "5"}), HasSubstr("drop --iterations"));
  EXPECT_THAT(usage_error({"--problem", "npb:S", "--tolerance", "1e-6"}), HasSubstr("drop --iterations/--tolerance"));
}

TEST(Cli, Baseline) {
  EXPECT_EQ(parse_cli({"--baseline", "cuda:vendor"}).baseline, "cuda:vendor");
  EXPECT_THAT(usage_error({"--baseline"}), HasSubstr("--baseline needs a value"));
}

TEST(Cli, DeviceNeedsOneBackend) {
  EXPECT_THAT(usage_error({"--backend", "all", "--device", "0"}), HasSubstr("single --backend"));
}

// --device N,N,.. and --device all split one CG solve across devices (issue 18).
// openmp: a backend every build has (the parse refuses one that is not in the build).
TEST(Cli, DeviceListsAndAll) {
  const CliOptions list = parse_cli({"--suite", "cg", "--backend", "openmp", "--device", "0,1"});
  EXPECT_EQ(list.run.device_group, (std::vector<int>{0, 1}));
  EXPECT_EQ(list.run.device, -1);
  EXPECT_EQ(parse_cli({"--suite", "cg", "--backend", "opencl", "--device", "1,1"}).run.device_group,
            (std::vector<int>{1, 1}));  // two bands on one device
  EXPECT_TRUE(parse_cli({"--suite", "cg", "--device", "all"}).run.all_devices);
  EXPECT_THAT(usage_error({"--backend", "openmp", "--device", "0,,1"}), HasSubstr("--device 0,,1: an empty device index"));
  EXPECT_THAT(usage_error({"--backend", "openmp", "--device", "0,"}), HasSubstr("an empty device index"));
  EXPECT_THAT(usage_error({"--backend", "openmp", "--device", "0,x"}), HasSubstr("--device needs a number, got 'x'"));
  EXPECT_THAT(usage_error({"--backend", "openmp,opencl", "--device", "0,1"}), HasSubstr("single --backend"));
  EXPECT_THAT(usage_error({"sweep", "--backend", "openmp", "--device", "0,1"}), HasSubstr("sweep takes one device"));
  EXPECT_THAT(usage_error({"roofline", "--backend", "openmp", "--device", "all"}), HasSubstr("roofline takes one device"));
}

TEST(Cli, CommandsAndTheirOptions) {
  EXPECT_EQ(parse_cli({"--backend", "openmp"}).command, Command::run);
  EXPECT_EQ(parse_cli({"run", "--backend", "openmp"}).command, Command::run);
  EXPECT_EQ(parse_cli({"roofline", "--remeasure"}).command, Command::roofline);
  EXPECT_TRUE(parse_cli({"roofline", "--remeasure"}).remeasure);
  EXPECT_EQ(parse_cli({"tuning", "show", "--tuning-db", "/x"}).command, Command::tuning_show);
  EXPECT_EQ(parse_cli({"tuning", "show", "--tuning-db", "/x"}).tuning_db, "/x");
  const CliOptions s = parse_cli({"sweep", "--kernel", "dot", "--param", "work_group_size=64,128", "--param",
                                  "work_groups_per_cu=1:3", "--exhaustive", "--time-limit", "0.5"});
  EXPECT_EQ(s.command, Command::sweep);
  EXPECT_EQ(s.kernel, "dot");
  ASSERT_EQ(s.sweep.params.size(), 2u);
  EXPECT_EQ(s.sweep.params[1].second, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.sweep.strategy, "exhaustive");  // --exhaustive is --strategy exhaustive
  EXPECT_DOUBLE_EQ(s.sweep.time_limit_s, 0.5);
  const CliOptions budget = parse_cli({"sweep", "--time-budget", "30", "--seed", "7"});
  EXPECT_DOUBLE_EQ(*budget.sweep.time_budget_s, 30);
  EXPECT_EQ(budget.sweep.seed, 7u);
  EXPECT_FALSE(parse_cli({"sweep"}).sweep.time_budget_s);  // none unless given (auto's search has its own)
  EXPECT_EQ(parse_cli({"sweep"}).sweep.strategy, "auto");
  const CliOptions search = parse_cli({"sweep", "--strategy", "annealing", "--max-evals", "40", "--cache", "c.jsonl"});
  EXPECT_EQ(search.sweep.strategy, "annealing");
  EXPECT_EQ(*search.sweep.max_evals, 40u);
  EXPECT_EQ(search.sweep.cache, "c.jsonl");
  const CliOptions replay = parse_cli({"sweep", "--replay", "a.jsonl", "--replay", "b.jsonl", "--strategy", "all",
                                       "--seeds", "100"});
  EXPECT_EQ(replay.replay, (std::vector<std::string>{"a.jsonl", "b.jsonl"}));
  EXPECT_EQ(replay.strategies.size(), strategies().size());
  EXPECT_EQ(replay.seeds, 100);
  EXPECT_THAT(usage_error({"sweep", "--strategy", "gradient"}), HasSubstr("valid: auto, exhaustive"));
  EXPECT_THAT(usage_error({"sweep", "--strategy", "random,bayes"}), HasSubstr("one strategy for a sweep"));
  EXPECT_THAT(usage_error({"sweep", "--exhaustive", "--strategy", "bayes"}), HasSubstr("--exhaustive is"));
  EXPECT_THAT(usage_error({"sweep", "--max-evals", "0"}), HasSubstr("--max-evals"));
  EXPECT_THAT(usage_error({"sweep", "--seeds", "5"}), HasSubstr("--seeds is for --replay"));
  EXPECT_THAT(usage_error({"sweep", "--replay", "a.jsonl", "--backend", "cuda"}), HasSubstr("no effect with --replay"));
  EXPECT_THAT(usage_error({"run", "--strategy", "bayes"}), HasSubstr("is a sweep option"));
  EXPECT_TRUE(parse_cli({"run"}).tuning);
  EXPECT_FALSE(parse_cli({"--tuning", "off"}).tuning);

  EXPECT_THAT(usage_error({"swep"}), HasSubstr("unknown command 'swep'"));
  EXPECT_THAT(usage_error({"tuning"}), HasSubstr("tuning show"));
  EXPECT_THAT(usage_error({"tuning", "list"}), HasSubstr("tuning show"));
  EXPECT_THAT(usage_error({"--kernel", "dot"}), HasSubstr("is a sweep option"));
  EXPECT_THAT(usage_error({"roofline", "--exhaustive"}), HasSubstr("is a sweep option"));
  EXPECT_THAT(usage_error({"sweep", "--remeasure"}), HasSubstr("is a roofline option"));
  EXPECT_THAT(usage_error({"--tuning", "maybe"}), HasSubstr("on or off"));
  EXPECT_THAT(usage_error({"--tuning-db="}), HasSubstr("--tuning-db needs a "));
  EXPECT_THAT(usage_error({"sweep", "--param", "work_group_size=64", "--param", "work_group_size=128"}),
              HasSubstr("given twice"));
  EXPECT_THAT(usage_error({"sweep", "--time-limit", "0"}), HasSubstr("positive"));
  EXPECT_THAT(usage_error({"sweep", "--time-budget", "0"}), HasSubstr("positive"));
  EXPECT_THAT(usage_error({"sweep", "--seed", "-1"}), HasSubstr("--seed needs a number"));
  EXPECT_THAT(usage_error({"--seed", "3"}), HasSubstr("is a sweep option"));
  EXPECT_THAT(usage_error({"sweep", "--param", "wg"}), HasSubstr("NAME=VALUES"));
}

}  // namespace

// Issue 12, section 3: a command line that behaves.
TEST(Cli, NoArgumentsIsUsageNotARunOfEveryBackend) {
  const CliOptions o = parse_cli({});
  EXPECT_TRUE(o.help);
  EXPECT_THAT(o.help_text, HasSubstr("gpubench sweep [options]"));
  EXPECT_THAT(o.help_text, HasSubstr("--repetitions"));
}

TEST(Cli, EachCommandHasItsOwnHelp) {
  const CliOptions sweep = parse_cli({"sweep", "--help"});
  ASSERT_TRUE(sweep.help);
  EXPECT_THAT(sweep.help_text, HasSubstr("gpubench sweep"));
  EXPECT_THAT(sweep.help_text, HasSubstr("--time-budget"));
  EXPECT_THAT(sweep.help_text, testing::Not(HasSubstr("--baseline")));
  const CliOptions show = parse_cli({"tuning", "show", "--help"});
  EXPECT_THAT(show.help_text, HasSubstr("--kernel"));
  EXPECT_THAT(show.help_text, testing::Not(HasSubstr("--repetitions")));
  const CliOptions roofline = parse_cli({"roofline", "-h"});
  EXPECT_THAT(roofline.help_text, HasSubstr("--remeasure"));
  EXPECT_THAT(roofline.help_text, testing::Not(HasSubstr("--kernel")));
  const CliOptions run = parse_cli({"--help"});
  EXPECT_THAT(run.help_text, HasSubstr("--breakdown"));
  EXPECT_THAT(run.help_text, HasSubstr("npb:S|W|A|B|C"));  // each suite's problems
  EXPECT_TRUE(parse_cli({"--version"}).version);
}

TEST(Cli, TuningShowTakesFilters) {
  const CliOptions o = parse_cli({"tuning", "show", "--backend", "openmp", "--device", "EPYC", "--suite", "cg",
                                  "--kernel", "dot"});
  EXPECT_EQ(o.backend_filter, "openmp");
  EXPECT_EQ(o.device_filter, "EPYC");
  EXPECT_EQ(o.suite_filter, "cg");
  EXPECT_EQ(o.kernel_filter, "dot");
  EXPECT_THAT(usage_error({"tuning", "show", "--suite", "nbody"}), HasSubstr("valid: cg"));
  EXPECT_THAT(usage_error({"tuning", "show", "--repetitions", "3"}), HasSubstr("--repetitions is an option of a run"));
}

// Every backend gpubench knows is either in this build or says why not, as CMake found it.
TEST(Cli, ABackendNotBuiltSaysWhy) {
  for (const std::string name : {"openmp", "opencl", "cuda", "viennacl", "viennacl_host"}) {
    bool built = false;
    for (const auto& b : backends()) built = built || b.name == name;
    EXPECT_NE(built, !not_built_reason(name).empty()) << name;
    if (!built) {
      EXPECT_THAT(usage_error({"--backend", name}), HasSubstr("is not in this build: ")) << name;
    }
  }
}

}  // namespace gpubench
