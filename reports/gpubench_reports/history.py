"""The tracking history: one SQLite file of every repetition of every point of every run, with the
run's commit, date, machine and devices; runs imported whole (one transaction each) or not at all."""
import contextlib
import datetime
import hashlib
import json
import os
import signal
import sqlite3
import statistics
import sys
import urllib.parse

from .errors import EXIT_IO, ReportError, UsageError
from .files import read_bytes
from .records import points_of
from .statistics import quantile


SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,      -- sha256 of the records' content (canonical JSON): a run is imported once
  gpubench_commit TEXT NOT NULL,
  date TEXT NOT NULL,               -- the records' context date (ISO 8601)
  machine TEXT NOT NULL,            -- host name and CPU count
  devices TEXT NOT NULL,            -- the context's devices (JSON): API, name, driver, compute units
  source TEXT NOT NULL,             -- the file it came from
  kind TEXT NOT NULL DEFAULT 'import',  -- import, nightly (track run) or remeasure (track check)
  command TEXT,                     -- the gpubench run arguments (JSON) that made it, when track ran it
  partition TEXT,                   -- the Slurm partition it ran in (track run --slurm), else NULL
  project TEXT,                     -- the git work tree of the project a tracked set names, else NULL
  project_commit TEXT,              -- its HEAD when the run was made (the records' context.project)
  project_branch TEXT,
  project_dirty INTEGER,            -- 1: it had uncommitted changes
  project_seq INTEGER               -- the commit's place in the project's first-parent history (git rev-list
                                    -- --count --first-parent): orders the runs of commits dated the same second
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
CREATE TABLE IF NOT EXISTS medians (  -- each run's median per benchmark, written with its samples
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  median REAL NOT NULL, low REAL NOT NULL, high REAL NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (benchmark_id, run_id)
);
CREATE TABLE IF NOT EXISTS failures (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, benchmark_id)
);
CREATE TABLE IF NOT EXISTS alerts (  -- each regression a check found: open until its level returns or it is acknowledged
  id INTEGER PRIMARY KEY,
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),           -- the first run of the step
  previous_run_id INTEGER NOT NULL REFERENCES runs(id),  -- the run before it
  change REAL NOT NULL, p REAL NOT NULL,
  before REAL NOT NULL,             -- the level before the step (s): it closes when a level of 2 runs returns near it
  detected TEXT NOT NULL,           -- when a check first found it (UTC)
  closed TEXT, closed_run_id INTEGER REFERENCES runs(id),
  ack_reason TEXT, ack_date TEXT, ack_until TEXT  -- track ack: why, when, and the last day it holds (none: for good)
);
CREATE INDEX IF NOT EXISTS samples_by_benchmark ON samples(benchmark_id, run_id);
"""


class TrackError(Exception):
    """Bad input: exit 3 (report.py's table of exit codes)."""
    code = 3


class TrackBusy(TrackError):
    """Another gpubench holds the history: exit 5."""
    code = EXIT_IO


def default_history():
    data = os.environ.get("XDG_DATA_HOME", "")
    if not data.startswith("/"):  # the XDG rules: a relative XDG_DATA_HOME is ignored
        home = os.environ.get("HOME")
        if not home:
            raise TrackError("no place for the history: set HOME or XDG_DATA_HOME, or name it with --history PATH")
        data = os.path.join(home, ".local", "share")
    return os.path.join(data, "gpubench", "history.sqlite")


BUSY_TIMEOUT_S = 30  # how long a command waits for another gpubench writing the history


def set_busy_timeout(seconds):
    global BUSY_TIMEOUT_S
    if not 0 <= seconds <= 86400:
        raise UsageError(f"--busy-timeout {seconds}: a number of seconds in [0, 86400]")
    BUSY_TIMEOUT_S = seconds


def io_error(path, e):
    """A TrackBusy (exit 5) for a history that cannot be written for a full disk, a file-size limit or
    an I/O error, or None for any other database error."""
    if any(w in str(e) for w in ("disk is full", "disk I/O error", "too large", "readonly database")):
        return TrackBusy(f"{path}: cannot write the history ({e}); nothing was changed")
    return None


def busy(path, e, timeout):
    """A TrackError for a history another process holds, or None for any other database error."""
    if "locked" in str(e) or "busy" in str(e):
        return TrackBusy(f"{path}: another gpubench is writing this history (waited {timeout:g} s; "
                          "--busy-timeout S waits longer); nothing was changed")
    return None


def db_path(db):
    """The file of an open history."""
    return db.execute("PRAGMA database_list").fetchone()[2]


@contextlib.contextmanager
def writing(db):
    """One write transaction (BEGIN IMMEDIATE ... COMMIT): another writer is waited for (the busy
    timeout), then named; any error or interrupt rolls it back, leaving the history as it was."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as e:
        raise busy(db_path(db), e, BUSY_TIMEOUT_S) or TrackError(f"{db_path(db)}: {e}; nothing was changed")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        # SQLite may have rolled back already (a full disk, a file-size limit): the cause is what is said.
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        raise


class History(sqlite3.Connection):
    """An open history; readonly when this user may not write it (the file or its folder)."""
    readonly = False


def open_history(path, create=True, timeout=None, write=False):
    """The history at path, made if create and missing. One this user may not write opens read-only
    (its tables missing from an older history stand in empty, in memory), and write refuses it."""
    timeout = BUSY_TIMEOUT_S if timeout is None else timeout
    if not create and not os.path.exists(path):
        raise TrackError(f"no history at {path} (gpubench track run or import makes one)")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise TrackBusy(f"{path}: cannot make its folder ({e.strerror}); nothing was changed")
    readonly = os.path.exists(path) and not (os.access(path, os.W_OK) and os.access(folder, os.W_OK))
    if readonly and write:
        raise TrackBusy(f"{path}: the history is read-only (this user may not write it or its folder); nothing was "
                        "changed")
    try:
        # Transactions are explicit (BEGIN ... COMMIT); a history another process is writing is
        # waited for (SQLite's busy timeout), not called damaged.
        target = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro" if readonly else path
        db = sqlite3.connect(target, isolation_level=None, timeout=timeout, factory=History, uri=readonly)
        db.readonly = readonly
        # A damaged file's text values are shown, not a UnicodeDecodeError: every text gpubench
        # writes is UTF-8.
        db.text_factory = lambda b: b.decode("utf-8", "replace")
        db.execute("PRAGMA foreign_keys = ON")
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise TrackError(f"{path}: the history is damaged ({check})")
        dangling = db.execute("PRAGMA foreign_key_check").fetchall()
        if dangling:  # rows of a table that refer to rows gone (a table dropped, edited by hand)
            raise TrackError(f"{path}: the history is damaged ({len(dangling)} rows of {dangling[0][0]} refer to "
                             f"{dangling[0][2]} rows it does not hold)")
        if readonly:
            present = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in SCHEMA.split("CREATE TABLE IF NOT EXISTS ")[1:]:
                name = table.split()[0]
                if name not in present:
                    db.execute("CREATE TEMP TABLE " + table.split(";")[0])
            # An older history's runs without the newer columns: a copy in memory, with them NULL.
            have = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
            missing = [c for c, _ in PROJECT_COLUMNS if c not in have]
            if missing and "runs" in present:
                db.execute("CREATE TEMP TABLE runs AS SELECT *, " + ", ".join(f"NULL AS {c}" for c in missing)
                           + " FROM main.runs")
        else:
            db.executescript(SCHEMA)
            # Histories made before runs had a partition (NULL: not through Slurm) or a project (NULL:
            # gpubench's commit alone) gain the columns.
            have = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
            for column, kind in PROJECT_COLUMNS:
                if column not in have:
                    db.execute(f"ALTER TABLE runs ADD COLUMN {column} {kind}")
    except sqlite3.DatabaseError as e:
        raise busy(path, e, timeout) or io_error(path, e) or TrackError(f"{path}: not a gpubench history ({e})")
    except UnicodeDecodeError:  # SQLite's message quotes a damaged schema's bytes, which are not text
        raise TrackError(f"{path}: not a gpubench history (damaged: SQLite's own message about it is not even text)")
    return db


PROJECT_COLUMNS = (("partition", "TEXT"), ("project", "TEXT"), ("project_commit", "TEXT"), ("project_branch", "TEXT"),
                   ("project_dirty", "INTEGER"), ("project_seq", "INTEGER"))


class Stamp(str):
    """A run's commit as the check and the dashboard show it: gpubench's commit alone, or the tracked
    project's commit (+dirty for uncommitted changes) with gpubench's beside it. A str (printed,
    compared, written to JSON as its text) that keeps both parts."""

    def __new__(cls, gpubench, project=None, dirty=False):
        gpubench = gpubench or "?"
        text = f"{project[:12]}{'+dirty' if dirty else ''} (gpubench {gpubench})" if project else gpubench
        self = super().__new__(cls, text)
        self.gpubench, self.project, self.dirty = gpubench, project, bool(dirty)
        return self


SAME_CODE = " (the same commit on both sides: the code did not change; the machine, its load or the data did)"


def what_changed(after, before):
    """What changed between two runs' stamps, said after a step's commits: the tracked project's
    commit range (git log's), gpubench alone, or nothing but the machine, its load or the data."""
    after = after if isinstance(after, Stamp) else Stamp(after)
    before = before if isinstance(before, Stamp) else Stamp(before)
    if not after.project or not before.project:
        if after.project or before.project:
            return " (the project's commit is recorded on one side only)"
        return SAME_CODE if after.gpubench == before.gpubench else ""
    tool = "gpubench the same" if after.gpubench == before.gpubench else \
        f"gpubench changed too, {before.gpubench} to {after.gpubench}"
    if after.project != before.project:
        dirty = ", with uncommitted changes" if after.dirty or before.dirty else ""
        return (f" (the project changed: git log {before.project[:12]}..{after.project[:12]} lists its commits{dirty}; "
                f"{tool})")
    if after.dirty or before.dirty:
        return (" (the project's commit is the same on both sides, with uncommitted changes: those, "
                + ("" if after.gpubench == before.gpubench else "gpubench, ") + "the machine, its load or the data changed)")
    if after.gpubench != before.gpubench:
        return f" (the project's commit is the same on both sides: only gpubench changed, {before.gpubench} to {after.gpubench})"
    return SAME_CODE


def stamp():
    """The test-only hook GPUBENCH_TRACK_STAMP=COMMIT@DATE: the runs written are said to come from
    that commit and date (so that a test can build a history of nights from one binary)."""
    text = os.environ.get("GPUBENCH_TRACK_STAMP", "")
    if not text:
        return None
    commit, at, date = text.partition("@")
    if not commit or not at or not date:
        raise TrackError(f"GPUBENCH_TRACK_STAMP: '{text}' is not COMMIT@DATE")
    if not STAMP_SAID:
        STAMP_SAID.append(True)
        print(f"gpubench track: test hook GPUBENCH_TRACK_STAMP={text} set: the runs written are said to come from "
              "that commit and date (their kind says test hooks)", file=sys.stderr)
    return commit, date


STAMP_SAID: list = []


class NotARun(Exception):
    """Another of gpubench's JSON files (a sweep's records, a roofline's ceilings, a tuning
    database's file, a kernel spec): an import skips it, saying so."""


# gpubench's other JSON files that name their schema, as an import's skip says them.
OTHER_SCHEMAS = {"gpubench-tuning-db": "a tuning database's file", "gpubench-kernel-spec": "a kernel spec"}


def read_run(path, allow_test_hooks=False):
    """One records file, read and checked before anything is written: (digest, records, points).
    A file named *.gz is read through gzip (the project's committed records are kept so: about
    1/28 of the bytes); its run is the same run as the plain file's. Raises NotARun for another of
    gpubench's JSON files, TrackError for anything else wrong."""
    try:
        raw = read_bytes(path)
        records = json.loads(raw)
    except ReportError as e:
        raise TrackError(str(e)) from None
    except (ValueError, RecursionError) as e:
        raise TrackError(f"{path}: not JSON ({'nested too deeply' if isinstance(e, RecursionError) else e})") from None
    if isinstance(records, dict) and "sweeps" in records and "benchmarks" not in records:
        raise NotARun(f"{path}: a sweep's records, not a run's")
    if isinstance(records, list) and records and all(isinstance(d, dict) and "device" in d and "backend" in d
                                                     for d in records):
        raise NotARun(f"{path}: a roofline's ceilings, not a run's records")
    if isinstance(records, dict) and records.get("schema") in OTHER_SCHEMAS and "benchmarks" not in records:
        raise NotARun(f"{path}: {OTHER_SCHEMAS[records['schema']]}, not a run's records")
    try:
        points = points_of(records, path)
    except ReportError as e:
        raise TrackError(str(e))
    if not points:
        raise TrackError(f"{path}: no benchmark entries gpubench wrote (nothing to import)")
    context = records.get("context", {})
    if not context.get("date") or not context.get("gpubench_commit"):
        raise TrackError(f"{path}: its context has no date or gpubench_commit: not a run gpubench wrote")
    if not isinstance(context["gpubench_commit"], str) or not isinstance(context["date"], str) \
            or parse_date(context["date"]) is None:
        raise TrackError(f"{path}: its context's date {json.dumps(context['date'])[:60]} is not an ISO 8601 date and time "
                         "(2026-11-28T09:30:00+00:00): the history orders runs by it")
    for field, kind, name in (("devices", list, "a list of devices"), ("test_hooks", dict, "an object"),
                              ("host_name", str, "a name"), ("num_cpus", int, "a count")):
        if field in context and context[field] is not None and not isinstance(context[field], kind):
            raise TrackError(f"{path}: its context's {field} is {json.dumps(context[field])[:40]}, not {name}")
    if any(not isinstance(d, dict) for d in context.get("devices") or []):
        raise TrackError(f"{path}: its context's devices are not all objects")
    project = context.get("project")
    if project is not None and not (isinstance(project, dict) and isinstance(project.get("commit"), str)
                                    and project["commit"] and isinstance(project.get("path", ""), str)
                                    and isinstance(project.get("branch", ""), (str, type(None)))
                                    and isinstance(project.get("dirty", False), bool)
                                    and (project.get("seq") is None or (isinstance(project["seq"], int)
                                                                        and not isinstance(project["seq"], bool)))):
        raise TrackError(f"{path}: its context's project {json.dumps(project)[:80]} is not "
                         '{"path": TEXT, "commit": TEXT, "branch": TEXT, "dirty": true|false, "seq": COUNT}')
    hooks = context.get("test_hooks")
    if hooks and not allow_test_hooks:
        raise TrackError(f"{path}: made with test hooks set ({', '.join(f'{k}={v}' for k, v in hooks.items())}): its "
                         "figures may be planted; --allow-test-hooks takes it all the same")
    # A run is its content, not its bytes: the same records pretty-printed, re-serialized by jq or with
    # CRLF line ends are the same run. (Histories written before kept the bytes' digest: both are looked up.)
    canonical = json.dumps(records, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (hashlib.sha256(canonical.encode()).hexdigest(), hashlib.sha256(raw).hexdigest()), records, points


def parse_date(text):
    """A records date (ISO 8601 with a time zone, as gpubench writes: 2026-11-28T09:30:00+00:00 or
    ...Z or +0000) as an aware datetime, or None."""
    try:
        d = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            d = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z")
        except ValueError:
            return None
    return d if d.tzinfo is not None else None


def forget_runs(db, which):
    """Removes runs from the history, in one transaction: each of `which` a run's id (track runs lists
    them) or the records file it was imported from. Returns a line per run removed; TrackError naming
    one that matches no run (then nothing is removed)."""
    chosen = []
    for w in which:
        if w.isdigit():
            rows = db.execute("SELECT id, date, gpubench_commit, source FROM runs WHERE id = ?", (int(w),)).fetchall()
        else:
            rows = db.execute("SELECT id, date, gpubench_commit, source FROM runs WHERE source = ?",
                              (os.path.abspath(w),)).fetchall()
        if not rows:
            raise TrackError(f"no run '{w}' in {db_path(db)} (a run's id as 'gpubench track runs' lists it, or the "
                             "records file it was imported from); nothing was removed")
        chosen += [r for r in rows if r not in chosen]
    with writing(db):
        for run_id, _, _, _ in chosen:
            for table in ("samples", "medians", "failures"):
                db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            # An alert that rests on the run goes with it (the next check finds it again if it stands).
            db.execute("DELETE FROM alerts WHERE run_id = ? OR previous_run_id = ?", (run_id, run_id))
            db.execute("UPDATE alerts SET closed = NULL, closed_run_id = NULL WHERE closed_run_id = ?", (run_id,))
            db.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        db.execute("DELETE FROM benchmarks WHERE id NOT IN (SELECT benchmark_id FROM samples UNION "
                   "SELECT benchmark_id FROM failures UNION SELECT benchmark_id FROM alerts)")
    return [f"run {i} ({date}, commit {commit}, from {source})" for i, date, commit, source in chosen]


def list_runs(db):
    """One line per run of the history, oldest first: its id, date, commit, kind, machine and file."""
    rows = db.execute("SELECT r.id, r.date, r.gpubench_commit, r.project_commit, r.project_dirty, r.kind, r.machine, "
                      "r.partition, r.source, "
                      "(SELECT COUNT(*) FROM medians m WHERE m.run_id = r.id), "
                      "(SELECT COUNT(*) FROM medians m WHERE m.run_id = r.id AND NOT m.median > 0) "
                      "FROM runs r ORDER BY r.date, r.project_seq, r.id").fetchall()
    if not rows:
        return "no runs in the history\n"
    lines = ["| run | date | commit | kind | machine | benchmarks | file |", "|---:|---|---|---|---|---:|---|"]
    for i, date, gpubench_commit, project, dirty, kind, machine, partition, source, n, bad in rows:
        commit = Stamp(gpubench_commit, project, dirty)
        where = machine + (f" on {partition}" if partition else "")
        note = f" ({bad} without a positive time: track forget {i})" if bad else ""
        lines.append(f"| {i} | {date} | {commit} | {kind} | {where} | {n}{note} | {source} |")
    return "\n".join(lines) + "\n"


def on_partition(name, partition):
    """A benchmark's name in the history: a run from a Slurm partition keeps its benchmarks apart from
    every other machine's ("... @ DEVICE on PARTITION")."""
    return f"{name}{ON}{partition}" if partition else name


ON = " on "
JOB = "track/slurm-job"


def partition_of(name):
    """The partition a benchmark's name says it ran in, or "" (a run not through Slurm)."""
    device = name.rpartition(" @ ")[2]
    return device.rpartition(ON)[2] if ON in device else ""


def base_name(name):
    """A benchmark's name without its partition: the same point on every machine."""
    partition = partition_of(name)
    return name[: -len(ON + partition)] if partition else name


def write_run(db, path, run, kind="import", command=None, written=None, partition=None):
    """Writes one run that read_run read, inside the caller's transaction. Returns (imported, samples)."""
    (digest, bytes_digest), records, points = run
    if db.execute("SELECT 1 FROM runs WHERE digest IN (?, ?)", (digest, bytes_digest)).fetchone():
        return False, 0
    context = records.get("context", {})
    commit, date = stamp() or (context["gpubench_commit"], context["date"])
    machine = f"{context.get('host_name', '?')} ({context.get('num_cpus', '?')} CPUs)"
    devices = json.dumps([{k: d.get(k) for k in ("backend", "index", "api", "name", "driver", "compute_units")}
                          for d in context.get("devices") or []])
    if context.get("test_hooks") or stamp():
        kind += " (test hooks)"
    samples = 0
    project = context.get("project") or {}
    seq = project.get("seq") if isinstance(project.get("seq"), int) else None
    cur = db.execute("INSERT INTO runs (digest, gpubench_commit, date, machine, devices, source, kind, command, partition,"
                     " project, project_commit, project_branch, project_dirty, project_seq)"
                     " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     (digest, commit, date, machine, devices, os.path.abspath(path), kind,
                      json.dumps(command) if command else None, partition, project.get("path"), project.get("commit"),
                      project.get("branch"), int(bool(project.get("dirty"))) if project else None, seq))
    run_id = cur.lastrowid
    for series in tracked_series(points):
        name, p, backend, variant, values, error = series
        measured = name == f"{p.label} @ {p.device}"  # the repetitions themselves, not a series made of them
        name = on_partition(name, partition)
        db.execute("INSERT OR IGNORE INTO benchmarks (name, suite, problem, backend, device_index, device, variant,"
                   " precision) VALUES (?,?,?,?,?,?,?,?)",
                   (name, p.suite, p.problem, backend, p.device_index, p.device, variant, p.precision))
        bench = db.execute("SELECT id FROM benchmarks WHERE name = ?", (name,)).fetchone()[0]
        if error:
            db.execute("INSERT INTO failures VALUES (?,?,?)", (run_id, bench, error))
            continue
        times = [seconds for _, seconds in values]
        for repetition, seconds in values:
            db.execute("INSERT INTO samples VALUES (?,?,?,?)", (run_id, bench, repetition, seconds))
            samples += 1 if measured else 0
            if written:
                written()
        if times:
            ordered = sorted(times)
            db.execute("INSERT INTO medians VALUES (?,?,?,?,?,?)", (run_id, bench, statistics.median(ordered),
                       quantile(ordered, 0.25), quantile(ordered, 0.75), len(ordered)))
    return True, samples


ENERGY = " [J/iter]"
RATIO = " [opencl/cuda]"


def tracked_series(points):
    """What a run adds to the history, each (name, point, backend, variant, [(repetition, value)], error):
    every point's time per iteration (s); where its energy pass measured one, its energy per iteration
    (J: the pass's average power x each repetition's time, "<variant> [J/iter]"); and where a point ran
    on OpenCL and CUDA of one device, OpenCL's time over CUDA's median per repetition (backend
    "opencl/cuda", "<variant> [opencl/cuda]"), so that a change that moves one API shows as a step
    of its own. Higher is worse for all three."""
    out = []
    for p in points.values():
        repetitions = [int(e.get("repetition_index", 0)) for e in p.entries]
        out.append((f"{p.label} @ {p.device}", p, p.backend, p.variant,
                    [] if p.error else list(zip(repetitions, p.times())), p.error))
        energy = p.first("energy") or {}
        watts = energy.get("watts") if isinstance(energy, dict) else None
        if not p.error and isinstance(watts, (int, float)) and watts > 0:
            out.append((f"{p.label}{ENERGY} @ {p.device}", p, p.backend, p.variant + ENERGY,
                        [(r, watts * t) for r, t in zip(repetitions, p.times())], None))
    by_key = {}
    for p in points.values():
        if not p.error and p.ranks == 0 and p.device_count == 1:
            by_key[(p.suite, p.problem, p.backend, p.variant, p.precision, p.device)] = p
    for (suite, problem, backend, variant, precision, device), p in sorted(by_key.items()):
        cuda = by_key.get((suite, problem, "cuda", variant, precision, device))
        if backend != "opencl" or cuda is None or not cuda.seconds():
            continue
        base = cuda.seconds()
        label = f"{suite}/{problem}/opencl/cuda/{variant}/{precision}"
        out.append((f"{label}{RATIO} @ {device}", p, "opencl/cuda", variant + RATIO,
                    [(int(e.get("repetition_index", 0)), t / base) for e, t in zip(p.entries, p.times())], None))
    return out


def unit_of(name):
    """(unit, scale) of a tracked series' values: ms of its seconds, mJ of its joules, x of a ratio."""
    if ENERGY + " @ " in name:
        return "mJ", 1e3
    if RATIO + " @ " in name:
        return "x", 1.0
    return "ms", 1e3


def planted_kill():
    """The test-only hook GPUBENCH_TRACK_KILL_AFTER_SAMPLES=N[:INT]: once N samples are written the
    process is killed (SIGKILL), or interrupted (SIGINT, as Ctrl-C) with :INT; either must leave the
    history as it was. Unset: None."""
    text = os.environ.get("GPUBENCH_TRACK_KILL_AFTER_SAMPLES", "")
    if not text:
        return None
    count, how = text.partition(":")[::2]
    if not count.isdigit() or int(count) < 1 or how not in ("", "INT"):
        raise TrackError(f"GPUBENCH_TRACK_KILL_AFTER_SAMPLES: '{text}' is not N or N:INT")
    print(f"gpubench track: test hook GPUBENCH_TRACK_KILL_AFTER_SAMPLES={text} set: this import is "
          f"{'interrupted' if how else 'killed'} after {count} samples", file=sys.stderr)
    written_so_far = [0]

    def written():
        written_so_far[0] += 1
        if written_so_far[0] == int(count):
            os.kill(os.getpid(), signal.SIGINT if how else signal.SIGKILL)
    return written


def write_job(db, partition, job_dir, date, commit, seconds=None, failure=None, command=None):
    """A Slurm job of the tracked set, as a run of its partition whose one benchmark is the job
    ("track/slurm-job @ slurm on PARTITION"): its wall time when it completed, else its failure in
    Slurm's words (a failed run: check fails on it until a job of that partition completes)."""
    record = {"partition": partition, "job_dir": os.path.abspath(job_dir), "date": date, "seconds": seconds,
              "failure": failure}
    digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
    with writing(db):
        if db.execute("SELECT 1 FROM runs WHERE digest = ?", (digest,)).fetchone():
            return
        run_id = db.execute("INSERT INTO runs (digest, gpubench_commit, date, machine, devices, source, kind, command,"
                            " partition) VALUES (?,?,?,?,?,?,?,?,?)",
                            (digest, commit, date, f"slurm partition {partition}", "[]", os.path.abspath(job_dir),
                             "slurm job", json.dumps(command) if command else None, partition)).lastrowid
        name = on_partition(f"{JOB} @ slurm", partition)
        db.execute("INSERT OR IGNORE INTO benchmarks (name, suite, problem, backend, device_index, device, variant,"
                   " precision) VALUES (?,?,?,?,?,?,?,?)", (name, "track", "slurm-job", "slurm", 0, "slurm", "job", "-"))
        bench = db.execute("SELECT id FROM benchmarks WHERE name = ?", (name,)).fetchone()[0]
        if failure:
            db.execute("INSERT INTO failures VALUES (?,?,?)", (run_id, bench, failure))
        else:
            db.execute("INSERT INTO samples VALUES (?,?,?,?)", (run_id, bench, 0, seconds))
            db.execute("INSERT INTO medians VALUES (?,?,?,?,?,?)", (run_id, bench, seconds, seconds, seconds, 1))


def import_runs(db, paths, kind="import", command=None, allow_test_hooks=False, partition=None):
    """Record files as runs, all or none: every file is read and checked first, then all are written
    in one transaction. Files that are not runs are skipped, with why. Returns (imported, already in
    the history, samples, [why each skipped file was])."""
    runs, skipped = [], []
    for path in paths:
        try:
            runs.append((path, read_run(path, allow_test_hooks)))
        except NotARun as e:
            skipped.append(str(e))
    added = again = samples = 0
    written = planted_kill()
    with writing(db):
        for path, run in runs:
            new, n = write_run(db, path, run, kind, command, written, partition)
            added, again, samples = added + new, again + (not new), samples + n
    return added, again, samples, skipped


def import_run(db, path, kind="import", command=None, allow_test_hooks=False, partition=None):
    """One records file as one run, in one transaction. Returns (imported, samples)."""
    added, _, samples, skipped = import_runs(db, [path], kind, command, allow_test_hooks, partition)
    if skipped:
        raise TrackError(skipped[0])
    return added > 0, samples


def load_history(db, match=None):
    """[(bench_id, name, runs)] with each benchmark's runs in date order, and {bench: failure} of the
    benchmarks whose newest run failed them."""
    runs = {}
    stamps = {}
    for run, commit, project, dirty in db.execute("SELECT id, gpubench_commit, project_commit, project_dirty FROM runs"):
        stamps[run] = Stamp(commit, project, dirty)
    for bench, run, date, median, low, high, n in db.execute(
            "SELECT m.benchmark_id, m.run_id, r.date, m.median, m.low, m.high, m.n "
            "FROM medians m JOIN runs r ON r.id = m.run_id WHERE m.median > 0 "  # a zero time (an older import) is no level
            "ORDER BY m.benchmark_id, r.date, r.project_seq, r.id"):
        runs.setdefault(bench, []).append((run, date, stamps[run], median, low, high, n))
    names = dict(db.execute("SELECT id, name FROM benchmarks"))
    failed = {}
    for bench, run, date, message in db.execute(
            "SELECT f.benchmark_id, f.run_id, r.date, f.message FROM failures f JOIN runs r ON r.id = f.run_id"):
        last = runs.get(bench, [(None, "")])[-1][1]
        if date >= last and (bench not in failed or date > failed[bench][0]):
            failed[bench] = (date, message)
    for bench in failed:
        runs.setdefault(bench, [])
    chosen = [(b, names[b], r) for b, r in runs.items() if not match or match in names[b]]
    return sorted(chosen, key=lambda x: x[1]), {b: m for b, (d, m) in failed.items()}


def samples_reader(db, bench):
    def read(run_ids):
        marks = ",".join("?" * len(run_ids))
        return [s for (s,) in db.execute(f"SELECT seconds FROM samples WHERE benchmark_id = ? AND run_id IN ({marks})",
                                         [bench] + list(run_ids))]
    return read


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def today():
    return utc_now().strftime("%Y-%m-%d")


def run_stamp(db, run):
    """(commit, date) of a run the benchmark's assessed runs do not hold."""
    row = db.execute("SELECT gpubench_commit, project_commit, project_dirty, date FROM runs WHERE id = ?", (run,)).fetchone()
    return (Stamp(row[0], row[1], row[2]), row[3]) if row else (Stamp("?"), "?")
