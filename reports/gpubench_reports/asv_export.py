"""gpubench track export --format asv: the history in airspeed velocity's results layout (results
version 2, as asv 0.5 and 0.6 write it), so that a project's `asv publish` can draw gpubench's
history beside its own benchmarks.

OUT/benchmarks.json          every benchmark: its name, type (time or track), unit, version
OUT/MACHINE/machine.json     each device gpubench measured (asv's machine)
OUT/MACHINE/HASH8-gpubench.json  a commit's results on that device: per benchmark its median,
                             quartiles, repetitions and samples (the newest run of that commit)

asv keys a result by a commit of a repository: a run is exported under its project's commit where
the tracked set names a project, else under gpubench's; runs of uncommitted code (dirty) are left
out, said in the summary. A benchmark is a point on one device: its name the point's, in asv's
dotted form (cg/poisson2d:1024/cuda:0/form1/f64 -> cg.poisson2d_1024.cuda_0.form1.f64), its
machine the device's (and the Slurm partition's)."""
import hashlib
import json
import os
import re

from .errors import UsageError
from .files import write_atomic
from .history import ENERGY, ON, RATIO, Stamp, load_history, parse_date, samples_reader

ENV = "gpubench"  # asv's environment name: the second half of every results file's name
COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25",
           "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]


def dotted(text):
    """asv's name of a point or device: dots between the parts, [A-Za-z0-9_-] within them."""
    return ".".join(re.sub(r"[^A-Za-z0-9_-]+", "_", part).strip("_") or "_" for part in text.split("/"))


def split(name):
    """(asv benchmark name, asv machine, type, unit, scale) of a history benchmark's name."""
    point, _, where = name.partition(" @ ")
    kind, unit, scale = "time", "seconds", 1.0
    if point.endswith(ENERGY):
        point, kind, unit, scale = point[:-len(ENERGY)] + "/energy_mJ", "track", "mJ", 1e3
    elif point.endswith(RATIO):
        point, kind, unit, scale = point[:-len(RATIO)] + "/opencl_over_cuda", "track", "unitless", 1.0
    device, _, partition = where.partition(ON)
    machine = re.sub(r"[^A-Za-z0-9_-]+", "-", device.strip()).strip("-").lower() or "unknown"
    if partition:
        machine += "-on-" + re.sub(r"[^A-Za-z0-9_-]+", "-", partition).strip("-").lower()
    return dotted(point), machine, kind, unit, scale


def commit_of(stamp):
    """The full or short commit a run is keyed by in asv, or None for uncommitted code."""
    stamp = stamp if isinstance(stamp, Stamp) else Stamp(stamp)
    if stamp.project:
        return None if stamp.dirty else stamp.project
    commit = stamp.gpubench
    return commit if re.fullmatch(r"[0-9a-f]{7,40}", commit or "") else None


def milliseconds(date):
    moment = parse_date(date)
    return int(moment.timestamp() * 1000) if moment else None


def prepare(out):
    """OUT must be new, empty, or an earlier asv export (its benchmarks.json): never another folder."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"{out}: not a folder (asv's results layout is a folder: --out DIR)")
    if os.path.isdir(out) and os.listdir(out) and not os.path.isfile(os.path.join(out, "benchmarks.json")):
        raise UsageError(f"{out}: a folder with other files in it; the asv export writes into a new or empty folder "
                         "or one it wrote before")
    os.makedirs(out, exist_ok=True)


def export_asv(db, out, match=None):
    """Writes OUT's layout; returns (benchmarks, results files, runs left out for uncommitted code)."""
    history, _ = load_history(db, match)
    prepare(out)
    benchmarks, files, dirty = {}, {}, set()
    for bench, name, runs in history:
        if not runs:
            continue
        asv_name, machine, kind, unit, scale = split(name)
        benchmarks.setdefault(asv_name, {"code": f"gpubench point {name.partition(' @ ')[0]}", "name": asv_name,
                                         "param_names": [], "params": [], "timeout": 600, "type": kind, "unit": unit,
                                         "version": hashlib.sha256(asv_name.encode()).hexdigest()})
        if kind == "time":
            benchmarks[asv_name].update({"number": 0, "repeat": 0, "min_run_count": 2, "rounds": 1, "sample_time": 0.01,
                                         "warmup_time": -1})
        samples_of = samples_reader(db, bench)
        newest = {}
        for run, date, stamp, median, low, high, n in runs:
            commit = commit_of(stamp)
            if commit is None:
                dirty.add(run)
                continue
            newest[commit] = (run, date, median, low, high, n)  # runs are in date order: the last one stays
        for commit, (run, date, median, low, high, n) in newest.items():
            entry = files.setdefault((machine, commit), {"date": 0, "results": {}, "device": name.partition(" @ ")[2]})
            started = milliseconds(date)
            entry["date"] = max(entry["date"], started or 0)
            samples = [s * scale for s in samples_of([run])]
            entry["results"][asv_name] = [[median * scale], [], benchmarks[asv_name]["version"], started, None,
                                          [None], [None], [low * scale], [high * scale], [1], [n], [samples]]
    for (machine, commit), entry in sorted(files.items()):
        folder = os.path.join(out, machine)
        os.makedirs(folder, exist_ok=True)
        write_atomic(os.path.join(folder, "machine.json"),
                     json.dumps({"arch": "", "cpu": entry["device"], "machine": machine, "num_cpu": "", "os": "",
                                 "ram": "", "version": 1}, indent=4) + "\n")
        results = {"commit_hash": commit, "env_name": ENV, "date": entry["date"],
                   "params": {"machine": machine, "python": ""}, "python": "", "requirements": {}, "env_vars": {},
                   "result_columns": COLUMNS, "results": entry["results"], "durations": {}, "version": 2}
        write_atomic(os.path.join(folder, f"{commit[:8]}-{ENV}.json"), json.dumps(results) + "\n")
    write_atomic(os.path.join(out, "benchmarks.json"),
                 json.dumps(dict(sorted(benchmarks.items()), version=2), indent=4, sort_keys=False) + "\n")
    return len(benchmarks), len(files), len(dirty)
