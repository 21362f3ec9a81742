#!/usr/bin/python3
"""Tests of reports/track.py (gpubench track): the history store. Importing the committed records
keeps every repetition with its run's commit, date, machine and devices; a run is imported once;
a process killed in the middle of an import leaves the history as it was; bad input is named."""
import glob
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import jsonschema

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACK = os.path.join(SOURCE, "reports", "track.py")
DATA = os.path.join(SOURCE, "reports", "data")
LU = os.path.join(DATA, "h100-2026-11-25-lu-cuda-4096.json")
EP = os.path.join(DATA, "h100-2026-11-23-ep-A-all-backends.json")


def track(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, TRACK] + list(args), capture_output=True, text=True, env=e)


def load(path):
    with open(path) as f:
        return json.load(f)


def repetitions_in(path):
    """Non-aggregate, verified repetitions of a records file."""
    with open(path) as f:
        records = json.load(f)
    return [b for b in records["benchmarks"] if b.get("run_type") != "aggregate" and not b.get("error_occurred")]


class History(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.history = os.path.join(self.dir, "h", "history.sqlite")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def rows(self, sql):
        db = sqlite3.connect(self.history)
        try:
            return db.execute(sql).fetchall()
        finally:
            db.close()

    def test_every_repetition_is_kept_with_its_run(self):
        r = track("import", "--history", self.history, LU, EP)
        self.assertEqual(r.returncode, 0, r.stderr)
        expected = len(repetitions_in(LU)) + len(repetitions_in(EP))
        self.assertIn(f"imported 2 runs ({expected} repetitions)", r.stdout)
        # The repetitions themselves; EP's run of both APIs adds its OpenCL/CUDA ratio series (TrackedMetrics).
        self.assertEqual(self.rows("SELECT count(*) FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id "
                                   "WHERE b.name NOT LIKE '%[opencl/cuda]%'")[0][0], expected)
        runs = self.rows("SELECT gpubench_commit, date, machine, devices FROM runs ORDER BY date")
        self.assertEqual([c for c, _, _, _ in runs], ["4c876d7", "917c939-dirty"])
        self.assertEqual(runs[1][1], "2026-11-25T12:51:21+0000")
        self.assertIn("16 CPUs", runs[1][2])
        self.assertIn("NVIDIA H100 80GB HBM3", runs[1][3])
        # One repetition, by value: the record's real_time in seconds.
        first = repetitions_in(LU)[0]
        name = (f"{first['suite']}/{first['problem']}/{first['backend']}:{first['device_index']}/{first['variant']}/"
                f"{first['precision']} @ {first['device']}")
        seconds = self.rows(f"SELECT s.seconds FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id "
                            f"JOIN runs r ON r.id = s.run_id WHERE b.name = '{name}' AND s.repetition = "
                            f"{first['repetition_index']} AND r.gpubench_commit = '917c939-dirty'")
        self.assertAlmostEqual(seconds[0][0], first["real_time"] * 1e-9)
        shown = track("show", "--history", self.history, "--match", "lu/4096/cuda:0/blocked/f64")
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("| lu/4096/cuda:0/blocked/f64 @ NVIDIA H100 80GB HBM3 | 1 | 2026-11-25 | 2026-11-25 | 917c939-dirty | 26.03 ms |",
                      shown.stdout)

    def test_a_run_is_imported_once(self):
        self.assertEqual(track("import", "--history", self.history, LU).returncode, 0)
        again = track("import", "--history", self.history, LU, LU)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("imported 0 runs (0 repetitions); 2 already in the history", again.stdout)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 1)

    def test_the_committed_records_import_as_the_readme_says(self):
        # The README's `gpubench track import --history H reports/data/*.json`: the glob holds sweeps'
        # records too, which are skipped (said), never half an import.
        files = glob.glob(os.path.join(DATA, "**", "*.json"), recursive=True)
        loaded = {f: load(f) for f in files}
        sweeps = [f for f in files if "sweeps" in loaded[f]]
        rooflines = [f for f in files if isinstance(loaded[f], list)]  # gpubench roofline --format json
        schema = {f: loaded[f].get("schema") if isinstance(loaded[f], dict) else None for f in files}
        tuning = [f for f in files if schema[f] == "gpubench-tuning-db"]
        specs = [f for f in files if schema[f] == "gpubench-kernel-spec"]
        self.assertGreater(len(sweeps), 0)
        self.assertGreater(len(rooflines), 0)
        self.assertGreater(len(tuning), 0)  # the sweeps' entries kept beside their records
        self.assertGreater(len(specs), 0)  # the specs a data folder's points ran
        r = track("import", "--history", self.history, *files)
        self.assertEqual(r.returncode, 0, r.stderr)
        for f in tuning:
            self.assertIn(f"{f}: a tuning database's file, not a run's records", r.stderr)
        for f in specs:
            self.assertIn(f"{f}: a kernel spec, not a run's records", r.stderr)
        skipped = len(sweeps) + len(rooflines) + len(tuning) + len(specs)
        self.assertIn(f"imported {len(files) - skipped} runs", r.stdout)
        self.assertIn(f"{skipped} files skipped (not runs)", r.stdout)
        self.assertIn("a sweep's records, not a run's", r.stderr)
        self.assertIn("a roofline's ceilings, not a run's records", r.stderr)
        failed = self.rows("SELECT count(*) FROM failures")[0][0]
        self.assertGreater(failed, 0)  # the LU study's points over the time limit: kept as failures, no time

    def test_a_run_is_its_content_not_its_bytes(self):
        # Issue 32 item 2: the same records pretty-printed, compacted or with CRLF line ends are one run.
        records = load(EP)
        copies = []
        for name, text in (("pretty.json", json.dumps(records, indent=4)),
                           ("compact.json", json.dumps(records, separators=(",", ":"))),
                           ("crlf.json", json.dumps(records, indent=1).replace("\n", "\r\n"))):
            path = os.path.join(self.dir, name)
            with open(path, "w", newline="") as f:
                f.write(text)
            copies.append(path)
        gzipped = os.path.join(self.dir, "gzipped.json.gz")  # as the project's records are committed
        with open(EP, "rb") as f, open(gzipped, "wb") as out:
            out.write(gzip.compress(f.read()))
        copies.append(gzipped)
        r = track("import", "--history", self.history, EP, *copies)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("imported 1 runs", r.stdout)
        self.assertIn("4 already in the history", r.stdout)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 1)

    def test_a_damaged_gzip_is_named_and_nothing_goes_in(self):
        with open(EP, "rb") as f:
            packed = gzip.compress(f.read())
        cut, garbage = os.path.join(self.dir, "cut.json.gz"), os.path.join(self.dir, "garbage.json.gz")
        with open(cut, "wb") as f:
            f.write(packed[: len(packed) // 2])
        with open(garbage, "wb") as f:
            f.write(b"not gzip at all")
        for bad in (cut, garbage):
            r = track("import", "--history", self.history, LU, bad)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn(os.path.basename(bad), r.stderr)
            self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 0)

    def test_a_busy_history_is_waited_for_then_named_busy_not_damaged(self):
        # Issue 32 item 7: another process writing the history is waited for (--busy-timeout), then said.
        self.assertEqual(track("import", "--history", self.history, EP).returncode, 0)
        holder = sqlite3.connect(self.history, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            r = track("import", "--busy-timeout", "0.5", "--history", self.history, LU)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.assertEqual(r.returncode, 5, r.stdout + r.stderr)  # I/O: a busy history (the README's table)
        self.assertIn("another gpubench is writing this history (waited 0.5 s", r.stderr)
        self.assertNotIn("not a gpubench history", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        r = track("import", "--history", self.history, LU)  # once it is free, the import goes in
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 2)

    def test_an_import_is_all_or_nothing(self):
        bad = os.path.join(self.dir, "bad.json")
        with open(bad, "w") as f:
            f.write("{\"benchmarks\": [")
        r = track("import", "--history", self.history, EP, LU, bad)
        self.assertEqual(r.returncode, 3)
        self.assertIn("bad.json", r.stderr)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 0)  # neither EP nor LU went in

    def test_records_made_with_a_test_hook_are_refused_unless_allowed(self):
        with open(EP) as f:
            records = json.load(f)
        records["context"]["test_hooks"] = {"GPUBENCH_SLOWDOWN": "10@cg"}
        planted = os.path.join(self.dir, "planted.json")
        with open(planted, "w") as f:
            json.dump(records, f)
        r = track("import", "--history", self.history, LU, planted)
        self.assertEqual(r.returncode, 3)
        self.assertIn("planted.json: made with test hooks set (GPUBENCH_SLOWDOWN=10@cg)", r.stderr)
        self.assertIn("--allow-test-hooks", r.stderr)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 0)
        r = track("import", "--allow-test-hooks", "--history", self.history, planted)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.rows("SELECT kind FROM runs"), [("import (test hooks)",)])

    def test_an_import_killed_mid_write_leaves_the_history_as_it_was(self):
        self.assertEqual(track("import", "--history", self.history, EP).returncode, 0)
        before = self.rows("SELECT count(*) FROM samples")[0][0]
        killed = track("import", "--history", self.history, LU, env={"GPUBENCH_TRACK_KILL_AFTER_SAMPLES": "5"})
        self.assertEqual(killed.returncode, -9)  # SIGKILL, in the middle of the run's transaction
        self.assertEqual(self.rows("PRAGMA integrity_check")[0][0], "ok")
        self.assertEqual(self.rows("SELECT count(*) FROM samples")[0][0], before)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 1)
        again = track("import", "--history", self.history, LU)  # and the run imports whole afterwards
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(self.rows("SELECT count(*) FROM samples")[0][0], before + len(repetitions_in(LU)))

    def test_bad_input_is_named_and_changes_nothing(self):
        self.assertEqual(track("import", "--history", self.history, EP).returncode, 0)
        bad = os.path.join(self.dir, "bad.json")
        with open(bad, "w") as f:
            f.write("{\"benchmarks\": [")
        r = track("import", "--history", self.history, bad)
        self.assertEqual(r.returncode, 3)
        self.assertIn("bad.json", r.stderr)
        broken = os.path.join(self.dir, "broken.json")
        with open(LU) as f:
            records = json.load(f)
        next(b for b in reversed(records["benchmarks"]) if b.get("run_type") != "aggregate").pop("real_time")
        with open(broken, "w") as f:
            json.dump(records, f)
        r = track("import", "--history", self.history, broken)
        self.assertEqual(r.returncode, 3)
        self.assertIn("no real_time", r.stderr)
        self.assertEqual(self.rows("SELECT count(*) FROM runs")[0][0], 1)  # the broken run left nothing
        notdb = os.path.join(self.dir, "notdb.sqlite")
        with open(notdb, "w") as f:
            f.write("not a database" * 100)
        r = track("show", "--history", notdb)
        self.assertEqual(r.returncode, 3)
        self.assertIn("notdb.sqlite", r.stderr)
        r = track("show", "--history", os.path.join(self.dir, "none.sqlite"))
        self.assertEqual(r.returncode, 3)
        self.assertIn("no history at", r.stderr)

    def test_the_default_history_is_per_user(self):
        home = os.path.join(self.dir, "home")
        r = track("import", LU, env={"HOME": home, "XDG_DATA_HOME": ""})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(home, ".local", "share", "gpubench", "history.sqlite")))
        r = track("show", env={"HOME": home, "XDG_DATA_HOME": os.path.join(self.dir, "xdg")})
        self.assertEqual(r.returncode, 3)
        self.assertIn(os.path.join(self.dir, "xdg", "gpubench", "history.sqlite"), r.stderr)


