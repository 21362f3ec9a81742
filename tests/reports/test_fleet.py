#!/usr/bin/python3
"""A fleet's history without Slurm (issue 40): records imported as two partitions' keep their
benchmarks apart (names, check); the dashboard's machine selector and its page of machines side by
side, in headless Chromium (skipped with its reason without chromium); gpubench track
export-reframe's files against the shape ReFrame 4.10 documents for external references, and its
ReFrame test run against a real gpubench point with ReFrame's API stood in for (ReFrame cannot be
installed here)."""
import ast
import io
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import types
import unittest

import yaml

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPUBENCH = os.environ.get("GPUBENCH_BINARY", "gpubench")
# Two GEMM runs of one machine (the H100's last two; later records may be another machine's).
RECORDS = [os.path.join(SOURCE, "reports", "track", "records", f"{stamp}-gemm.json.gz")
           for stamp in ("20261127T094929Z", "20261127T123039Z")]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def gpubench(*args):
    return subprocess.run([GPUBENCH] + list(args), capture_output=True, text=True, timeout=600)


class Fleet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gpubench-fleet-")
        cls.history = os.path.join(cls.dir, "history.sqlite")
        # Two nights of the tracked GEMM entry on the H100, as if two partitions had each run one.
        for partition, records in zip(("alpha", "beta"), RECORDS):
            r = gpubench("track", "import", "--history", cls.history, "--partition", partition, records)
            assert r.returncode == 0, r.stderr
        cls.site = os.path.join(cls.dir, "site")
        r = gpubench("track", "publish", "--history", cls.history, "--out", cls.site)
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def rows(self, sql):
        db = sqlite3.connect(self.history)
        try:
            return db.execute(sql).fetchall()
        finally:
            db.close()

    def test_each_partition_keeps_its_benchmarks_apart(self):
        self.assertEqual(self.rows("SELECT partition FROM runs ORDER BY id"), [("alpha",), ("beta",)])
        names = [n for (n,) in self.rows("SELECT name FROM benchmarks")]
        point = "gemm/2048/cuda:0/tuned/f32 @ NVIDIA H100 80GB HBM3"
        self.assertIn(point + " on alpha", names)
        self.assertIn(point + " on beta", names)
        self.assertNotIn(point, names)
        self.assertEqual(len([n for n in names if n.endswith(" on alpha")]), len(names) // 2)
        r = gpubench("track", "check", "--no-remeasure", "--history", self.history)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # one run each: every benchmark new, none compared with the other partition's
        self.assertIn(f"{len(names)} benchmarks", r.stdout)
        self.assertIn(f"{len(names)} with too little history", r.stdout)
        bad = gpubench("track", "import", "--history", self.history, "--partition", "a b", RECORDS[0])
        self.assertEqual(bad.returncode, 3, bad.stderr)
        self.assertIn("is not a partition name", bad.stderr)

    def test_the_summary_has_a_machine_selector_and_the_machines_page(self):
        with open(os.path.join(self.site, "index.html")) as f:
            index = f.read()
        self.assertIn('<select id="machine"><option value="">every machine</option>'
                      '<option value="alpha">partition alpha</option><option value="beta">partition beta</option>'
                      "</select>", index)
        self.assertIn('<a href="machines.html">', index)
        with open(os.path.join(self.site, "machines.html")) as f:
            machines = f.read()
        self.assertIn("<th>partition alpha</th><th>partition beta</th>", machines)
        self.assertIn('data-point="gemm/2048/cuda:0/tuned/f32 @ nvidia h100 80gb hbm3"', machines)

    @unittest.skipUnless(CHROMIUM, "headless Chromium is not installed (Debian chromium: scripts/setup installs it)")
    def test_the_machine_selector_filters_the_rows_in_chromium(self):
        def dom(page):
            r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
                                "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + page],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            self.assertNotIn("Uncaught", r.stderr)
            self.assertIn('data-ready="1"', r.stdout)
            self.assertNotRegex(r.stdout, "<html[^>]*data-script-errors")
            return r.stdout

        index = os.path.join(self.site, "index.html")
        every = dom(index)
        beta = dom(index + "#machine=beta")
        rows = lambda d, m: [x for x in d.split("<tr")[1:] if f'data-machine="{m}"' in x]  # noqa: E731
        self.assertTrue(rows(every, "alpha") and rows(every, "beta"))
        self.assertTrue(all("display: none" not in x.split(">")[0] for x in rows(every, "alpha") + rows(every, "beta")))
        # #machine=beta: alpha's rows hidden, beta's shown, the count says how many
        self.assertTrue(all("display: none" in x.split(">")[0] for x in rows(beta, "alpha")))
        self.assertTrue(all("display: none" not in x.split(">")[0] for x in rows(beta, "beta")))
        self.assertIn(f'<span id="shown">{len(rows(beta, "beta"))}</span>', beta)
        dom(os.path.join(self.site, "machines.html"))

    def test_export_reframe_writes_references_in_the_documented_shape(self):
        out = os.path.join(self.dir, "reframe")
        r = gpubench("track", "export-reframe", "--history", self.history, "--out", out, "--system", "fleet")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(out, "gpubench-references.yaml")) as f:
            refs = yaml.safe_load(f)
        with open(os.path.join(out, "gpubench_points.json")) as f:
            points = json.load(f)
        # The test's class name, from the test file itself, keys the references (ReFrame looks them up so).
        with open(os.path.join(out, "gpubench_check.py")) as f:
            tree = ast.parse(f.read())
        classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        self.assertEqual(list(refs), classes)
        test = refs[classes[0]]
        self.assertEqual(test["$index"], ["$partition", "point"])
        self.assertEqual(sorted(k for k in test if k != "$index"), ["fleet:alpha", "fleet:beta"])
        point = "gemm/2048/cuda:0/tuned/f32 @ NVIDIA H100 80GB HBM3"
        for partition in ("fleet:alpha", "fleet:beta"):
            for name, variables in test[partition].items():
                self.assertIn(name, points)
                self.assertEqual(list(variables), ["time_per_iteration"])
                ref, lower, upper, unit = variables["time_per_iteration"]
                self.assertGreater(ref, 0)
                self.assertIsNone(lower)
                self.assertGreaterEqual(upper, 0.02)  # --min-effect's 2% at least
                self.assertEqual(unit, "ms")
            self.assertIn(point, test[partition])
        # The reference is the run's level: with one run, its median (ms).
        db = sqlite3.connect(self.history)
        median = db.execute("SELECT m.median FROM medians m JOIN benchmarks b ON b.id = m.benchmark_id WHERE b.name = ?",
                            (point + " on alpha",)).fetchone()[0]
        db.close()
        self.assertAlmostEqual(test["fleet:alpha"][point]["time_per_iteration"][0], median * 1e3, places=4)
        self.assertEqual(points[point], ["--suite", "gemm", "--problem", "2048", "--backend", "cuda", "--device", "0",
                                         "--variant", "tuned", "--precision", "f32"])

    def test_the_reframe_check_reads_a_real_gpubench_point(self):
        out = os.path.join(self.dir, "reframe-run")
        r = gpubench("track", "export-reframe", "--history", self.history, "--out", out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # ReFrame's API stood in for: what the test file uses of it, nothing more.
        stand_in = types.ModuleType("reframe")
        stand_in.simple_test = lambda cls: cls
        stand_in.RunOnlyRegressionTest = type("RunOnlyRegressionTest", (), {})
        sanity = types.ModuleType("reframe.utility.sanity")
        sanity.assert_true = lambda value, msg="": bool(value) or (_ for _ in ()).throw(AssertionError(msg))
        sanity.all = all
        builtins = types.ModuleType("reframe.core.builtins")
        builtins.parameter = lambda values: list(values)
        builtins.run_before = lambda stage: (lambda f: f)
        builtins.sanity_function = lambda f: f
        builtins.performance_function = lambda unit: (lambda f: f)
        modules = {"reframe": stand_in, "reframe.utility": types.ModuleType("reframe.utility"),
                   "reframe.utility.sanity": sanity, "reframe.core": types.ModuleType("reframe.core"),
                   "reframe.core.builtins": builtins}
        saved = {k: sys.modules.get(k) for k in modules}
        sys.modules.update(modules)
        try:
            namespace = {"__file__": os.path.join(out, "gpubench_check.py"), "__name__": "gpubench_check"}
            with open(namespace["__file__"]) as f:
                exec(compile(f.read(), namespace["__file__"], "exec"), namespace)
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v
        check = namespace["GpubenchPoint"]
        self.assertEqual(sorted(check.point), sorted(namespace["POINTS"]))
        # A real point, run as the test runs it (here on the host: openmp).
        stage = os.path.join(self.dir, "stage")
        os.makedirs(stage)
        test = check()
        test.stagedir, test.point = stage, "gemm/64/openmp:0/naive/f64 @ host"
        namespace["POINTS"][test.point] = ["--suite", "gemm", "--problem", "64", "--backend", "openmp", "--variant",
                                           "naive", "--precision", "f64"]
        test.set_arguments()
        self.assertEqual(test.executable_opts[-2:], ["--out", "point.json"])
        run = subprocess.run([GPUBENCH] + test.executable_opts, cwd=stage, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(test.verified())
        with open(os.path.join(stage, "point.json")) as f:
            entries = [b for b in json.load(f)["benchmarks"] if b.get("run_type") != "aggregate"]
        self.assertEqual(len(entries), 5)
        expected = statistics.median(b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
                                     for b in entries)
        self.assertAlmostEqual(test.time_per_iteration(), expected)


class FleetWaiting(unittest.TestCase):
    """The submitter's waiting, with Slurm's commands stood in for: a job still pending at the
    deadline is a failed run that says so (Slurm's reason with it) and is cancelled; an interrupted
    wait cancels every unfinished job."""

    def setUp(self):
        sys.path.insert(0, os.path.join(SOURCE, "reports"))
        from gpubench_reports import slurm
        self.slurm = slurm
        self.dir = tempfile.mkdtemp(prefix="gpubench-fleet-wait-")
        self.calls = []
        self.section = slurm.slurm_section({"slurm": {"time_limit": "5", "deadline_minutes": 0.002}}, "set.json", "alpha,beta")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def fake(self, scontrol):
        def run(command, **kwargs):
            self.calls.append(command)
            if command[0] == "sbatch":
                job = str(len([c for c in self.calls if c[0] == "sbatch"]))
                return subprocess.CompletedProcess(command, 0, f"{job}\n", "")
            if command[0] == "scontrol":
                return scontrol(command[-1])
            return subprocess.CompletedProcess(command, 0, "", "")
        return run

    def test_a_job_not_started_by_the_deadline_is_a_failed_run_and_cancelled(self):
        def scontrol(job):
            state = "COMPLETED Reason=None" if job == "1" else "PENDING Reason=Resources"
            return subprocess.CompletedProcess([], 0, f"JobId={job} JobState={state} ExitCode=0:0 TimeLimit=00:05:00\n", "")
        results = self.slurm.run_fleet("/bin/gpubench", "set.json", self.section, None, self.dir, "night", poll_s=0.02,
                                       run=self.fake(scontrol), log=io.StringIO())
        by = {r[0]: r for r in results}
        self.assertEqual(by["alpha"][3], "job 1 completed and wrote no records")
        self.assertIn("job 2 had not started by the deadline", by["beta"][3])
        self.assertIn("PENDING, reason Resources", by["beta"][3])
        self.assertIn("; cancelled", by["beta"][3])
        self.assertIn(["scancel", "2"], self.calls)
        self.assertNotIn(["scancel", "1"], self.calls)
        sbatch = [c for c in self.calls if c[0] == "sbatch"][0]
        self.assertIn("--exclusive", sbatch)
        self.assertEqual(sbatch[sbatch.index("--time") + 1], "5")

    def test_an_interrupted_wait_cancels_the_unfinished_jobs(self):
        def scontrol(job):
            raise KeyboardInterrupt
        with self.assertRaises(KeyboardInterrupt):
            self.slurm.run_fleet("/bin/gpubench", "set.json", self.section, None, self.dir, "night", poll_s=0.02,
                                 run=self.fake(scontrol), log=io.StringIO())
        self.assertIn(["scancel", "1"], self.calls)
        self.assertIn(["scancel", "2"], self.calls)


if __name__ == "__main__":
    unittest.main()
