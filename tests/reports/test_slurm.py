#!/usr/bin/python3
"""gpubench track run --slurm against a real Slurm (issue 40): munged, slurmctld and slurmd started
on this host (slurm_cluster.py) with two partitions on its node; the CI's fleet set submitted to
both, imported and checked; a partition Slurm does not know and a job killed by its time limit
each reported by name, as failed runs of their partitions. Skipped (exit 77) with the reason where
Slurm or munge is not installed, or where the test is not root."""
import json
import os
import sqlite3
import subprocess
import sys
import shutil
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurm_cluster import SlurmCluster, why_not  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPUBENCH = os.environ.get("GPUBENCH_BINARY", "gpubench")
SETS = os.path.join(SOURCE, "tests", "data", "track")


class Fleet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = SlurmCluster(["alpha", "beta"]).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.__exit__(None, None, None)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gpubench-fleet-")
        self.history = os.path.join(self.dir, "history.sqlite")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def track(self, *args):
        env = dict(self.cluster.env, GPUBENCH_SLURM_POLL_S="1")
        return subprocess.run([GPUBENCH, "track"] + list(args) + ["--history", self.history], capture_output=True,
                              text=True, env=env, timeout=900)

    def rows(self, sql):
        db = sqlite3.connect(self.history)
        try:
            return db.execute(sql).fetchall()
        finally:
            db.close()

    def test_a_fleet_run_of_two_partitions_is_imported_and_checked(self):
        r = self.track("run", "--set", os.path.join(SETS, "ci-slurm-set.json"), "--slurm", "--records",
                       os.path.join(self.dir, "records"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr + self.cluster.log("slurmctld"))
        self.assertIn("alpha: job", r.stderr)
        self.assertIn("beta: job", r.stderr)
        # Each job's two records, each run tagged with its partition; the machine and devices from the records.
        runs = self.rows("SELECT partition, kind, machine FROM runs ORDER BY id")
        for partition in ("alpha", "beta"):
            self.assertEqual(sum(1 for p, k, _ in runs if p == partition and k == "nightly (slurm)"), 2, runs)
            self.assertEqual(sum(1 for p, k, _ in runs if p == partition and k == "slurm job"), 1, runs)
        names = [n for (n,) in self.rows("SELECT name FROM benchmarks")]
        for partition in ("alpha", "beta"):
            self.assertIn(f"gemm/64/openmp:0/naive/f64 @ {self.device()} on {partition}", names)
            self.assertIn(f"track/slurm-job @ slurm on {partition}", names)
        check = self.track("check", "--no-remeasure")
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.assertIn("0 failing", check.stdout)

    def device(self):
        devices = self.rows("SELECT devices FROM runs WHERE kind = 'nightly (slurm)' LIMIT 1")
        return next(d["name"] for d in json.loads(devices[0][0]) if d["backend"] == "openmp")

    def test_a_partition_slurm_does_not_know_is_a_failed_run_by_name(self):
        r = self.track("run", "--set", os.path.join(SETS, "ci-slurm-set.json"), "--slurm", "alpha,nosuch",
                       "--only", "gemm", "--records", os.path.join(self.dir, "records"))
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("nosuch: FAILED: sbatch refused the job: ", r.stderr)
        self.assertIn("Invalid partition name specified", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        # alpha's run is in; nosuch is a failed run of its own, and the check fails on it by name.
        self.assertEqual(self.rows("SELECT COUNT(*) FROM runs WHERE partition = 'alpha' AND kind = 'nightly (slurm)'"), [(1,)])
        failures = self.rows("SELECT b.name, f.message FROM failures f JOIN benchmarks b ON b.id = f.benchmark_id")
        self.assertEqual(len(failures), 1, failures)
        self.assertEqual(failures[0][0], "track/slurm-job @ slurm on nosuch")
        check = self.track("check", "--no-remeasure")
        self.assertEqual(check.returncode, 1, check.stdout + check.stderr)
        self.assertIn("track/slurm-job @ slurm on nosuch", check.stdout)
        self.assertIn("Invalid partition name specified", check.stdout)

    def test_a_job_killed_by_its_time_limit_is_a_failed_run_by_name(self):
        r = self.track("run", "--set", os.path.join(SETS, "ci-slurm-timeout-set.json"), "--slurm", "--records",
                       os.path.join(self.dir, "records"))
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("alpha: FAILED: job ", r.stderr)
        self.assertIn("TIMEOUT", r.stderr)
        self.assertIn("time limit 00:01:00", r.stderr)
        failures = self.rows("SELECT b.name, f.message FROM failures f JOIN benchmarks b ON b.id = f.benchmark_id")
        self.assertEqual([n for n, _ in failures], ["track/slurm-job @ slurm on alpha"])
        self.assertIn("TIMEOUT", failures[0][1])
        # Nothing of the job outlives it: no process still measuring into its records.
        deadline = time.monotonic() + 20
        while self.strays() and time.monotonic() < deadline:
            time.sleep(0.5)
        self.assertEqual(self.strays(), [])

    def strays(self):
        """The command lines of the processes that name this test's folder."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    line = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if self.dir in line and "test_slurm.py" not in line:
                found.append(line)
        return found


if __name__ == "__main__":
    reason = why_not()
    if reason:
        print(f"skipped: {reason}")
        sys.exit(77)
    unittest.main()
