"""gpubench track: nightly performance tracking (the history, the regression check, the dashboard).

    gpubench track run [--set FILE] [--records DIR]      the tracked set, into the history
    gpubench track run --slurm [PARTITION,..]            the set as one Slurm job per partition (slurm.py)
    gpubench track run --commits A..B                    the set at each commit of the project it tracks
    gpubench track bisect BENCHMARK GOOD BAD             the project's first commit where BENCHMARK got slower
    gpubench track import RECORDS.json ...               record files, each as one run (all or none)
    gpubench track check [--no-remeasure] [--json FILE]  tonight against the history: exit 1 while a
                                                         regression is open or a benchmark fails
    gpubench track ack BENCHMARK --reason TEXT [--until DATE]   accept a benchmark's open regressions
    gpubench track publish --out DIR                     the static dashboard (index.html)
    gpubench track show [--match TEXT]                   each benchmark's runs
    gpubench track runs                                  every run of the history, with its id
    gpubench track forget RUN [RUN..]                    removes runs (an id, or the file imported)
    gpubench track export-reframe --out DIR              references per partition for ReFrame (reframe_export.py)
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
commit of the first run of its step and the commit before it: the tracked project's (a set in a git
work tree other than gpubench's, or naming one: "project") with gpubench's beside it, and says
which of them changed.

Regressions stay open: every slower step of the whole history that passes those tests, however
old, is an alert kept in the history. It is reported by every check, which exits 1, until a level
of two runs after it is back within --min-effect of the level before it (then it is closed) or
someone acknowledges it (track ack, for good or to a day).
"""
import argparse
import ctypes
import datetime
import json
import os
import signal
import sqlite3
import subprocess
import sys
import math
import shutil
import statistics
import tempfile

from .verdicts import bmf, junit, markdown, value_text
from .detection import (Options, acknowledge, alert_json, assess_all, describe, describe_alert, update_alerts, verdict_json)
from .errors import EXIT_IO, ReportError, UsageError, failed
from .files import write_atomic
from .records import read_json
from .project import Checkout, annotate, commits_in, describe_commit, resolve, project_of, project_state, rebased, sequence_of
from .history import (BUSY_TIMEOUT_S, TrackError, db_path, default_history, forget_runs, import_run, import_runs, list_runs, load_history, open_history, partition_of, read_run, set_busy_timeout, today, tracked_series, unit_of, utc_now, write_job)


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # reports/: the tracked set
RUN_OPTIONS = ("--suite", "--problem", "--backend", "--device", "--variant", "--precision")
OWN_OPTIONS = ("--repetitions", "--format", "--out")  # track sets these itself


def load_set(path):
    """The tracked set: {"repetitions": R, "project": FOLDER, "runs": [{"name": ..., "args": [gpubench
    run arguments]}]}. "project" (optional) names the git work tree of the code it tracks, relative
    to the set's folder: by default the work tree the set file lies in, unless that is gpubench's own."""
    try:
        tracked = read_json(path, 16 << 20)  # a regular file of at most 16 MiB
    except ReportError as e:
        raise TrackError(str(e)) from None
    problem = None
    if not isinstance(tracked, dict) or not isinstance(tracked.get("runs"), list) or not tracked["runs"]:
        problem = "no list of runs"
    elif "project" in tracked and (not isinstance(tracked["project"], str) or not tracked["project"]):
        problem = '"project" must name a folder (a git work tree)'
    elif "build" in tracked and (not isinstance(tracked["build"], str) or not tracked["build"].strip()):
        problem = '"build" must be a shell command (run in each commit\'s checkout before the set)'
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
    # A user's kernel spec (--spec FILE) is named relative to the set's own folder, wherever track runs.
    folder = os.path.dirname(os.path.abspath(path))
    for entry in tracked["runs"]:
        args = entry["args"]
        for i, a in enumerate(args):
            if a == "--spec" and i + 1 < len(args) and not os.path.isabs(args[i + 1]):
                args[i + 1] = os.path.normpath(os.path.join(folder, args[i + 1]))
            elif a.startswith("--spec=") and not os.path.isabs(a[len("--spec="):]):
                args[i] = "--spec=" + os.path.normpath(os.path.join(folder, a[len("--spec="):]))
    tracked["project"] = project_of(path, tracked.get("project"), HERE)
    return tracked


