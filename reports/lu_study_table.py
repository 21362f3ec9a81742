#!/usr/bin/env python3
"""The LU study's table from gpubench records: the time of the naive and optimised forms per
order, one column group per device, and the relative gain (T_naive - T_optimised) / T_naive.

    python3 reports/lu_study_table.py RECORDS.json [MORE.json ...] [--format markdown|csv]

Times are the median of a point's repetitions, in seconds. A point stopped by --study-limit is
marked with the steps it did and its pace's estimate for the whole decomposition, never dropped;
a point that failed otherwise is marked FAILED with its reason. Only the Python standard library.
"""
import argparse
import json
import re
import statistics
import sys

OVER = re.compile(r"over the time limit: .* had done (\d+) of (\d+) steps after ([0-9.e+-]+) s .*"
                  r"takes about ([0-9.e+-]+) s")


def load(paths):
    """{(column, order, variant): cell}, the columns in the order first seen, and the problem forms."""
    cells, columns, problems = {}, [], set()
    for path in paths:
        try:
            with open(path) as f:
                records = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"lu_study_table: {path}: {e}")
        if not isinstance(records, dict) or "benchmarks" not in records:
            sys.exit(f"lu_study_table: {path}: not a gpubench records file (no 'benchmarks')")
        runs = {}
        for b in records.get("benchmarks", []) + records.get("failed_benchmarks", []):
            name = b.get("run_name", b.get("name", ""))
            parts = name.split("/")
            if len(parts) != 5 or parts[0] != "lu" or parts[3] not in ("naive", "optimised"):
                continue
            if b.get("run_type") == "aggregate":
                continue
            order = int(parts[1].split(":")[0])
            problems.add("N:" + parts[1].split(":", 1)[1] if ":" in parts[1] else "N (random)")
            column = f"{b.get('device', '?')} ({parts[2]}, {parts[4]})"
            runs.setdefault((column, order, parts[3]), []).append(b)
        for key, entries in runs.items():
            if key[0] not in columns:
                columns.append(key[0])
            failed = [e for e in entries if e.get("error_occurred")]
            if failed:
                cells[key] = {"failed": failed[0].get("error_message", "failed")}
            else:
                cells[key] = {"seconds": statistics.median(e["real_time"] * unit(e) for e in entries),
                              "repetitions": len(entries)}
    return cells, columns, problems


def unit(entry):
    return {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry.get("time_unit", "ns")]


def show(cell, fmt):
    if cell is None:
        return "-"
    if "seconds" in cell:
        return f"{cell['seconds']:.4f}"
    m = OVER.match(cell["failed"])
    if m:
        done, n, after, about = m.groups()
        if fmt == "csv":
            return f"> {float(after):.3g} (limit; {done}/{n} steps; about {float(about):.3g})"
        return f"> {float(after):.3g} s (time limit: {done} of {n} steps; about {float(about):.3g} s at that pace)"
    return "FAILED: " + cell["failed"]


def gain(naive, optimised):
    if not naive or not optimised or "seconds" not in optimised:
        return "-"
    if "seconds" in naive and naive["seconds"] > 0:
        return f"{100 * (naive['seconds'] - optimised['seconds']) / naive['seconds']:.2f} %"
    m = OVER.match(naive.get("failed", ""))
    if m and float(m.group(3)) > optimised["seconds"]:  # T_naive > the limit: a lower bound
        after = float(m.group(3))
        return f"> {100 * (after - optimised['seconds']) / after:.2f} %"
    return "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+")
    parser.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    args = parser.parse_args()
    cells, columns, problems = load(args.records)
    if not columns:
        sys.exit("lu_study_table: no naive or optimised LU points in " + ", ".join(args.records))
    orders = sorted({order for (_, order, _) in cells})
    header = ["Order"]
    for c in columns:
        header += [f"{c} naive (s)", f"{c} optimised (s)", f"{c} gain"]
    rows = []
    for order in orders:
        row = [str(order)]
        for c in columns:
            naive, optimised = cells.get((c, order, "naive")), cells.get((c, order, "optimised"))
            row += [show(naive, args.format), show(optimised, args.format), gain(naive, optimised)]
        rows.append(row)
    if args.format == "csv":
        import csv
        writer = csv.writer(sys.stdout)
        writer.writerow(header)
        writer.writerows(rows)
        return
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("Times: median of each point's repetitions, in seconds, the whole decomposition with its buffers and "
          "transfers (gpubench's LU naive and optimised); gain = (T_naive - T_optimised) / T_naive. Problems: "
          + ", ".join(sorted(problems)) + ".")


if __name__ == "__main__":
    main()
