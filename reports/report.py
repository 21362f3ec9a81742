#!/usr/bin/python3
"""gpubench report: tables and figures from gpubench result records.

    report.py table  RECORDS.json ... [--kind points|kernels] [selection] [--baseline B[:D]:V]
                     [--ci] [--format markdown|latex|csv] [--out FILE]
    report.py figure RECORDS.json ... --kind roofline|kernels|speedup|scaling|sweep [selection]
                     [--baseline B[:D]:V] [--y gflops|time] [--out FILE.png|.svg|.pdf]

Records are gpubench's `--format json` files (Google Benchmark's layout); `sweep` figures read
`gpubench sweep --format json` files. Selection: --suite, --problem, --backend, --variant,
--precision (each a comma list). Times are per iteration, the median of a point's repetitions;
a failed point keeps its row, marked FAILED with its reason, and never gets a number.
Debian's python3 with python3-matplotlib (figures) and python3-scipy (Student's t; a table of
its quantiles is used without it).
"""
import argparse
import csv
import io
import json
import math
import re
import statistics
import sys

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NPB_CLASSES = "SWABCDE"


class ReportError(Exception):
    pass


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
        self.entries = []
        self.error = None

    @property
    def key(self):
        return (self.suite, self.problem, self.backend, self.device_index, self.variant, self.precision)

    @property
    def where(self):
        return f"{self.backend}:{self.device_index}"

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

    def median_of(self, field):
        values = [e[field] for e in self.entries if isinstance(e.get(field), (int, float))]
        return statistics.median(values) if values and not self.error else None

    def kernels(self):
        """[(kernel, ms per iteration)] of the first repetition that has them (a profiled pass)."""
        for e in self.entries:
            if e.get("kernels"):
                return [(k["kernel"], k.get("ms_per_iteration", 0.0)) for k in e["kernels"]]
        return []


def load_records(paths):
    """The points of the record files, in the order first seen."""
    points = {}
    for path in paths:
        try:
            with open(path) as f:
                records = json.load(f)
        except (OSError, ValueError) as e:
            raise ReportError(f"{path}: {e}")
        if not isinstance(records, dict) or "benchmarks" not in records:
            raise ReportError(f"{path}: not a gpubench records file (no 'benchmarks')")
        for b in records.get("benchmarks", []) + records.get("failed_benchmarks", []):
            if b.get("run_type") == "aggregate" or "suite" not in b:
                continue
            p = Point(b)
            p = points.setdefault(p.key, p)
            if b.get("error_occurred") or b.get("verified") is False:
                p.error = p.error or b.get("error_message") or "not verified"
            else:
                p.entries.append(b)
    return list(points.values())


def select(points, args):
    def ok(value, wanted):
        return not wanted or str(value) in wanted.split(",")

    chosen = [p for p in points
              if ok(p.suite, args.suite) and ok(p.problem, args.problem) and ok(p.variant, args.variant)
              and ok(p.precision, args.precision)
              and (not args.backend or p.backend in args.backend.split(",") or p.where in args.backend.split(","))]
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
    raise ReportError(f"--baseline '{spec}': expected BACKEND[:DEVICE]:VARIANT, e.g. cuda:vendor or opencl:1:classic")


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
        if self.notes:
            out.write("\n" + "\n".join(self.notes) + "\n")
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
        row += [num(p.median_of("gflops")), num(p.median_of("roofline_pct"), 3), num(p.median_of("theoretical_pct"), 3)]
        if args.baseline:
            b = baseline_of(p, points, args.baseline)
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
            t.notes.append(f"{p.label}: {p.first('summary')}; {p.first('verification', '')}")
    return t


