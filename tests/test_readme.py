#!/usr/bin/python3
"""The README's and the guide's commands work as written (issue 31 item 3, issue 58 item 5).

Every command line of the indented blocks of README.md and of the guide (docs/**/*.md) that starts
with `gpubench` runs here, from a
folder that stands for the checkout's root (the README's examples are written from there: its
tests/, reports/ and examples/ are linked in, and what a command writes stays in the folder), with
build/release/bin first on PATH. A command that needs what a CPU machine has not (CUDA, several
GPUs, mpirun) or more than CI's minutes (NAS class C, the 4096^2 Poisson grid) is left out with
its reason; the rest must exit 0 (1 where a point fails on purpose: none do), and print no
traceback. A placeholder (RECORDS..., DIR, [options]) is filled with a real value. A page's
fenced ```sh blocks are a script (a tutorial's steps, in order): each page's blocks run as one
bash script from a root of their own, and must exit 0.

Also: the options table names every suite, and every study recipe is in the guide.
Run as: test_readme.py SOURCE_DIR GPUBENCH_BINARY [scripts]
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
DOCS = os.path.join(SOURCE, "docs")
PAGES = [README] + sorted(os.path.join(d, f) for d, _, files in os.walk(DOCS) for f in files if f.endswith(".md"))

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


def where(page, number):
    return f"{os.path.relpath(page, SOURCE)}:{number}"


def readme_commands():
    """(page:line, command) of each `gpubench ...` line of an indented block, outside fenced blocks."""
    commands = []
    for page in PAGES:
        fenced = False
        with open(page, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.startswith("```"):
                    fenced = not fenced
                elif not fenced and re.match(r"^ {4,}(gpubench|scripts/gpubench|mpirun) ", line):  # in a list item too
                    command = line.strip().split("  #")[0].strip()
                    commands.append((where(page, number), command))
    return commands


def scripts():
    """(page, script) of each page with fenced ```sh blocks: its blocks, in order."""
    out = []
    for page in PAGES:
        with open(page, encoding="utf-8") as f:
            blocks = re.findall(r"(?ms)^```sh\n(.*?)^```", f.read())
        if blocks:
            out.append((page, "\n".join(blocks)))
    return out


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
                left_out.append(f"{number}: {command}: {why}")
                continue
            for pattern, value in FILL:
                command = re.sub(pattern, value, command)
            with self.subTest(line=number, command=command):
                # As a shell runs it: globs (reports/data/*.json) expand in the root.
                r = subprocess.run(["bash", "-c", command], cwd=self.root, env=self.env, capture_output=True,
                                   text=True, timeout=900)
                out = r.stdout + r.stderr
                self.assertNotIn("Traceback", out, f"{number}: {command}")
                self.assertEqual(r.returncode, 0, f"{number}: {command}\n{out[-3000:]}")
                ran.append(command)
        print("\n".join(["left out:"] + left_out), file=sys.stderr)
        self.assertGreaterEqual(len(ran), 10, "the README's runnable commands were not found")
        self.assertTrue(any(c.startswith("gpubench track import") for c in ran), "the guide's track import did not run")

    def test_each_pages_scripts_run_as_one(self):
        found = scripts()
        self.assertTrue(any(p.endswith("own-project.md") for p, _ in found), "the tutorial's script was not found")
        for page, script in found:
            with self.subTest(page=os.path.relpath(page, SOURCE)):
                root = tempfile.mkdtemp(prefix="gpubench-script-", dir=self.root)
                for name in ("tests", "reports", "examples"):
                    os.symlink(os.path.join(SOURCE, name), os.path.join(root, name))
                env = dict(self.env, GIT_AUTHOR_NAME="gpubench guide", GIT_AUTHOR_EMAIL="guide@example.org",
                           GIT_COMMITTER_NAME="gpubench guide", GIT_COMMITTER_EMAIL="guide@example.org",
                           GIT_CONFIG_GLOBAL="/dev/null")
                r = subprocess.run(["bash", "-c", "set -eo pipefail\n" + script], cwd=root, env=env,
                                   capture_output=True, text=True, timeout=900)
                out = r.stdout + r.stderr
                self.assertNotIn("Traceback", out, page)
                self.assertEqual(r.returncode, 0, f"{page}\n{out[-4000:]}")
                if page.endswith("own-project.md"):  # the tutorial's claims, as the page makes them
                    self.assertIn("REGRESSION  spec/n=4194304/openmp:0/reduction/f64", out)
                    found = re.search(r"the first slower commit is ([0-9a-f]{40}) \(sum in 32 passes\)", out)
                    self.assertTrue(found, r.stdout[-4000:])
                    self.assertIn(f"since {found.group(1)[:12]} ", out)  # the check named the same commit
                    for verdicts in ("check.xml", "check.md"):  # and so do the CI outputs
                        with open(os.path.join(root, verdicts)) as f:
                            self.assertIn(found.group(1)[:12], f.read(), verdicts)

    def test_the_options_table_names_every_suite_and_the_guide_every_study(self):
        text = ""
        for page in PAGES:
            with open(page, encoding="utf-8") as f:
                text += f.read()
        row = next(line for line in text.splitlines() if line.startswith("| `--suite` |"))
        suites = subprocess.run([BINARY, "--help"], capture_output=True, text=True).stdout
        named = re.search(r"--suite[^\n]*", suites).group(0)
        for suite in ("cg", "ep", "ft", "gemm", "lu", "spec"):
            self.assertIn(suite, named)
            self.assertIn(f"`{suite}`", row, f"the options table's --suite row lacks {suite}")
        recipes = sorted(f[:-5] for f in os.listdir(os.path.join(SOURCE, "reports", "recipes")) if f.endswith(".json"))
        for recipe in recipes:
            self.assertIn(f"`{recipe}`", text, f"the guide does not name the study {recipe}")

    def test_report_help_describes_each_command(self):
        r = subprocess.run([BINARY, "report", "--help"], capture_output=True, text=True, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        for command in ("table", "figure", "study"):
            self.assertRegex(r.stdout, rf"\n\s+{command}\s+\S", f"report --help has no text for {command}")


if __name__ == "__main__":
    # A third argument, "scripts", runs the pages' scripts alone (ctest runs them serially: the
    # tutorial's regression must stand out of the timing noise that a test beside it makes on CI's
    # two cores); without it, everything else.
    scripts_only = sys.argv[3:4] == ["scripts"]
    names = [n for n in unittest.defaultTestLoader.getTestCaseNames(Readme)
             if (n == "test_each_pages_scripts_run_as_one") == scripts_only]
    result = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite(Readme(n) for n in names))
    sys.exit(0 if result.wasSuccessful() else 1)
