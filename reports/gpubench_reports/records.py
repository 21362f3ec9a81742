"""Records files read into points: one per suite x problem x backend:device x variant x precision,
with its repetitions (a failed point's error); every field checked against the published schema
(schema.py); the selection and baselines of the command line."""
import json
import math
import os
import re
import statistics

from . import schema
from .files import MAX_INPUT_BYTES, read_bytes
from .errors import ReportError
from .statistics import quantile


UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NPB_CLASSES = "SWABCDE"


class Point:
    """One point (suite x problem x backend:device x variant x precision) and its repetitions."""

    def __init__(self, first):
        self.suite = first.get("suite", "?")
        self.problem = str(first.get("problem", "?"))
        self.backend = first.get("backend", "?")
        self.device_index = int(first.get("device_index", 0))
        self.device = first.get("device", "?")
        self.variant = first.get("variant", "?")
        self.precision = first.get("precision", "?")
        # A solve across several devices (CG, issue 18): "cuda:0+1", and the MPI ranks (0: one process).
        self.devices = first.get("devices") or f"{self.backend}:{self.device_index}"
        self.device_count = int(first.get("device_count", 1))
        # Devices told apart by host and index: bands may share one (cuda:0+0, or ranks on one GPU).
        bands = first.get("bands") or []
        self.distinct_devices = (len({(b.get("host"), b.get("backend"), b.get("index")) for b in bands})
                                 if bands else self.device_count)
        self.ranks = int(first.get("ranks", 0))
        self.entries = []
        self.error = None

    @property
    def key(self):
        # The device's name too: cuda:0 of an H100 and cuda:0 of an H200 are two points, not one re-run.
        return (self.suite, self.problem, self.backend, self.devices, self.ranks, self.variant, self.precision, self.device)

    @property
    def where(self):
        return self.devices + (f" ({self.ranks} ranks)" if self.ranks else "")

    @property
    def label(self):
        return f"{self.suite}/{self.problem}/{self.where}/{self.variant}/{self.precision}"

    def times(self):
        """Seconds per iteration of each repetition."""
        return [e["real_time"] * UNITS[e.get("time_unit", "ns")] for e in self.entries]

    def seconds(self):
        return statistics.median(self.times()) if self.entries and not self.error else None

    def quartiles(self):
        """The first and third quartiles of the repetitions' seconds per iteration (the bounds of the
        tables' spread); None for a failed point or one of fewer than two repetitions."""
        times = sorted(self.times())
        if self.error or len(times) < 2:
            return None
        return quantile(times, 0.25), quantile(times, 0.75)

    def gflops_quartiles(self):
        """GFLOP/s at the time quartiles (the lower bound at the slower), where the work is known."""
        q, flops = self.quartiles(), self.first("flops_per_iteration")
        if q is None or not isinstance(flops, (int, float)) or flops <= 0 or q[0] <= 0:
            return None
        return flops / q[1] / 1e9, flops / q[0] / 1e9

    def first(self, field, default=None):
        for e in self.entries:
            if field in e:
                return e[field]
        return default

    def gflops(self):
        """GFLOP/s at the median time (never the median of the repetitions' rates: with an even count
        the two differ)."""
        s, flops = self.seconds(), self.first("flops_per_iteration")
        if s and isinstance(flops, (int, float)) and flops > 0:
            return flops / s / 1e9
        return self.median_of("gflops")

    def percent_of(self, field, fallback):
        """GFLOP/s at the median time as a % of the entries' `field` (attainable_gflops,
        theoretical_gflops, the same for every repetition); else the median of `fallback`."""
        g, of = self.gflops(), self.first(field)
        if g is not None and isinstance(of, (int, float)) and of > 0:
            return 100 * g / of
        return self.median_of(fallback)

    def median_of(self, field):
        values = [e[field] for e in self.entries if isinstance(e.get(field), (int, float))]
        return statistics.median(values) if values and not self.error else None

    def kernel_rows(self):
        """The per-kernel rows of the first repetition that has them (a profiled pass)."""
        return next((e["kernels"] for e in self.entries if e.get("kernels")), [])

    def kernels(self):
        """[(kernel, ms per iteration)]."""
        return [(k["kernel"], k.get("ms_per_iteration", 0.0)) for k in self.kernel_rows()]


def load_records(paths, replaced=None):
    """The points of the record files, in the order first seen. A point measured in several files is
    taken from the newest file (its context's date), never mixed; `replaced` gets a line for each."""
    points, dates, seen = {}, {}, set()
    for path in paths:
        if os.path.realpath(path) in seen:  # the same file named twice is read once
            continue
        seen.add(os.path.realpath(path))
        records = read_json(path)
        found = points_of(records, path)  # checks the file first
        date = str(records.get("context", {}).get("date", ""))
        for key, p in found.items():
            if key in points:
                older, newer = (points[key], p) if date >= dates[key] else (p, points[key])
                if replaced is not None:
                    replaced.append(f"{newer.label}: from {short(newer.source)}, newer than {short(older.source)} "
                                    "(which has the same point)")
                if newer is points[key]:
                    continue
            points[key] = p
            dates[key] = date
    return list(points.values())


