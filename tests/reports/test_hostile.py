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


class Setup:
    """A scratch folder and a history in it, and what every case expects of a failure."""

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


class Hostile(Setup, unittest.TestCase):
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
        self.expect(run(REPORT, "table", nan), 3, "nan.json", "real_time is nan")
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


def limited(size_bytes):
    """A preexec_fn: a file-size limit (ulimit -f) of size_bytes for the child, SIGXFSZ ignored so that
    a write past it fails with EFBIG (what Python's own startup does too)."""
    import resource
    import signal

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size_bytes, size_bytes))
    return apply


class SmallDisk:
    """A tmpfs of a few KiB, full after one file (issue 55 item 6): None where mounting is not allowed."""

    def __init__(self, parent, kib=32):
        self.path = os.path.join(parent, "small-disk")
        os.makedirs(self.path)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", self.path], capture_output=True)
        self.mounted = r.returncode == 0

    def fill(self):
        try:
            with open(os.path.join(self.path, "filler"), "wb") as f:
                while True:
                    f.write(b"x" * 4096)
                    f.flush()
        except OSError:
            pass

    def close(self):
        if self.mounted:
            subprocess.run(["umount", self.path])


class Issue55(Setup, unittest.TestCase):
    """The hostile-input round of 2026-11-28 on report and track: nothing lost, nothing silently wrong."""

    def history_with_runs(self):
        self.assertEqual(run(TRACK, "import", "--history", self.history, EP, LU).returncode, 0)

    def test_5_a_zero_time_or_a_date_that_is_not_one_is_refused_at_import(self):
        zero = self.records("zero.json", lambda r: r["benchmarks"][0].update(real_time=0))
        self.expect(run(TRACK, "import", "--history", self.history, zero), 3, "zero.json", "real_time 0 is not a time")
        boolean = self.records("true.json", lambda r: r["benchmarks"][0].update(real_time=True))
        self.expect(run(TRACK, "import", "--history", self.history, boolean), 3, "true.json")
        for date in ("not a date", "2026-13-45T00:00:00+00:00", "2026-11-28", 5):
            bad = self.records("date.json", lambda r: r["context"].update(date=date))
            self.expect(run(TRACK, "import", "--history", self.history, bad), 3, "date.json", "not an ISO 8601 date")
        self.assertFalse(os.path.exists(self.history) and
                         sqlite3.connect(self.history).execute("SELECT count(*) FROM runs").fetchone()[0])
        self.expect(run(REPORT, "table", zero), 3, "zero.json", "not a time")

    def test_5_a_history_poisoned_before_is_read_and_the_run_can_be_forgotten(self):
        self.history_with_runs()
        db = sqlite3.connect(self.history)
        run_id = db.execute("SELECT id FROM runs ORDER BY id LIMIT 1").fetchone()[0]
        db.execute("UPDATE medians SET median = 0, low = 0 WHERE run_id = ?", (run_id,))  # an older gpubench's import
        db.execute("UPDATE samples SET seconds = 0 WHERE run_id = ?", (run_id,))
        db.commit()
        db.close()
        out = os.path.join(self.dir, "out")
        for args in (["check", "--no-remeasure"], ["publish", "--out", out], ["export-reframe", "--out", out + "-rf"],
                     ["ack", "lu", "--reason", "x"], ["show"]):
            r = run(TRACK, *args, "--history", self.history)
            self.assertNotIn("Traceback", r.stdout + r.stderr)
            self.assertIn(r.returncode, (0, 1, 3), r.stderr)
        r = run(TRACK, "runs", "--history", self.history)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"track forget {run_id}", r.stdout)
        self.expect(run(TRACK, "forget", "999", "--history", self.history), 3, "no run '999'", "nothing was removed")
        r = run(TRACK, "forget", str(run_id), "--history", self.history)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"forgot run {run_id}", r.stdout)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT count(*) FROM runs").fetchone()[0], 1)
        self.assertEqual(db.execute("SELECT count(*) FROM samples WHERE run_id = ?", (run_id,)).fetchone()[0], 0)
        db.close()
        # by the file it came from
        r = run(TRACK, "forget", LU, "--history", self.history)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sqlite3.connect(self.history).execute("SELECT count(*) FROM runs").fetchone()[0], 0)

    def assert_unchanged(self, path, before):
        with open(path, "rb") as f:
            self.assertEqual(f.read(), before, f"{path} was changed")

    def test_6_a_write_cut_by_a_file_size_limit_leaves_the_earlier_file(self):
        self.history_with_runs()
        table = os.path.join(self.dir, "t.md")
        self.assertEqual(run(REPORT, "table", EP, LU, "--out", table).returncode, 0)
        with open(table, "rb") as f:
            before = f.read()
        self.assertGreater(len(before), 2048)
        r = subprocess.run([sys.executable, REPORT, "table", EP, LU, "--out", table, "--format", "latex"],
                           capture_output=True, text=True, preexec_fn=limited(2048))
        self.expect(r, 5, "t.md")
        self.assert_unchanged(table, before)
        self.assertEqual([f for f in os.listdir(self.dir) if f.endswith(".tmp")], [])
        site, refs = os.path.join(self.dir, "site"), os.path.join(self.dir, "refs")
        for command in (["publish", "--out", site], ["export-reframe", "--out", refs]):
            self.assertEqual(run(TRACK, *command, "--history", self.history).returncode, 0)
        pages = {}
        for folder in (site, refs):
            for name in os.listdir(folder):
                if os.path.isfile(os.path.join(folder, name)):
                    with open(os.path.join(folder, name), "rb") as f:
                        pages[os.path.join(folder, name)] = f.read()
        for command in (["publish", "--out", site, "--title", "x" * 5000], ["export-reframe", "--out", refs]):
            r = subprocess.run([sys.executable, TRACK] + command + ["--history", self.history], capture_output=True,
                               text=True, preexec_fn=limited(1024))
            self.assertNotIn("Traceback", r.stderr)
            self.assertEqual(r.returncode, 5, r.stderr)
        for path, before in pages.items():
            self.assert_unchanged(path, before)

    def test_6_and_13_a_full_disk_leaves_earlier_files_and_exits_5(self):
        disk = SmallDisk(self.dir)
        if not disk.mounted:
            self.skipTest("no tmpfs can be mounted here (not root): the file-size limit test covers the writes")
        try:
            self.history_with_runs()
            table = os.path.join(disk.path, "t.md")
            self.assertEqual(run(REPORT, "table", EP, "--out", table).returncode, 0)
            with open(table, "rb") as f:
                before = f.read()
            site = os.path.join(disk.path, "site")
            disk.fill()
            self.expect(run(REPORT, "table", EP, LU, "--out", table, "--format", "latex"), 5, "t.md")
            self.assert_unchanged(table, before)
            self.expect(run(TRACK, "publish", "--history", self.history, "--out", site), 5)
            self.expect(run(TRACK, "export-reframe", "--history", self.history, "--out", os.path.join(disk.path, "r")), 5)
            self.expect(run(TRACK, "export-reframe", "--history", self.history, "--out", "/dev/full"), 5, "/dev/full")
            r = run(REPORT, "study", "lu", "--out", os.path.join(disk.path, "study"))
            self.assertNotIn("Traceback", r.stderr)
            self.assertEqual(r.returncode, 5, r.stderr)
            # A history on the full disk: the write fails with its cause, and the history is as it was.
            full_history = os.path.join(disk.path, "h.sqlite")
            r = run(TRACK, "import", "--history", full_history, EP)
            self.assertNotIn("Traceback", r.stderr)
            self.assertNotIn("cannot rollback", r.stderr)
            self.assertEqual(r.returncode, 5, r.stderr)
        finally:
            disk.close()

    def test_6_a_history_write_past_a_file_size_limit_names_the_cause(self):
        self.assertEqual(run(TRACK, "import", "--history", self.history, EP).returncode, 0)
        big = os.path.join(SOURCE, "reports", "data", "h100-2026-11-23-cg-cuda-opencl-poisson2d-2048-f64-12-repetitions.json")
        r = subprocess.run([sys.executable, TRACK, "import", "--history", self.history, big], capture_output=True,
                           text=True, preexec_fn=limited(1024))  # the rollback journal holds whole pages
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotIn("cannot rollback", r.stderr)
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertEqual(sqlite3.connect(self.history).execute("SELECT count(*) FROM runs").fetchone()[0], 1)

    def test_9_files_that_never_end_directories_and_devices_are_refused_by_name(self):
        for path, kind in (("/dev/zero", "a character device"), (self.dir, "a directory")):
            self.expect(run(REPORT, "table", path), 3, path, kind)
            self.expect(run(TRACK, "import", "--history", self.history, path), 3, path, kind)
            self.expect(run(REPORT, "table", "--kind", "sweep", path), 3, path)
        fifo = os.path.join(self.dir, "pipe.json")
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", f"cat '{EP}' > '{fifo}'"])
        r = run(REPORT, "table", fifo)  # a named pipe the user asks for is read
        writer.wait()
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_13_bad_option_values_are_usage_errors(self):
        self.history_with_runs()
        png = os.path.join(self.dir, "f.png")
        for option in (["--width", "-5"], ["--width", "nan"], ["--height", "0"], ["--dpi", "100000"], ["--dpi", "0"]):
            r = run(REPORT, "figure", EP, "--kind", "speedup", "--baseline", "openmp:serial", "--out", png, *option)
            self.assertNotIn("Traceback", r.stderr)
            self.assertEqual(r.returncode, 2, r.stderr)
        r = run(REPORT, "figure", EP, "--kind", "speedup", "--baseline", "openmp:serial", "--out", png,
                "--width", "100", "--dpi", "1200")
        self.expect(r, 2, "pixels")
        self.assertFalse(os.path.exists(png))
        for option in (["--alpha", "5"], ["--alpha", "-1"], ["--min-effect", "nan"], ["--recent", "0"],
                       ["--busy-timeout", "-1"]):
            self.expect(run(TRACK, "check", "--no-remeasure", "--history", self.history, *option), 2)
        self.expect(run(TRACK, "export-reframe", "--history", self.history, "--out", os.path.join(self.dir, "x"),
                        "--system", "a b:c"), 2, "--system")


if __name__ == "__main__":
    unittest.main()