sys.path.insert(0, os.path.join(SOURCE, "reports"))
sys.dont_write_bytecode = True
import datetime  # noqa: E402

from gpubench_reports import detection, history as histories  # noqa: E402


class TrackedMetrics(unittest.TestCase):
    """Issue 38 item 5: each point's energy and the OpenCL/CUDA time ratio are series of their own."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.history = os.path.join(self.dir, "history.sqlite")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def records(self, name, opencl_ms, cuda_ms, watts):
        benchmarks = []
        for backend, ms in (("opencl", opencl_ms), ("cuda", cuda_ms)):
            for i, t in enumerate(ms):
                benchmarks.append({"name": f"gemm/64/{backend}:0/tiled/f32", "run_name": f"gemm/64/{backend}:0/tiled/f32",
                                   "run_type": "iteration", "suite": "gemm", "problem": "64", "backend": backend,
                                   "device_index": 0, "device": "GPU X", "variant": "tiled", "precision": "f32",
                                   "repetition_index": i, "real_time": t, "time_unit": "ms", "verified": True,
                                   "energy": {"source": "planted", "watts": watts[backend]}})
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump({"context": {"date": "2026-11-27T10:00:00+0000", "gpubench_commit": name[:7],
                                   "host_name": "h", "num_cpus": 2}, "benchmarks": benchmarks}, f)
        return path

    def test_energy_and_the_api_ratio_are_tracked_with_their_units(self):
        path = self.records("run.json", [2.0, 2.2, 2.4], [1.0, 1.0, 1.0], {"opencl": 300.0, "cuda": 250.0})
        r = track("import", "--history", self.history, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        db = sqlite3.connect(self.history)
        try:
            series = dict(db.execute("SELECT b.name, group_concat(s.seconds) FROM samples s JOIN benchmarks b "
                                     "ON b.id = s.benchmark_id GROUP BY b.name").fetchall())
        finally:
            db.close()
        energy = [float(v) for v in series["gemm/64/opencl:0/tiled/f32 [J/iter] @ GPU X"].split(",")]
        self.assertEqual([round(v, 6) for v in sorted(energy)], [0.6, 0.66, 0.72])  # 300 W x 2.0, 2.2, 2.4 ms
        ratio = [float(v) for v in series["gemm/64/opencl/cuda/tiled/f32 [opencl/cuda] @ GPU X"].split(",")]
        self.assertEqual([round(v, 6) for v in sorted(ratio)], [2.0, 2.2, 2.4])
        self.assertEqual(len(series), 5)  # two times, two energies, one ratio
        shown = track("show", "--history", self.history, "--match", "[J/iter]")
        self.assertIn("| 660 mJ | 660 - 660 mJ |", shown.stdout)
        shown = track("show", "--history", self.history, "--match", "opencl/cuda")
        self.assertIn("2.2 x", shown.stdout)


def assessed(levels, noise=0.005, seed=3, repetitions=10):
    """track's verdict on a history whose night k sits at levels[k] (x 1 ms), with noise."""
    import random
    rng = random.Random(seed)
    runs, reps = [], {}
    for k, level in enumerate(levels):
        centre = 1e-3 * level * (1 + rng.gauss(0, noise))
        values = sorted(centre * (1 + rng.gauss(0, noise / 2)) for _ in range(repetitions))
        reps[k] = values
        runs.append((k, f"2026-10-{k + 1:02}T03:00:00", f"c{k:02}", values[repetitions // 2], values[2], values[-3], repetitions))
    a = detection.Assessment(1, "synthetic", runs)
    return detection.assess(a, detection.Options(), lambda ids: [v for i in ids for v in reps[i]])


def nights(path, levels, name="cg/poisson2d:64/openmp:0/classic/f64 @ synthetic CPU", first=0, noise=0.004, seed=7,
           repetitions=10):
    """Adds nights to a history (made if missing): night first + k at levels[k] (x 1 ms), with noise,
    commit c<night>, dated 2026-10-01 plus k days."""
    import random
    rng = random.Random(seed + first)
    db = histories.open_history(path)
    db.execute("BEGIN")
    db.execute("INSERT OR IGNORE INTO benchmarks (name, suite, problem, backend, device_index, device, variant, precision)"
               " VALUES (?, 'cg', 'poisson2d:64', 'openmp', 0, 'synthetic CPU', 'classic', 'f64')", (name,))
    bench = db.execute("SELECT id FROM benchmarks WHERE name = ?", (name,)).fetchone()[0]
    for k, level in enumerate(levels, start=first):
        date = (datetime.datetime(2026, 10, 1) + datetime.timedelta(days=k)).isoformat()
        run = db.execute("INSERT INTO runs (digest, gpubench_commit, date, machine, devices, source) VALUES (?,?,?,?,?,?)",
                         (f"{name}-{k}", f"c{k:02}", date, "synthetic (2 CPUs)", "[]", "synthetic")).lastrowid
        centre = 1e-3 * level * (1 + rng.gauss(0, noise))
        values = sorted(centre * (1 + rng.gauss(0, noise / 2)) for _ in range(repetitions))
        for i, v in enumerate(values):
            db.execute("INSERT INTO samples VALUES (?,?,?,?)", (run, bench, i, v))
        db.execute("INSERT INTO medians VALUES (?,?,?,?,?,?)", (run, bench, values[repetitions // 2], values[2],
                                                                  values[-3], repetitions))
    db.execute("COMMIT")
    db.close()


class Alerts(unittest.TestCase):
    """Issue 32 item 11: a regression stays open until its level returns or someone acknowledges it."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.history = os.path.join(self.dir, "history.sqlite")
        self.verdicts = os.path.join(self.dir, "verdicts.json")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check(self, *more):
        r = track("check", "--no-remeasure", "--history", self.history, "--json", self.verdicts, *more)
        self.assertNotIn("Traceback", r.stderr)
        return r, load(self.verdicts)["alerts"]

    def test_a_regression_no_check_saw_land_is_reported_and_stays_open(self):
        # +10% on night 12 of 20; no check ran until night 20 (its step is 9 runs old: not "recent").
        nights(self.history, [1.0] * 11 + [1.1] * 9)
        r, alerts = self.check()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        line = next(x for x in r.stdout.splitlines() if x.startswith("REGRESSION"))
        self.assertIn("since c11 (2026-10-12), before it c10 (2026-10-11)", line)
        self.assertIn("found by this check", line)
        self.assertEqual([(x["state"], x["commit"]) for x in alerts], [("open", "c11")])
        self.assertAlmostEqual(alerts[0]["change"], 0.10, delta=0.02)
        nights(self.history, [1.1] * 5, first=20)  # five more nights at the slower level: still open
        r, alerts = self.check()
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertRegex(r.stdout, r"REGRESSION  .*since c11 .*open since \d{4}-\d\d-\d\d")
        self.assertEqual(len(alerts), 1)

    def test_it_closes_when_the_level_returns(self):
        nights(self.history, [1.0] * 11 + [1.1] * 9)
        self.assertEqual(self.check()[0].returncode, 1)
        nights(self.history, [1.0] * 3, first=20)
        r, alerts = self.check()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("closed      ", r.stdout)
        self.assertIn("is over: back within the minimum effect of before it since c20", r.stdout)
        self.assertEqual([(x["state"], x["closed_commit"]) for x in alerts], [("closed", "c20")])
        r, alerts = self.check()  # said once, kept
        self.assertNotIn("closed      ", r.stdout)
        self.assertEqual([x["state"] for x in alerts], ["closed"])

    def test_an_acknowledged_regression_passes_the_check_and_a_new_one_does_not(self):
        nights(self.history, [1.0] * 11 + [1.1] * 9)
        r = track("ack", "classic/f64", "--history", self.history, "--reason", "the new  smoother costs 10%")
        self.assertEqual(r.returncode, 0, r.stderr)  # no check ran before: ack finds it itself
        self.assertIn("acknowledged cg/poisson2d:64/openmp:0/classic/f64 @ synthetic CPU: +", r.stdout)
        r, alerts = self.check()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("acknowledged cg/poisson2d:64", r.stdout)
        self.assertIn(": the new smoother costs 10%", r.stdout)
        self.assertEqual(alerts[0]["state"], "acknowledged")
        nights(self.history, [1.25] * 3, first=20)  # a further step: a new regression, not covered
        r, alerts = self.check()
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertEqual(sorted((x["state"], x["commit"]) for x in alerts), [("acknowledged", "c11"), ("open", "c20")])

    def test_an_acknowledgement_until_a_day_lapses_after_it(self):
        nights(self.history, [1.0] * 11 + [1.1] * 9)
        r = track("ack", "cg/poisson2d:64/openmp:0/classic/f64 @ synthetic CPU", "--history", self.history,
                  "--reason", "until the driver update", "--until", "2999-01-01")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.check()[0].returncode, 0)
        db = sqlite3.connect(self.history)
        db.execute("UPDATE alerts SET ack_until = '2026-01-01'")  # that day has passed
        db.commit()
        db.close()
        r, alerts = self.check()
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("its acknowledgement lapsed after 2026-01-01 (until the driver update)", r.stdout)
        self.assertTrue(alerts[0]["acknowledged"]["lapsed"])

    def test_ack_refuses_what_it_cannot_do(self):
        nights(self.history, [1.0] * 20)
        nights(self.history, [1.0] * 11 + [1.1] * 9, name="gemm/64/openmp:0/naive/f64 @ synthetic CPU")
        nights(self.history, [1.0] * 11 + [1.1] * 9, name="gemm/64/openmp:0/tiled/f64 @ synthetic CPU")
        cases = [(["classic", "--reason", "x"], 3, "no open regression of cg/poisson2d:64"),
                 (["nothing/like/it", "--reason", "x"], 3, "no benchmark of the history has that name"),
                 (["gemm", "--reason", "x"], 3, "names 2 benchmarks with open regressions"),
                 (["naive", "--reason", "  "], 2, "--reason: say why"),
                 (["naive", "--reason", "x", "--until", "next week"], 2, "not a date"),
                 (["naive", "--reason", "x", "--until", "2020-01-01"], 2, "that day is over")]
        for args, code, message in cases:
            r = track("ack", "--history", self.history, *args)
            self.assertEqual((r.returncode, r.stderr.count("\n")), (code, 1 + (message.startswith("names") * 2)),
                             args + [r.stderr])
            self.assertIn(message, r.stderr)
        self.assertEqual(self.check()[0].returncode, 1)  # nothing was acknowledged

    def test_the_dashboard_lists_open_acknowledged_and_closed_ones(self):
        nights(self.history, [1.0] * 11 + [1.1] * 9, name="a/1/openmp:0/x/f64 @ cpu")
        nights(self.history, [1.0] * 11 + [1.1] * 9, name="b/1/openmp:0/x/f64 @ cpu")
        nights(self.history, [1.0] * 8 + [1.1] * 6 + [1.0] * 6, name="c/1/openmp:0/x/f64 @ cpu")
        self.assertEqual(track("ack", "b/1", "--history", self.history, "--reason", "accepted").returncode, 0)
        site = os.path.join(self.dir, "site")
        r = track("publish", "--history", self.history, "--out", site)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(site, "index.html")) as f:
            index = f.read()
        states = {row.split("</a>")[0].rsplit(">", 1)[1][0]: row.split('data-state="')[1].split('"')[0]
                  for row in index.split('<tr class="alert"')[1:]}
        self.assertEqual(states, {"a": "open", "b": "acknowledged", "c": "closed"})


class ProjectHistory(unittest.TestCase):
    """Issue 32 item 12: the project's own H100 history is committed (records), checks, and its
    published dashboard is the one those records make, linked from the README."""
    RECORDS = os.path.join(SOURCE, "reports", "track", "records")
    SITE = os.path.join(SOURCE, "reports", "track", "site")

    def test_the_records_import_and_check_and_the_site_is_theirs(self):
        records = sorted(glob.glob(os.path.join(self.RECORDS, "*.json.gz")))
        self.assertGreaterEqual(len(records), 5)
        # Committed gzipped (about 1/28 of the bytes): the checkout travels to the GPU machine with
        # every device call, 64 MiB at most with the bundle.
        plain = [os.path.basename(p) for p in glob.glob(os.path.join(self.RECORDS, "*")) if not p.endswith(".json.gz")]
        self.assertEqual(plain, [], "records not gzipped: gzip -9n reports/track/records/*.json")
        work = tempfile.mkdtemp()
        try:
            history = os.path.join(work, "h.sqlite")
            r = track("import", "--history", history, *records)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"imported {len(records)} runs", r.stdout)
            r = track("check", "--no-remeasure", "--history", history)
            self.assertIn(r.returncode, (0, 1), r.stderr)  # 1: a regression to deal with, said below
            self.assertNotIn("Traceback", r.stderr)
            self.assertIn(" with too little history", r.stdout)
            db = sqlite3.connect(history)
            names = {n for (n,) in db.execute("SELECT name FROM benchmarks")}
            # The points' times; their energy series began on 2026-11-27 (issue 38), with one run. A
            # machine the tracked set has run on fewer than 5 times has too little history for a
            # verdict yet, which check says; on a machine with 5 runs, every benchmark has 5 but one
            # the set gained fewer than 5 of the machine's days with runs ago (Clang's offload
            # points, from 2026-12-02 on the H200), which has only those days' runs so far.
            rows = db.execute("SELECT b.name, r.date FROM medians m JOIN benchmarks b ON b.id = m.benchmark_id "
                              "JOIN runs r ON r.id = m.run_id WHERE b.name NOT LIKE '%[J/iter]%'").fetchall()
            by_machine = {}
            for name, date in rows:
                by_machine.setdefault(name.rsplit(" @ ", 1)[-1], {}).setdefault(name, []).append(date[:10])
            tracked = []
            for series in by_machine.values():
                machine_days = sorted({day for days in series.values() for day in days})
                counts = [len(days) for days in series.values()
                          if sum(1 for day in machine_days if day >= min(days)) >= 5]
                if counts and max(counts) >= 5:
                    tracked += counts
            self.assertTrue(tracked, "no machine has 5 runs")
            fewest = min(tracked)
            self.assertTrue(any("[J/iter] @" in n for n in names) and any("[opencl/cuda] @" in n for n in names))
            newest = db.execute("SELECT max(date) FROM runs").fetchone()[0]
            db.close()
            self.assertGreaterEqual(fewest, 5, "a verdict needs 5 runs of each benchmark")
        finally:
            shutil.rmtree(work)
        # The committed site was published from these very records: the same benchmarks, the same newest run.
        with open(os.path.join(self.SITE, "verdicts.json")) as f:
            self.assertEqual({v["benchmark"] for v in json.load(f)}, names)
        with open(os.path.join(self.SITE, "index.html")) as f:
            index = f.read()
        self.assertIn(f"{len(records)} runs from ", index)  # records added since: publish again (README)
        self.assertIn(f"to {newest[:10]} on ", index)
        with open(os.path.join(SOURCE, "README.md")) as f:
            self.assertIn("(reports/track/site/index.html)", f.read())


# A stand-in for `gpubench run` (GPUBENCH_BINARY) in the user's project: EP's records of a real run,
# each time per iteration the project's `speed` file times the template's (with a small spread), dated
# night FAKE_NIGHT. The project is the work tree or checkout track names (GPUBENCH_PROJECT_DIR); there
# `speed.built`, which the set's build command makes, is read where it is. It measures nothing: it
# lets the test plant a slower commit in a project of its own.
FAKE_RUN = """#!/usr/bin/python3
import json, os, sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
with open(os.environ["FAKE_TEMPLATE"]) as f:
    records = json.load(f)
project = os.environ.get("GPUBENCH_PROJECT_DIR") or os.environ["FAKE_PROJECT"]  # a set of no project: FAKE_PROJECT
built = os.path.join(project, "speed.built")
with open(built if os.path.exists(built) else os.path.join(project, "speed")) as f:
    factor = float(f.read())
night = int(os.environ.get("FAKE_NIGHT", "1"))
records["context"]["date"] = "2026-11-%02dT03:00:00+0000" % night
records["benchmarks"] = [b for b in records["benchmarks"] if b["name"].startswith("ep/npb:A/cuda:0/reduce/")]
for i, b in enumerate(records["benchmarks"]):
    b["real_time"] *= factor * (1 + 0.002 * ((i + night) % 3))
    if os.environ.get("FAKE_BUSY"):  # as gpubench says a point another process slowed
        b["machine_load"] = {"others_cpu_fraction": 0.6, "cpus": 2, "seconds": 3.0, "busy": True}
with open(out, "w") as f:
    json.dump(records, f)
"""


class UsersProject(unittest.TestCase):
    """Issue 58 item 1: a tracked set names the project it tracks (by default the git work tree it lies
    in); each run carries that project's commit, branch and dirty state beside gpubench's own, and the
    check blames the project's commit range, not gpubench's."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.project = os.path.join(self.dir, "project")
        os.makedirs(self.project)
        self.history = os.path.join(self.dir, "history.sqlite")
        fake = os.path.join(self.dir, "fake-gpubench")
        with open(fake, "w") as f:
            f.write(FAKE_RUN)
        os.chmod(fake, 0o755)
        self.env = {"GPUBENCH_BINARY": fake, "FAKE_TEMPLATE": EP}
        self.git("init", "-q", "-b", "main")
        with open(os.path.join(self.project, "tracked.json"), "w") as f:
            json.dump({"repetitions": 3, "runs": [{"name": "ep", "args": ["--suite", "ep", "--problem", "A"]}]}, f)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def git(self, *args, env=None):
        r = subprocess.run(["git", "-C", self.project, "-c", "user.name=t", "-c", "user.email=t@example.org"]
                           + list(args), capture_output=True, text=True, env=dict(os.environ, **(env or {})))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def commit(self, speed, message, day=1):
        with open(os.path.join(self.project, "speed"), "w") as f:
            f.write(str(speed))
        with open(os.path.join(self.project, "kernel.c"), "a") as f:
            f.write(f"// {message}\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, env={"GIT_COMMITTER_DATE": f"2026-10-{day:02}T12:00:00+00:00"})
        return self.git("rev-parse", "HEAD")

    def night(self, n):
        r = track("run", "--set", os.path.join(self.project, "tracked.json"), "--history", self.history,
                  "--records", os.path.join(self.dir, "records"), env=dict(self.env, FAKE_NIGHT=str(n)))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_slower_commit_of_the_project_is_named_with_its_range(self):
        commits = [self.commit(1.0, f"change {n}") for n in range(1, 2)]
        self.night(1)
        for n in range(2, 9):
            commits.append(self.commit(1.0, f"change {n}"))
            self.night(n)
        slow = self.commit(3.0, "the slow one")
        self.night(9)
        later = self.commit(3.0, "after it")
        self.night(10)
        verdicts = os.path.join(self.dir, "verdicts.json")
        r = track("check", "--no-remeasure", "--history", self.history, "--json", verdicts)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        line = [x for x in r.stdout.splitlines() if x.startswith("REGRESSION")]
        self.assertEqual(len(line), 1, r.stdout)
        gpubench_commit = load(EP)["context"]["gpubench_commit"]
        self.assertIn(f"since {slow[:12]} (gpubench {gpubench_commit}) (2026-11-09)", line[0])
        self.assertIn(f"before it {commits[-1][:12]} (gpubench {gpubench_commit})", line[0])
        self.assertIn(f"the project changed: git log {commits[-1][:12]}..{slow[:12]} lists its commits; gpubench the same",
                      line[0])
        self.assertNotIn("the same commit on both sides", line[0])
        # The CI outputs name it too: JUnit (a failure of that benchmark's test case) and markdown.
        junit, summary = os.path.join(self.dir, "check.xml"), os.path.join(self.dir, "check.md")
        r = track("check", "--no-remeasure", "--history", self.history, "--junit", junit, "--markdown", summary,
                  "--dashboard-url", "https://perf.example.org/gpubench")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        suite = ET.parse(junit).getroot().find("testsuite")
        self.assertEqual((suite.get("tests"), suite.get("failures")), ("1", "1"))
        failure = suite.find("testcase").find("failure")
        self.assertEqual(failure.get("type"), "regression")
        self.assertIn(f"since {slow[:12]} (gpubench {gpubench_commit})", failure.get("message"))
        with open(summary) as f:
            text = f.read()
        self.assertIn("## gpubench track check: FAILED", text)
        self.assertIn(f"| `{slow[:12]} (gpubench {gpubench_commit})` 2026-11-09 |", text)
        self.assertIn(f"git log {commits[-1][:12]}..{slow[:12]}", text)
        self.assertIn("(https://perf.example.org/gpubench/b/1.html)", text)
        # Bencher's Metric Format of the newest run: its published schema, the time in ns.
        exported = os.path.join(self.dir, "bmf.json")
        r = track("export", "--format", "bmf", "--out", exported, "--history", self.history)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(SOURCE, "tests", "data", "bencher-bmf.schema.json")) as f:
            jsonschema.validate(load(exported), json.load(f))
        (name, measures), = load(exported).items()
        self.assertIn("ep/npb:A/cuda:0/reduce/f64", name)
        self.assertAlmostEqual(measures["latency"]["value"] / 1e6, 3 * 1.2524, delta=0.05)  # ms of the slow commit
        # asv's results layout of every run: its published shape, keyed by the project's commits.
        asv = os.path.join(self.dir, "asv")
        r = track("export", "--format", "asv", "--out", asv, "--history", self.history)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(SOURCE, "tests", "data", "asv-results.schema.json")) as f:
            shapes = json.load(f)

        def valid(path, part):
            jsonschema.Draft7Validator(dict(shapes["definitions"][part], definitions=shapes["definitions"])).validate(load(path))
        valid(os.path.join(asv, "benchmarks.json"), "benchmarks")
        (machine,) = [m for m in os.listdir(asv) if os.path.isdir(os.path.join(asv, m))]
        valid(os.path.join(asv, machine, "machine.json"), "machine")
        files = sorted(f for f in os.listdir(os.path.join(asv, machine)) if f != "machine.json")
        self.assertEqual(files, sorted(f"{c[:8]}-gpubench.json" for c in commits + [slow, later]))
        for f in files:
            valid(os.path.join(asv, machine, f), "results")
        slow_results = load(os.path.join(asv, machine, f"{slow[:8]}-gpubench.json"))
        self.assertEqual(slow_results["commit_hash"], slow)
        (name, row), = [(k, v) for k, v in slow_results["results"].items() if k.startswith("ep.npb_A.cuda_0.reduce.f64")]
        self.assertAlmostEqual(row[0][0] * 1e3, 3 * 1.2524, delta=0.05)  # seconds, the slow commit's
        self.assertEqual(len(row[11][0]), row[10][0])  # every repetition's sample
        # Another folder's files are never written over (exit 2); the same folder again is.
        self.assertEqual(track("export", "--format", "asv", "--out", self.project, "--history", self.history).returncode, 2)
        self.assertEqual(track("export", "--format", "asv", "--out", asv, "--history", self.history).returncode, 0)
        alert = load(verdicts)["alerts"][0]
        self.assertEqual((alert["project_commit"], alert["previous_project_commit"], alert["gpubench_commit"]),
                         (slow, commits[-1], gpubench_commit))
        # The history keeps each run's project, commit and branch; the runs' list shows them.
        db = sqlite3.connect(self.history)
        rows = db.execute("SELECT project, project_commit, project_branch, project_dirty FROM runs ORDER BY date").fetchall()
        db.close()
        self.assertEqual(rows[-1], (os.path.realpath(self.project), later, "main", 0))
        self.assertIn(f"{later[:12]} (gpubench {gpubench_commit})", track("runs", "--history", self.history).stdout)
        # Uncommitted changes are said: the same commit on both sides is not called unchanged code.
        with open(os.path.join(self.project, "speed"), "w") as f:
            f.write("9.0")
        self.night(11)
        with open(os.path.join(self.project, "speed"), "w") as f:
            f.write("9.0")
        self.night(12)
        r = track("check", "--no-remeasure", "--history", self.history)
        self.assertIn(f"since {later[:12]}+dirty (gpubench {gpubench_commit})", r.stdout)
        self.assertIn("the project's commit is the same on both sides, with uncommitted changes", r.stdout)

    def test_a_remeasure_is_stamped_with_the_project_too(self):
        for n in range(1, 7):
            self.commit(1.0, f"change {n}")
            self.night(n)
        slow = self.commit(3.0, "the slow one")
        self.night(7)
        r = track("check", "--history", self.history, env=dict(self.env, FAKE_NIGHT="8"))  # re-measures tonight's
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"since {slow[:12]} (gpubench ", r.stdout)
        db = sqlite3.connect(self.history)
        rows = db.execute("SELECT kind, project_commit FROM runs ORDER BY date DESC, id DESC LIMIT 1").fetchall()
        db.close()
        self.assertEqual(rows, [("remeasure", slow)])

    def test_a_commit_range_is_measured_commit_by_commit_and_bisect_finds_the_slower_one(self):
        tracked = os.path.join(self.project, "tracked.json")
        with open(tracked, "w") as f:  # the build makes what the runs read, in each commit's checkout
            json.dump({"repetitions": 3, "build": "cp speed speed.built",
                       "runs": [{"name": "ep", "args": ["--suite", "ep", "--problem", "A"]}]}, f)
        commits = [self.commit(3.0 if day >= 8 else 1.0, f"change {day}", day) for day in range(1, 13)]
        r = track("run", "--set", tracked, "--history", self.history, "--records", os.path.join(self.dir, "records"),
                  "--commits", f"{commits[0]}..main", env=self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("[11/11] ", r.stderr)
        self.assertEqual(self.git("status", "--porcelain"), "")  # the project's own work tree is not written
        db = sqlite3.connect(self.history)
        rows = db.execute("SELECT project_commit, date, kind FROM runs ORDER BY date").fetchall()
        db.close()
        self.assertEqual([c for c, _, _ in rows], commits[1:])  # dated by their commits, so in their order
        self.assertEqual({k for _, _, k in rows}, {"commits"})
        r = track("check", "--no-remeasure", "--history", self.history)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"since {commits[7][:12]} (gpubench ", r.stdout)
        self.assertIn(f"git log {commits[6][:12]}..{commits[7][:12]}", r.stdout)
        # Bisect between the first and the last: the eighth, in at most 2 + log2(11) builds.
        r = track("bisect", "ep reduce cuda", commits[0], commits[-1], "--set", tracked, "--history", self.history,
                  "--records", os.path.join(self.dir, "records"), env=self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"the first slower commit is {commits[7]} (change 8)", r.stdout)
        builds = int(r.stdout.split(" builds for ")[0].rsplit(" ", 1)[-1])
        self.assertLessEqual(builds, 6, r.stdout)
        self.assertIn("builds for 11 commits", r.stdout)
        # Nothing slower between them: said, exit 3.
        r = track("bisect", "ep reduce cuda", commits[0], commits[5], "--set", tracked, "--history", self.history,
                  env=self.env)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("no step between them to find", r.stderr)
        r = track("run", "--set", tracked, "--history", self.history, "--commits", "nosuch..main", env=self.env)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("--commits nosuch..main: not commits of the project", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_commits_of_one_second_keep_their_order_through_a_bisect(self):
        # Commits made within one second (a script's, the guide's tutorial's) share their date: the
        # history orders their runs by the commits' place in the first-parent history, so that the
        # runs a bisect adds later stand with their commits' and the check still names the step.
        tracked = os.path.join(self.project, "tracked.json")
        with open(tracked, "w") as f:
            json.dump({"repetitions": 3, "build": "cp speed speed.built",
                       "runs": [{"name": "ep", "args": ["--suite", "ep", "--problem", "A"]}]}, f)
        commits = [self.commit(3.0 if n >= 5 else 1.0, f"change {n}", 1) for n in range(1, 9)]
        records = os.path.join(self.dir, "records")
        r = track("run", "--set", tracked, "--history", self.history, "--records", records,
                  "--commits", f"{commits[0]}..main", env=self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = track("bisect", "ep reduce cuda", commits[0], commits[-1], "--set", tracked, "--history", self.history,
                  "--records", records, env=dict(self.env, FAKE_NIGHT="2"))  # records of their own, each imported
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"the first slower commit is {commits[4]} (change 5)", r.stdout)
        # The runs' list (the history's order) has each commit's runs together, in the project's order.
        listed = [c for line in track("runs", "--history", self.history).stdout.splitlines()
                  for c in commits if f" {c[:12]} " in line]
        self.assertEqual(len(listed), 7 + 5, listed)  # the range's 7 runs and the bisect's 5
        self.assertEqual(listed, sorted(listed, key=commits.index))
        r = track("check", "--no-remeasure", "--history", self.history)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"since {commits[4][:12]} (gpubench ", r.stdout)

    def test_quiet_machine_keeps_a_busy_night_out_of_the_history(self):
        # Issue 58 item 4: a night whose points another process slowed is not recorded when asked.
        self.commit(1.0, "one")
        tracked = os.path.join(self.project, "tracked.json")
        r = track("run", "--set", tracked, "--history", self.history, "--records", os.path.join(self.dir, "records"),
                  "--quiet-machine", env=dict(self.env, FAKE_BUSY="1"))
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("not recorded (--quiet-machine): other processes kept the machine busy during 1 points", r.stderr)
        self.assertIn("60% of its 2 CPUs", r.stderr)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 0)
        db.close()
        # Without --quiet-machine it is recorded (the records say it was busy); a quiet night with it too.
        r = track("run", "--set", tracked, "--history", self.history, env=dict(self.env, FAKE_BUSY="1"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = track("run", "--set", tracked, "--history", self.history, "--quiet-machine", env=dict(self.env, FAKE_NIGHT="2"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 2)
        db.close()

    def test_a_named_project_that_is_no_work_tree_is_refused(self):
        plain = os.path.join(self.dir, "plain")
        os.makedirs(plain)
        tracked = os.path.join(plain, "set.json")
        with open(tracked, "w") as f:
            json.dump({"project": ".", "runs": [{"name": "ep", "args": ["--suite", "ep"]}]}, f)
        r = track("run", "--set", tracked, "--history", self.history, env=dict(self.env, FAKE_NIGHT="1"))
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn(f"its project {plain} is not a git work tree", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "records")))
        # Without "project", a set outside any work tree runs, stamped with gpubench's commit alone.
        with open(os.path.join(self.project, "speed"), "w") as f:
            f.write("1.0")
        with open(tracked, "w") as f:
            json.dump({"runs": [{"name": "ep", "args": ["--suite", "ep"]}]}, f)
        r = track("run", "--set", tracked, "--history", self.history, env=dict(self.env, FAKE_PROJECT=self.project))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        db = sqlite3.connect(self.history)
        self.assertEqual(db.execute("SELECT project, project_commit FROM runs").fetchall(), [(None, None)])
        db.close()


class Detection(unittest.TestCase):
    def test_a_step_on_tonight_alone_is_suspected_and_confirmed_by_a_second_run(self):
        a = assessed([1.0] * 20 + [1.05])
        self.assertEqual(a.verdict, "suspected")
        a = assessed([1.0] * 20 + [1.05, 1.05])
        self.assertEqual((a.verdict, a.runs[a.index][2], a.runs[a.index - 1][2]), ("regression", "c20", "c19"))
        self.assertAlmostEqual(a.change, 0.05, delta=0.01)

    def test_a_step_within_one_commit_says_the_code_did_not_change(self):
        # Issue 32 item 4 (its second half): "since f570fa3, before it f570fa3" now says why.
        a = assessed([1.0] * 20 + [1.3, 1.3])
        self.assertEqual(a.verdict, "regression")
        a.runs = [r[:2] + ("f570fa3",) + r[3:] for r in a.runs]
        line = detection.describe(a)
        self.assertIn("since f570fa3", line)
        self.assertIn("the same commit on both sides: the code did not change", line)
        b = assessed([1.0] * 20 + [1.3, 1.3])
        self.assertNotIn("the same commit", detection.describe(b))

    def test_the_step_is_named_where_it_began(self):
        a = assessed([1.0] * 20 + [1.1] * 3)
        self.assertEqual((a.verdict, a.index), ("regression", 20))
        a = assessed([1.0] * 20 + [0.9] * 2)
        self.assertEqual((a.verdict, a.index), ("improvement", 20))

    def test_a_lone_outlier_is_no_step(self):
        for where in (0, 7, 18):
            levels = [1.0] * 20
            levels[where] = 1.4
            a = assessed(levels)
            self.assertEqual((a.verdict, a.steps), ("same", []), where)

    def test_a_step_older_than_recent_is_history_not_news(self):
        a = assessed([1.0] * 20 + [1.1] * 10)
        self.assertEqual(a.verdict, "same")
        self.assertEqual([s for s, _ in a.steps], [20])

    def test_a_change_below_the_noise_or_the_minimum_effect_is_not_reported(self):
        self.assertEqual(assessed([1.0] * 20 + [1.01] * 3).verdict, "same")  # under --min-effect 2%
        self.assertEqual(assessed([1.0] * 20 + [1.04] * 2, noise=0.06, seed=5).verdict, "same")  # 6% noise

    def test_a_level_is_its_median_not_an_outlier_inside_it(self):
        # Issue 32 item 4 (its first half): a 5x step whose second night read 250x was "+4763.9%".
        a = assessed([1.0] * 20 + [5, 250, 5])
        self.assertEqual([s for s, _ in a.steps], [20])
        self.assertAlmostEqual(a.change, 4.0, delta=0.1)
        self.assertEqual(a.verdict, "regression")
        a = assessed([1.0] * 20 + [5] * 6 + [250, 5, 5, 5])
        self.assertAlmostEqual(a.steps[0][1], 4.0, delta=0.1)

    def test_every_confirmed_slower_step_of_the_history_is_a_regression(self):
        a = assessed([1.0] * 10 + [1.1] * 10 + [1.0] * 10 + [0.9] * 10)
        self.assertEqual(a.verdict, "same")
        self.assertEqual([s for s, *_ in a.regressions], [10])  # the steps back down are not

    def test_too_little_history_is_said(self):
        self.assertEqual(assessed([1.0, 1.0, 1.5]).verdict, "new")


if __name__ == "__main__":
    unittest.main()
