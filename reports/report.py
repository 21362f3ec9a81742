#!/usr/bin/python3
"""gpubench report: tables and figures from gpubench result records.

    gpubench report table RECORDS.json ... [--kind points|kernels|pairs|scaling|sweep|sweep-grid|lu-study|strategies]
                          [selection] [--baseline B[:D]:V] [--ci] [--format markdown|latex|csv] [--out FILE]
    gpubench report figure RECORDS.json ... --kind roofline|kernels|speedup|scaling|sweep|strategies [selection]
                           [--baseline B[:D]:V] [--y gflops|time] --out FILE.png|.svg|.pdf
    gpubench report study cg-thesis|cg-multi-gpu|fused-cg|nas|lu|gemm [--data DIR] [--out DIR] [--run]

Records are gpubench's `--format json` files (Google Benchmark's layout); `sweep` tables and
figures read `gpubench sweep --format json` files, `strategies` ones `gpubench sweep --replay ...
--format json` files. Selection: --suite, --problem, --backend,
--variant, --precision (each a comma list), --rows B[:D]:V,... Times are per iteration, the median
of a point's repetitions; a failed point keeps its row, marked FAILED with its reason, and never
gets a number; a point found in several files comes from the newest, never mixed. Exit 3 names a
bad file or an empty selection. Debian's python3 with python3-matplotlib (figures) and
python3-scipy (Student's t; a table of its quantiles is used without it).
"""
import argparse
import csv
import io
import json
import math
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import records as gpubench_records  # noqa: E402  (beside this program: its folder is the first on the path)

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NPB_CLASSES = "SWABCDE"


class ReportError(Exception):
    """Bad input (a file, its records): exit 3."""
    code = 3


class UsageError(ReportError):
    """A command line that cannot be done as asked: exit 2."""
    code = 2


# Exit codes, as the README's table gives them: 0 done; 2 usage; 3 bad input; 5 I/O (a file that
# cannot be read or written; for track, a busy or read-only history); 130 interrupted.
EXIT_IO = 5
EXIT_INTERRUPTED = 130


def failed(prog, e):
    """The one line and exit code of a failure that is not a ReportError."""
    if isinstance(e, KeyboardInterrupt):
        print(f"{prog}: interrupted: nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    where = f"{e.filename}: " if getattr(e, "filename", None) else ""
    print(f"{prog}: {where}{e.strerror or e}", file=sys.stderr)
    return EXIT_IO


# ---------------------------------------------------------------------------------------------
# Records


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
        return (self.suite, self.problem, self.backend, self.devices, self.ranks, self.variant, self.precision)

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
    """The fields of the records' schema (records.schema.json, beside this program)."""
    try:
        return gpubench_records.entry_fields()
    except (OSError, ValueError, KeyError) as e:
        raise ReportError(f"{gpubench_records.SCHEMA_PATH}: the records' schema cannot be read ({e}): "
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
        p = Point(b)
        p = points.setdefault(p.key, p)
        p.source = path
        if b.get("error_occurred") or b.get("verified") is False:
            p.error = p.error or b.get("error_message") or "not verified"
        elif not isinstance(b.get("real_time"), (int, float)) or b.get("time_unit", "ns") not in UNITS:
            raise ReportError(f"{path}: {b.get('name', p.label)}: no real_time in a known time_unit ({', '.join(UNITS)})")
        elif not math.isfinite(b["real_time"]) or b["real_time"] < 0:
            raise ReportError(f"{path}: {b.get('name', p.label)}: real_time {b['real_time']} is not a time")
        else:
            p.entries.append(b)
        try:  # each field the schema declares (records.schema.json) of its type
            gpubench_records.check(b, path, fields)
        except gpubench_records.RecordsError as e:
            raise ReportError(str(e)) from None
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


# ---------------------------------------------------------------------------------------------
# Statistics

# Student's t, 0.975 quantile, for 1..30 degrees of freedom (used where scipy is missing).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def t975(df):
    try:
        from scipy.stats import t
        return float(t.ppf(0.975, df))
    except ImportError:
        return T975[df - 1] if df <= len(T975) else 1.960


def confidence(times):
    """(mean, half-width of the 95% interval, relative error = half-width / mean); None below 2 samples."""
    if len(times) < 2:
        return None
    mean = statistics.fmean(times)
    half = t975(len(times) - 1) * statistics.stdev(times) / math.sqrt(len(times))
    return mean, half, half / mean if mean else float("nan")


# ---------------------------------------------------------------------------------------------
# Tables: a header, rows of cells, notes; written as Markdown, LaTeX (booktabs) or CSV.


class Table:
    def __init__(self, header, align=None):
        self.header = header
        self.align = align or ["l"] * len(header)
        self.rows = []
        self.notes = []

    def write(self, fmt):
        out = io.StringIO()
        if fmt == "csv":
            w = csv.writer(out, lineterminator="\n")
            w.writerow(self.header)
            w.writerows(self.rows)
            return out.getvalue()
        if fmt == "latex":
            out.write("\\begin{tabular}{" + "".join(self.align) + "}\n\\toprule\n")
            out.write(" & ".join(latex(h) for h in self.header) + " \\\\\n\\midrule\n")
            for row in self.rows:
                if row and row[0] in ("total", "Total"):
                    out.write("\\midrule\n")
                out.write(" & ".join(latex(c) for c in row) + " \\\\\n")
            out.write("\\bottomrule\n\\end{tabular}\n")
            for n in self.notes:
                out.write("% " + n + "\n")
            return out.getvalue()
        out.write("| " + " | ".join(self.header) + " |\n")
        out.write("|" + "".join("---:|" if a == "r" else "---|" for a in self.align) + "\n")
        for row in self.rows:
            out.write("| " + " | ".join(row) + " |\n")
        if self.notes:  # the first a paragraph, the rest (a point's NAS result block...) a list
            out.write("\n" + self.notes[0] + "\n")
            if len(self.notes) > 1:
                out.write("\n" + "".join(f"- {n}\n" for n in self.notes[1:]))
        return out.getvalue()


def latex(text):
    escapes = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_",
               "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\^{}", "<": "$<$", ">": "$>$",
               "±": "$\\pm$"}
    return "".join(escapes.get(c, c) for c in str(text).replace("->", "\x00")).replace("\x00", "$\\rightarrow$")


def num(x, digits=4):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}" if abs(x) < 1e-3 or abs(x) >= 1e6 else f"{x:.{max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))}f}"


