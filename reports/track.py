#!/usr/bin/python3
"""gpubench track: the performance history (issue 17: its store, so far).

    gpubench track import RECORDS.json ... [--history PATH]
    gpubench track show [--history PATH] [--match TEXT]

The history is one SQLite file (default $XDG_DATA_HOME/gpubench/history.sqlite, else
~/.local/share/gpubench/history.sqlite) holding every repetition of every point of every run,
with the run's commit, date, machine and devices. A records file is one run; importing it again
changes nothing (runs are keyed by their content). Each run is written in one transaction: a
process killed mid-import leaves the history as it was before that run.
"""
import argparse
import hashlib
import json
import os
import signal
import sqlite3
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import ReportError, points_of  # noqa: E402

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,      -- sha256 of the records file: a run is imported once
  gpubench_commit TEXT NOT NULL,
  date TEXT NOT NULL,               -- the records' context date (ISO 8601)
  machine TEXT NOT NULL,            -- host name and CPU count
  devices TEXT NOT NULL,            -- the context's devices (JSON): API, name, driver, compute units
  source TEXT NOT NULL              -- the file it came from
);
CREATE TABLE IF NOT EXISTS benchmarks (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,        -- suite/problem/backend:index/variant/precision @ device
  suite TEXT NOT NULL, problem TEXT NOT NULL, backend TEXT NOT NULL, device_index INTEGER NOT NULL,
  device TEXT NOT NULL, variant TEXT NOT NULL, precision TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  repetition INTEGER NOT NULL,
  seconds REAL NOT NULL,            -- one repetition's time per iteration
  PRIMARY KEY (run_id, benchmark_id, repetition)
);
CREATE TABLE IF NOT EXISTS failures (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, benchmark_id)
);
CREATE INDEX IF NOT EXISTS samples_by_benchmark ON samples(benchmark_id, run_id);
"""


class TrackError(Exception):
    pass


def default_history():
    data = os.environ.get("XDG_DATA_HOME", "")
    if not data.startswith("/"):  # the XDG rules: a relative XDG_DATA_HOME is ignored
        home = os.environ.get("HOME")
        if not home:
            raise TrackError("no place for the history: set HOME or XDG_DATA_HOME, or name it with --history PATH")
        data = os.path.join(home, ".local", "share")
    return os.path.join(data, "gpubench", "history.sqlite")


def open_history(path, create=True):
    if not create and not os.path.exists(path):
        raise TrackError(f"no history at {path} (gpubench track import makes one)")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        db = sqlite3.connect(path, isolation_level=None)  # transactions are explicit: BEGIN ... COMMIT
        db.execute("PRAGMA foreign_keys = ON")
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise TrackError(f"{path}: the history is damaged ({check})")
        db.executescript(SCHEMA)
    except sqlite3.DatabaseError as e:
        raise TrackError(f"{path}: not a gpubench history ({e})")
    return db


def import_run(db, path):
    """One records file as one run, in one transaction. Returns (imported, samples)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        records = json.loads(raw)
    except (OSError, ValueError) as e:
        raise TrackError(f"{path}: {e}")
    points = points_of(records, path)  # checks the file before anything is written
    digest = hashlib.sha256(raw).hexdigest()
    if db.execute("SELECT 1 FROM runs WHERE digest = ?", (digest,)).fetchone():
        return False, 0
    context = records.get("context", {})
    if not context.get("date") or not context.get("gpubench_commit"):
        raise TrackError(f"{path}: its context has no date or gpubench_commit: not a run gpubench wrote")
    machine = f"{context.get('host_name', '?')} ({context.get('num_cpus', '?')} CPUs)"
    devices = json.dumps([{k: d.get(k) for k in ("backend", "index", "api", "name", "driver", "compute_units")}
                          for d in context.get("devices", [])])
    kill_after = int(os.environ.get("GPUBENCH_TRACK_KILL_AFTER_SAMPLES", "0") or 0)  # test hook: a killed import
    samples = 0
    db.execute("BEGIN IMMEDIATE")
    try:
        cur = db.execute("INSERT INTO runs (digest, gpubench_commit, date, machine, devices, source) VALUES (?,?,?,?,?,?)",
                         (digest, context["gpubench_commit"], context["date"], machine, devices, os.path.abspath(path)))
        run = cur.lastrowid
        for p in points.values():
            name = f"{p.label} @ {p.device}"
            db.execute("INSERT OR IGNORE INTO benchmarks (name, suite, problem, backend, device_index, device, variant,"
                       " precision) VALUES (?,?,?,?,?,?,?,?)",
                       (name, p.suite, p.problem, p.backend, p.device_index, p.device, p.variant, p.precision))
            bench = db.execute("SELECT id FROM benchmarks WHERE name = ?", (name,)).fetchone()[0]
            if p.error:
                db.execute("INSERT INTO failures VALUES (?,?,?)", (run, bench, p.error))
            for entry, seconds in zip(p.entries, p.times()):
                db.execute("INSERT INTO samples VALUES (?,?,?,?)", (run, bench, int(entry.get("repetition_index", 0)), seconds))
                samples += 1
                if kill_after and samples >= kill_after:
                    os.kill(os.getpid(), signal.SIGKILL)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return True, samples


def show(db, match):
    rows = db.execute("""
        SELECT b.name, r.date, r.gpubench_commit, s.seconds FROM samples s
        JOIN benchmarks b ON b.id = s.benchmark_id JOIN runs r ON r.id = s.run_id
        WHERE b.name LIKE ? ORDER BY b.name, r.date, r.id""", (f"%{match or ''}%",)).fetchall()
    by = {}
    for name, date, commit, seconds in rows:
        by.setdefault(name, {}).setdefault((date, commit), []).append(seconds)
    if not by:
        return "no benchmarks" + (f" matching '{match}'" if match else "") + " in the history\n"
    lines = ["| benchmark | runs | first | last | last commit | last median (ms) | range of medians (ms) |",
             "|---|---:|---|---|---|---:|---|"]
    for name, runs in by.items():
        medians = [statistics.median(v) * 1e3 for v in runs.values()]
        keys = list(runs)
        lines.append(f"| {name} | {len(runs)} | {keys[0][0][:10]} | {keys[-1][0][:10]} | {keys[-1][1]} | "
                     f"{medians[-1]:.4g} | {min(medians):.4g} - {max(medians):.4g} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gpubench track", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    i = sub.add_parser("import", help="load record files into the history (each file one run)")
    i.add_argument("records", nargs="+")
    s = sub.add_parser("show", help="each benchmark's runs in the history")
    s.add_argument("--match", help="only benchmarks whose name contains this")
    for p in (i, s):
        p.add_argument("--history", help="the history file (default $XDG_DATA_HOME/gpubench/history.sqlite)")
    args = parser.parse_args(argv)
    try:
        path = args.history or default_history()
        db = open_history(path, create=args.command == "import")
        if args.command == "import":
            added = skipped = total = 0
            for f in args.records:
                new, n = import_run(db, f)
                added, skipped, total = added + new, skipped + (not new), total + n
            print(f"gpubench track: {path}: imported {added} runs ({total} repetitions); "
                  f"{skipped} already in the history")
        else:
            sys.stdout.write(show(db, args.match))
        return 0
    except (TrackError, ReportError) as e:
        print(f"gpubench track: {e}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
