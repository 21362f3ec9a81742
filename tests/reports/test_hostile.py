#!/usr/bin/python3
"""Hostile input to `gpubench report` and `gpubench track` (issue 32 item 6): each gets one line
naming the file and the reason, an exit code from the README's table (2 usage, 3 input, 5 I/O or a
busy history, 130 interrupted; 1 stays "a point failed or a regression was found"), never a
Python traceback, and nothing lost (a history is as it was)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(SOURCE, "reports", "report.py")
TRACK = os.path.join(SOURCE, "reports", "track.py")
EP = os.path.join(SOURCE, "reports", "data", "h100-2026-11-23-ep-A-all-backends.json")
LU = os.path.join(SOURCE, "reports", "data", "h100-2026-11-25-lu-cuda-4096.json")


def run(program, *args):
    return subprocess.run([sys.executable, program] + list(args), capture_output=True, text=True)


class Hostile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.history = os.path.join(self.dir, "history.sqlite")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def expect(self, r, code, *words):
        out = r.stdout + r.stderr
        self.assertNotIn("Traceback", out)
        self.assertEqual(r.returncode, code, out)
        for w in words:
            self.assertIn(w, r.stderr)
        self.assertEqual(len([l for l in r.stderr.splitlines() if l.strip()]), 1, r.stderr)  # one line

    def records(self, name, change):
        with open(EP) as f:
            records = json.load(f)
        change(records)
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(json.dumps(records).replace("Infinity", "NaN"))
        return path

    def test_report_out_where_it_cannot_be_written(self):
        self.expect(run(REPORT, "table", EP, "--out", os.path.join(self.dir, "missing", "t.md")), 5, "missing")
        self.expect(run(REPORT, "table", EP, "--out", self.dir), 5, self.dir)
        self.expect(run(REPORT, "table", EP, "--out", "/proc/version/t.md"), 5, "/proc/version/t.md")
        self.expect(run(REPORT, "figure", EP, "--kind", "speedup", "--baseline", "openmp:serial", "--out",
                        os.path.join(self.dir, "f.bmp")), 2, "f.bmp", ".png")

    def test_records_that_are_not_records(self):
        five = self.records("five.json", lambda r: r.update(benchmarks=5))
        self.expect(run(REPORT, "table", five), 3, "five.json", "'benchmarks' is 5")
        null = self.records("null.json", lambda r: r.update(context=None))
        self.expect(run(REPORT, "table", null), 3, "null.json", "'context'")
        nan = self.records("nan.json", lambda r: r["benchmarks"][0].update(real_time=float("inf")))
        self.expect(run(REPORT, "table", nan), 3, "nan.json", "is not a time")
        self.expect(run(TRACK, "import", "--history", self.history, five), 3, "five.json")
        junk = os.path.join(self.dir, "junk.json")
        with open(junk, "w") as f:
            json.dump({"benchmarks": [1, 2, "x"], "context": {"date": "2026-11-26", "gpubench_commit": "x"}}, f)
        self.expect(run(TRACK, "import", "--history", self.history, junk), 3, "junk.json", "no benchmark entries")
        self.assertFalse(os.path.exists(self.history) and
                         sqlite3.connect(self.history).execute("SELECT count(*) FROM runs").fetchone()[0])

    def test_track_outputs_that_cannot_be_written(self):
        self.assertEqual(run(TRACK, "import", "--history", self.history, EP).returncode, 0)
        # Exit 1 means "a regression or a failure": a file that cannot be written is not that.
        self.expect(run(TRACK, "check", "--no-remeasure", "--history", self.history, "--json",
                        os.path.join(self.dir, "missing", "v.json")), 5, "v.json")
        blocker = os.path.join(self.dir, "a-file")
        with open(blocker, "w") as f:
            f.write("not a folder")
        self.expect(run(TRACK, "publish", "--history", self.history, "--out", blocker), 5, "a-file")

    def test_concurrent_imports_of_the_same_files_import_each_run_once(self):
        procs = [subprocess.Popen([sys.executable, TRACK, "import", "--history", self.history, EP, LU],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
        for p in procs:
            out, err = p.communicate()
            self.assertNotIn("Traceback", out + err)
            self.assertEqual(p.returncode, 0, out + err)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT count(*) FROM runs").fetchone()[0], 2)
        db.close()

    def test_an_import_interrupted_by_ctrl_c_changes_nothing(self):
        self.assertEqual(run(TRACK, "import", "--history", self.history, EP).returncode, 0)
        before = sqlite3.connect(self.history).execute("SELECT count(*) FROM samples").fetchone()[0]
        r = subprocess.run([sys.executable, TRACK, "import", "--history", self.history, LU], capture_output=True,
                           text=True, env=dict(os.environ, GPUBENCH_TRACK_KILL_AFTER_SAMPLES="3:INT"))
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.returncode, 130, r.stderr)
        self.assertIn("interrupted: nothing was written", r.stderr)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT count(*) FROM samples").fetchone()[0], before)
        self.assertEqual(db.execute("SELECT count(*) FROM runs").fetchone()[0], 1)
        db.close()

    def as_another_user(self, program, *args):
        """program run by a user who may not write self.dir (nobody, when the tests run as root)."""
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
        return subprocess.run(prefix + [sys.executable, program] + list(args), capture_output=True, text=True)

    def test_a_read_only_history_is_read_and_never_written(self):
        self.assertEqual(run(TRACK, "import", "--history", self.history, EP).returncode, 0)
        db = sqlite3.connect(self.history)
        db.execute("DROP TABLE alerts")  # a history older than the alerts
        db.commit()
        db.close()
        os.chmod(self.history, 0o444)
        os.chmod(self.dir, 0o555)
        try:
            self.expect(self.as_another_user(TRACK, "import", "--history", self.history, LU), 5, "history.sqlite",
                        "read-only", "nothing was changed")
            self.expect(self.as_another_user(TRACK, "ack", "ep", "--reason", "x", "--history", self.history), 5,
                        "read-only")
            r = self.as_another_user(TRACK, "check", "--history", self.history)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)  # too little history: nothing to say
            self.assertIn("with too little history", r.stdout)
            r = self.as_another_user(TRACK, "show", "--history", self.history)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("ep/npb:A", r.stdout)
            site = os.path.join(tempfile.gettempdir(), f"gpubench-ro-site-{os.getpid()}")
            try:
                os.makedirs(site, mode=0o777)
                os.chmod(site, 0o777)
                r = self.as_another_user(TRACK, "publish", "--history", self.history, "--out", site)
                self.assertEqual(r.returncode, 0, r.stderr)
            finally:
                shutil.rmtree(site)
            # and onto a folder this user may not write
            self.expect(self.as_another_user(TRACK, "publish", "--history", self.history, "--out",
                                             os.path.join(self.dir, "site")), 5, "site")
            self.expect(self.as_another_user(REPORT, "table", EP, "--out", os.path.join(self.dir, "t.md")), 5, "t.md")
        finally:
            os.chmod(self.dir, 0o755)
            os.chmod(self.history, 0o644)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT count(*) FROM runs").fetchone()[0], 1)
        self.assertIsNone(db.execute("SELECT name FROM sqlite_master WHERE name = 'alerts'").fetchone())
        db.close()

    def test_publish_keeps_to_folders_it_made(self):
        # Issue 32 item 8: a user's own index.html is not overwritten; a republish leaves no stale page.
        self.assertEqual(run(TRACK, "import", "--history", self.history, EP, LU).returncode, 0)
        mine = os.path.join(self.dir, "mine")
        os.makedirs(mine)
        with open(os.path.join(mine, "index.html"), "w") as f:
            f.write("my own page")
        self.expect(run(TRACK, "publish", "--history", self.history, "--out", mine), 2, "mine",
                    "a folder gpubench did not make")
        with open(os.path.join(mine, "index.html")) as f:
            self.assertEqual(f.read(), "my own page")
        site = os.path.join(self.dir, "site")
        self.assertEqual(run(TRACK, "publish", "--history", self.history, "--out", site).returncode, 0)
        pages = len(os.listdir(os.path.join(site, "b")))
        self.assertGreater(pages, 1)
        r = run(TRACK, "publish", "--history", self.history, "--out", site, "--match", "lu/")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("removed", r.stdout)
        kept = os.listdir(os.path.join(site, "b"))
        with open(os.path.join(site, "verdicts.json")) as f:
            self.assertEqual(len(kept), len(json.load(f)))
        self.assertLess(len(kept), pages)


if __name__ == "__main__":
    unittest.main()
