"""gpubench report portability: the performance portability of each suite variant per API over the
platforms (physical devices) of the records, as Pennycook, Sewall and Lee define it:

    PP(a, p, H) = |H| / sum over i in H of 1 / e_i(a, p)    if a runs on every platform i of H, else 0

(S. J. Pennycook, J. D. Sewall, V. W. Lee, "Implications of a metric for performance portability",
Future Generation Computer Systems 92, 2019). An application a is a suite's variant on one problem
and precision, written in one API (the backend). Two efficiencies e_i:
- architectural: the point's share of the device's measured roofline (% roof / 100; a point above
  the roof, which a cache served, counts as 1);
- application: the best time measured on that platform for the same suite, problem and precision,
  whatever the variant or API (vendor libraries included), over the point's time.

A platform is a device by its name; PoCL names the host's CPU "pthread-ARCH-MODEL" (PoCL 3) or
"cpu-ARCH-MODEL" (PoCL 5), ARCH being LLVM's lower-case CPU name ("skylake-avx512"), which is the same
platform as OpenMP's "MODEL". A point that failed, or that the records do not hold for a platform,
is an application that does not run there: its PP over those platforms is 0.
"""
import os
import re

from .errors import ReportError, UsageError
from .files import figure_size_checked, save_figure
from .records import everything, select
from .tables import Table, num


def platform_of(point):
    """The physical device a point ran on (PoCL's name for the host's CPU made OpenMP's)."""
    m = re.match(r"^(?:pthread|cpu)-[a-z0-9_.-]+?-(?=[A-Z])(.+)$", point.device)
    return m.group(1) if m else point.device


def pp(efficiencies):
    """The harmonic mean of `efficiencies` (one per platform), 0 when one is missing or 0."""
    if not efficiencies or any(e is None or e <= 0 for e in efficiencies):
        return 0.0
    return len(efficiencies) / sum(1.0 / e for e in efficiencies)


def efficiencies(points, platforms):
    """{(suite, problem, precision, variant, api): {platform: (architectural, application) or None}},
    and the best (seconds, what) per (suite, problem, precision, platform)."""
    best = {}
    for p in points:
        s = p.seconds()
        if s:
            k = (p.suite, p.problem, p.precision, platform_of(p))
            if k not in best or s < best[k][0]:
                best[k] = (s, f"{p.backend}:{p.variant}")
    apps = {}
    for p in points:
        plat = platform_of(p)
        if plat not in platforms:
            continue
        cells = apps.setdefault((p.suite, p.problem, p.precision, p.variant, p.backend), {})
        s = p.seconds()
        if not s:
            cells.setdefault(plat, None)  # failed: does not run (unless another device of the kind ran it)
            continue
        roof = p.percent_of("attainable_gflops", "roofline_pct")
        arch = min(roof / 100, 1.0) if roof else None
        application = best[(p.suite, p.problem, p.precision, plat)][0] / s
        previous = cells.get(plat)
        if previous is None or application > previous[1]:  # two devices of one kind: the better
            cells[plat] = (arch, application)
    return apps, best


def platforms_of(points, wanted):
    found = sorted({platform_of(p) for p in points})
    if not wanted:
        return found
    chosen = [w.strip() for w in wanted.split(",") if w.strip()]
    missing = [w for w in chosen if w not in found]
    if missing:
        raise UsageError(f"--platforms: no point of the records ran on {', '.join(missing)} "
                         f"(their platforms: {', '.join(found) or 'none'})")
    return chosen


def portability_table(points, platforms, apps):
    header = ["suite", "problem", "prec", "variant", "API"] + [f"{p} (arch / app %)" for p in platforms]
    header += ["PP arch", "PP app"]
    t = Table(header, ["l"] * 5 + ["r"] * (len(platforms) + 2))
    for (suite, problem, precision, variant, api), cells in sorted(apps.items()):
        row = [suite, problem, precision, variant, api]
        arch, app = [], []
        for plat in platforms:
            cell = cells.get(plat)
            arch.append(cell[0] if cell else None)
            app.append(cell[1] if cell else None)
            row.append(f"{num(100 * cell[0], 3) if cell[0] is not None else '-'} / {num(100 * cell[1], 3)}"
                       if cell else "does not run")
        row += [num(100 * pp(arch), 3), num(100 * pp(app), 3)]
        t.rows.append(row)
    t.notes.append(
        "PP: the harmonic mean of the efficiencies over the platforms, 0 where the variant does not run on one "
        "(Pennycook, Sewall and Lee 2019). arch: % of the platform's measured roofline (above the roof counts as "
        "100); app: the best time measured on the platform for the same suite, problem and precision, any variant "
        "or API, over this one's. PP in %.")
    return t


def cascade_figure(plt, suite, platforms, apps, kind, args):
    """Sewall et al.'s cascade plot: for each application, its efficiencies from the best platform down
    (markers) and its PP over the platforms so far (line)."""
    index = 0 if kind == "arch" else 1
    rows = [(k, cells) for k, cells in sorted(apps.items()) if k[0] == suite]
    fig, ax = plt.subplots(figsize=(args.width, args.height or 5.0), dpi=args.dpi)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    x = list(range(1, len(platforms) + 1))
    for i, ((_, problem, precision, variant, api), cells) in enumerate(rows):
        effs = [(cells[p][index] if cells.get(p) and cells[p][index] is not None else 0.0) for p in platforms]
        effs.sort(reverse=True)
        cascade = [pp(effs[:k]) for k in x]
        colour = colours[i % len(colours)]
        label = f"{api}:{variant} {problem} {precision} (PP {100 * cascade[-1]:.0f}%)"
        ax.plot(x, [100 * e for e in effs], "o", color=colour, markersize=4)
        ax.plot(x, [100 * c for c in cascade], "-", color=colour, linewidth=1.2, label=label)
    ax.set_xticks(x)
    ax.set_xlabel("platforms, from the most efficient (each application's own order)", fontsize=8)
    ax.set_ylabel(("architectural" if kind == "arch" else "application") + " efficiency / PP (%)", fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_title(f"{suite}: performance portability over {len(platforms)} platforms ({', '.join(platforms)})", fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=6, loc="lower left")
    fig.tight_layout()
    return fig


def portability(args):
    points = select(everything(args), args)
    if not points:
        raise ReportError("the selection holds no points")
    platforms = platforms_of(points, args.platforms)
    apps, _ = efficiencies(points, platforms)
    table = portability_table(points, platforms, apps)
    if args.figure:
        from .figures import FIGURE_FORMATS, pyplot
        stem, ext = os.path.splitext(args.figure)
        if ext.lower() not in FIGURE_FORMATS:
            raise UsageError(f"--figure {args.figure}: a figure is written as {', '.join(FIGURE_FORMATS)}")
        plt = pyplot()
        suites = sorted({k[0] for k in apps})
        for suite in suites:
            out = args.figure if len(suites) == 1 else f"{stem}-{suite}{ext}"
            with figure_size_checked(out):
                fig = cascade_figure(plt, suite, platforms, apps, args.efficiency, args)
            try:
                save_figure(fig, out)
            finally:
                plt.close(fig)
            table.notes.append(f"cascade plot of {suite}: {out}")
    return table