def points_table(points, args):
    if args.baseline and not any(baseline_of(p, args.everything, args.baseline) for p in points):
        there = sorted({f"{q.backend}:{q.variant}" for q in args.everything})
        raise ReportError(f"--baseline {args.baseline}: no point of the records is that baseline for any row (the "
                          f"records hold {', '.join(there) or 'no points'})")
    header = ["point", "device", "ms/iter"]
    if args.ci:
        header += ["mean ms ± 95% CI", "rel. err"]
    header += ["GFLOP/s", "% roof", "% theor"]
    if args.baseline:
        header += [f"speedup ({args.baseline} -> row)", f"{args.reduction_name} %"]
    header += ["verified"]
    t = Table(header, ["l", "l"] + ["r"] * (len(header) - 3) + ["l"])
    for p in points:
        s = p.seconds()
        if s is None:
            row = [p.label, p.device] + ["-"] * (len(header) - 3) + ["FAILED: " + (p.error or "no repetitions")]
            t.rows.append(row)
            continue
        row = [p.label, p.device, num(s * 1e3)]
        if args.ci:
            c = confidence(p.times())
            row += [f"{num(c[0] * 1e3)} ± {num(c[1] * 1e3, 2)}", f"{100 * c[2]:.2f} %"] if c else ["-", "-"]
        row += [num(p.gflops()), num(p.percent_of("attainable_gflops", "roofline_pct"), 3),
                num(p.percent_of("theoretical_gflops", "theoretical_pct"), 3)]
        if args.baseline:
            b = baseline_of(p, args.everything, args.baseline)
            bs = b.seconds() if b else None
            row += [f"{bs / s:.2f}x", f"{100 * (bs - s) / bs:.1f} %"] if bs else ["-", "-"]
        row.append("yes")
        t.rows.append(row)
    t.notes.append("ms/iter: the median of each point's repetitions"
                   + ("; mean ± the half-width of its 95% confidence interval (Student's t, n - 1 degrees of "
                      "freedom); rel. err = half-width / mean" if args.ci else "")
                   + ("; speedup = baseline time / row time, " + args.reduction_name
                      + " = (T_baseline - T_row) / T_baseline, the baseline on the row's suite, problem and precision"
                      if args.baseline else "") + ".")
    for p in points:
        if p.first("summary") and p.suite in ("ep", "ft"):
            t.notes.append(f"{p.label}, NAS's result block of its first repetition: {p.first('summary')}; "
                           f"{p.first('verification', '')}")
    return t


KERNEL_VALUES = {"ms": ("ms_per_iteration", "ms per iteration"), "gflops": ("gflops", "GFLOP/s"),
                 "theoretical_pct": ("theoretical_pct", "% of theoretical GFLOP/s (FLOP/B x bandwidth)"),
                 "roofline_pct": ("roofline_pct", "% of the roofline (min(peak, FLOP/B x bandwidth))")}


def kernels_table(points, args):
    """Per-kernel values, one column per point; for times, the overhead row and the total."""
    done = [p for p in points if p.seconds() is not None]
    if not done:
        raise ReportError("no verified points to break down")
    field, meaning = KERNEL_VALUES[args.value]
    per = [{k["kernel"]: k.get(field) for k in p.kernel_rows()} for p in done]
    names = []
    for d in per:
        names += [k for k in d if k not in names and k != "overhead"]
    if not names:
        raise ReportError("the records have no per-kernel times (run gpubench with --breakdown)")
    header = ["kernel"] + [column_name(p, done) for p in done]
    t = Table(header, ["l"] + ["r"] * len(done))
    digits = 3 if args.value.endswith("pct") else 4
    for k in names:
        if args.value != "ms" and all(not d.get(k) for d in per):
            continue  # no work declared (a copy, a setup step): no GFLOP/s to show
        t.rows.append([k] + [num(d.get(k), digits) if d.get(k) is not None else "-" for d in per])
    if args.value == "ms":
        overhead, total = ["overhead"], ["total"]
        for p, d in zip(done, per):
            listed = sum(v for name, v in d.items() if name != "overhead" and v)
            if "overhead" in d:  # the suite's own: its total is the profiled pass
                overhead.append(num(d["overhead"]))
                total.append(num(p.first("profiled_ms_per_iteration") or listed + d["overhead"]))
            else:  # the timed iteration's time beyond its kernels: host gaps, launches, transfers
                overhead.append(num(p.seconds() * 1e3 - listed))
                total.append(num(p.seconds() * 1e3))
        t.rows += [overhead, total]
        t.notes.append("ms per iteration. overhead: the time of an iteration outside the listed kernels (the "
                       "suite's own row where it records one; below zero where the profiled pass of the kernels took "
                       "longer than the timed iteration); total: the iteration's time.")
    else:
        t.notes.append(meaning + ", per kernel, from each point's profiled pass.")
    return t


def column_name(p, points):
    """A column's name: what differs between the points shown."""
    def differ(f):
        return len({f(q) for q in points}) > 1
    parts = []
    if differ(lambda q: q.where):
        parts.append(f"{p.device} ({p.where})" if differ(lambda q: q.device) else p.where)
    for f in (lambda q: q.variant, lambda q: q.precision, lambda q: q.problem):
        if differ(f):
            parts.append(f(p))
    return " ".join(parts) or p.label


