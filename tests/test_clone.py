#!/usr/bin/python3
"""A clone alone passes its tests: nothing under tests/ (nor the scripts that run them) reads the
shared/ folder that sits beside the project's own checkout, and every Matrix Market file a test
names is in the repository. CI has ../shared beside its clone, so a test that read it would pass
there and fail for every user: this test is what fails instead.
"""
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# The folder beside the clone, however a file spells it: ../shared, "..", "shared", $root/../shared.
OUTSIDE = re.compile(r"""\.\.[/\\'", ]+\s*["']?shared\b|GPUBENCH_SHARED_DIR|shared/data/matrices""")


def files_under(*parts):
    top = os.path.join(ROOT, *parts)
    if os.path.isfile(top):
        yield top
        return
    for folder, _, names in os.walk(top):
        for name in names:
            if name.endswith((".cpp", ".hpp", ".cu", ".py", ".txt", ".cmake", ".json", ".sh")) or "." not in name:
                yield os.path.join(folder, name)


class CloneAlone(unittest.TestCase):
    def test_no_test_reads_the_folder_beside_the_clone(self):
        offenders = []
        # What runs the tests: (scripts/device-bundle, a developer's tool for the GPU machine, reads
        # ../shared/device on purpose and runs no test here.)
        for path in [*files_under("tests"), *files_under("scripts", "test"), *files_under("scripts", "build"),
                     *files_under("scripts", "setup"), *files_under("CMakeLists.txt"), *files_under("cmake"),
                     *files_under(".ci")]:
            if os.path.abspath(path) == os.path.abspath(__file__):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if OUTSIDE.search(line):
                        offenders.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()}")
        self.assertEqual(offenders, [], "files that read ../shared (a clone does not have it):\n" + "\n".join(offenders))

    def test_every_real_matrix_a_test_names_is_in_the_repository(self):
        # The real matrices are named through matrix_dir() (C++) or MATRICES (Python).
        named = set()
        for path in files_under("tests"):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            named.update(re.findall(r'matrix_dir\(\)\s*\+\s*"/([^"]+)"', text))
            named.update(re.findall(r'MATRICES,\s*"([^"]+)"', text))
        self.assertIn("1138_bus.mtx", named)  # the patterns still find what the tests name
        missing = sorted(n for n in named if not os.path.isfile(os.path.join(ROOT, "tests", "data", "matrices", n)))
        self.assertEqual(missing, [], "matrices the tests name that are not in tests/data/matrices")

if __name__ == "__main__":
    sys.exit(unittest.main())
