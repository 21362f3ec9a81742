#!/usr/bin/python3
"""The README's commands work as written (issue 31 item 3).

Every command line of the README's indented blocks that starts with `gpubench` runs here, from a
folder that stands for the checkout's root (the README's examples are written from there: its
tests/, reports/ and examples/ are linked in, and what a command writes stays in the folder), with
build/release/bin first on PATH. A command that needs what a CPU machine has not (CUDA, several
GPUs, mpirun) or more than CI's minutes (NAS class C, the 4096^2 Poisson grid) is left out with
its reason; the rest must exit 0 (1 where a point fails on purpose: none do), and print no
traceback. A placeholder (RECORDS..., DIR, [options]) is filled with a real value.

Also: the options table names every suite, and every study recipe is in the README.
Run as: test_readme.py SOURCE_DIR GPUBENCH_BINARY
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE, BINARY = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
README = os.path.join(SOURCE, "README.md")

# Why a command is not run on a CPU machine in CI; the first pattern that matches says it.
LEFT_OUT = [
    (r"--backend (\S*,)?cuda", "needs a CUDA GPU"),
    (r"^mpirun|--device 0,1", "needs several devices or hosts"),
    (r"npb:C|--problem C\b|poisson2d:(4096|8192)|--problem 8192", "takes longer than CI's 2 cores allow"),
    (r"^scripts/", "the scripts are tested by CI itself (scripts/test) or need the GPU machine"),
    (r"^gpubench track (run|check|publish)", "tested by Reports.TrackNights (a history of nights)"),
    (r"^gpubench track ack", "needs a history with a regression: tested by Reports.TrackHistory (Alerts)"),
]
# Placeholders and what stands in for them.
FILL = [
    (r"RECORDS\.\.\.", "reports/data/h100-2026-11-23-ep-A-all-backends.json"),
    (r"\bDIR\b", "study-out"),
    (r" \[[^]]*\]", ""),  # optional arguments in brackets
]


def readme_commands():
    """(line number, command) of each `gpubench ...` line of an indented block."""
    commands = []
    with open(README, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if re.match(r"^ {4,}(gpubench|scripts/gpubench|mpirun) ", line):  # in a list item too
                command = line.strip().split("  #")[0].strip()
                commands.append((number, command))
    return commands


class Readme(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="gpubench-readme-")
        for name in ("tests", "reports", "examples"):
            os.symlink(os.path.join(SOURCE, name), os.path.join(cls.root, name))
        cls.env = dict(os.environ, PATH=os.path.dirname(BINARY) + os.pathsep + os.environ.get("PATH", ""),
                       GPUBENCH_TUNING_DB=os.path.join(cls.root, "tuning-db"), OMP_NUM_THREADS="2")
        for hook in [k for k in cls.env if k.startswith("GPUBENCH_") and k != "GPUBENCH_TUNING_DB"]:
            del cls.env[hook]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)

    def test_every_command_that_can_run_here_runs_as_written(self):
        ran, left_out = [], []
        for number, command in readme_commands():
            why = next((w for pattern, w in LEFT_OUT if re.search(pattern, command)), None)
            if why:
                left_out.append(f"README.md:{number}: {command}: {why}")
                continue
            for pattern, value in FILL:
                command = re.sub(pattern, value, command)
            with self.subTest(line=number, command=command):
                # As a shell runs it: globs (reports/data/*.json) expand in the root.
                r = subprocess.run(["bash", "-c", command], cwd=self.root, env=self.env, capture_output=True,
                                   text=True, timeout=900)
                out = r.stdout + r.stderr
                self.assertNotIn("Traceback", out, f"README.md:{number}: {command}")
                self.assertEqual(r.returncode, 0, f"README.md:{number}: {command}\n{out[-3000:]}")
                ran.append(command)
        print("\n".join(["left out:"] + left_out), file=sys.stderr)
        self.assertGreaterEqual(len(ran), 10, "the README's runnable commands were not found")
        self.assertTrue(any(c.startswith("gpubench track import") for c in ran), "the README's track import did not run")

    def test_the_options_table_names_every_suite_and_the_readme_every_study(self):
        with open(README, encoding="utf-8") as f:
            text = f.read()
        row = next(line for line in text.splitlines() if line.startswith("| `--suite` |"))
        suites = subprocess.run([BINARY, "--help"], capture_output=True, text=True).stdout
        named = re.search(r"--suite[^\n]*", suites).group(0)
        for suite in ("cg", "ep", "ft", "gemm", "lu", "spec"):
            self.assertIn(suite, named)
            self.assertIn(f"`{suite}`", row, f"the options table's --suite row lacks {suite}")
        recipes = sorted(f[:-5] for f in os.listdir(os.path.join(SOURCE, "reports", "recipes")) if f.endswith(".json"))
        for recipe in recipes:
            self.assertIn(f"`{recipe}`", text, f"the README does not name the study {recipe}")

    def test_report_help_describes_each_command(self):
        r = subprocess.run([BINARY, "report", "--help"], capture_output=True, text=True, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        for command in ("table", "figure", "study"):
            self.assertRegex(r.stdout, rf"\n\s+{command}\s+\S", f"report --help has no text for {command}")


if __name__ == "__main__":
    sys.argv = sys.argv[:1]
    unittest.main()