def kernels_table(points, args):
    """Per-kernel ms per iteration, one column per point; the overhead row and the total."""
    done = [p for p in points if p.seconds() is not None]
    if not done:
        raise ReportError("no verified points to break down")
    names = []
    for p in done:
        for k, _ in p.kernels():
            if k not in names and k != "overhead":
                names.append(k)
    if not names:
        raise ReportError("the records have no per-kernel times (run gpubench with --breakdown)")
    header = ["kernel"] + [f"{p.where} {p.variant} {p.precision} ({p.problem})" for p in done]
    t = Table(header, ["l"] + ["r"] * len(done))
    per = [dict(p.kernels()) for p in done]
    for k in names:
        t.rows.append([k] + [num(d.get(k)) if k in d else "-" for d in per])
    overhead, total = ["overhead"], ["total"]
    for p, d in zip(done, per):
        listed = sum(v for name, v in d.items() if name != "overhead")
        if "overhead" in d:  # the suite's own: its total is the profiled pass
            overhead.append(num(d["overhead"]))
            total.append(num(p.first("profiled_ms_per_iteration") or listed + d["overhead"]))
        else:  # the timed iteration's time beyond its kernels: host gaps, launches, transfers
            overhead.append(num(p.seconds() * 1e3 - listed))
            total.append(num(p.seconds() * 1e3))
    t.rows += [overhead, total]
    t.notes.append("ms per iteration. overhead: the time of an iteration outside the listed kernels (the "
                   "suite's own row where it records one); total: the iteration's time.")
    return t


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
    """A number to order problems by: the first integer in it, or a NAS class's place."""
    m = re.search(r"(?:npb:)?([SWABCDE])$", problem)
    if m and not re.search(r"\d", problem):
        return NPB_CLASSES.index(m.group(1))
    m = re.search(r"\d+", problem)
    return int(m.group()) if m else 0


def figure(args):
    plt = pyplot()
    if args.kind == "sweep":
        fig = sweep_figure(plt, args)
    else:
        points = select(load_records(args.records), args)
        fig, ax = plt.subplots(figsize=(args.width, args.height), dpi=args.dpi)
        {"roofline": roofline_figure, "kernels": kernels_figure, "speedup": speedup_figure,
         "scaling": scaling_figure}[args.kind](ax, points, args)
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out)
    plt.close(fig)


