#!/usr/bin/python3
"""gpubench track: nightly performance tracking (the history, the regression check, the dashboard).

    gpubench track run [--set FILE] [--records DIR]      the tracked set, into the history
    gpubench track import RECORDS.json ...               record files, each as one run (all or none)
    gpubench track check [--no-remeasure] [--json FILE]  tonight against the history: exit 1 while a
                                                         regression is open or a benchmark fails
    gpubench track ack BENCHMARK --reason TEXT [--until DATE]   accept a benchmark's open regressions
    gpubench track publish --out DIR                     the static dashboard (index.html)
    gpubench track show [--match TEXT]                   each benchmark's runs
    (each takes --history PATH)

The history is one SQLite file (default $XDG_DATA_HOME/gpubench/history.sqlite, else
~/.local/share/gpubench/history.sqlite) holding every repetition of every point of every run,
with the run's commit, date, machine and devices. A records file is one run; importing it again
changes nothing (runs are keyed by their content). Each run is written in one transaction: a
process killed mid-write leaves the history as it was before that run.

The check, per benchmark (a point on one device): the run medians over the whole history are cut
into steps (a penalised least-squares fit of a piecewise-constant level to their logarithms, as
asv's step detection, after a running median of three has taken out single-run outliers; the
penalty scaled by the benchmark's own night-to-night noise, measured from the history). A step that began within the last --recent runs is a change when it is at least
--min-effect and the rank test (Mann-Whitney U, as compare.py) on the repetitions after it
against those before it gives p < --alpha. A change that rests on tonight's run alone (a step
the fit finds there, or tonight off its level by 2 sigmas, with p < 0.05) is suspected: it is re-measured (the benchmark run again, the run added to the history)
and is reported only when the re-measured run stands with it (so is an improvement). Each change names the
commit of the first run of its step and the commit before it.

Regressions stay open: every slower step of the whole history that passes those tests, however
old, is an alert kept in the history. It is reported by every check, which exits 1, until a level
of two runs after it is back within --min-effect of the level before it (then it is closed) or
someone acknowledges it (track ack, for good or to a day).
"""
import argparse
import contextlib
import datetime
import gzip
import hashlib
import json
import math
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from report import EXIT_IO, ReportError, UsageError, failed, points_of

HERE = os.path.dirname(os.path.abspath(__file__))

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
  command TEXT                      -- the gpubench run arguments (JSON) that made it, when track ran it
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
    if not seconds >= 0:
        raise TrackError(f"--busy-timeout {seconds}: a number of seconds, at least 0")
    BUSY_TIMEOUT_S = seconds


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
        db.execute("ROLLBACK")
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
        db.execute("PRAGMA foreign_keys = ON")
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise TrackError(f"{path}: the history is damaged ({check})")
        if readonly:
            present = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in SCHEMA.split("CREATE TABLE IF NOT EXISTS ")[1:]:
                name = table.split()[0]
                if name not in present:
                    db.execute("CREATE TEMP TABLE " + table.split(";")[0])
        else:
            db.executescript(SCHEMA)
    except sqlite3.DatabaseError as e:
        raise busy(path, e, timeout) or TrackError(f"{path}: not a gpubench history ({e})")
    return db


