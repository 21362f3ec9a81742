#!/usr/bin/python3
"""Rules on gpubench's own sources that no other test can see:
- every test-only hook is read through common/test_hooks.hpp's test_hook() and listed in its
  kTestHooks, so that a run with it set is marked (a hook read with getenv would act unmarked);
  the only GPUBENCH_ variables read otherwise are settings, not hooks;
- every suite's CUDA kernel is compiled at run time by NVRTC: `__global__` appears under kernels/
  only in the sources a suite's CMakeLists.txt lists as NVRTC_KERNELS or NVRTC_INCLUDES (nvcc
  builds the host code, and the backend's own ceilings), and tests/backends/test_nvrtc.cpp builds
  every NVRTC_KERNELS source.
"""
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Environment variables that choose where things are, never what a run measures.
SETTINGS = {"GPUBENCH_TUNING_DB", "GPUBENCH_COMMITTED_TUNING_DB", "GPUBENCH_SOURCE_DIR", "GPUBENCH_PYTHON",
            "GPUBENCH_KERNEL_CACHE"}


def sources():
    for top in ("bench", "backends", "kernels", "common"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith((".cpp", ".hpp", ".cu", ".cuh", ".h")):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as f:
                        yield os.path.relpath(path, ROOT), f.read()


class TestHooks(unittest.TestCase):
    def test_every_hook_is_read_through_test_hook_and_listed(self):
        with open(os.path.join(ROOT, "common", "test_hooks.hpp"), encoding="utf-8") as f:
            listed = set(re.findall(r'\{"(GPUBENCH_[A-Z_]+)",', f.read()))
        self.assertIn("GPUBENCH_SLOWDOWN", listed)
        read_raw, read_hook = [], set()
        for path, text in sources():
            for name in re.findall(r'getenv\("(GPUBENCH_[A-Z_]+)"\)', text):
                if name not in SETTINGS:
                    read_raw.append(f"{path}: getenv(\"{name}\")")
            read_hook.update(re.findall(r'test_hook\("(GPUBENCH_[A-Z_]+)"\)', text))
        self.assertEqual(read_raw, [], "hooks read with getenv, not test_hook(): a run with them set is not marked")
        self.assertEqual(sorted(read_hook - listed), [], "hooks read but not listed in kTestHooks")
        self.assertEqual(sorted(listed - read_hook), [], "hooks listed that nothing reads")


class TestNvrtc(unittest.TestCase):
    def test_every_suite_kernel_is_compiled_at_run_time(self):
        # Each suite's NVRTC_KERNELS and NVRTC_INCLUDES, as kernels/<suite>/<file>.
        listed = {"NVRTC_KERNELS": set(), "NVRTC_INCLUDES": set()}
        for suite in os.listdir(os.path.join(ROOT, "kernels")):
            cmake = os.path.join(ROOT, "kernels", suite, "CMakeLists.txt")
            if not os.path.isfile(cmake):
                continue
            with open(cmake, encoding="utf-8") as f:
                text = f.read()
            for key, files in listed.items():
                for names in re.findall(key + r"((?:\s+\w+\.[\w.]+)+)", text):
                    files.update(os.path.join("kernels", suite, n) for n in names.split())
        embedded = listed["NVRTC_KERNELS"] | listed["NVRTC_INCLUDES"]
        self.assertIn(os.path.join("kernels", "cg", "nvrtc.cu"), embedded)
        # Every suite's run-time compiled sources are built by the NVRTC test.
        with open(os.path.join(ROOT, "tests", "backends", "test_nvrtc.cpp"), encoding="utf-8") as f:
            tested = {os.path.join("kernels", p) for p in re.findall(r'\{"(\w+/[\w.]+\.cu)"', f.read())}
        self.assertEqual(sorted(listed["NVRTC_KERNELS"] - tested), [],
                         "NVRTC sources tests/backends/test_nvrtc.cpp does not build")
        compiled_in = [path for path, text in sources()
                       if path.startswith("kernels" + os.sep) and re.search(r"\b__global__\b", text)
                       and path not in embedded]
        self.assertEqual(compiled_in, [], "suite kernels compiled by nvcc, not NVRTC")


if __name__ == "__main__":
    sys.exit(unittest.main())
