"""gpubench report models: the programming models side by side on one device, per suite. For each
suite, problem, precision and platform (physical device) of the records, each API's points (CUDA,
OpenCL, OpenMP offload, ... : the backends) with their time and share of the device's measured
roofline, variant by variant, then each API's best own variant (the vendor library's left out:
it is no code written in the model), and how far each is from the fastest API's.

The ledger (the "best own" rows' last column): for each API slower than the fastest, how many times
slower, and why, from the causes its records carry ("gap_causes": what the API forces, what the
compiler or the device does, or what is gpubench's own choice), so that a reader of the table can
tell an API's limit from an implementation's; "cause not recorded" where the records name none.
One cause the records show without naming it: where the slower point's kernels ran their
heuristic launch (no sweep on this device) and the fastest point's ran swept ones, part of the gap
is a sweep not run, which the ledger says.

The figure draws, per suite, each API's best own variant as a bar of % of the roofline (log
scale: the models can be two orders of magnitude apart), its time written on it.
"""
import math
import os

from .errors import ReportError, UsageError
from .files import figure_size_checked, save_figure
from .portability import platform_of
from .records import everything, select
from .tables import Table, num

VENDOR = "vendor"


def roof_of(point):
    return point.percent_of("attainable_gflops", "roofline_pct")


def comparisons(points, apis):
    """{(suite, problem, precision, platform): {"apis": [api..], "variants": {variant: {api: point}},
    "best": {api: point}}} for the groups where at least two of `apis` ran, in the records' API
    order when `apis` is empty."""
    groups = {}
    for p in points:
        if not p.seconds() or (apis and p.backend not in apis):
            continue
        g = groups.setdefault((p.suite, p.problem, p.precision, platform_of(p)), {"apis": [], "variants": {}, "best": {}})
        if p.backend not in g["apis"]:
            g["apis"].append(p.backend)
        cell = g["variants"].setdefault(p.variant, {})
        if p.backend not in cell or p.seconds() < cell[p.backend].seconds():  # two devices of one kind: the faster
            cell[p.backend] = p
        if p.variant != VENDOR and (p.backend not in g["best"] or p.seconds() < g["best"][p.backend].seconds()):
            g["best"][p.backend] = p
    ordered = {}
    for key, g in sorted(groups.items()):
        if len(g["apis"]) < 2:
            continue
        if apis:
            g["apis"] = [a for a in apis if a in g["apis"]]
        ordered[key] = g
    return ordered


def cell_text(p, fastest):
    if p is None:
        return "-"
    roof = roof_of(p)
    text = f"{num(p.seconds() * 1e3, 4)} ms"
    if roof is not None:
        text += f", {num(roof, 3)}% roof"
    if fastest and p.seconds() > fastest:
        text += f", {num(p.seconds() / fastest, 3)}x"
    return text


BY = {"api": "the API", "compiler": "the compiler", "device": "the device", "gpubench": "gpubench's choice"}


def gap_causes(p):
    """The causes point p's records carry: [(by, cause)], each once, in order."""
    seen = []
    for e in p.entries:
        causes = e.get("gap_causes")
        if not isinstance(causes, list):
            continue
        for c in causes:
            if not isinstance(c, dict) or not isinstance(c.get("cause"), str):
                continue
            item = (str(c.get("by", "?")), c["cause"])
            if item not in seen:
                seen.append(item)
    return seen


SWEPT = ("tuned", "tuned (nearest size)", "device default")  # a launch from a sweep on this device


def launch_sources(p):
    """{kernel: where its launch came from} ("tuned", "heuristic", ...: the records' params.launch)."""
    for e in p.entries:
        params = e.get("params")
        launch = params.get("launch") if isinstance(params, dict) else None
        if isinstance(launch, dict):
            return {k: v["from"] for k, v in launch.items() if isinstance(v, dict) and isinstance(v.get("from"), str)}
    return {}


def sweep_gap(p, fastest):
    """(by, cause) where p's kernels ran launches no sweep on this device chose and every kernel of
    the fastest point ran swept ones; None otherwise."""
    mine, theirs = launch_sources(p), launch_sources(fastest)
    unswept = sorted(k for k, source in mine.items() if source not in SWEPT)
    if not unswept or not theirs or any(source not in SWEPT for source in theirs.values()):
        return None
    return ("gpubench", f"{', '.join(unswept)} ran {p.backend}'s {mine[unswept[0]]} launch (not swept on this "
                        f"device) where {fastest.backend}'s kernels ran swept ones: part of the gap is a sweep not "
                        f"run (gpubench sweep --suite {p.suite} --backend {p.devices} --problem {p.problem})")