def scaling_table(points, args):
    """Strong and weak scaling across devices: per backend, variant and precision, a row per point in
    device-count order; speedup and efficiency against the same series' one-device point. Strong
    (same problem): speedup = t1 / tN, efficiency = t1 / (N tN). Weak (the problem grows with N):
    efficiency = (work_N / tN) / (N work_1 / t1), with the work an iteration's declared FLOPs."""
    series = {}
    for p in points:
        series.setdefault((p.suite, p.backend, p.variant, p.precision), []).append(p)
    header = ["series", "devices", "problem", "scaling", "ms/iter", "speedup", "efficiency", "exchange ms",
              "exchange %", "verified"]
    t = Table(header, ["l", "l", "l", "l"] + ["r"] * 5 + ["l"])
    found = False
    for (suite, backend, variant, precision), ps in series.items():
        ps.sort(key=lambda p: (p.device_count, size_of(p.problem), p.ranks))
        ones = [p for p in ps if p.device_count == 1 and p.seconds() is not None]
        if len(ps) < 2 or not any(p.device_count > 1 for p in ps):
            continue
        found = True
        for p in ps:
            name = f"{suite} {backend} {variant} {precision}"
            s = p.seconds()
            if s is None:
                t.rows.append([name, p.where, p.problem, "-", "-", "-", "-", "-", "-",
                               "FAILED: " + (p.error or "no repetitions")])
                continue
            same = next((q for q in ones if q.problem == p.problem), None)
            smallest = ones[0] if ones else None
            speedup = efficiency = "-"
            n = p.distinct_devices
            shared = f" ({p.device_count} bands on {n} device{'s' if n > 1 else ''})" if n < p.device_count else ""
            if p.device_count == 1:
                kind = "1 device"
            elif same:
                kind = "strong" + shared
                speedup = f"{same.seconds() / s:.2f}x"
                efficiency = f"{100 * same.seconds() / (n * s):.1f} %"
            elif smallest and p.first("flops_per_iteration") and smallest.first("flops_per_iteration"):
                kind = "weak" + shared
                rate = p.first("flops_per_iteration") / s
                base = smallest.first("flops_per_iteration") / smallest.seconds()
                efficiency = f"{100 * rate / (n * base):.1f} %"
            exchange = next((k.get("ms_per_iteration") for k in p.kernel_rows() if k["kernel"] == "exchange"), None)
            profiled = p.first("profiled_ms_per_iteration")
            t.rows.append([name, p.where, p.problem, kind, num(s * 1e3), speedup, efficiency,
                           num(exchange) if exchange is not None else "-",
                           f"{100 * exchange / profiled:.1f} %" if exchange is not None and profiled else "-", "yes"])
    if not found:
        raise ReportError("no series with a point across several devices (gpubench run --suite cg --device 0,1, or "
                          "under mpirun) beside its one-device point")
    t.notes.append("ms/iter: the median of each point's repetitions. strong (same problem as the series' one-device "
                   "point): speedup = t1 / tN, efficiency = t1 / (N tN); weak (a larger problem): efficiency = "
                   "(FLOP_N / tN) / (N FLOP_1 / t1) against the smallest one-device point; N counts distinct "
                   "devices (bands that share one device count once). exchange: the halo exchange's share of "
                   "an iteration of the profiled pass (the slowest rank's).")
    paths = {}
    for p in points:
        if p.device_count > 1 and p.first("exchange"):
            paths.setdefault(p.first("exchange"), {}).setdefault(p.where, set()).add(
                (p.variant, math.floor(100 * (p.first("exchange_overlap") or 0))))
    for path, wheres in sorted(paths.items()):
        listed = []
        for where, overlaps in sorted(wheres.items()):
            beside = sorted({f"{o}% of the rows" for _, o in overlaps if o}
                            | {"none for " + v for v, o in overlaps if not o and any(x for _, x in overlaps)})
            listed.append(where + (f" (the SpMV beside it: {', '.join(beside)})" if beside else ""))
        t.notes.append(f"the halo moved {path if path.startswith('through') else 'by ' + path}: " + ", ".join(listed))
    return t


def pairs_table(points, args):
    """Speedup X -> Y = t(X) / t(Y) per problem, one column per pair (--pairs 'X>Y,...', each B[:D]:V)."""
    if not args.pairs:
        raise ReportError("a pairs table needs --pairs X>Y[,X>Y...] (each BACKEND[:DEVICE]:VARIANT)")
    pairs = []
    for spec in args.pairs.split(","):
        if ">" not in spec:
            raise ReportError(f"--pairs '{spec}': expected X>Y, e.g. openmp:serial>openmp:reduce")
        x, y = spec.split(">", 1)
        pairs.append((x, y, parse_baseline(x), parse_baseline(y)))
    def find(problem, precision, spec):
        b, d, v = spec
        return next((p for p in points if (p.problem, p.precision, p.backend, p.variant) == (problem, precision, b, v)
                     and d in (None, p.device_index)), None)
    problems = sorted({(size_of(p.problem), p.problem, p.precision) for p in points})
    t = Table(["problem", "precision"] + [f"{x} -> {y}" for x, y, _, _ in pairs], ["l", "l"] + ["r"] * len(pairs))
    for _, problem, precision in problems:
        row = [problem, precision]
        for x, y, sx, sy in pairs:
            px, py = find(problem, precision, sx), find(problem, precision, sy)
            tx, ty = (px.seconds() if px else None), (py.seconds() if py else None)
            row.append(f"{tx / ty:.2f}x" if tx and ty else ("FAILED" if (px and px.error) or (py and py.error) else "-"))
        t.rows.append(row)
    t.notes.append("speedup X -> Y = t(X) / t(Y), the medians of each point's repetitions.")
    return t


def sweep_table(args):
    """The WG/CU reduction per kernel: the time at 1 WG/CU, the best, its WG/CU, (T_1 - T_best) / T_1."""
    t = Table(["backend", "kernel", "precision", "problem", "work-group size", "time at 1 WG/CU (ms)", "best time (ms)",
               "WG/CU", "reduction"], ["l", "l", "l", "l", "r", "r", "r", "r", "r"])
    for s, k, verified in sweep_configs(args):
        configs = [c for c in verified if "work_groups_per_cu" in c["params"]]
        if not configs:
            continue
        best = min(configs, key=lambda c: c["ms"])
        size = best["params"].get("work_group_size")
        one = [c for c in configs if c["params"]["work_groups_per_cu"] == 1
               and c["params"].get("work_group_size") == size]
        if not one:
            continue
        t1 = one[0]["ms"]
        t.rows.append([f"{s['backend']}:{s.get('device_index', 0)}", k["kernel"], s["precision"], s.get("problem", ""),
                       str(size), num(t1), num(best["ms"]), str(best["params"]["work_groups_per_cu"]),
                       f"{100 * (t1 - best['ms']) / t1:.1f} %"])
    if not t.rows:
        raise ReportError("no swept kernel with a work-groups-per-CU parameter in " + ", ".join(args.records))
    t.notes.append("Times of one kernel call, the median of the sweep's samples; the work-group size is the best "
                   "configuration's; reduction = (T_1 - T_best) / T_1.")
    return t