def gpubench_binary():
    binary = os.environ.get("GPUBENCH_BINARY")
    if not binary or not os.access(binary, os.X_OK):
        raise TrackError("this needs the gpubench program: run it as 'gpubench track ...'")
    return binary


def die_with_parent():
    """In the gpubench run that track starts: killed when track dies. A batch system that ends a job
    (Slurm at its time limit) kills track first; the run, whose parent is then gone, would escape its
    kill and go on measuring on a node handed to the next job."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_gpubench(args, repetitions, target, project_dir=None):
    """gpubench run ARGS into the records file TARGET (GPUBENCH_PROJECT_DIR: the project's work tree
    or checkout it measures, where the set names one). Returns its exit code (1: a point failed,
    the records say which)."""
    command = [gpubench_binary(), "run"] + args + ["--repetitions", str(repetitions), "--format", "json", "--out", target]
    print("gpubench track: running " + " ".join(["gpubench", "run"] + args + ["--repetitions", str(repetitions)]),
          file=sys.stderr, flush=True)
    env = dict(os.environ, GPUBENCH_PROJECT_DIR=project_dir) if project_dir else None
    code = subprocess.call(command, stdout=subprocess.DEVNULL, preexec_fn=die_with_parent, env=env)
    if code not in (0, 1) or not os.path.exists(target):
        raise TrackError(f"gpubench run {' '.join(args)} exited {code}"
                         + ("" if os.path.exists(target) else " and wrote no records"))
    return code


def track_fleet(db, history, set_path, tracked, slurm, records_dir, only, night, allow_test_hooks=False):
    """track run --slurm: a job per partition (slurm.py), every job's records into this history tagged
    with its partition, and each job itself as a run of its partition (its wall time, or Slurm's
    reason it failed)."""
    from .slurm import run_fleet, run_seconds, slurm_section
    section = slurm_section(tracked, set_path, slurm)
    status, problems = 0, []
    for partition, job_dir, records, failure, fields in run_fleet(gpubench_binary(), set_path, section, only,
                                                                  records_dir, night):
        commit = "?"
        for path in records:
            try:
                new, n = import_run(db, path, kind="nightly (slurm)", allow_test_hooks=allow_test_hooks,
                                    partition=partition)
                print(f"gpubench track: {partition}: {n} repetitions into {history} (records: {path})")
                with open(path) as f:
                    commit = json.load(f).get("context", {}).get("gpubench_commit", commit)
            except (TrackError, ReportError, OSError, ValueError) as e:
                problems.append(f"{partition}: {e}")
        date = utc_now().strftime("%Y-%m-%dT%H:%M:%S+0000")
        # Slurm's RunTime counts whole seconds: a job shorter than one reads 1 s.
        write_job(db, partition, job_dir, date, commit, None if failure else max(run_seconds(fields) or 0.0, 1.0), failure)
        if failure:
            problems.append(f"{partition}: FAILED: {failure}")
    for p in problems:
        print(f"gpubench track: {p}", file=sys.stderr)
    return 3 if problems else status


def track_run(db, history, set_path, records_dir, only, allow_test_hooks=False, slurm=None, commits=None,
              quiet=False):
    tracked = load_set(set_path)
    entries = [e for e in tracked["runs"] if not only or e["name"] in only]
    if only and len(entries) != len(set(only)):
        unknown = set(only) - {e["name"] for e in tracked["runs"]}
        raise TrackError(f"{set_path}: no run named {', '.join(sorted(unknown))} "
                         f"(valid: {', '.join(e['name'] for e in tracked['runs'])})")
    records_dir = records_dir or os.path.join(os.path.dirname(os.path.abspath(history)), "records")
    os.makedirs(records_dir, exist_ok=True)
    night = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    if slurm is not None:
        if commits:
            raise UsageError("--commits runs the set here, one commit after another: not with --slurm")
        return track_fleet(db, history, set_path, tracked, slurm, records_dir, only, night, allow_test_hooks)
    if commits:
        return track_commits(db, history, set_path, tracked, entries, records_dir, commits, allow_test_hooks, quiet)
    status, problems, _ = run_entries(db, history, tracked, entries, records_dir, night, None, allow_test_hooks,
                                      quiet=quiet)
    for p in problems:
        print(f"gpubench track: {p}", file=sys.stderr)
    return 3 if problems else status


def busy_points(records):
    """The points of a run's records during which other processes kept the CPUs or the device busy
    (gpubench's machine_load), each as "NAME: N% of its C CPUs" and "process P (NAME) at N% of the
    device's SMs"."""
    out = []
    for b in records.get("benchmarks", []) if isinstance(records, dict) else []:
        m = b.get("machine_load") if isinstance(b, dict) else None
        if isinstance(m, dict) and m.get("busy") is True and b.get("run_type") != "aggregate":
            said = []
            if float(m.get("others_cpu_fraction", 0)) >= 0.25:
                said.append(f"{100 * float(m.get('others_cpu_fraction', 0)):.0f}% of its {m.get('cpus')} CPUs")
            for o in m.get("gpu_others", []) if m.get("gpu_busy") is True else []:
                if isinstance(o, dict) and float(o.get("sm_pct", 0)) >= 10:
                    said.append(f"process {o.get('pid')} ({o.get('name', '?')}) at {float(o['sm_pct']):.0f}% of the "
                                "device's SMs")
            line = f"{b.get('run_name', '?')}: {', '.join(said) or 'busy'}"
            if line not in out:
                out.append(line)
    return out


def run_entries(db, history, tracked, entries, records_dir, night, checkout, allow_test_hooks, kind="nightly",
                quiet=False):
    """The set's entries, each a gpubench run whose records go into the history: of the project's work
    tree as it is (checkout None: stamped with its state now) or of one commit's checkout (checkout:
    (folder, commit, its date); the records dated by the commit). quiet (--quiet-machine): a run whose
    points another process slowed is kept out. Returns (status, problems, records)."""
    status, problems, written = 0, [], []
    top = tracked["project"]
    for entry in entries:
        target = os.path.join(records_dir, f"{night}-{entry['name']}.json")
        k = 1
        while os.path.exists(target):  # two runs in one second keep both files
            k += 1
            target = os.path.join(records_dir, f"{night}-{entry['name']}-{k}.json")
        try:
            if checkout:
                folder, commit, date = checkout
                state = {"path": top, "commit": commit, "branch": None, "dirty": False, "seq": sequence_of(top, commit)}
                args = rebased(entry["args"], top, folder)
            else:
                # The project as the run found it (a build the set's runs read, a spec it names).
                folder, date, args = top, None, entry["args"]
                state = project_state(top) if top else None
            status = max(status, run_gpubench(args, tracked.get("repetitions", 10), target, folder))
            records = annotate(target, state, date) if state or date or quiet else None
            busy = busy_points(records) if quiet else []
            if busy:
                raise TrackError(f"not recorded (--quiet-machine): other processes kept the machine busy during "
                                 f"{len(busy)} points ({'; '.join(busy[:3])}{'; ...' if len(busy) > 3 else ''}); "
                                 f"the records stay in {target}")
            new, n = import_run(db, target, kind=kind, command=entry["args"], allow_test_hooks=allow_test_hooks)
            written.append(target)
            print(f"gpubench track: {entry['name']}: {n} repetitions into {history} (records: {target})")
        except (TrackError, ReportError) as e:  # the other runs of the set still run
            problems.append(f"{entry['name']}: {e}")
    return status, problems, written


def project_needed(set_path, tracked, what):
    if not tracked["project"]:
        raise TrackError(f"{set_path}: {what} measures the commits of the project the set tracks, and it names none: "
                         'it lies in no git work tree other than gpubench\'s (name one: "project": FOLDER)')
    return tracked["project"]


def track_commits(db, history, set_path, tracked, entries, records_dir, spec, allow_test_hooks, quiet=False):
    """track run --commits A..B: each commit of the project's range (oldest first) checked out in a
    scratch folder, built with the set's "build" command, and the set run there; every run imported,
    dated by its commit so that the history holds them in the project's order."""
    top = project_needed(set_path, tracked, "--commits")
    commits = commits_in(top, spec)
    scratch = tempfile.mkdtemp(prefix="gpubench-commits-")
    status, problems = 0, []
    try:
        checkout = Checkout(top, scratch)
        for i, commit in enumerate(commits):
            date, subject = describe_commit(top, commit)
            print(f"gpubench track: [{i + 1}/{len(commits)}] {commit[:12]} {subject}", file=sys.stderr, flush=True)
            try:
                folder = checkout.at(commit, tracked.get("build"))
            except TrackError as e:  # the other commits still run
                problems.append(str(e))
                continue
            night = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + commit[:12]
            s, p, _ = run_entries(db, history, tracked, entries, records_dir, night, (folder, commit, date),
                                  allow_test_hooks, kind="commits", quiet=quiet)
            status, problems = max(status, s), problems + [f"{commit[:12]}: {x}" for x in p]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for p in problems:
        print(f"gpubench track: {p}", file=sys.stderr)
    return 3 if problems else status


def bisect(db, history, set_path, records_dir, only, benchmark, good, bad, min_effect, allow_test_hooks):
    """track bisect BENCHMARK GOOD BAD: the first commit of the project between GOOD and BAD (its first
    parents) whose BENCHMARK is nearer BAD's level than GOOD's (their geometric mean apart), found by
    halving: each step builds and measures one commit in a scratch checkout (2 + log2(n) in all);
    every measured run goes into the history (kind bisect)."""
    tracked = load_set(set_path)
    entries = [e for e in tracked["runs"] if not only or e["name"] in only]
    if not entries:
        raise TrackError(f"{set_path}: no run named {', '.join(only or [])}")
    top = project_needed(set_path, tracked, "bisect")
    good_c, bad_c = resolve(top, good), resolve(top, bad)
    commits = commits_in(top, f"{good_c}..{bad_c}")
    records_dir = records_dir or os.path.join(os.path.dirname(os.path.abspath(history)), "records")
    os.makedirs(records_dir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="gpubench-bisect-")
    levels, name = {}, None
    try:
        checkout = Checkout(top, scratch)

        def level(commit):
            if commit not in levels:
                date, subject = describe_commit(top, commit)
                print(f"gpubench track: bisect: measuring {commit[:12]} {subject}", file=sys.stderr, flush=True)
                folder = checkout.at(commit, tracked.get("build"))
                night = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + commit[:12]
                _, problems, written = run_entries(db, history, tracked, entries, records_dir, night,
                                                   (folder, commit, date), allow_test_hooks, kind="bisect")
                medians = {}
                for path in written:
                    for series, _, _, _, values, error in tracked_series(read_run(path, allow_test_hooks)[2]):
                        if values and not error:
                            medians[series] = statistics.median(v for _, v in values)
                if problems and not medians:
                    raise TrackError(f"bisect: {commit[:12]} could not be measured: " + "; ".join(problems))
                levels[commit] = medians
            return levels[commit]

        found = level(good_c)
        exact = [n for n in found if n == benchmark]
        words = benchmark.lower().split()
        chosen = exact or sorted(n for n in found if all(w in n.lower() for w in words))
        if len(chosen) != 1:
            raise TrackError(f"bisect: '{benchmark}' names {len(chosen)} of the set's benchmarks at {good}"
                             + (":\n  " + "\n  ".join(chosen) if chosen else f" (they are: {', '.join(sorted(found))})"))
        name = chosen[0]

        def value(commit):
            v = level(commit).get(name)
            if v is None:
                raise TrackError(f"bisect: {commit[:12]} has no figure for {name} (its point failed or is gone)")
            return v
        g, b = value(good_c), value(bad_c)
        unit, scale = unit_of(name)
        if b <= g * (1 + min_effect):
            raise TrackError(f"bisect {name}: {good} {g * scale:.4g} {unit}, {bad} {b * scale:.4g} {unit}: {bad} is not "
                             f"slower by {min_effect * 100:g}% or more, so there is no step between them to find")
        threshold = math.sqrt(g * b)
        lo, hi = -1, len(commits) - 1  # commits[hi] is slow; commits[lo] (GOOD at -1) is not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if value(commits[mid]) > threshold:
                hi = mid
            else:
                lo = mid
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    first = commits[hi]
    _, subject = describe_commit(top, first)
    before = commits[lo] if lo >= 0 else good_c
    print(f"gpubench track: bisect {name}: the first slower commit is {first} ({subject}): "
          f"{value_text(levels[first][name], name)} against {value_text(levels[before][name], name)} at {before[:12]} "
          f"just before it ({good}: {value_text(g, name)}, {bad}: {value_text(b, name)}); "
          f"{len(levels)} builds for {len(commits)} commits")
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
    # Tonight's run's project (its work tree as it is now) stamps the re-measured run too.
    row = db.execute("SELECT project FROM runs WHERE id = ?", (a.runs[-1][0],)).fetchone()
    project = row[0] if row and row[0] and os.path.isdir(row[0]) else None
    state = project_state(project) if project else None
    run_gpubench(args, max(a.runs[-1][6], 2), target, project)
    if state:
        annotate(target, state)
    import_run(db, target, kind="remeasure", command=args, allow_test_hooks=allow_test_hooks)


def check(db, options, match, remeasure_ok, json_out, allow_test_hooks=False, junit_out=None, markdown_out=None,
          dashboard=None):
    assessed = assess_all(db, options, match)
    # A benchmark of a Slurm partition is re-measured there by the next fleet run, not on this machine.
    suspected = [a for a in assessed if a.verdict == "suspected" and not partition_of(a.name)]
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
        write_atomic(json_out, json.dumps({"verdicts": [verdict_json(a) for a in assessed],
                                           "alerts": [alert_json(x, day) for x in alerts]}, indent=1))
    if junit_out:
        write_atomic(junit_out, junit(assessed, of, alerts, day))
    if markdown_out:
        write_atomic(markdown_out, markdown(assessed, of, alerts, day, dashboard))
    return 1 if opened or "failed" in of else 0


def show(db, match):
    history, failed = load_history(db, match)
    if not history:
        return "no benchmarks" + (f" matching '{match}'" if match else "") + " in the history\n"
    lines = ["| benchmark | runs | first | last | last commit | last median | range of medians |",
             "|---|---:|---|---|---|---:|---|"]
    for bench, name, runs in history:
        if not runs:
            lines.append(f"| {name} | 0 | | | | failed: {failed.get(bench, '')} | |")
            continue
        unit, scale = unit_of(name)
        medians = [r[3] * scale for r in runs]
        lines.append(f"| {name} | {len(runs)} | {runs[0][1][:10]} | {runs[-1][1][:10]} | {runs[-1][2]} | "
                     f"{medians[-1]:.4g} {unit} | {min(medians):.4g} - {max(medians):.4g} {unit} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gpubench track", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the tracked set and add its runs to the history")
    r.add_argument("--set", default=os.path.join(HERE, "nightly.json"), help="the tracked set (default reports/nightly.json)")
    r.add_argument("--only", help="only these runs of the set (a comma list of their names)")
    r.add_argument("--records", help="where the record files are kept (default: records/ beside the history)")
    r.add_argument("--slurm", nargs="?", const="", metavar="PARTITION[,PARTITION..]",
                   help="run the set as one Slurm job per partition (default: the set's \"slurm\" section's), wait for "
                        "them up to its deadline and import every job's records, tagged with its partition")
    r.add_argument("--commits", metavar="A..B", help="run the set at each commit of the project it tracks (git's A..B, "
                                                  "oldest first; or one commit), each in a scratch checkout built with the "
                                                  "set's \"build\" command; the runs are dated by their commits")
    r.add_argument("--quiet-machine", action="store_true",
                   help="do not record a run during which other processes kept the CPUs busy (25%% or more; "
                        "the records' machine_load): it is said, and its records kept out of the history")
    b = sub.add_parser("bisect", help="the first commit of the project between GOOD and BAD where a benchmark got slower")
    b.add_argument("benchmark", help="the benchmark's name (as check prints it), or words of it that name one")
    b.add_argument("good", help="a commit (branch, tag) of the project where it was fast")
    b.add_argument("bad", help="a later commit where it is slow")
    b.add_argument("--set", default=os.path.join(HERE, "nightly.json"), help="the tracked set (default reports/nightly.json)")
    b.add_argument("--only", help="only these runs of the set (a comma list of their names)")
    b.add_argument("--records", help="where the record files are kept (default: records/ beside the history)")
    b.add_argument("--min-effect", type=float, default=2.0, help="how much slower BAD must be, in %% (default 2)")
    i = sub.add_parser("import", help="load record files into the history (each file one run)")
    i.add_argument("records", nargs="+", help="all are imported or none (another of gpubench's JSON files, a sweep's, is skipped)")
    i.add_argument("--partition", help="the Slurm partition (machine) the records were measured in: their benchmarks "
                                       "are that partition's, apart from every other machine's")
    c = sub.add_parser("check", help="tonight's runs against the history: exit 1 on a confirmed regression or a failure")
    c.add_argument("--no-remeasure", action="store_true", help="report a one-run change as suspected, not re-run")
    c.add_argument("--json", help="also write the verdicts to this file")
    c.add_argument("--junit", metavar="FILE", help="also write the verdicts as JUnit XML (a benchmark a test case; a "
                                                    "regression or a failing point a failure)")
    c.add_argument("--markdown", metavar="FILE", help="also write a markdown summary (for a merge request's comment)")
    c.add_argument("--dashboard-url", metavar="URL", help="the published dashboard's address: the markdown links each "
                                                          "benchmark to its page there")
    e = sub.add_parser("export", help="the history's newest figures for another dashboard")
    e.add_argument("--format", required=True, choices=["bmf", "asv"],
                   help="bmf: Bencher's Metric Format JSON of each benchmark's newest run (bencher run --adapter json "
                        "--file FILE); asv: every run in airspeed velocity's results layout, a folder (asv.conf.json's "
                        "results_dir; asv publish draws it)")
    e.add_argument("--out", required=True, help="the file (bmf) or folder (asv) written")
    e.add_argument("--match", help="only benchmarks whose name contains this")
    for q in (r, b, i, c):
        q.add_argument("--allow-test-hooks", action="store_true",
                       help="take records made with a test hook set (GPUBENCH_SLOWDOWN...), refused otherwise")
    p = sub.add_parser("publish", help="write the dashboard: a static site, OUT/index.html")
    p.add_argument("--out", required=True, help="the folder written")
    p.add_argument("--title", default="gpubench: nightly performance", help="the pages' title (default: gpubench: nightly "
                                                                           "performance)")
    k = sub.add_parser("ack", help="acknowledge a benchmark's open regressions: check no longer fails on them")
    k.add_argument("benchmark", help="the benchmark's name (as check prints it), or words of it that name one")
    k.add_argument("--reason", required=True, help="why it is accepted (shown beside it by check and the dashboard)")
    k.add_argument("--until", metavar="YYYY-MM-DD", help="the last day the acknowledgement holds (default: for good)")
    x = sub.add_parser("export-reframe", help="the history's references per system partition as ReFrame 4.10 external "
                                              "references (YAML), and a ReFrame test that runs gpubench points")
    x.add_argument("--out", required=True, help="the folder written: gpubench-references.yaml, gpubench_points.json, "
                                                "gpubench_check.py")
    x.add_argument("--system", default="cluster", help="the ReFrame system name of the partitions (default cluster)")
    x.add_argument("--partition", default="default", help="the partition of the benchmarks tracked without Slurm "
                                                          "(default default)")
    for q in (c, p, k, x):
        if q not in (k, x):
            q.add_argument("--match", help="only benchmarks whose name contains this")
        q.add_argument("--min-effect", type=float, default=2.0, help="the smallest change reported, in %% (default 2)")
        q.add_argument("--alpha", type=float, default=0.01, help="the rank test's significance level (default 0.01)")
        q.add_argument("--recent", type=int, default=3, help="a step is news while it began within this many newest runs (default 3)")
    s = sub.add_parser("show", help="each benchmark's runs in the history")
    s.add_argument("--match", help="only benchmarks whose name contains this")
    ru = sub.add_parser("runs", help="every run of the history: its id, date, commit, kind, machine and file")
    f = sub.add_parser("forget", help="remove runs from the history (their samples, and the alerts that rest on them)")
    f.add_argument("runs", nargs="+", metavar="RUN", help="a run's id ('track runs' lists them) or the records file it "
                                                          "was imported from; all are removed or none")
    for q in (r, b, i, c, e, p, k, x, s, ru, f):
        q.add_argument("--history", help="the history file (default $XDG_DATA_HOME/gpubench/history.sqlite)")
        q.add_argument("--busy-timeout", type=float, default=BUSY_TIMEOUT_S, metavar="S",
                       help=f"how long to wait for another gpubench writing the history (default {BUSY_TIMEOUT_S} s)")
    args = parser.parse_args(argv)
    try:
        set_busy_timeout(args.busy_timeout)
        path = args.history or default_history()
        db = open_history(path, create=args.command in ("import", "run", "bisect"),
                          write=args.command in ("import", "run", "bisect", "ack", "forget"))
        if args.command == "run":
            return track_run(db, path, args.set, args.records, args.only.split(",") if args.only else None,
                             args.allow_test_hooks, args.slurm, args.commits, args.quiet_machine)
        if args.command == "bisect":
            if not 0 <= args.min_effect < 1000:
                raise UsageError(f"--min-effect {args.min_effect:g}: a percentage in [0, 1000)")
            return bisect(db, path, args.set, args.records, args.only.split(",") if args.only else None, args.benchmark,
                          args.good, args.bad, args.min_effect / 100, args.allow_test_hooks)
        if args.command == "import":
            if args.partition is not None and not args.partition.replace("-", "").replace("_", "").replace(".", "").isalnum():
                raise TrackError(f"--partition '{args.partition}' is not a partition name (letters, digits, _ . -)")
            added, again, total, skipped = import_runs(db, args.records, allow_test_hooks=args.allow_test_hooks,
                                                       partition=args.partition or None)
            for why in skipped:
                print(f"gpubench track: skipped {why}", file=sys.stderr)
            print(f"gpubench track: {path}: imported {added} runs ({total} repetitions); "
                  f"{again} already in the history" + (f"; {len(skipped)} files skipped (not runs)" if skipped else ""))
            return 0
        if args.command in ("check", "publish", "ack", "export-reframe"):
            if not 0 <= args.min_effect < 100 or not 0 < args.alpha < 1 or args.recent < 1:
                raise UsageError("--min-effect is a percentage in [0, 100), --alpha in (0, 1), --recent at least 1 "
                                 f"(given {args.min_effect:g}, {args.alpha:g}, {args.recent})")
            options = Options(min_effect=args.min_effect / 100, alpha=args.alpha, recent=args.recent)
            if args.command == "check":
                return check(db, options, args.match, not args.no_remeasure, args.json, args.allow_test_hooks,
                             args.junit, args.markdown, args.dashboard_url)
            if args.command == "ack":
                return acknowledge(db, options, args.benchmark, args.reason, args.until)
            if args.command == "export-reframe":
                from .reframe_export import export_reframe
                return export_reframe(db, options, args.out, args.system, args.partition)
            from .dashboard import publish
            assessed = assess_all(db, options, args.match)
            return publish(db, assessed, update_alerts(db, assessed, options), args.out, args.title, path)
        if args.command == "export" and args.format == "asv":
            from .asv_export import export_asv
            benchmarks, files, dirty = export_asv(db, args.out, args.match)
            print(f"gpubench track: wrote {args.out}: {benchmarks} benchmarks, {files} commits' results in asv's layout"
                  + (f"; {dirty} runs of uncommitted code left out (asv keys results by commit)" if dirty else ""))
            return 0
        if args.command == "export":
            assessed = assess_all(db, Options(), args.match)
            write_atomic(args.out, bmf(assessed))
            print(f"gpubench track: wrote {args.out}: the newest run of {sum(1 for a in assessed if a.runs)} benchmarks "
                  "in Bencher's Metric Format")
            return 0
        if args.command == "runs":
            sys.stdout.write(list_runs(db))
            return 0
        if args.command == "forget":
            for line in forget_runs(db, args.runs):
                print(f"gpubench track: {path}: forgot {line}")
            return 0
        sys.stdout.write(show(db, args.match))
        return 0
    except (TrackError, ReportError) as e:
        print(f"gpubench track: {e}", file=sys.stderr)
        return e.code
    except sqlite3.Error as e:  # a read-only history, a full disk: nothing was changed (transactions)
        print(f"gpubench track: {getattr(args, 'history', None) or default_history()}: {e}; nothing was changed",
              file=sys.stderr)
        return EXIT_IO
    except UnicodeDecodeError:  # SQLite's message about a damaged history quotes bytes that are not text
        print(f"gpubench track: {getattr(args, 'history', None) or default_history()}: the history is damaged (SQLite's "
              "message about it is not even text); nothing was changed", file=sys.stderr)
        return 3
    except (OSError, KeyboardInterrupt) as e:
        return failed("gpubench track", e)


if __name__ == "__main__":
    sys.exit(main())
