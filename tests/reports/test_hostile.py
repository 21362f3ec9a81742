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


if __name__ == "__main__":
    unittest.main()
