"""gpubench report's figures (matplotlib): roofline, kernels, speedup, scaling, sweep, strategies.
Where a point has two or more repetitions, its error bars span their interquartile range (the
tables' spread): the time's quartiles, the rates at them, and for a speedup the ratios of the
two points' outer quartiles. The per-kernel bars come from one profiled pass: no bars."""
import json
import math
import os
import re
import textwrap

from .errors import ReportError, UsageError
from .files import figure_size_checked, save_figure
from .records import NPB_CLASSES, baseline_of, everything, select, size_of
from .tables import replay_title, strategy_replays, sweep_configs


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


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        raise ReportError("figures need matplotlib: Debian's python3-matplotlib (scripts/setup installs it)")


FIGURE_FORMATS = (".png", ".svg", ".pdf")
BARS_UPRIGHT = 8  # up to this many bars stand upright, labelled below; more lie down, a line each


def figure(args):
    if os.path.splitext(args.out)[1].lower() not in FIGURE_FORMATS:
        raise UsageError(f"--out {args.out}: a figure is written as {', '.join(FIGURE_FORMATS)} (by the name's extension)")
    plt = pyplot()
    with figure_size_checked(args.out):
        fig = draw(plt, args)
        try:
            save_figure(fig, args.out)
        finally:
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
    if args.caption:
        fig.tight_layout(rect=(0, caption(fig, args.caption), 1, 1))
    else:
        fig.tight_layout()
    return fig


CAPTION_POINTS = 8


def caption(fig, text):
    """`text` under the axes, wrapped to the figure's width; returns the share of the figure's height
    it takes (the axes are laid out above it)."""
    width_in, height_in = fig.get_size_inches()
    lines = textwrap.wrap(" ".join(text.split()), width=max(20, int(width_in * 72 / (0.55 * CAPTION_POINTS))))
    fig.text(0.5, 4 / (height_in * 72), "\n".join(lines), ha="center", va="bottom", fontsize=CAPTION_POINTS)
    return min(0.5, (len(lines) * CAPTION_POINTS * 1.25 + 8) / (height_in * 72))


def spans(values, bounds):
    """Matplotlib's asymmetric errors ([below], [above]) of values from their (low, high) bounds, 0
    where a bound is unknown; None where none is known."""
    if all(b is None for b in bounds):
        return None
    return [[v - b[0] if b else 0.0 for v, b in zip(values, bounds)],
            [b[1] - v if b else 0.0 for v, b in zip(values, bounds)]]


def time_bounds(p, scale=1.0):
    q = p.quartiles()
    return (q[0] * scale, q[1] * scale) if q else None


def speedup_bounds(p, b):
    """The ratio of b's time to p's at their quartiles: b's fastest quarter over p's slowest, and back."""
    qp, qb = p.quartiles(), b.quartiles()
    return (qb[0] / qp[1], qb[1] / qp[0]) if qp and qb and min(qp) > 0 else None


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
    ceilings = {}  # one roof per physical device: the APIs that see it share one (a run merges their ceilings)
    wheres = {}
    for p in points:
        c = p.first("ceilings")
        if c:
            key = (p.device, p.precision, json.dumps(c, sort_keys=True))
            ceilings.setdefault(key, c)
            if p.where not in wheres.setdefault(key, []):
                wheres[key].append(p.where)
    ceilings = {(device, ", ".join(wheres[(device, prec, text)]), prec, text): c
                for (device, prec, text), c in ceilings.items()}
    if not ceilings:
        raise ReportError("the records carry no ceilings")
    done = [p for p in points if p.seconds() is not None and p.median_of("arithmetic_intensity")]
    ais = [p.median_of("arithmetic_intensity") for p in done] or [1.0]
    lo, hi = min(ais + [0.01]) / 4, max(ais + [100.0]) * 4
    for (device, where, prec, _), c in ceilings.items():
        if not all(isinstance(c.get(k), (int, float)) and c[k] > 0 for k in ("bandwidth_gbps", "peak_gflops")):
            raise ReportError(f"the ceilings of {device} ({where}) have no bandwidth_gbps and peak_gflops")
        bw, peak = c["bandwidth_gbps"], c["peak_gflops"]
        # The unit the roof's peak belongs to: a tensor-core ceiling where the points ran on one
        # (issue 59), the FMA pipes' otherwise; each is its own roof, dash-dotted for a tensor unit.
        unit = c.get("peak_unit") if isinstance(c.get("peak_unit"), str) else "FMA"
        xs = [lo, min(max(peak / bw, lo), hi), hi]
        ax.plot(xs, [min(peak, x * bw) for x in xs], "-" if unit == "FMA" else "-.", color="black",
                alpha=0.4 + 0.6 / len(ceilings),
                label=f"{device} ({where}, {prec}): DRAM {bw:.0f} GB/s, {unit} {peak:.0f} GFLOP/s")
        # The memory hierarchy: each cache level's roof, where the probes measured it (issue 38).
        for level, key, style in (("L2", "l2_gbps", "--"), ("L1/shared", "l1_gbps", ":")):
            level_bw = c.get(key)
            if isinstance(level_bw, (int, float)) and level_bw > 0:
                xs = [lo, min(max(peak / level_bw, lo), hi), hi]
                ax.plot(xs, [min(peak, x * level_bw) for x in xs], style, color="black",
                        alpha=0.4 + 0.6 / len(ceilings), label=f"{device} ({where}): {level} {level_bw:.0f} GB/s")
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
        ys = [p.gflops() for p in members]
        ax.errorbar([p.median_of("arithmetic_intensity") for p in members], ys,
                    yerr=spans(ys, [p.gflops_quartiles() for p in members]), fmt="o", capsize=2, color=colour,
                    label=label)
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
            bars.append((p, b.seconds() / p.seconds(), speedup_bounds(p, b)))
    if not bars:
        raise ReportError(f"no point has a baseline {args.baseline} on its suite, problem and precision")
    xs = list(range(len(bars)))
    errors = spans([v for _, v, _ in bars], [q for _, _, q in bars])
    if bar_layout(ax, args, bars):
        ax.barh(xs, [v for _, v, _ in bars], xerr=errors, capsize=2)
        ax.set_yticks(xs, [f"{p.where} {p.variant} {p.precision} {p.problem}" for p, _, _ in bars], fontsize=7)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"speedup over {args.baseline}")
    else:
        ax.bar(xs, [v for _, v, _ in bars], yerr=errors, capsize=2)
        ax.set_xticks(xs, [f"{p.where}\n{p.variant} {p.precision}\n{p.problem}" for p, _, _ in bars], fontsize=7)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel(f"speedup over {args.baseline}")
    ax.set_title("speedup")


def scaling_figure(ax, points, args):
    lines = {}
    for p in points:
        if p.seconds() is not None:
            y = p.seconds() * 1e3 if args.y == "time" else p.gflops()
            q = time_bounds(p, 1e3) if args.y == "time" else p.gflops_quartiles()
            lines.setdefault(f"{p.where} {p.variant} {p.precision}", []).append((size_of(p.problem), p.problem, y, q))
    if not lines:
        raise ReportError("no verified points to plot")
    classes = all(not re.search(r"\d", p.problem) for p in points)
    for name, pts in lines.items():
        pts.sort(key=lambda t: t[:3])
        ys = [y for _, _, y, _ in pts]
        ax.errorbar([x for x, _, _, _ in pts], ys, yerr=spans(ys, [q for _, _, _, q in pts]), fmt="o-", capsize=3,
                    label=name)
    if classes:
        used = sorted({x for pts in lines.values() for x, _, _, _ in pts})
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