def quantile(sorted_values, q):
    """Linear-interpolated quantile of a sorted list."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    x = q * (len(sorted_values) - 1)
    i = int(x)
    return sorted_values[i] + (sorted_values[min(i + 1, len(sorted_values) - 1)] - sorted_values[i]) * (x - i)


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
    """Another of gpubench's JSON files (a sweep's records, a roofline's ceilings): an import skips
    it, saying so."""


def read_run(path, allow_test_hooks=False):
    """One records file, read and checked before anything is written: (digest, records, points).
    A file named *.gz is read through gzip (the project's committed records are kept so: about
    1/28 of the bytes); its run is the same run as the plain file's. Raises NotARun for another of
    gpubench's JSON files, TrackError for anything else wrong."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        records = json.loads(raw)
    except (OSError, ValueError, EOFError, zlib.error) as e:
        raise TrackError(f"{path}: {e}")
    if isinstance(records, dict) and "sweeps" in records and "benchmarks" not in records:
        raise NotARun(f"{path}: a sweep's records, not a run's")
    if isinstance(records, list) and records and all(isinstance(d, dict) and "device" in d and "backend" in d
                                                     for d in records):
        raise NotARun(f"{path}: a roofline's ceilings, not a run's records")
    try:
        points = points_of(records, path)
    except ReportError as e:
        raise TrackError(str(e))
    if not points:
        raise TrackError(f"{path}: no benchmark entries gpubench wrote (nothing to import)")
    context = records.get("context", {})
    if not context.get("date") or not context.get("gpubench_commit"):
        raise TrackError(f"{path}: its context has no date or gpubench_commit: not a run gpubench wrote")
    hooks = context.get("test_hooks")
    if hooks and not allow_test_hooks:
        raise TrackError(f"{path}: made with test hooks set ({', '.join(f'{k}={v}' for k, v in hooks.items())}): its "
                         "figures may be planted; --allow-test-hooks takes it all the same")
    # A run is its content, not its bytes: the same records pretty-printed, re-serialized by jq or with
    # CRLF line ends are the same run. (Histories written before kept the bytes' digest: both are looked up.)
    canonical = json.dumps(records, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (hashlib.sha256(canonical.encode()).hexdigest(), hashlib.sha256(raw).hexdigest()), records, points


def write_run(db, path, run, kind="import", command=None, written=None):
    """Writes one run that read_run read, inside the caller's transaction. Returns (imported, samples)."""
    (digest, bytes_digest), records, points = run
    if db.execute("SELECT 1 FROM runs WHERE digest IN (?, ?)", (digest, bytes_digest)).fetchone():
        return False, 0
    context = records.get("context", {})
    commit, date = stamp() or (context["gpubench_commit"], context["date"])
    machine = f"{context.get('host_name', '?')} ({context.get('num_cpus', '?')} CPUs)"
    devices = json.dumps([{k: d.get(k) for k in ("backend", "index", "api", "name", "driver", "compute_units")}
                          for d in context.get("devices", [])])
    if context.get("test_hooks") or stamp():
        kind += " (test hooks)"
    samples = 0
    cur = db.execute("INSERT INTO runs (digest, gpubench_commit, date, machine, devices, source, kind, command)"
                     " VALUES (?,?,?,?,?,?,?,?)", (digest, commit, date, machine, devices, os.path.abspath(path),
                                                   kind, json.dumps(command) if command else None))
    run_id = cur.lastrowid
    for p in points.values():
        name = f"{p.label} @ {p.device}"
        db.execute("INSERT OR IGNORE INTO benchmarks (name, suite, problem, backend, device_index, device, variant,"
                   " precision) VALUES (?,?,?,?,?,?,?,?)",
                   (name, p.suite, p.problem, p.backend, p.device_index, p.device, p.variant, p.precision))
        bench = db.execute("SELECT id FROM benchmarks WHERE name = ?", (name,)).fetchone()[0]
        if p.error:
            db.execute("INSERT INTO failures VALUES (?,?,?)", (run_id, bench, p.error))
            continue
        times = p.times()
        for entry, seconds in zip(p.entries, times):
            db.execute("INSERT INTO samples VALUES (?,?,?,?)", (run_id, bench, int(entry.get("repetition_index", 0)), seconds))
            samples += 1
            if written:
                written()
        if times:
            ordered = sorted(times)
            db.execute("INSERT INTO medians VALUES (?,?,?,?,?,?)", (run_id, bench, statistics.median(ordered),
                       quantile(ordered, 0.25), quantile(ordered, 0.75), len(ordered)))
    return True, samples


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


def import_runs(db, paths, kind="import", command=None, allow_test_hooks=False):
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
            new, n = write_run(db, path, run, kind, command, written)
            added, again, samples = added + new, again + (not new), samples + n
    return added, again, samples, skipped


def import_run(db, path, kind="import", command=None, allow_test_hooks=False):
    """One records file as one run, in one transaction. Returns (imported, samples)."""
    added, _, samples, skipped = import_runs(db, [path], kind, command, allow_test_hooks)
    if skipped:
        raise TrackError(skipped[0])
    return added > 0, samples


# --------------------------------------------------------------------------------------------- run

RUN_OPTIONS = ("--suite", "--problem", "--backend", "--device", "--variant", "--precision")
OWN_OPTIONS = ("--repetitions", "--format", "--out")  # track sets these itself


def load_set(path):
    """The tracked set: {"repetitions": R, "runs": [{"name": ..., "args": [gpubench run arguments]}]}."""
    try:
        with open(path) as f:
            tracked = json.load(f)
    except (OSError, ValueError) as e:
        raise TrackError(f"{path}: {e}")
    problem = None
    if not isinstance(tracked, dict) or not isinstance(tracked.get("runs"), list) or not tracked["runs"]:
        problem = "no list of runs"
    elif not isinstance(tracked.get("repetitions", 10), int) or tracked.get("repetitions", 10) < 2:
        problem = "repetitions must be a whole number of at least 2 (the rank test needs them)"
    else:
        names = set()
        for i, entry in enumerate(tracked["runs"]):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"] \
                    or not isinstance(entry.get("args"), list) or not all(isinstance(a, str) for a in entry["args"]):
                problem = f"run {i + 1} is not {{\"name\": TEXT, \"args\": [gpubench run arguments]}}"
            elif entry["name"] in names or not entry["name"].replace("-", "").replace("_", "").isalnum():
                problem = f"run {i + 1}: the name '{entry['name']}' is repeated or not a plain word"
            elif any(a in OWN_OPTIONS for a in entry["args"]):
                problem = f"run '{entry['name']}': {', '.join(OWN_OPTIONS)} are track's to set"
            names.add(entry.get("name"))
            if problem:
                break
    if problem:
        raise TrackError(f"{path}: not a tracked set: {problem}")
    return tracked


def gpubench_binary():
    binary = os.environ.get("GPUBENCH_BINARY")
    if not binary or not os.access(binary, os.X_OK):
        raise TrackError("this needs the gpubench program: run it as 'gpubench track ...'")
    return binary


def run_gpubench(args, repetitions, target):
    """gpubench run ARGS into the records file TARGET. Returns its exit code (1: a point failed,
    the records say which)."""
    command = [gpubench_binary(), "run"] + args + ["--repetitions", str(repetitions), "--format", "json", "--out", target]
    print("gpubench track: running " + " ".join(["gpubench", "run"] + args + ["--repetitions", str(repetitions)]),
          file=sys.stderr, flush=True)
    code = subprocess.call(command, stdout=subprocess.DEVNULL)
    if code not in (0, 1) or not os.path.exists(target):
        raise TrackError(f"gpubench run {' '.join(args)} exited {code}"
                         + ("" if os.path.exists(target) else " and wrote no records"))
    return code


def track_run(db, history, set_path, records_dir, only, allow_test_hooks=False):
    tracked = load_set(set_path)
    entries = [e for e in tracked["runs"] if not only or e["name"] in only]
    if only and len(entries) != len(set(only)):
        unknown = set(only) - {e["name"] for e in tracked["runs"]}
        raise TrackError(f"{set_path}: no run named {', '.join(sorted(unknown))} "
                         f"(valid: {', '.join(e['name'] for e in tracked['runs'])})")
    records_dir = records_dir or os.path.join(os.path.dirname(os.path.abspath(history)), "records")
    os.makedirs(records_dir, exist_ok=True)
    night = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    status, problems = 0, []
    for entry in entries:
        target = os.path.join(records_dir, f"{night}-{entry['name']}.json")
        k = 1
        while os.path.exists(target):  # two runs in one second keep both files
            k += 1
            target = os.path.join(records_dir, f"{night}-{entry['name']}-{k}.json")
        try:
            status = max(status, run_gpubench(entry["args"], tracked.get("repetitions", 10), target))
            new, n = import_run(db, target, kind="nightly", command=entry["args"], allow_test_hooks=allow_test_hooks)
            print(f"gpubench track: {entry['name']}: {n} repetitions into {history} (records: {target})")
        except (TrackError, ReportError) as e:  # the other runs of the set still run
            problems.append(f"{entry['name']}: {e}")
    for p in problems:
        print(f"gpubench track: {p}", file=sys.stderr)
    return 3 if problems else status


# ------------------------------------------------------------------------------------------ check

SUSPECT_ALPHA = 0.05  # the rank test's level for a change on tonight's run alone, before its re-measure
SUSPECT_Z = 2.0       # and how far (in night-to-night sigmas) tonight's run must sit off its level


class Options:
    def __init__(self, min_effect=0.02, alpha=0.01, recent=3, penalty=2.0, min_runs=5):
        self.min_effect, self.alpha, self.recent, self.penalty, self.min_runs = min_effect, alpha, recent, penalty, min_runs


def noise_of(logs):
    """Night-to-night noise (sigma of the log run medians) from successive differences, which a
    step moves only once and an outlier twice: 1.4826 * median(|diff|) / sqrt(2)."""
    diffs = [abs(b - a) for a, b in zip(logs, logs[1:])]
    if len(diffs) < 2:
        return None
    # A short history can only have seen its quiet nights: the estimate is widened by 1 + 1/sqrt(k).
    return 1.4826 * statistics.median(diffs) / math.sqrt(2) * (1 + 1 / math.sqrt(len(diffs)))


def segment(logs, sigma, options):
    """Step starts (indices, 0 first) of a penalised least-squares piecewise-constant fit by binary
    segmentation. A split must lower the squared error by more than penalty * sigma^2 * ln(n) and
    move the level by at least min_effect. Steps last at least two runs, except the newest run's,
    which is then a suspected step (tonight alone)."""
    n = len(logs)
    s1, s2 = [0.0], [0.0]
    for v in logs:
        s1.append(s1[-1] + v)
        s2.append(s2[-1] + v * v)

    def cost(a, b):
        return s2[b] - s2[a] - (s1[b] - s1[a]) ** 2 / (b - a)

    threshold = options.penalty * sigma * sigma * math.log(max(n, 3))
    min_shift = math.log1p(options.min_effect)
    starts, todo = [0], [(0, n)]
    while todo:
        a, b = todo.pop()
        best, where = threshold, None
        whole = cost(a, b)
        for k in range(a + 2, b - 1 if b < n else b):  # each side two runs, but the newest may stand alone
            if b - k < 2 and k != n - 1:
                continue
            gain = whole - cost(a, k) - cost(k, b)
            if gain > best and abs((s1[b] - s1[k]) / (b - k) - (s1[k] - s1[a]) / (k - a)) >= min_shift:
                best, where = gain, k
        if where is not None:
            starts.append(where)
            todo += [(a, where), (where, b)]
    return sorted(starts)


def mann_whitney(after, before, regression):
    """One-sided p of the rank test: the repetitions after the step slower (regression) or faster."""
    from scipy.stats import mannwhitneyu
    return float(mannwhitneyu(after, before, alternative="greater" if regression else "less").pvalue)


class Assessment:
    """One benchmark's history, its steps and tonight's verdict."""

    def __init__(self, bench, name, runs):
        self.bench, self.name, self.runs = bench, name, runs  # runs: [(run_id, date, commit, median, low, high, n)]
        self.steps = []        # (index, change): each step's first run, and the level change
        self.levels = []       # (first, end, seconds): the fitted level of each stretch of runs
        self.verdict = "same"  # same, regression, improvement, suspected, new, failed
        self.change = self.p = None
        self.index = None      # the first run of tonight's change
        self.failure = None
        self.regressions = []  # (index, change, p, level before): every confirmed slower step in the history


def assess(a, options, samples_of, failure=None):
    """Fills a's steps and verdict. samples_of(run_ids) gives the repetitions of those runs."""
    a.failure = failure
    if failure:
        a.verdict = "failed"
        return a
    n = len(a.runs)
    logs = [math.log(r[3]) for r in a.runs]
    if n < options.min_runs:
        a.verdict = "new"
        a.levels = [(0, n, math.exp(statistics.median(logs)))] if n else []
        return a
    sigma = noise_of(logs[:-1]) or 0.0  # the noise before tonight's run, which may be the step
    spread = statistics.median(math.log(r[5] / r[4]) / 1.349 for r in a.runs if r[4] > 0) / math.sqrt(max(a.runs[-1][6], 1))
    sigma = max(sigma, spread, 1e-4)  # never below what one run's repetitions say its median can do
    # A run alone is an outlier, never a step: a running median of three takes it out (and keeps
    # every edge of two runs or more); the newest run stays as it is (tonight's may be a step).
    smooth = [statistics.median(logs[max(i - 1, 0):max(i - 1, 0) + 3]) for i in range(n - 1)] + [logs[-1]]
    starts = segment(smooth, sigma, options)
    if n - 1 - starts[-1] >= 2:  # tonight within a longer level: is it alone off it by SUSPECT_Z sigmas?
        level = statistics.median(smooth[max(starts[-1], n - 11):n - 1])
        if abs(logs[-1] - level) > SUSPECT_Z * sigma and abs(math.expm1(logs[-1] - level)) >= options.min_effect:
            starts.append(n - 1)  # a suspected step: its re-measure, a second run, must pass the fit's penalty
    # Each level is the median of its runs after the running median: an outlier inside a short level
    # (a 5x step whose second night read 250x) moves it no more than it moved the fit.
    level = [statistics.median(smooth[s:e]) for s, e in zip(starts, starts[1:] + [n])]
    a.levels = [(s, e, math.exp(v)) for s, e, v in zip(starts, starts[1:] + [n], level)]
    a.steps = [(s, math.exp(level[i] - level[i - 1]) - 1) for i, s in enumerate(starts) if i]
    # Every slower step of the whole history that the rank test confirms, however old: a regression
    # that landed while no check ran is still one (the alerts keep it open until it is dealt with).
    for (first, end, before), (s, e, after) in zip(a.levels, a.levels[1:]):
        if after / before - 1 >= options.min_effect and e - s >= 2:
            p = mann_whitney(samples_of([r[0] for r in a.runs[s:e]][:10]),
                             samples_of([r[0] for r in a.runs[first:end]][-10:]), True)
            if p < options.alpha:
                a.regressions.append((s, after / before - 1, p, before))
    if len(starts) < 2 or starts[-1] < n - options.recent:
        return a
    s, before = starts[-1], starts[-2]
    change = a.steps[-1][1]
    after_ids = [r[0] for r in a.runs[s:]][:10]
    before_ids = [r[0] for r in a.runs[before:s]][-10:]
    p = mann_whitney(samples_of(after_ids), samples_of(before_ids), change > 0)
    a.change, a.p, a.index = change, p, s
    if abs(change) < options.min_effect:
        return a
    if n - s >= 2 and p < options.alpha:
        a.verdict = "regression" if change > 0 else "improvement"
    elif n - s == 1 and p < max(options.alpha, SUSPECT_ALPHA):  # one run: its re-measure has the last word
        a.verdict = "suspected"
    return a


def load_history(db, match=None):
    """[(bench_id, name, runs)] with each benchmark's runs in date order, and {bench: failure} of the
    benchmarks whose newest run failed them."""
    runs = {}
    for bench, run, date, commit, median, low, high, n in db.execute(
            "SELECT m.benchmark_id, m.run_id, r.date, r.gpubench_commit, m.median, m.low, m.high, m.n "
            "FROM medians m JOIN runs r ON r.id = m.run_id ORDER BY m.benchmark_id, r.date, r.id"):
        runs.setdefault(bench, []).append((run, date, commit, median, low, high, n))
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


def assess_all(db, options, match=None):
    history, failed = load_history(db, match)
    return [assess(Assessment(b, name, runs), options, samples_reader(db, b), failed.get(b)) for b, name, runs in history]


# ----------------------------------------------------------------------------------------- alerts

ALERT_COLUMNS = ("id, benchmark_id, run_id, previous_run_id, change, p, before, detected, closed, closed_run_id, "
                 "ack_reason, ack_date, ack_until")


class Alert:
    """A regression a check found, as the history keeps it."""

    def __init__(self, row):
        (self.id, self.bench, self.run, self.previous, self.change, self.p, self.before, self.detected, self.closed,
         self.closed_run, self.ack_reason, self.ack_date, self.ack_until) = row
        self.name = None
        self.runs_since = 0    # runs from its step to the newest
        self.commit = self.date = self.previous_commit = self.previous_date = None
        self.closed_commit = self.closed_date = None
        self.new = self.moved = self.closed_now = False

    def state(self, today):
        """open, acknowledged or closed; an acknowledgement holds to the end of its --until day."""
        if self.closed:
            return "closed"
        if self.ack_reason and (not self.ack_until or self.ack_until >= today):
            return "acknowledged"
        return "open"

    def lapsed(self, today):
        return not self.closed and bool(self.ack_reason and self.ack_until and self.ack_until < today)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def today():
    return utc_now().strftime("%Y-%m-%d")


def update_alerts(db, assessed, options, persist=True):
    """The history's alerts brought up to date with the benchmarks assessed. Each regression their
    histories hold (a.regressions) is an alert: the one stored for that step (its first run within
    two runs of it: more nights can move the fitted edge) or a new one. An alert closes when a level
    of two runs or more after its step is back within --min-effect of the level before it. Written
    in one transaction when persist (a read-only history: shown, not kept, and said). Returns every
    alert of those benchmarks."""
    now = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
    stored = {}
    for row in db.execute(f"SELECT {ALERT_COLUMNS} FROM alerts ORDER BY id"):
        stored.setdefault(row[1], []).append(Alert(row))
    alerts = []
    for a in assessed:
        mine = stored.get(a.bench, [])
        position = {r[0]: i for i, r in enumerate(a.runs)}
        matched = set()
        for s, change, p, before in a.regressions:
            near = [x for x in mine if id(x) not in matched and x.run in position and abs(position[x.run] - s) <= 2]
            if near:
                x = near[0]
                x.moved = (x.run, x.change, x.p, x.before) != (a.runs[s][0], change, p, before)
                x.run, x.previous, x.change, x.p, x.before = a.runs[s][0], a.runs[s - 1][0], change, p, before
            else:
                x = Alert((None, a.bench, a.runs[s][0], a.runs[s - 1][0], change, p, before, now, None, None, None,
                           None, None))
                x.new = True
                mine.append(x)
            matched.add(id(x))
        for x in mine:
            at = position.get(x.run)
            if x.closed or at is None:
                continue
            for first, end, level in a.levels:
                if first > at and end - first >= 2 and level <= x.before * (1 + options.min_effect):
                    x.closed, x.closed_run, x.closed_now = now, a.runs[first][0], True
                    break
        stamps = {r[0]: (r[2], r[1]) for r in a.runs}  # (commit, date) of its runs, read once

        def stamp_of(run):
            return stamps.get(run) or run_stamp(db, run)
        for x in mine:
            x.name = a.name
            x.runs_since = len(a.runs) - position[x.run] if x.run in position else 0
            x.commit, x.date = stamp_of(x.run)
            x.previous_commit, x.previous_date = stamp_of(x.previous)
            if x.closed_run is not None:
                x.closed_commit, x.closed_date = stamp_of(x.closed_run)
        alerts += mine
    changed = [x for x in alerts if x.new or x.moved or x.closed_now]
    if persist and changed and db.readonly:
        print(f"gpubench track: {db_path(db)} is read-only: the alerts are shown, not kept", file=sys.stderr)
    elif persist and changed:
        with writing(db):
            for x in changed:
                if x.new:
                    x.id = db.execute("INSERT INTO alerts (benchmark_id, run_id, previous_run_id, change, p, before, "
                                      "detected, closed, closed_run_id) VALUES (?,?,?,?,?,?,?,?,?)",
                                      (x.bench, x.run, x.previous, x.change, x.p, x.before, x.detected, x.closed,
                                       x.closed_run)).lastrowid
                else:
                    db.execute("UPDATE alerts SET run_id = ?, previous_run_id = ?, change = ?, p = ?, before = ?, "
                               "closed = ?, closed_run_id = ? WHERE id = ?",
                               (x.run, x.previous, x.change, x.p, x.before, x.closed, x.closed_run, x.id))
    return alerts


def run_stamp(db, run):
    """(commit, date) of a run the benchmark's assessed runs do not hold."""
    row = db.execute("SELECT gpubench_commit, date FROM runs WHERE id = ?", (run,)).fetchone()
    return row or ("?", "?")


def describe_alert(x, day):
    """The check's line of one alert."""
    state = x.state(day)
    same = (" (the same commit on both sides: the code did not change; the machine, its load or the data did)"
            if x.commit == x.previous_commit else "")
    step = (f"{x.change * 100:+.1f}% (p = {x.p:.2g}, {x.runs_since} run{'s' if x.runs_since != 1 else ''}) "
            f"since {x.commit} ({x.date[:10]}), before it {x.previous_commit} ({x.previous_date[:10]}){same}")
    if state == "closed":
        return (f"closed      {x.name}: {x.change * 100:+.1f}% since {x.commit} ({x.date[:10]}) is over: back within "
                f"the minimum effect of before it since {x.closed_commit} ({x.closed_date[:10]})")
    if state == "acknowledged":
        until = f", until {x.ack_until}" if x.ack_until else ""
        return f"acknowledged {x.name}: {step}; acknowledged {x.ack_date[:10]}{until}: {x.ack_reason}"
    found = "found by this check" if x.new else f"open since {x.detected[:10]}"
    lapsed = f"; its acknowledgement lapsed after {x.ack_until} ({x.ack_reason})" if x.lapsed(day) else ""
    return f"REGRESSION  {x.name}: {step}; {found}{lapsed}"


def alert_json(x, day):
    out = {"benchmark": x.name, "state": x.state(day), "change": x.change, "p": x.p, "commit": x.commit,
           "date": x.date, "previous_commit": x.previous_commit, "runs_since": x.runs_since, "detected": x.detected}
    if x.closed:
        out.update(closed=x.closed, closed_commit=x.closed_commit, closed_date=x.closed_date)
    if x.ack_reason:
        out["acknowledged"] = {"reason": x.ack_reason, "date": x.ack_date, "until": x.ack_until, "lapsed": x.lapsed(day)}
    return out


def acknowledge(db, options, benchmark, reason, until):
    """track ack: the open regressions of one benchmark (its whole name, or words of it that name one)
    acknowledged, with why, for good or to the end of the day --until."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise UsageError("--reason: say why the regression is accepted (it is shown beside it)")
    if until is not None:
        try:
            datetime.date.fromisoformat(until)
        except ValueError:
            raise UsageError(f"--until {until}: not a date (YYYY-MM-DD)")
        if until < today():
            raise UsageError(f"--until {until}: that day is over")
    assessed = assess_all(db, options)
    alerts = [x for x in update_alerts(db, assessed, options) if not x.closed]
    exact = [x for x in alerts if x.name == benchmark]
    words = benchmark.lower().split()
    chosen = exact or [x for x in alerts if all(w in x.name.lower() for w in words)]
    names = sorted({x.name for x in chosen})
    if not names:
        known = [a.name for a in assessed if a.name == benchmark or all(w in a.name.lower() for w in words)]
        raise TrackError(f"'{benchmark}': " + ("no open regression of " + (known[0] if len(known) == 1 else
                         f"the {len(known)} benchmarks it names") if known else "no benchmark of the history has that name")
                         + " (gpubench track check lists the open ones)")
    if len(names) > 1:
        raise TrackError(f"'{benchmark}' names {len(names)} benchmarks with open regressions; name one:\n  "
                         + "\n  ".join(names))
    now = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
    with writing(db):
        for x in chosen:
            db.execute("UPDATE alerts SET ack_reason = ?, ack_date = ?, ack_until = ? WHERE id = ?",
                       (reason, now, until, x.id))
    for x in chosen:
        print(f"gpubench track: acknowledged {x.name}: {x.change * 100:+.1f}% since {x.commit} ({x.date[:10]})"
              + (f", until {until}" if until else "") + f": {reason}")
    return 0


def remeasure_args(db, a):
    """The gpubench run arguments that measure a's benchmark alone: its run's own arguments, with
    the point's suite, problem, backend, device, variant and precision."""
    suite, problem, backend, index, variant, precision = db.execute(
        "SELECT suite, problem, backend, device_index, variant, precision FROM benchmarks WHERE id = ?", (a.bench,)).fetchone()
    row = db.execute("SELECT command FROM runs WHERE id = ?", (a.runs[-1][0],)).fetchone()
    args, kept = json.loads(row[0]) if row and row[0] else [], []
    i = 0
    while i < len(args):
        if args[i] in RUN_OPTIONS:
            i += 2
            continue
        kept.append(args[i])
        i += 1
    return ["--suite", suite, "--problem", problem, "--backend", backend, "--device", str(index), "--variant", variant,
            "--precision", precision] + kept


def remeasure(db, a, workdir, allow_test_hooks=False):
    args = remeasure_args(db, a)
    target = os.path.join(workdir, f"remeasure-{a.bench}.json")
    run_gpubench(args, max(a.runs[-1][6], 2), target)
    import_run(db, target, kind="remeasure", command=args, allow_test_hooks=allow_test_hooks)


def describe(a):
    name = a.name
    if a.verdict == "failed":
        return f"FAILED      {name}: {a.failure}"
    if a.verdict == "new":
        return f"new         {name}: {len(a.runs)} runs (a verdict needs 5)"
    if a.index is None or a.verdict == "same":
        return f"same        {name}"
    first, prev = a.runs[a.index], a.runs[a.index - 1]
    runs = len(a.runs) - a.index
    label = {"regression": "REGRESSION", "improvement": "improvement", "suspected": "suspected"}[a.verdict]
    same = (" (the same commit on both sides: the code did not change; the machine, its load or the "
            "data did)" if first[2] == prev[2] else "")
    return (f"{label:<11} {name}: {a.change * 100:+.1f}% (p = {a.p:.2g}, {runs} run{'s' if runs > 1 else ''}) "
            f"since {first[2]} ({first[1][:10]}), before it {prev[2]} ({prev[1][:10]}){same}")


def verdict_json(a):
    out = {"benchmark": a.name, "verdict": a.verdict, "runs": len(a.runs)}
    if a.failure:
        out["failure"] = a.failure
    if a.index is not None and a.verdict not in ("same", "new", "failed"):
        out.update(change=a.change, p=a.p, commit=a.runs[a.index][2], date=a.runs[a.index][1],
                   previous_commit=a.runs[a.index - 1][2], runs_since=len(a.runs) - a.index)
    return out


def check(db, options, match, remeasure_ok, json_out, allow_test_hooks=False):
    assessed = assess_all(db, options, match)
    suspected = [a for a in assessed if a.verdict == "suspected"]
    notes = []
    if suspected and remeasure_ok and db.readonly:
        notes.append(f"{db_path(db)} is read-only: {len(suspected)} suspected changes were not re-measured")
    elif suspected and remeasure_ok:
        with tempfile.TemporaryDirectory(prefix="gpubench-track-") as work:
            for a in suspected:
                try:
                    remeasure(db, a, work, allow_test_hooks)
                except (TrackError, ReportError) as e:
                    notes.append(f"re-measuring {a.name}: {e}")
        again = {a.bench: a for a in assess_all(db, options, match)}
        assessed = [again.get(a.bench, a) for a in assessed]
    # Regressions are the alerts': every one the history holds stays open, whatever its age, until its
    # level returns or someone acknowledges it. Tonight's other news is the verdicts'.
    day = today()
    alerts = update_alerts(db, assessed, options)
    state = {"open": 1, "acknowledged": 2, "closed": 5}
    shown = [x for x in alerts if x.state(day) != "closed" or x.closed_now]
    order = {"failed": 0, "suspected": 3, "improvement": 4, "new": 6}
    lines = [((order[a.verdict], a.name), describe(a)) for a in assessed if a.verdict in order]
    lines += [((state[x.state(day)], x.name, x.date), describe_alert(x, day)) for x in shown]
    for _, line in sorted(lines):
        print(line)
    # Each benchmark counted once: failing, else regressed (an open regression), else acknowledged,
    # else tonight's verdict.
    opened = {x.bench for x in alerts if x.state(day) == "open"}
    acked = {x.bench for x in alerts if x.state(day) == "acknowledged"}
    kinds = [("failing", "failed"), ("regressed", "open"), ("acknowledged", "acked"), ("improved", "improvement"),
             ("suspected (one run)", "suspected"), ("with too little history", "new"), ("unchanged", "same")]
    of = ["failed" if a.verdict == "failed" else "open" if a.bench in opened else "acked" if a.bench in acked
          else "same" if a.verdict == "regression" else a.verdict for a in assessed]
    closed = sum(x.closed_now for x in alerts)
    print(f"gpubench track check: {len(assessed)} benchmarks: "
          + ", ".join(f"{of.count(k)} {label}" for label, k in kinds)
          + (f"; {closed} regression{'s' if closed != 1 else ''} closed by this check (the level came back)" if closed else ""))
    for note in notes:
        print(f"gpubench track check: {note}", file=sys.stderr)
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"verdicts": [verdict_json(a) for a in assessed], "alerts": [alert_json(x, day) for x in alerts]},
                      f, indent=1)
    return 1 if opened or "failed" in of else 0


