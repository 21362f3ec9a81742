#!/usr/bin/python3
"""Benchmarks of gpubench track's regression check (issue 17's targets).

    track_bench.py noise HISTORY [--out FILE]
        each benchmark's measured noise from a history of repeated runs: the night-to-night
        spread of its run medians and the spread of the repetitions within a run
    track_bench.py detect NOISE.json [--trials N] [--nights 60] [--steps 2,3,5,10] [--out FILE]
        simulated histories with that noise: how often a step on the newest night is reported
        (with the re-measure, as track check does it) and how often a night without one is
    track_bench.py perf [--nights 1000] [--benchmarks 200] [--repetitions 10]
        the wall time of track check and track publish on a history of that size

The simulated nights: each night's level is the benchmark's median times exp(sigma_night * t),
t from Student's t with 5 degrees of freedom scaled to unit variance (heavier tails than the
few measured runs can show); each repetition adds a residual drawn from the measured ones. A
suspected change is re-measured as a fresh night at the same level.
"""
import argparse
import json
import math
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
from gpubench_reports import detection, history as histories, statistics as stats  # noqa: E402  (the package beside this program)


def noise(args):
    db = histories.open_history(args.history, create=False)
    model = {}
    for bench, name, runs in histories.load_history(db, args.match)[0]:
        if len(runs) < 3:
            continue
        logs = [math.log(r[3]) for r in runs]
        of_run = {}  # one query per benchmark; the residuals in the runs' (date) order
        for run, seconds in db.execute("SELECT run_id, seconds FROM samples WHERE benchmark_id = ?", (bench,)):
            of_run.setdefault(run, []).append(seconds)
        residuals = [math.log(s / r[3]) for r in runs for s in of_run.get(r[0], [])]
        centre = statistics.median(logs)
        # sigma from the median absolute deviation: a run made by different code (a real change
        # among the repeated runs) moves it little, where it would dominate the standard deviation
        model[name] = {"median_s": statistics.median(r[3] for r in runs), "runs": len(runs),
                       "night_sigma": 1.4826 * statistics.median(abs(x - centre) for x in logs),
                       "night_stdev": statistics.stdev(logs), "repetitions": runs[-1][6],
                       "within_sigma": 1.4826 * statistics.median(abs(x) for x in residuals),
                       "residuals": [round(x, 6) for x in residuals]}
    text = json.dumps(model, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    lines = ["| benchmark | runs | median (ms) | run-to-run sigma (MAD) | (standard deviation) | within a run (sigma) |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, m in sorted(model.items(), key=lambda x: x[1]["night_sigma"]):
        lines.append(f"| {name} | {m['runs']} | {m['median_s'] * 1e3:.4g} | {m['night_sigma'] * 100:.2f}% | "
                     f"{m['night_stdev'] * 100:.2f}% | {m['within_sigma'] * 100:.2f}% |")
    print("\n".join(lines))
    return 0


def t5(rng):
    """Student's t, 5 degrees of freedom, unit variance."""
    z = rng.gauss(0, 1)
    chi = sum(rng.gauss(0, 1) ** 2 for _ in range(5))
    return z / math.sqrt(chi / 5) / math.sqrt(5 / 3)


class Simulated:
    def __init__(self, m, rng):
        self.m, self.rng, self.runs, self.reps = m, rng, [], {}

    def night(self, level, commit):
        i = len(self.runs)
        centre = self.m["median_s"] * level * math.exp(self.m["night_sigma"] * t5(self.rng))
        reps = sorted(centre * math.exp(self.rng.choice(self.m["residuals"])) for _ in range(self.m["repetitions"]))
        self.reps[i] = reps
        self.runs.append((i, f"2026-01-01T00:00:{i:04}", commit, statistics.median(reps),
                          stats.quantile(reps, 0.25), stats.quantile(reps, 0.75), len(reps)))

    def verdict(self, options):
        a = detection.Assessment(0, "sim", list(self.runs))
        return detection.assess(a, options, lambda ids: [s for i in ids for s in self.reps[i]])


def trial(m, rng, nights, step, options):
    """One simulated history: nights - 1 nights at the level, the newest at (1 + step); the check
    and, for a suspected change, its re-measure. Returns the verdict and the index it names."""
    sim = Simulated(m, rng)
    for k in range(nights - 1):
        sim.night(1.0, "before")
    sim.night(1.0 + step, "step" if step else "before")
    a = sim.verdict(options)
    if a.verdict == "suspected":
        sim.night(1.0 + step, "step" if step else "before")
        a = sim.verdict(options)
        if a.verdict == "suspected":  # the re-measured run did not stand with it
            a.verdict = "same"
    return a.verdict, a.index


def detect(args):
    with open(args.noise) as f:
        model = json.load(f)
    if args.sigmas:  # a grid of night-to-night noise levels, the repetitions' residuals pooled from the file
        pooled = [x for m in model.values() for x in m["residuals"]]
        model = {f"night-to-night sigma {s}%": {"median_s": 1e-3, "night_sigma": float(s) / 100, "repetitions": 10,
                                                  "residuals": pooled} for s in args.sigmas.split(",")}
    steps = [float(s) / 100 for s in args.steps.split(",")]
    options = detection.Options()
    rng = random.Random(args.seed)
    rows, totals = [], {s: [0, 0] for s in steps}
    alarms_total = [0, 0]
    t0 = time.time()
    for name, m in sorted(model.items(), key=lambda x: x[1]["night_sigma"]):
        if not m["residuals"]:
            continue
        found = []
        for s in steps:
            hits = 0
            for _ in range(args.trials):
                verdict, index = trial(m, rng, args.nights, s, options)
                hits += verdict == "regression" and index == args.nights - 1
            found.append(hits / args.trials)
            totals[s][0] += hits
            totals[s][1] += args.trials
        alarms = sum(trial(m, rng, args.nights, 0.0, options)[0] in ("regression", "improvement")
                     for _ in range(args.false_trials))
        alarms_total[0] += alarms
        alarms_total[1] += args.false_trials
        rows.append(f"| {name} | {m['night_sigma'] * 100:.2f}% | " + " | ".join(f"{x * 100:.1f}%" for x in found)
                    + f" | {alarms / args.false_trials * 100:.2f}% |")
    head = ("| benchmark | night-to-night sigma | " + " | ".join(f"{s * 100:g}% step found" for s in steps)
            + " | false alarms per night |")
    lines = [head, "|---|---:|" + "---:|" * len(steps) + "---:|"] + rows
    lines.append("| **all benchmarks** | | " + " | ".join(f"**{totals[s][0] / totals[s][1] * 100:.1f}%**" for s in steps)
                 + f" | **{alarms_total[0] / alarms_total[1] * 100:.2f}%** |")
    text = "\n".join(lines) + "\n"
    text += (f"\n{args.trials} histories of {args.nights} nights per benchmark and step, {args.false_trials} without "
             f"a step; found = reported as a regression beginning on the stepped night, after its re-measure "
             f"({time.time() - t0:.0f} s, seed {args.seed}).\n")
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


def perf(args):
    work = tempfile.mkdtemp(prefix="gpubench-track-perf-")
    try:
        history = os.path.join(work, "history.sqlite")
        db = histories.open_history(history)
        rng = random.Random(1)
        db.execute("BEGIN")
        for b in range(args.benchmarks):
            db.execute("INSERT INTO benchmarks VALUES (?,?,?,?,?,?,?,?,?)",
                       (b + 1, f"cg/poisson2d:{b}/cuda:0/classic/f64 @ H100", "cg", f"poisson2d:{b}", "cuda", 0, "H100",
                        "classic", "f64"))
        for night in range(args.nights):
            db.execute("INSERT INTO runs (id, digest, gpubench_commit, date, machine, devices, source, kind, command)"
                       " VALUES (?,?,?,?,?,?,?,?,?)",
                       (night + 1, f"d{night}", f"c{night:06x}", f"2026-01-01T{night:06}", "lab (16 CPUs)", "[]", "synthetic",
                        "nightly", None))
            for b in range(args.benchmarks):
                level = 1e-3 * (1 + b % 7) * (1.08 if b % 50 == 0 and night >= args.nights - 3 else 1.0)
                centre = level * math.exp(rng.gauss(0, 0.01))
                reps = sorted(centre * math.exp(rng.gauss(0, 0.005)) for _ in range(args.repetitions))
                db.executemany("INSERT INTO samples VALUES (?,?,?,?)", [(night + 1, b + 1, k, s) for k, s in enumerate(reps)])
                db.execute("INSERT INTO medians VALUES (?,?,?,?,?,?)", (night + 1, b + 1, statistics.median(reps),
                           stats.quantile(reps, 0.25), stats.quantile(reps, 0.75), len(reps)))
        db.execute("COMMIT")
        db.close()
        print(f"history: {args.nights} nights x {args.benchmarks} benchmarks x {args.repetitions} repetitions "
              f"({os.path.getsize(history) / 2**20:.0f} MiB)")
        for command in (["check", "--no-remeasure"], ["publish", "--out", os.path.join(work, "site")]):
            t = time.time()
            r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "track.py")] + command + ["--history", history],
                               capture_output=True, text=True)
            print(f"track {command[0]}: {time.time() - t:.2f} s (exit {r.returncode}): {r.stdout.strip().splitlines()[-1]}")
    finally:
        shutil.rmtree(work)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    n = sub.add_parser("noise")
    n.add_argument("history")
    n.add_argument("--match", help="only benchmarks whose name contains this")
    n.add_argument("--out")
    d = sub.add_parser("detect")
    d.add_argument("noise")
    d.add_argument("--trials", type=int, default=200)
    d.add_argument("--false-trials", type=int, default=1000)
    d.add_argument("--nights", type=int, default=60)
    d.add_argument("--steps", default="2,3,5,10")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--sigmas", help="instead of the file's benchmarks: these night-to-night noise levels (%%, a comma list)")
    d.add_argument("--out")
    p = sub.add_parser("perf")
    p.add_argument("--nights", type=int, default=1000)
    p.add_argument("--benchmarks", type=int, default=200)
    p.add_argument("--repetitions", type=int, default=10)
    args = parser.parse_args()
    return {"noise": noise, "detect": detect, "perf": perf}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