def ledger_text(best, apis):
    """Each API slower than the fastest of `best` ({api: point}): "opencl 1.9x: cause [by the API]"."""
    first = min(best.values(), key=lambda p: p.seconds())
    fastest = first.seconds()
    parts = []
    for a in apis:
        p = best.get(a)
        if p is None or p.seconds() <= fastest * 1.02:
            continue
        causes = gap_causes(p)
        unswept = sweep_gap(p, first)
        if unswept:
            causes.append(unswept)
        why = "; ".join(f"{cause} [{BY.get(by, by)}]" for by, cause in causes) if causes else "cause not recorded"
        parts.append(f"{a} {num(p.seconds() / fastest, 3)}x: {why}")
    return " | ".join(parts)


def models_table(groups):
    apis = []
    for g in groups.values():
        apis += [a for a in g["apis"] if a not in apis]
    t = Table(["suite", "problem", "prec", "device", "variant"] + apis + ["gaps: why"],
              ["l"] * 5 + ["r"] * len(apis) + ["l"])
    for (suite, problem, precision, platform), g in groups.items():
        for variant, cell in sorted(g["variants"].items()):
            fastest = min(p.seconds() for p in cell.values())
            t.rows.append([suite, problem, precision, platform, variant] +
                          [cell_text(cell.get(a), fastest) for a in apis] + [""])
        best = g["best"]
        if best:
            fastest = min(p.seconds() for p in best.values())
            t.rows.append([suite, problem, precision, platform, "best own"] +
                          [cell_text(best.get(a), fastest) + (f" ({best[a].variant})" if a in best else "")
                           for a in apis] + [ledger_text(best, apis)])
    t.notes.append("Each API's time per iteration (the median of its repetitions), its % of the device's measured "
                   "roofline and, where it is slower, how many times the fastest API's time of that row. best own: "
                   "each API's fastest variant other than its vendor library's (code written in the model). '-': "
                   "the API has no such variant, or it did not run. gaps: why: each API more than 2% slower than "
                   "the fastest's best own, and the causes its records carry, each with what forces it (the API as "
                   "the device's vendor implements it, the compiler, the device, or gpubench's own choice).")
    return t


def models_figure(plt, groups, args):
    suites = []
    for (suite, *_rest) in groups:
        if suite not in suites:
            suites.append(suite)
    apis = []
    for g in groups.values():
        apis += [a for a in g["apis"] if a not in apis]
    fig, axes = plt.subplots(1, len(suites), figsize=(args.width, args.height or 4.5), dpi=args.dpi, squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, suite in zip(axes[0], suites):
        keys = [k for k in groups if k[0] == suite]
        width = 0.8 / max(len(apis), 1)
        for i, api in enumerate(apis):
            xs, ys, labels = [], [], []
            for j, key in enumerate(keys):
                p = groups[key]["best"].get(api)
                roof = roof_of(p) if p else None
                if not roof:
                    continue
                xs.append(j + (i - (len(apis) - 1) / 2) * width)
                ys.append(min(roof, 100.0))
                labels.append(f"{num(p.seconds() * 1e3, 3)} ms\n{p.variant}")
            bars = ax.bar(xs, ys, width, color=colours[i % len(colours)], label=api)
            for bar, label in zip(bars, labels):
                ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() * 1.08, label, ha="center",
                        va="bottom", fontsize=5, rotation=90)
        ax.set_yscale("log")
        ax.set_ylim(0.1, 1000)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([f"{k[1]} {k[2]}" for k in keys], fontsize=7)
        ax.set_title(suite, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("% of the measured roofline (best own variant)", fontsize=8)
    axes[0][-1].legend(fontsize=7, loc="upper right")
    platforms = sorted({k[3] for k in groups})
    fig.suptitle(f"programming models on {', '.join(platforms)}", fontsize=9)
    fig.tight_layout()
    return fig


def models(args):
    points = select(everything(args), args)
    if not points:
        raise ReportError("the selection holds no points")
    apis = [a.strip() for a in (args.apis or "").split(",") if a.strip()]
    groups = comparisons(points, apis)
    if not groups:
        raise ReportError("no suite, problem and precision of the selection ran on one device with two APIs or more"
                          + (f" of {', '.join(apis)}" if apis else ""))
    table = models_table(groups)
    if args.figure:
        from .figures import FIGURE_FORMATS, pyplot
        ext = os.path.splitext(args.figure)[1]
        if ext.lower() not in FIGURE_FORMATS:
            raise UsageError(f"--figure {args.figure}: a figure is written as {', '.join(FIGURE_FORMATS)}")
        plt = pyplot()
        with figure_size_checked(args.figure):
            fig = models_figure(plt, groups, args)
        try:
            save_figure(fig, args.figure)
        finally:
            plt.close(fig)
        table.notes.append(f"figure: {args.figure}")
    return table
