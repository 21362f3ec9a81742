"""gpubench report: tables and figures from gpubench result records.

    gpubench report table RECORDS.json ... [--kind points|kernels|pairs|scaling|sweep|sweep-grid|lu-study|strategies]
                          [selection] [--baseline B[:D]:V] [--ci] [--format markdown|latex|csv] [--out FILE]
    gpubench report figure RECORDS.json ... --kind roofline|kernels|speedup|scaling|sweep|strategies [selection]
                           [--baseline B[:D]:V] [--y gflops|time] --out FILE.png|.svg|.pdf
    gpubench report study cg-thesis|cg-multi-gpu|fused-cg|nas|lu|gemm [--data DIR] [--out DIR] [--run]
    gpubench report portability RECORDS.json ... [selection] [--platforms P,..] [--figure FILE.png]
                                [--efficiency arch|app] [--format markdown|latex|csv] [--out FILE]
    gpubench report models RECORDS.json ... [selection] [--apis cuda,opencl,omp_target] [--figure FILE.png]
                           [--format markdown|latex|csv] [--out FILE]

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
import sys

from .errors import ReportError, UsageError, failed
from .files import dpi, inches, write_atomic
from .figures import figure
from .models import models
from .portability import portability
from .records import everything, select
from .studies import study
from .tables import (KERNEL_VALUES, kernels_table, lu_study_table, pairs_table, points_table, scaling_table, strategies_table, sweep_grid_table, sweep_table)


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
                        "GFLOP/s per swept configuration; lu-study: the LU study's table; strategies: %% of the "
                        "optimum each search strategy reaches (gpubench sweep --replay ... --format json)")
    t.add_argument("--kernel", help="sweep-grid: only these kernels; strategies: only caches whose kernel names one")
    t.add_argument("--format", choices=("markdown", "latex", "csv"), default="markdown",
                   help="markdown (default), latex (a booktabs tabular) or csv")
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
    f.add_argument("--width", type=inches, default=8.0)
    f.add_argument("--height", type=inches, help="in inches (default 5; figures of many bars grow to give each its line)")
    f.add_argument("--dpi", type=dpi, default=100)
    f.add_argument("--caption", help="a caption under the figure, wrapped to its width")
    pp = sub.add_parser("portability", help="performance portability (Pennycook, Sewall and Lee) of each variant "
                                             "per API over the records' platforms, and cascade plots",
                        description="performance portability of each suite variant per API over the platforms "
                                    "(devices) of the records: the harmonic mean of its efficiencies, architectural "
                                    "(%% of the measured roofline) and application (against the best measured on "
                                    "that platform), 0 where it does not run on one")
    pp.add_argument("records", nargs="+", help="gpubench record files, from several devices")
    for field in ("suite", "problem", "backend", "variant", "precision"):
        pp.add_argument("--" + field, help=f"only these {field}s (a comma list)")
    pp.add_argument("--platforms", help="the platforms (device names as the records give them, a comma list; "
                                        "default: every one the selection ran on)")
    pp.add_argument("--figure", help="a cascade plot per suite: FILE.png (FILE-SUITE.png for several suites)")
    pp.add_argument("--efficiency", choices=("arch", "app"), default="app", help="what the cascade plots (default app)")
    pp.add_argument("--format", choices=("markdown", "latex", "csv"), default="markdown",
                    help="markdown (default), latex or csv")
    pp.add_argument("--out", help="the table's file (stdout without it)")
    pp.add_argument("--width", type=inches, default=8.0)
    pp.add_argument("--height", type=inches, help="in inches (default 5)")
    pp.add_argument("--dpi", type=dpi, default=100)
    mo = sub.add_parser("models", help="the programming models (APIs) side by side on one device, per suite: "
                                        "each variant's time and %% of the roofline, each API's best own variant",
                        description="the APIs (backends) that ran the same suite, problem and precision on one "
                                    "device, side by side: time, %% of the measured roofline, and how far from the "
                                    "fastest API; each API's best variant other than its vendor library's; a figure")
    mo.add_argument("records", nargs="+", help="gpubench record files")
    for field in ("suite", "problem", "backend", "variant", "precision"):
        mo.add_argument("--" + field, help=f"only these {field}s (a comma list)")
    mo.add_argument("--apis", help="the APIs compared, in this order (default: every backend of the records)")
    mo.add_argument("--figure", help="a figure of each API's best own variant per suite: FILE.png, .svg or .pdf")
    mo.add_argument("--format", choices=("markdown", "latex", "csv"), default="markdown",
                    help="markdown (default), latex or csv")
    mo.add_argument("--out", help="the table's file (stdout without it)")
    mo.add_argument("--width", type=inches, default=11.0)
    mo.add_argument("--height", type=inches, help="in inches (default 4.5)")
    mo.add_argument("--dpi", type=dpi, default=100)
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
                raise UsageError("a figure needs --out FILE.png, .svg or .pdf")
            figure(args)
            return 0
        points = []
        if args.command == "portability":
            table = portability(args)
        elif args.command == "models":
            table = models(args)
        elif args.kind == "sweep":
            table = sweep_table(args)
        elif args.kind == "strategies":
            table = strategies_table(args)
        elif args.kind == "sweep-grid":
            table = sweep_grid_table(args)
        else:
            points = select(everything(args), args)
            table = {"points": points_table, "kernels": kernels_table, "pairs": pairs_table,
                     "scaling": scaling_table, "lu-study": lu_study_table}[args.kind](points, args)
        shown = {p.label for p in points}  # the points tables of points showed (sweeps and portability: none)
        table.notes += [r for r in getattr(args, "replaced", []) if r.split(": from ")[0] in shown]
        text = table.write(args.format)
        if args.out:
            write_atomic(args.out, text)
        else:
            sys.stdout.write(text)
        return 0
    except ReportError as e:
        print(f"gpubench report: {e}", file=sys.stderr)
        return e.code
    except (OSError, KeyboardInterrupt) as e:
        return failed("gpubench report", e)