def roofline_figure(ax, points, args):
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
        bw, peak = c["bandwidth_gbps"], c["peak_gflops"]
        xs = [lo, peak / bw, hi]
        ax.plot(xs, [min(peak, x * bw) for x in xs], "-", label=f"{device} ({where}, {prec}): "
                f"{bw:.0f} GB/s, {peak:.0f} GFLOP/s")
    for p in done:
        ax.plot(p.median_of("arithmetic_intensity"), p.median_of("gflops"), "o",
                label=f"{p.where} {p.variant} {p.precision} {p.problem}")
        if args.kernels:
            for k in p.first("kernels") or []:
                if k.get("arithmetic_intensity") and k.get("gflops"):
                    ax.plot(k["arithmetic_intensity"], k["gflops"], "x", color="gray")
                    ax.annotate(k["kernel"], (k["arithmetic_intensity"], k["gflops"]), fontsize=6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("roofline: measured ceilings and points")
    ax.legend(fontsize=6)


def kernels_figure(ax, points, args):
    done = [p for p in points if p.seconds() is not None and p.kernels()]
    if not done:
        raise ReportError("the records have no per-kernel times (run gpubench with --breakdown)")
    names = []
    for p in done:
        names += [k for k, _ in p.kernels() if k not in names]
    bottom = [0.0] * len(done)
    xs = range(len(done))
    for k in names:
        values = [dict(p.kernels()).get(k, 0.0) for p in done]
        ax.bar(xs, values, bottom=bottom, label=k)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(list(xs), [f"{p.where}\n{p.variant} {p.precision}\n{p.problem}" for p in done], fontsize=7)
    ax.set_ylabel("ms per iteration")
    ax.set_title("time per kernel")
    ax.legend(fontsize=7)


def speedup_figure(ax, points, args):
    if not args.baseline:
        raise ReportError("a speedup figure needs --baseline B[:D]:V")
    bars = []
    for p in points:
        b = baseline_of(p, points, args.baseline)
        if p.seconds() and b and b.seconds():
            bars.append((f"{p.where}\n{p.variant} {p.precision}\n{p.problem}", b.seconds() / p.seconds()))
    if not bars:
        raise ReportError(f"no point has a baseline {args.baseline} on its suite, problem and precision")
    ax.bar(range(len(bars)), [v for _, v in bars])
    ax.set_xticks(range(len(bars)), [n for n, _ in bars], fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel(f"speedup over {args.baseline}")
    ax.set_title("speedup")


def scaling_figure(ax, points, args):
    lines = {}
    for p in points:
        if p.seconds() is not None:
            y = p.seconds() * 1e3 if args.y == "time" else p.median_of("gflops")
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
    ax.legend(fontsize=7)


def sweep_figure(plt, args):
    """Per swept kernel, one panel: time (or GFLOP/s) vs one parameter, one line per value of the others."""
    panels = []
    for path in args.records:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise ReportError(f"{path}: {e}")
        if not isinstance(data, dict) or "sweeps" not in data:
            raise ReportError(f"{path}: not a gpubench sweep file (no 'sweeps')")
        for s in data["sweeps"]:
            for k in s.get("kernels", []):
                if args.kernel and k["kernel"] not in args.kernel.split(","):
                    continue
                configs = [c for c in k.get("configs", []) if c.get("status") == "verified"]
                if configs:
                    panels.append((f"{s['backend']}:{s.get('device_index', 0)} {k['kernel']} {s['precision']} "
                                   f"({s.get('problem', '')})", configs))
    if not panels:
        raise ReportError("no verified sweep configurations to plot")
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(args.width * cols / 2, args.height * rows / 1.6), dpi=args.dpi,
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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gpubench report", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("table", "figure"):
        p = sub.add_parser(name)
        p.add_argument("records", nargs="+", help="gpubench record files (sweep files for a sweep figure)")
        for field in ("suite", "problem", "backend", "variant", "precision"):
            p.add_argument("--" + field, help=f"only these {field}s (a comma list)")
        p.add_argument("--baseline", help="B[:D]:V: speedups against this backend (device) and variant")
        p.add_argument("--out", help="the file written (a table goes to stdout without it)")
    t = sub.choices["table"]
    t.add_argument("--kind", choices=("points", "kernels"), default="points")
    t.add_argument("--format", choices=("markdown", "latex", "csv"), default="markdown")
    t.add_argument("--ci", action="store_true", help="mean, its 95%% confidence interval and relative error")
    t.add_argument("--reduction-name", default="reduction", help="the name of the (T_base - T) / T_base column")
    f = sub.choices["figure"]
    f.add_argument("--kind", choices=("roofline", "kernels", "speedup", "scaling", "sweep"), required=True)
    f.add_argument("--y", choices=("gflops", "time"), default="gflops")
    f.add_argument("--x", help="sweep: the parameter on the x axis (default work_groups_per_cu, else the first)")
    f.add_argument("--kernel", help="sweep: only these kernels")
    f.add_argument("--kernels", action="store_true", help="roofline: each kernel's point too")
    f.add_argument("--width", type=float, default=8.0)
    f.add_argument("--height", type=float, default=5.0)
    f.add_argument("--dpi", type=int, default=100)
    args = parser.parse_args(argv)
    try:
        if args.command == "figure":
            if not args.out:
                raise ReportError("a figure needs --out FILE.png, .svg or .pdf")
            figure(args)
            return 0
        points = select(load_records(args.records), args)
        table = (kernels_table if args.kind == "kernels" else points_table)(points, args)
        text = table.write(args.format)
        if args.out:
            with open(args.out, "w") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
        return 0
    except ReportError as e:
        print(f"gpubench report: {e}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
