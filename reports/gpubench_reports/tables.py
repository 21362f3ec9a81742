"""gpubench report's tables (Markdown, LaTeX, CSV): points, kernels, pairs, scaling, sweeps,
strategies, the LU study."""
import csv
import io
import math
import re

from .errors import ReportError
from .records import baseline_of, parse_baseline, read_json, size_of
from .statistics import confidence


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
    best_blas = best_host_blas(points)
    if best_blas:
        header += ["% of best host BLAS"]
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
        if best_blas:
            best = best_blas.get((p.suite, p.problem, p.precision, p.device))
            row.append(f"{100 * best[0] / s:.1f} % of {best[1]}" if best and p.backend == "openmp" else "-")
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
    if best_blas:
        t.notes.append("% of best host BLAS: the fastest host BLAS point (OpenBLAS, BLIS: the records' host_blas) on "
                       "the row's suite, problem, precision and host, over the row's time; a host ratio is only as "
                       "honest as the best library measured.")
    t.notes += host_blas_warnings(points)
    return t


def best_host_blas(points):
    """(suite, problem, precision, device: the CPU) -> (seconds, library) of the fastest point that ran a
    host BLAS."""
    best = {}
    for p in points:
        blas = p.first("host_blas")
        s = p.seconds()
        if not isinstance(blas, dict) or not blas.get("library") or s is None:
            continue
        key = (p.suite, p.problem, p.precision, p.device)
        name = f"{blas['library']} {blas.get('core', '')}".strip()
        if key not in best or s < best[key][0]:
            best[key] = (s, name)
    return best


def host_blas_warnings(points):
    """A line per point whose host BLAS ran kernels narrower than the host's instruction set (the
    records' host_blas.weaker_than_host): a baseline below the host, and the setting that fixes it."""
    lines = []
    for p in points:
        blas = p.first("host_blas") or {}
        if isinstance(blas, dict) and blas.get("weaker_than_host"):
            lines.append(f"WARNING: {p.label}: {blas['weaker_than_host']}")
    return lines


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