def record_fields():
    """The fields of the records' schema (records.schema.json, beside this module)."""
    try:
        return schema.entry_fields()
    except (OSError, ValueError, KeyError) as e:
        raise ReportError(f"{schema.SCHEMA_PATH}: the records' schema cannot be read ({e}): "
                          "reinstall gpubench") from None


def points_of(records, path):
    """{key: Point} of one records file's parsed JSON (its repetitions; a failed point's error)."""
    if not isinstance(records, dict) or "benchmarks" not in records:
        raise ReportError(f"{path}: not a gpubench records file (no 'benchmarks')")
    for key in ("benchmarks", "failed_benchmarks"):
        if not isinstance(records.get(key, []), list):
            raise ReportError(f"{path}: '{key}' is {json.dumps(records[key])[:40]}, not a list of entries")
    if not isinstance(records.get("context", {}), dict):
        raise ReportError(f"{path}: 'context' is {json.dumps(records['context'])[:40]}, not an object")
    points = {}
    fields = record_fields()
    for b in records.get("benchmarks", []) + records.get("failed_benchmarks", []):
        if not isinstance(b, dict) or b.get("run_type") == "aggregate" or "suite" not in b:
            continue
        try:  # each field the schema declares (records.schema.json) of its type, before any is used
            schema.check(b, path, fields)
        except schema.RecordsError as e:
            raise ReportError(str(e)) from None
        try:
            p = Point(b)
            p = points.setdefault(p.key, p)
        except (TypeError, ValueError, AttributeError) as e:
            raise ReportError(f"{path}: {str(b.get('name'))[:80]}: a field of the wrong kind ({e})") from None
        p.source = path
        if b.get("error_occurred") or b.get("verified") is False:
            p.error = p.error or b.get("error_message") or "not verified"
        elif (not isinstance(b.get("real_time"), (int, float)) or isinstance(b.get("real_time"), bool)
              or b.get("time_unit", "ns") not in UNITS):
            raise ReportError(f"{path}: {b.get('name', p.label)}: no real_time in a known time_unit ({', '.join(UNITS)})")
        elif not math.isfinite(b["real_time"]) or b["real_time"] <= 0:
            raise ReportError(f"{path}: {b.get('name', p.label)}: real_time {b['real_time']} is not a time "
                              "(a verified point takes a positive time)")
        else:
            p.entries.append(b)
    return points


def short(path):
    """A record file's name with its folder."""
    return "/".join(os.path.abspath(path).split(os.sep)[-2:])


def everything(args):
    """Every point of the records named (kept for baselines outside the selection)."""
    args.replaced = []
    args.everything = load_records(args.records, args.replaced)
    return args.everything


def select(points, args):
    def ok(value, wanted):
        return not wanted or str(value) in wanted.split(",")

    chosen = [p for p in points
              if ok(p.suite, args.suite) and ok(p.problem, args.problem) and ok(p.variant, args.variant)
              and ok(p.precision, args.precision)
              and (not args.backend or p.backend in args.backend.split(",") or p.where in args.backend.split(","))]
    if getattr(args, "rows", None):  # B[:D]:V specs: those points only, in that order
        specs = [parse_baseline(r) for r in args.rows.split(",")]
        rank = lambda p: next((i for i, (b, d, v) in enumerate(specs)
                               if (p.backend, p.variant) == (b, v) and d in (None, p.device_index)), None)
        chosen = sorted((p for p in chosen if rank(p) is not None), key=lambda p: (size_of(p.problem), p.problem, rank(p)))
    if not chosen:
        raise ReportError("no points match the selection in " + ", ".join(args.records))
    return chosen


def parse_baseline(spec):
    """gpubench's --baseline B[:D]:V."""
    parts = spec.split(":")
    if len(parts) == 2:
        return parts[0], None, parts[1]
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], int(parts[1]), parts[2]
    raise ReportError(f"'{spec}' (in --baseline, --rows or --pairs): expected BACKEND[:DEVICE]:VARIANT, e.g. "
                      "cuda:vendor or opencl:1:classic")


def baseline_of(point, points, spec):
    """The baseline point for `point`: the same suite, problem and precision, on spec's backend and variant."""
    if not spec:
        return None
    backend, index, variant = parse_baseline(spec)
    for q in points:
        if (q.suite, q.problem, q.precision, q.backend, q.variant) == (
                point.suite, point.problem, point.precision, backend, variant) and index in (None, q.device_index):
            return q
    return None


def read_json(path, max_bytes=MAX_INPUT_BYTES):
    """A JSON file; one named *.gz through gzip (the project commits its records so). Only a file
    (not a directory or a device), at most max_bytes, unpacked too."""
    raw = read_bytes(path, max_bytes)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise ReportError(f"{path}: not JSON ({e})" if not isinstance(e, RecursionError) else
                          f"{path}: not JSON (nested too deeply)") from None


def size_of(problem):
    """A number to order problems by: the size after a generator's name (poisson2d:4096 is 4096, not the
    2 of its name), a bare size (2048, 40x70x20: its first), or a NAS class's place (npb:C, C)."""
    spec = problem.split(":", 1)[1] if re.match(r"[A-Za-z][A-Za-z0-9_]*:", problem) else problem
    if re.fullmatch(r"[SWABCDE]", spec):
        return NPB_CLASSES.index(spec)
    m = re.search(r"\d+", spec)
    return int(m.group()) if m else 0
