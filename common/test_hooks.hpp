// Test-only hooks: environment variables with which a test plants a fault, a wrong result, a
// slowdown or a smaller memory. Every hook is read through test_hook(), and every hook is named in
// kTestHooks: a run with any of them set says so on stderr, in its table and in its records'
// context ("test_hooks"), and `gpubench track import` refuses such records unless told otherwise,
// so that a stray variable in a CI job can never pass a planted figure off as a measurement. A hook
// that is unset (or empty) does nothing.
#pragma once

#include <array>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpubench {

struct TestHook {
  std::string_view name;
  std::string_view what;  // what it does, for the warning
};

// Every test hook, with what it does. A new hook is added here and read through test_hook().
inline constexpr std::array<TestHook, 11> kTestHooks = {{
    {"GPUBENCH_SLOWDOWN", "multiplies the timed region of the points it names"},
    {"GPUBENCH_FAULT", "aborts, crashes or hangs the points it names"},
    {"GPUBENCH_WRONG_RESULT", "changes one element of GEMM's result"},
    {"GPUBENCH_LU_WRONG_RESULT", "changes one element of LU's factors"},
    {"GPUBENCH_FT_WRONG_TWIDDLE", "plants a wrong twiddle factor in FT"},
    {"GPUBENCH_RANK_FAULT", "fails or hangs one rank of a run across ranks"},
    {"GPUBENCH_HOST_MEMORY_AVAILABLE", "stands in for the host's available memory"},
    {"GPUBENCH_BLAS_CORE", "stands in for the kernels (core) the host BLAS chose"},
    {"GPUBENCH_PLANTED_POWER", "gives every device an energy meter that draws the power it names"},
    {"GPUBENCH_PLANTED_GPU_PROCESS", "makes that meter see another process NAME:SM_PCT on the device"},
    {"GPUBENCH_LU_LEAF_GROUPS", "asks OpenCL LU's co-residency probe for that many work-groups (1 to 256)"},
}};

// The value of test hook `name` when it is set and not empty, else nullptr. `name` must be one of
// kTestHooks (a hook read without being listed there would act unmarked).
inline const char* test_hook(std::string_view name) {
  bool listed = false;
  for (const auto& h : kTestHooks) listed = listed || h.name == name;
  if (!listed) throw std::logic_error("test hook " + std::string(name) + " is not listed in common/test_hooks.hpp");
  const char* value = std::getenv(std::string(name).c_str());
  return value && *value ? value : nullptr;
}

// The hooks set in this process's environment, name -> value.
inline std::map<std::string, std::string> test_hooks_set() {
  std::map<std::string, std::string> set;
  for (const auto& h : kTestHooks)
    if (const char* v = test_hook(h.name)) set.emplace(h.name, v);
  return set;
}

// "GPUBENCH_SLOWDOWN=10@cg (multiplies the timed region of the points it names)", joined by "; ";
// empty when none is set.
inline std::string test_hooks_text() {
  std::string text;
  for (const auto& h : kTestHooks)
    if (const char* v = test_hook(h.name))
      text += (text.empty() ? "" : "; ") + std::string(h.name) + "=" + v + " (" + std::string(h.what) + ")";
  return text;
}

}  // namespace gpubench