def strategy_replays(args):
    """The replays of `gpubench sweep --replay ... --format json` files, by --kernel (a name part of the
    cache's kernel): [(replay, {strategy: [runs by budget]})]."""
    out = []
    for path in args.records:
        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("replays"), list):
            raise ReportError(f"{path}: not a gpubench replay file (no 'replays': write one with "
                              "gpubench sweep --replay CACHE --format json --out FILE)")
        for r in data["replays"]:
            try:
                name, runs = r["kernel"], r["runs"]
                by = {}
                for run in runs:
                    by.setdefault(run["strategy"], []).append(run)
                    float(run["final_median"]), float(run["final_p10"]), int(run["budget"]), list(run["median"])
            except (KeyError, TypeError, ValueError) as e:
                raise ReportError(f"{path}: a replay without its fields ({e})")
            if getattr(args, "kernel", None) and not any(k in name for k in args.kernel.split(",")):
                continue
            for runs_of in by.values():
                runs_of.sort(key=lambda run: run["budget"])
            out.append((r, by))
    if not out:
        raise ReportError("no replay in " + ", ".join(args.records) + (" matches --kernel" if getattr(args, "kernel", None) else ""))
    return out


def replay_title(r):
    """'GEMM tuned f32 cuda (347)' from a replay's kernel: 'cuda NVIDIA H100 | 8192 | f32 | tuned'."""
    parts = [p.strip() for p in r["kernel"].split("|")]
    backend = parts[0].split(" ")[0] if parts else ""
    problem, precision, kernel = (parts + ["", "", "", ""])[1:4]
    return f"{kernel} {problem} {precision} {backend} ({r['measured']})"


def strategies_table(args):
    """Per cache and strategy: % of the optimum reached (median and 10th percentile over the seeds) at each budget."""
    t = Table(["kernel (configurations)", "strategy", "budget", "median %", "10th pct %", "evaluations to 97 % (median)"],
              ["l", "l", "r", "r", "r", "r"])
    seeds = set()
    for r, by in strategy_replays(args):
        seeds.add(r.get("seeds"))
        for strategy, runs in by.items():
            for run in runs:
                to97 = run.get("evaluations_to_97_median")
                t.rows.append([replay_title(r), strategy, str(run["budget"]), f"{100 * run['final_median']:.1f}",
                               f"{100 * run['final_p10']:.1f}", "-" if to97 is None else f"{to97:.0f}"])
    t.notes.append("% of the optimum = the cache's best time / the best time the strategy found within the budget; "
                   f"over {', '.join(str(s) for s in sorted(x for x in seeds if x))} seeds. Budgets: max(10 % of the "
                   "configurations, 20) and max(25 %, 40), at most all. '-': fewer than half the seeds reach 97 %.")
    return t


def strategies_figure(plt, args):
    """One panel per cache: % of the optimum against evaluations, median (solid) and 10th percentile
    (dashed) of each strategy, from its largest budget's runs."""
    replays = strategy_replays(args)
    cols = min(3, len(replays))
    rows = (len(replays) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(args.width * cols / 2, (args.height or 5.0) * rows / 1.6),
                             dpi=args.dpi, squeeze=False)
    for ax in axes.flat[len(replays):]:
        ax.set_visible(False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (r, by) in zip(axes.flat, replays):
        for i, (strategy, runs) in enumerate(by.items()):
            run = runs[-1]
            x = list(range(1, len(run["median"]) + 1))
            colour = colours[i % len(colours)]
            ax.plot(x, [100 * v for v in run["median"]], "-", color=colour, label=strategy, linewidth=1.2)
            ax.plot(x, [100 * v for v in run["p10"]], "--", color=colour, linewidth=0.7)
        ax.set_title(replay_title(r), fontsize=8)
        ax.set_xlabel("evaluations", fontsize=7)
        ax.set_ylabel("% of the optimum", fontsize=7)
        ax.set_ylim(50, 101)
        ax.tick_params(labelsize=7)
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize=6, ncol=2, loc="lower right", title="median (solid), 10th pct (dashed)",
                        title_fontsize=6)
    return fig


def sweep_configs(args):
    """[(sweep, kernel, verified configs)] of the sweep files named, by --backend, --precision and --kernel."""
    def ok(value, wanted):
        return not wanted or value in wanted.split(",")

    out = []
    for path in args.records:
        data = read_json(path)
        if not isinstance(data, dict) or "sweeps" not in data:
            raise ReportError(f"{path}: not a gpubench sweep file (no 'sweeps')")
        for s in data["sweeps"]:
            if not ok(s["backend"], args.backend) or not ok(s["precision"], args.precision):
                continue
            for k in s.get("kernels", []):
                configs = [c for c in k.get("configs", []) if c.get("status") == "verified"]
                if configs and ok(k["kernel"], getattr(args, "kernel", None)):
                    out.append((s, k, configs))
    if not out:
        raise ReportError("no verified sweep configurations match the selection in " + ", ".join(args.records))
    return out