def show(db, match):
    history, failed = load_history(db, match)
    if not history:
        return "no benchmarks" + (f" matching '{match}'" if match else "") + " in the history\n"
    lines = ["| benchmark | runs | first | last | last commit | last median (ms) | range of medians (ms) |",
             "|---|---:|---|---|---|---:|---|"]
    for bench, name, runs in history:
        if not runs:
            lines.append(f"| {name} | 0 | | | | failed: {failed.get(bench, '')} | |")
            continue
        medians = [r[3] * 1e3 for r in runs]
        lines.append(f"| {name} | {len(runs)} | {runs[0][1][:10]} | {runs[-1][1][:10]} | {runs[-1][2]} | "
                     f"{medians[-1]:.4g} | {min(medians):.4g} - {max(medians):.4g} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gpubench track", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the tracked set and add its runs to the history")
    r.add_argument("--set", default=os.path.join(HERE, "nightly.json"), help="the tracked set (default reports/nightly.json)")
    r.add_argument("--only", help="only these runs of the set (a comma list of their names)")
    r.add_argument("--records", help="where the record files are kept (default: records/ beside the history)")
    i = sub.add_parser("import", help="load record files into the history (each file one run)")
    i.add_argument("records", nargs="+", help="all are imported or none (another of gpubench's JSON files, a sweep's, is skipped)")
    c = sub.add_parser("check", help="tonight's runs against the history: exit 1 on a confirmed regression or a failure")
    c.add_argument("--no-remeasure", action="store_true", help="report a one-run change as suspected, not re-run")
    c.add_argument("--json", help="also write the verdicts to this file")
    for q in (r, i, c):
        q.add_argument("--allow-test-hooks", action="store_true",
                       help="take records made with a test hook set (GPUBENCH_SLOWDOWN...), refused otherwise")
    p = sub.add_parser("publish", help="write the dashboard: a static site, OUT/index.html")
    p.add_argument("--out", required=True, help="the folder written")
    p.add_argument("--title", default="gpubench: nightly performance")
    k = sub.add_parser("ack", help="acknowledge a benchmark's open regressions: check no longer fails on them")
    k.add_argument("benchmark", help="the benchmark's name (as check prints it), or words of it that name one")
    k.add_argument("--reason", required=True, help="why it is accepted (shown beside it by check and the dashboard)")
    k.add_argument("--until", metavar="YYYY-MM-DD", help="the last day the acknowledgement holds (default: for good)")
    for q in (c, p, k):
        if q is not k:
            q.add_argument("--match", help="only benchmarks whose name contains this")
        q.add_argument("--min-effect", type=float, default=2.0, help="the smallest change reported, in %% (default 2)")
        q.add_argument("--alpha", type=float, default=0.01, help="the rank test's significance level (default 0.01)")
        q.add_argument("--recent", type=int, default=3, help="a step is news while it began within this many newest runs (default 3)")
    s = sub.add_parser("show", help="each benchmark's runs in the history")
    s.add_argument("--match", help="only benchmarks whose name contains this")
    for q in (r, i, c, p, k, s):
        q.add_argument("--history", help="the history file (default $XDG_DATA_HOME/gpubench/history.sqlite)")
        q.add_argument("--busy-timeout", type=float, default=BUSY_TIMEOUT_S, metavar="S",
                       help=f"how long to wait for another gpubench writing the history (default {BUSY_TIMEOUT_S} s)")
    args = parser.parse_args(argv)
    try:
        set_busy_timeout(args.busy_timeout)
        path = args.history or default_history()
        db = open_history(path, create=args.command in ("import", "run"), write=args.command in ("import", "run", "ack"))
        if args.command == "run":
            return track_run(db, path, args.set, args.records, args.only.split(",") if args.only else None,
                             args.allow_test_hooks)
        if args.command == "import":
            added, again, total, skipped = import_runs(db, args.records, allow_test_hooks=args.allow_test_hooks)
            for why in skipped:
                print(f"gpubench track: skipped {why}", file=sys.stderr)
            print(f"gpubench track: {path}: imported {added} runs ({total} repetitions); "
                  f"{again} already in the history" + (f"; {len(skipped)} files skipped (not runs)" if skipped else ""))
            return 0
        if args.command in ("check", "publish", "ack"):
            if not 0 <= args.min_effect < 100 or not 0 < args.alpha < 1 or args.recent < 1:
                raise TrackError("--min-effect is a percentage in [0, 100), --alpha in (0, 1), --recent at least 1")
            options = Options(min_effect=args.min_effect / 100, alpha=args.alpha, recent=args.recent)
            if args.command == "check":
                return check(db, options, args.match, not args.no_remeasure, args.json, args.allow_test_hooks)
            if args.command == "ack":
                return acknowledge(db, options, args.benchmark, args.reason, args.until)
            from dashboard import publish
            assessed = assess_all(db, options, args.match)
            return publish(db, assessed, update_alerts(db, assessed, options), args.out, args.title, path)
        sys.stdout.write(show(db, args.match))
        return 0
    except (TrackError, ReportError) as e:
        print(f"gpubench track: {e}", file=sys.stderr)
        return e.code
    except sqlite3.Error as e:  # a read-only history, a full disk: nothing was changed (transactions)
        print(f"gpubench track: {getattr(args, 'history', None) or default_history()}: {e}; nothing was changed",
              file=sys.stderr)
        return EXIT_IO
    except (OSError, KeyboardInterrupt) as e:
        return failed("gpubench track", e)


if __name__ == "__main__":
    sys.exit(main())