def sweep_grid_table(args):
    """GFLOP/s of every swept configuration: a row per backend, kernel, precision and problem."""
    found = sweep_configs(args)
    columns = {}
    for _, _, configs in found:
        for c in configs:
            columns.setdefault(", ".join(f"{n}={v}" for n, v in c["params"].items()), tuple(c["params"].values()))
    columns = sorted(columns, key=lambda name: [(0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))
                                                for v in columns[name]])
    t = Table(["backend", "kernel", "precision", "problem"] + columns + ["best"], ["l"] * 4 + ["r"] * (len(columns) + 1))
    found.sort(key=lambda f: (f[0]["backend"], f[1]["kernel"], f[0]["precision"], size_of(f[0].get("problem", ""))))
    for s, k, configs in found:
        by = {", ".join(f"{n}={v}" for n, v in c["params"].items()): c.get("gflops") for c in configs}
        best = max(configs, key=lambda c: c.get("gflops", 0))
        t.rows.append([f"{s['backend']}:{s.get('device_index', 0)}", k["kernel"], s["precision"], s.get("problem", "")]
                      + [num(by.get(c)) if by.get(c) is not None else "-" for c in columns]
                      + [", ".join(f"{n}={v}" for n, v in best["params"].items())])
    t.notes.append("GFLOP/s of each verified configuration (the median of its samples); best: the fastest.")
    return t


OVER = re.compile(r"over the time limit: .* had done (\d+) of (\d+) steps after ([0-9.e+-]+) s .*"
                  r"takes about ([0-9.e+-]+) s")


def lu_study_table(points, args):
    """The LU study's table: naive and optimised time per order, one column group per device, and the gain."""
    columns, cells = [], {}
    for p in points:
        if p.suite != "lu" or p.variant not in ("naive", "optimised"):
            continue
        column = f"{p.device} ({p.where}, {p.precision})"
        if column not in columns:
            columns.append(column)
        cells[(column, size_of(p.problem), p.variant)] = p
    if not columns:
        raise ReportError("no naive or optimised LU points in " + ", ".join(args.records))
    header = ["Order"]
    for c in columns:
        header += [f"{c} naive (s)", f"{c} optimised (s)", f"{c} gain"]
    t = Table(header, ["r"] * len(header))
    for order in sorted({o for _, o, _ in cells}):
        row = [str(order)]
        for c in columns:
            naive, optimised = cells.get((c, order, "naive")), cells.get((c, order, "optimised"))
            row += [lu_cell(naive, args.format), lu_cell(optimised, args.format), lu_gain(naive, optimised)]
        t.rows.append(row)
    t.notes.append("Times: median of each point's repetitions, in seconds, the whole decomposition with its buffers "
                   "and transfers (gpubench's LU naive and optimised); gain = (T_naive - T_optimised) / T_naive. "
                   "Problems: " + ", ".join(sorted({"N:" + p.problem.split(":", 1)[1] if ":" in p.problem
                                                    else "N (random)" for p in points if p.suite == "lu"})) + ".")
    return t


def lu_cell(p, fmt):
    if p is None:
        return "-"
    if p.seconds() is not None:
        return f"{p.seconds():.4f}"
    m = OVER.match(p.error or "")
    if m:
        done, n, after, about = m.groups()
        if fmt == "csv":
            return f"> {float(after):.3g} (limit; {done}/{n} steps; about {float(about):.3g})"
        return f"> {float(after):.3g} s (time limit: {done} of {n} steps; about {float(about):.3g} s at that pace)"
    return "FAILED: " + (p.error or "no repetitions")


def lu_gain(naive, optimised):
    if not naive or not optimised or optimised.seconds() is None:
        return "-"
    to = optimised.seconds()
    if naive.seconds():
        return f"{100 * (naive.seconds() - to) / naive.seconds():.2f} %"
    m = OVER.match(naive.error or "")
    if m and float(m.group(3)) > to:  # T_naive > the limit: a lower bound
        after = float(m.group(3))
        return f"> {100 * (after - to) / after:.2f} %"
    return "-"


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: {e}")


# ---------------------------------------------------------------------------------------------
# Figures


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        raise ReportError("figures need matplotlib: Debian's python3-matplotlib (scripts/setup installs it)")


def size_of(problem):
    """A number to order problems by: the size after a generator's name (poisson2d:4096 is 4096, not the
    2 of its name), a bare size (2048, 40x70x20: its first), or a NAS class's place (npb:C, C)."""
    spec = problem.split(":", 1)[1] if re.match(r"[A-Za-z][A-Za-z0-9_]*:", problem) else problem
    if re.fullmatch(r"[SWABCDE]", spec):
        return NPB_CLASSES.index(spec)
    m = re.search(r"\d+", spec)
    return int(m.group()) if m else 0


FIGURE_FORMATS = (".png", ".svg", ".pdf")


BARS_UPRIGHT = 8  # up to this many bars stand upright, labelled below; more lie down, a line each


def figure(args):
    if os.path.splitext(args.out)[1].lower() not in FIGURE_FORMATS:
        raise UsageError(f"--out {args.out}: a figure is written as {', '.join(FIGURE_FORMATS)} (by the name's extension)")
    plt = pyplot()
    fig = draw(plt, args)
    fig.savefig(args.out)
    plt.close(fig)


def draw(plt, args):
    """The figure args asks for, drawn and laid out."""
    if args.kind == "sweep":
        fig = sweep_figure(plt, args)
    elif args.kind == "strategies":
        fig = strategies_figure(plt, args)
    else:
        points = select(everything(args), args)
        fig, ax = plt.subplots(figsize=(args.width, args.height or 5.0), dpi=args.dpi)
        {"roofline": roofline_figure, "kernels": kernels_figure, "speedup": speedup_figure,
         "scaling": scaling_figure}[args.kind](ax, points, args)
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def bar_layout(ax, args, labels):
    """Bars upright with their labels below (a few), or lying down with a label a line each (many):
    the figure grows to give each one its line unless --height was given. True when lying."""
    lying = len(labels) > BARS_UPRIGHT
    if lying and args.height is None:
        ax.figure.set_size_inches(args.width, max(5.0, 0.17 * len(labels) + 1.6))
    return lying


def legend(ax, beside=False):
    """A legend that keeps within the figure: more columns as the entries grow; beside the axes
    (outside them, on the right) where the bars fill the plot."""
    if beside:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        ax.legend(fontsize=6, ncol=max(1, math.ceil(len(ax.get_legend_handles_labels()[1]) / 24)))


def roofline_figure(ax, points, args):
    """The measured ceilings, and each point at its arithmetic intensity: one colour per backend,
    variant and precision (its problems share it); with --kernels each kernel too, in its point's
    colour, one marker per kernel name (the legend names them: no label on the plot to pile up)."""
    ceilings = {}
    for p in points:
        c = p.first("ceilings")
        if c:
            ceilings.setdefault((p.device, p.where, p.precision), c)
    if not ceilings:
        raise ReportError("the records carry no ceilings")
    done = [p for p in points if p.seconds() is not None and p.median_of("arithmetic_intensity")]
    ais = [p.median_of("arithmetic_intensity") for p in done] or [1.0]
    lo, hi = min(ais + [0.01]) / 4, max(ais + [100.0]) * 4
    for (device, where, prec), c in ceilings.items():
        if not all(isinstance(c.get(k), (int, float)) and c[k] > 0 for k in ("bandwidth_gbps", "peak_gflops")):
            raise ReportError(f"the ceilings of {device} ({where}) have no bandwidth_gbps and peak_gflops")
        bw, peak = c["bandwidth_gbps"], c["peak_gflops"]
        xs = [lo, min(max(peak / bw, lo), hi), hi]
        ax.plot(xs, [min(peak, x * bw) for x in xs], "-", color="black", alpha=0.4 + 0.6 / len(ceilings),
                label=f"{device} ({where}, {prec}): {bw:.0f} GB/s, {peak:.0f} GFLOP/s")
    groups = {}
    for p in done:
        groups.setdefault(f"{p.where} {p.variant} {p.precision}", []).append(p)
    import matplotlib
    cycle = [c["color"] for c in matplotlib.rcParams["axes.prop_cycle"]]
    palette = cycle if len(groups) <= len(cycle) else [matplotlib.cm.tab20(i % 20) for i in range(len(groups))]
    markers = {}
    for g, (name, members) in enumerate(groups.items()):
        colour = palette[g % len(palette)]
        problems = sorted({p.problem for p in members}, key=size_of)
        label = f"{name} {problems[0]}" if len(problems) == 1 else f"{name} ({len(problems)} problems)"
        ax.plot([p.median_of("arithmetic_intensity") for p in members], [p.gflops() for p in members], "o",
                color=colour, label=label)
        if args.kernels:
            for p in members:
                for k in p.kernel_rows():
                    if k.get("arithmetic_intensity") and k.get("gflops"):
                        marker = markers.setdefault(k["kernel"], "xv^<>sPD*+1234"[len(markers) % 14])
                        ax.plot(k["arithmetic_intensity"], k["gflops"], marker, color=colour, markersize=5)
    for kernel, marker in markers.items():  # the kernels' markers, named once
        ax.plot([], [], marker, color="gray", label=f"kernel {kernel}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("roofline: measured ceilings and points")
    legend(ax)


def kernels_figure(ax, points, args):
    done = [p for p in points if p.seconds() is not None and p.kernels()]
    if not done:
        raise ReportError("the records have no per-kernel times (run gpubench with --breakdown)")
    names = []
    for p in done:
        names += [k for k, _ in p.kernels() if k not in names]
    lying = bar_layout(ax, args, done)
    bottom = [0.0] * len(done)
    xs = list(range(len(done)))
    for k in names:
        values = [dict(p.kernels()).get(k, 0.0) for p in done]
        if lying:
            ax.barh(xs, values, left=bottom, label=k)
        else:
            ax.bar(xs, values, bottom=bottom, label=k)
        bottom = [b + v for b, v in zip(bottom, values)]
    if lying:
        ax.set_yticks(xs, [f"{p.where} {p.variant} {p.precision} {p.problem}" for p in done], fontsize=7)
        ax.invert_yaxis()  # the first point on top, as a table reads
        ax.set_xlabel("ms per iteration")
    else:
        ax.set_xticks(xs, [f"{p.where}\n{p.variant} {p.precision}\n{p.problem}" for p in done], fontsize=7)
        ax.set_ylabel("ms per iteration")
    ax.set_title("time per kernel")
    legend(ax, beside=lying)


def speedup_figure(ax, points, args):
    if not args.baseline:
        raise ReportError("a speedup figure needs --baseline B[:D]:V")
    bars = []
    for p in points:
        b = baseline_of(p, args.everything, args.baseline)
        if p.seconds() and b and b.seconds():
            bars.append((p, b.seconds() / p.seconds()))
    if not bars:
        raise ReportError(f"no point has a baseline {args.baseline} on its suite, problem and precision")
    xs = list(range(len(bars)))
    if bar_layout(ax, args, bars):
        ax.barh(xs, [v for _, v in bars])
        ax.set_yticks(xs, [f"{p.where} {p.variant} {p.precision} {p.problem}" for p, _ in bars], fontsize=7)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"speedup over {args.baseline}")
    else:
        ax.bar(xs, [v for _, v in bars])
        ax.set_xticks(xs, [f"{p.where}\n{p.variant} {p.precision}\n{p.problem}" for p, _ in bars], fontsize=7)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel(f"speedup over {args.baseline}")
    ax.set_title("speedup")


def scaling_figure(ax, points, args):
    lines = {}
    for p in points:
        if p.seconds() is not None:
            y = p.seconds() * 1e3 if args.y == "time" else p.gflops()
            lines.setdefault(f"{p.where} {p.variant} {p.precision}", []).append((size_of(p.problem), p.problem, y))
    if not lines:
        raise ReportError("no verified points to plot")
    classes = all(not re.search(r"\d", p.problem) for p in points)
    for name, pts in lines.items():
        pts.sort()
        ax.plot([x for x, _, _ in pts], [y for _, _, y in pts], "o-", label=name)
    if classes:
        used = sorted({x for pts in lines.values() for x, _, _ in pts})
        ax.set_xticks(used, [NPB_CLASSES[i] for i in used])
        ax.set_xlabel("class")
    else:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("problem size")
    ax.set_yscale("log")
    ax.set_ylabel("ms per iteration" if args.y == "time" else "GFLOP/s")
    ax.set_title(("time" if args.y == "time" else "GFLOP/s") + " vs problem size")
    legend(ax)


def sweep_figure(plt, args):
    """Per swept kernel, one panel: time (or GFLOP/s) vs one parameter, one line per value of the others;
    with --x problem, one panel: each configuration's line across the sweeps' problem sizes."""
    if args.x == "problem":
        fig, ax = plt.subplots(figsize=(args.width, args.height or 5.0), dpi=args.dpi)
        lines = {}
        for s, k, configs in sweep_configs(args):
            for c in configs:
                name = (f"{s['backend']}:{s.get('device_index', 0)} {k['kernel']} {s['precision']} "
                        + ", ".join(f"{n}={v}" for n, v in c["params"].items()))
                lines.setdefault(name, []).append((size_of(s.get("problem", "")),
                                                   c["ms"] if args.y == "time" else c.get("gflops", 0.0)))
        for name, pts in lines.items():
            pts.sort()
            ax.plot([a for a, _ in pts], [b for _, b in pts], "o-", markersize=3, label=name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("problem size")
        ax.set_ylabel("ms per call" if args.y == "time" else "GFLOP/s")
        ax.set_title("swept configurations vs problem size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
        return fig
    panels = [(f"{s['backend']}:{s.get('device_index', 0)} {k['kernel']} {s['precision']} ({s.get('problem', '')})",
               configs) for s, k, configs in sweep_configs(args)]
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(args.width * cols / 2, (args.height or 5.0) * rows / 1.6), dpi=args.dpi,
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (title, configs) in zip(axes.flat, panels):
        params = list(configs[0]["params"])
        x = args.x if args.x in params else ("work_groups_per_cu" if "work_groups_per_cu" in params else params[0])
        groups = {}
        for c in configs:
            rest = ", ".join(f"{n}={v}" for n, v in c["params"].items() if n != x)
            y = c["ms"] if args.y == "time" else c.get("gflops", 0.0)
            groups.setdefault(rest, []).append((c["params"].get(x, 0), y))
        for rest, pts in groups.items():
            pts.sort()
            ax.plot([a for a, _ in pts], [b for _, b in pts], "o-", markersize=3, label=rest or None)
        if all(isinstance(a, (int, float)) and a > 0 for pts in groups.values() for a, _ in pts):
            ax.set_xscale("log", base=2)
        ax.set_xlabel(x)
        ax.set_ylabel("ms per call" if args.y == "time" else "GFLOP/s")
        ax.set_title(title, fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        if len(groups) > 1:
            ax.legend(fontsize=5)
    return fig


# ---------------------------------------------------------------------------------------------


def run_records(binary, commands, target):
    """Runs each gpubench command with --format json into one records file (their points merged)."""
    import subprocess
    merged = None
    for n, command in enumerate(commands):
        part = f"{target}.{n}.json"
        print(f"gpubench report: running gpubench {' '.join(command)}", file=sys.stderr)
        code = subprocess.call([binary] + command + ["--format", "json", "--out", part])
        if code not in (0, 1) or not os.path.exists(part):  # 1: a point failed, and its record says so
            raise ReportError(f"gpubench {' '.join(command)} exited {code}")
        records = read_json(part)
        os.remove(part)
        if merged is None:
            merged = records
        else:  # records (benchmarks, failed_benchmarks) or sweeps
            for key in ("benchmarks", "failed_benchmarks", "sweeps"):
                if key in records:
                    merged.setdefault(key, []).extend(records[key])
    with open(target, "w") as f:
        json.dump(merged, f, indent=1)


def study(args):
    """Runs a recipe (reports/recipes/NAME.json): its tables (.md, .tex, .csv) and figures (.png) into --out."""
    import glob
    import shutil
    here = os.path.dirname(os.path.abspath(__file__))
    path = args.name if args.name.endswith(".json") else os.path.join(here, "recipes", args.name + ".json")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(os.path.join(here, "recipes")) if f.endswith(".json"))
        raise ReportError(f"no recipe '{args.name}' (valid: {', '.join(names)})")
    recipe = read_json(path)
    try:
        for item in recipe["outputs"]:
            if not isinstance(item["name"], str) or not isinstance(item["records"], list) or not (
                    isinstance(item.get("table"), list) or isinstance(item.get("figure"), list)):
                raise TypeError(f"output {item.get('name')!r} needs a name, records and a table or figure argument list")
        for pattern, command in recipe.get("runs", {}).items():
            if not command or not isinstance(command, list):
                raise TypeError(f"the run for {pattern!r} is not a command (a list of words, or a list of them)")
    except (KeyError, TypeError, AttributeError) as e:
        raise ReportError(f"{path}: not a gpubench recipe ({e})")
    data = args.data or os.path.join(here, "data")
    out = args.out or f"gpubench-report-{args.name}"
    made = os.path.join(out, "data")  # records this command ran, when the data holds none
    os.makedirs(out, exist_ok=True)
    index = [f"# {recipe['title']}", "", recipe.get("source", ""), "",
             f"Made by `gpubench report study {args.name}` from the records in `{os.path.relpath(data, out)}`"
             f" (recipe `{os.path.relpath(path, os.path.dirname(here))}`).", ""]
    for item in recipe["outputs"]:
        files = []
        for pattern in item["records"]:
            matched = sorted(glob.glob(os.path.join(data, pattern))) or sorted(glob.glob(os.path.join(made, pattern)))
            if not matched:
                command = recipe.get("runs", {}).get(pattern)
                if command is None:
                    raise ReportError(f"recipe {args.name}: no records match '{pattern}' in {data}, and the recipe "
                                      "has no run that makes them")
                commands = command if isinstance(command[0], list) else [command]
                shown = "gpubench " + " ".join(commands[0]) + (f" (and {len(commands) - 1} more)" if len(commands) > 1 else "")
                if not args.run:
                    raise ReportError(f"recipe {args.name}: no records match '{pattern}' in {data}; --run makes them "
                                      f"on this machine's devices: {shown}")
                binary = os.environ.get("GPUBENCH_BINARY") or shutil.which("gpubench")
                if not binary:
                    raise ReportError("--run needs gpubench: run this as 'gpubench report study ...'")
                target = os.path.join(made, pattern.replace("*", "all"))  # a pattern's runs: one file
                os.makedirs(os.path.dirname(target), exist_ok=True)
                run_records(binary, commands, target)
                matched = [target]
            files += matched
        name = item["name"]
        if "table" in item:
            index += [f"## {item.get('title', name)}", ""]
            for fmt, ext in (("markdown", "md"), ("latex", "tex"), ("csv", "csv")):
                code = main(["table"] + item["table"] + files + ["--format", fmt, "--out", os.path.join(out, f"{name}.{ext}")])
                if code:
                    raise ReportError(f"recipe {args.name}: the table {name} failed")
            with open(os.path.join(out, f"{name}.md")) as f:
                index += [f.read().rstrip(), "", f"([LaTeX]({name}.tex), [CSV]({name}.csv))", ""]
        else:
            target = os.path.join(out, f"{name}.png")
            if main(["figure"] + item["figure"] + files + ["--out", target]):
                raise ReportError(f"recipe {args.name}: the figure {name} failed")
            index += [f"## {item.get('title', name)}", "", f"![{name}]({name}.png)", ""]
        index += ["Records: " + ", ".join(f"`{short(f)}`" for f in files), ""]
    if os.path.isdir(made):
        index += ["Records that this command ran on this machine's devices, the data lacking them: `data/`.", ""]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(index))
    print(f"gpubench report: wrote {out}/README.md and its tables and figures", file=sys.stderr)


def make_parser():
    parser = argparse.ArgumentParser(prog="gpubench report", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    helps = {"table": "a table (Markdown, LaTeX or CSV) of the points, kernels, speedups, scaling or sweeps of records",
             "figure": "a figure (PNG, SVG or PDF): roofline, per-kernel bars, speedups, scaling or a sweep"}
    for name in ("table", "figure"):
        p = sub.add_parser(name, help=helps[name], description=helps[name])
        p.add_argument("records", nargs="+", help="gpubench record files (sweep files for sweep tables and figures)")
        for field in ("suite", "problem", "backend", "variant", "precision"):
            p.add_argument("--" + field, help=f"only these {field}s (a comma list)")
        p.add_argument("--rows", help="only these B[:D]:V (a comma list), in this order within each problem")
        p.add_argument("--baseline", help="B[:D]:V: speedups against this backend (device) and variant")
        p.add_argument("--out", help="the file written (a table goes to stdout without it)")
    t = sub.choices["table"]
    t.add_argument("--kind", choices=("points", "kernels", "pairs", "scaling", "sweep", "sweep-grid", "lu-study",
                                      "strategies"),
                   default="points",
                   help="points: a row per point; kernels: a row per kernel, a column per point; pairs: speedups "
                        "X -> Y per problem; scaling: CG across devices, a row per device count (time, speedup, "
                        "efficiency, the exchange); sweep: the WG/CU reduction per swept kernel; sweep-grid: "
                        "GFLOP/s per swept configuration; lu-study: the LU study's table; strategies: % of the "
                        "optimum each search strategy reaches (gpubench sweep --replay ... --format json)")
    t.add_argument("--kernel", help="sweep-grid: only these kernels; strategies: only caches whose kernel names one")
    t.add_argument("--format", choices=("markdown", "latex", "csv"), default="markdown")
    t.add_argument("--ci", action="store_true", help="mean, its 95%% confidence interval and relative error")
    t.add_argument("--reduction-name", default="reduction", help="the name of the (T_base - T) / T_base column")
    t.add_argument("--value", choices=tuple(KERNEL_VALUES), default="ms", help="kernels: the value per kernel")
    t.add_argument("--pairs", help="pairs: X>Y[,X>Y...], each B[:D]:V")
    f = sub.choices["figure"]
    f.add_argument("--kind", choices=("roofline", "kernels", "speedup", "scaling", "sweep", "strategies"), required=True)
    f.add_argument("--y", choices=("gflops", "time"), default="gflops")
    f.add_argument("--x", help="sweep: the parameter on the x axis (default work_groups_per_cu, else the first), "
                               "or problem: each configuration across the sweeps' sizes")
    f.add_argument("--kernel", help="sweep: only these kernels; strategies: only caches whose kernel names one")
    f.add_argument("--kernels", action="store_true", help="roofline: each kernel's point too")
    f.add_argument("--width", type=float, default=8.0)
    f.add_argument("--height", type=float, help="in inches (default 5; figures of many bars grow to give each its line)")
    f.add_argument("--dpi", type=int, default=100)
    s = sub.add_parser("study", help="a source study's tables and figures, from its recipe (reports/recipes/)")
    s.add_argument("name", help="the recipe: cg-thesis, cg-multi-gpu, fused-cg, nas, lu, gemm (reports/recipes/), or a recipe file")
    s.add_argument("--data", help="the records read (default: the source tree's reports/data)")
    s.add_argument("--out", help="the folder written (default ./gpubench-report-NAME)")
    s.add_argument("--run", action="store_true", help="run what the data lacks on this machine's devices")
    return parser


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        if args.command == "study":
            study(args)
            return 0
        if args.command == "figure":
            if not args.out:
                raise ReportError("a figure needs --out FILE.png, .svg or .pdf")
            figure(args)
            return 0
        points = []
        if args.kind == "sweep":
            table = sweep_table(args)
        elif args.kind == "strategies":
            table = strategies_table(args)
        elif args.kind == "sweep-grid":
            table = sweep_grid_table(args)
        else:
            points = select(everything(args), args)
            table = {"points": points_table, "kernels": kernels_table, "pairs": pairs_table,
                     "scaling": scaling_table, "lu-study": lu_study_table}[args.kind](points, args)
        shown = {p.label for p in points} if args.kind not in ("sweep", "sweep-grid", "strategies") else set()
        table.notes += [r for r in getattr(args, "replaced", []) if r.split(": from ")[0] in shown]
        text = table.write(args.format)
        if args.out:
            with open(args.out, "w") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
        return 0
    except ReportError as e:
        print(f"gpubench report: {e}", file=sys.stderr)
        return e.code
    except (OSError, KeyboardInterrupt) as e:
        return failed("gpubench report", e)


if __name__ == "__main__":
    sys.exit(main())
