#!/usr/bin/python3
"""A hostile round over gpubench's surfaces (issue 55): generated cases of mutated kernel specs, sweep
caches, records, histories and options; /dev/zero, directories and named pipes where files are read;
a full disk (a small tmpfs, where this machine lets one be mounted) and file-size limits (ulimit -f)
where files are written; SIGINT, SIGTERM and SIGHUP during a run.

Each case is run and checked for the faults a user must never meet:
  - death by a signal, or a hang (no exit within the case's time limit);
  - a Python traceback, or gpubench's "internal error";
  - an exit code outside the README's table (gpubench: 0-4 and 128 + SIGHUP/SIGINT/SIGTERM;
    report and track: 0-3, 5 and 130);
  - an earlier file changed or truncated by a write that failed;
  - a finished point lost to a signal (the --out records must hold it, and say why the run ended).

    hostile_round.py [--seed N] [--keep DIR]     (GPUBENCH_BINARY names the gpubench to try)

Prints one line per fault and the count of cases; exits 1 when any case found one. The mutations are
drawn from a seeded generator: the same seed, the same round."""
import argparse
import copy
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
GPUBENCH = os.environ.get("GPUBENCH_BINARY") or os.path.join(SOURCE, "build", "release", "bin", "gpubench")
EP = os.path.join(SOURCE, "reports", "data", "h100-2026-11-23-ep-A-all-backends.json")
LU = os.path.join(SOURCE, "reports", "data", "h100-2026-11-25-lu-cuda-4096.json")

CPP_EXITS = {0, 1, 2, 3, 4, 128 + signal.SIGHUP, 128 + signal.SIGINT, 128 + signal.SIGTERM}
PY_EXITS = {0, 1, 2, 3, 5, 130}

HOSTILE_VALUES = [None, True, -1, 0, 1, 2 ** 31, 2 ** 63, -2 ** 63, 1e308, -1e308, 0.5, "", "x", "-n", "0/0", "n/0",
                  "n*n*n*n*n*n*n", "1" * 400, "\u00e9\u4e2d", "/dev/zero", "..", [], [1, 2], {}, {"a": 1},
                  [[[[[[[[]]]]]]]], "a" * 5000]

SCALE_CL = """__kernel void scale(__global real* out, __global const real* in, int n) {
  const int i = get_global_id(0);
  if (i < n) out[i] = (real)2 * in[i];
}
"""

SCALE_SPEC = {
    "schema": "gpubench-kernel-spec", "version": 1, "name": "scale",
    "sources": {"opencl": "scale.cl"},
    "sizes": {"n": 1024},
    "buffers": {"out": {"type": "real", "length": "n", "output": True},
                "in": {"type": "real", "length": "n", "init": {"ramp": [0, 1]}}},
    "tunables": {"group": [32, 64]},
    "constraints": ["n % group == 0"],
    "steps": [{"kernel": "scale", "args": ["out", "in", {"int": "n"}], "global": ["n"], "local": ["group"]}],
    "work": {"flops": "n", "bytes": "2 * n * real_bytes"},
    "verify": {"reference": {"steps": [{"kernel": "scale", "args": ["out", "in", {"int": "n"}],
                                        "global": ["n"], "local": ["32"]}]},
               "tolerance": {"abs": 0, "rel": 0}},
}


class Round:
    def __init__(self, work, seed):
        self.work = work
        self.rng = random.Random(seed)
        self.cases = 0
        self.faults = []
        self.by_surface = {}
        self.env = dict(os.environ, GPUBENCH_TUNING_DB=os.path.join(work, "tuning-db"), OMP_WAIT_POLICY="passive",
                        GPUBENCH_KERNEL_CACHE=os.path.join(work, "kernel-cache"))
        self.env.pop("GPUBENCH_FAULT", None)

    # ---- running and judging one case ----

    def run(self, surface, what, args, python=False, timeout=60, preexec=None, stdin=None, cwd=None, env=None):
        """Runs gpubench ARGS; records a fault for a signal, a hang, a traceback, an internal error or an
        exit outside the table. Returns the CompletedProcess (None on a hang)."""
        self.cases += 1
        self.by_surface[surface] = self.by_surface.get(surface, 0) + 1
        try:
            r = subprocess.run([GPUBENCH] + args, capture_output=True, text=True, errors="replace", timeout=timeout,
                               preexec_fn=preexec, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                               cwd=cwd or self.work, env=env or self.env)
        except subprocess.TimeoutExpired:
            self.fault(surface, what, args, f"no exit within {timeout} s (a hang)")
            return None
        out = r.stdout + r.stderr
        if r.returncode < 0:
            self.fault(surface, what, args, f"killed by signal {-r.returncode}", out)
        elif "Traceback (most recent call last)" in out:
            self.fault(surface, what, args, "a Python traceback", out)
        elif "internal error" in out:
            self.fault(surface, what, args, "an internal error", out)
        elif r.returncode not in (PY_EXITS if python else CPP_EXITS):
            self.fault(surface, what, args, f"exit {r.returncode}, outside the README's table", out)
        return r

    def fault(self, surface, what, args, why, out=""):
        tail = " | ".join(out.strip().splitlines()[-3:])[:400]
        self.faults.append(f"{surface}: {what}: {why}: gpubench {' '.join(a[:80] for a in args)}\n    {tail}")

    def expect_unchanged(self, surface, what, path, before):
        with open(path, "rb") as f:
            if f.read() != before:
                self.faults.append(f"{surface}: {what}: the earlier file {path} was changed or truncated")

    def file(self, name, data):
        path = os.path.join(self.work, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    # ---- the surfaces ----

    def spec_folder(self):
        folder = os.path.join(self.work, "spec")
        os.makedirs(os.path.join(folder, "a-directory"), exist_ok=True)
        with open(os.path.join(folder, "scale.cl"), "w") as f:
            f.write(SCALE_CL)
        return folder

    def specs(self):
        """Every field of a small spec replaced by hostile values, and then some removed or doubled."""
        folder = self.spec_folder()
        paths = []

        def walk(node, path):
            paths.append(path)
            if isinstance(node, dict):
                for k, v in node.items():
                    walk(v, path + [k])
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, path + [i])
        walk(SCALE_SPEC, [])
        paths = [p for p in paths if p]

        def mutate(spec, path, value):
            node = spec
            for k in path[:-1]:
                node = node[k]
            if value is KeyError:
                del node[path[-1]]
            else:
                node[path[-1]] = value

        n = 0
        for path in paths:
            for value in self.rng.sample(HOSTILE_VALUES, 1) + [KeyError]:
                spec = copy.deepcopy(SCALE_SPEC)
                mutate(spec, path, value)
                p = os.path.join(folder, "mutated.json")
                with open(p, "w") as f:
                    json.dump(spec, f)
                # A launch the spec makes huge (2^31 work-items of its reference on PoCL) may take
                # minutes on a loaded 2-core machine: legal, and gpubench's own watchdog is what
                # must end it, as a FAILED point (the default --point-timeout, 600 s, outlasts
                # the round's 120 s).
                self.run("spec", f"{'.'.join(map(str, path))} = {json.dumps(value) if value is not KeyError else 'removed'}",
                         ["run", "--spec", p, "--backend", "opencl", "--precision", "f32", "--repetitions", "1",
                          "--point-timeout", "30"], timeout=120)
                n += 1
        text = json.dumps(SCALE_SPEC)
        raw = [text[: len(text) // 2], text.replace('"n": 1024', '"n": 1' + "0" * 400), "{" + '"name": "x", ' + text[1:],
               text.replace("scale.cl", "a-directory"), text.replace("scale.cl", "/dev/zero"), "\x00" * 64, "",
               "[" * 100000 + "]" * 100000, text.replace('"ramp": [0, 1]', '"file": "/dev/zero"')]
        for i, t in enumerate(raw):
            p = os.path.join(folder, f"raw{i}.json")
            with open(p, "w") as f:
                f.write(t)
            self.run("spec", f"raw text {i}", ["run", "--spec", p, "--backend", "opencl", "--precision", "f32",
                                                "--repetitions", "1", "--point-timeout", "30"], timeout=120)
        for special in ("/dev/zero", folder, "/nonexistent/spec.json"):
            self.run("spec", f"--spec {special}", ["run", "--spec", special, "--backend", "opencl"])

    def caches(self):
        """A real cache (a sweep of the spec) cut, flipped and given hostile values, then replayed and resumed."""
        folder = self.spec_folder()
        spec = os.path.join(folder, "good.json")
        good = copy.deepcopy(SCALE_SPEC)
        good["tunables"] = {"group": [16, 32, 64, 128]}
        with open(spec, "w") as f:
            json.dump(good, f)
        cache = os.path.join(self.work, "good.jsonl")
        r = self.run("cache", "the sweep that makes the cache", ["sweep", "--spec", spec, "--backend", "opencl",
                                                                 "--precision", "f32", "--exhaustive", "--cache", cache],
                     timeout=300)
        if r is None or r.returncode != 0 or not os.path.exists(cache):
            self.faults.append("cache: the sweep that makes the cache failed: " + ((r.stderr if r else "")[-300:]))
            return
        with open(cache, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        mutants = []
        for _ in range(12):  # cut anywhere
            mutants.append(("cut at a byte", data[: self.rng.randrange(len(data))]))
        for _ in range(12):  # a byte changed
            b = bytearray(data)
            b[self.rng.randrange(len(b))] = self.rng.choice(b'{}[]",:0\x00\xff9-.e')
            mutants.append(("a byte changed", bytes(b)))
        numbers = [b"4294967312", b"16.7", b"-16", b"1e999", b"NaN", b"\"16\"", b"null", b"[]", b"99999999999999999999"]
        for _ in range(12):  # a number replaced
            line = self.rng.randrange(len(lines))
            text = lines[line]
            digits = [i for i, c in enumerate(text) if chr(c).isdigit()]
            if not digits:
                continue
            at = self.rng.choice(digits)
            end = at
            while end < len(text) and (chr(text[end]).isdigit() or text[end] in b".e-"):
                end += 1
            new = text[:at] + self.rng.choice(numbers) + text[end:]
            mutants.append(("a number replaced", b"\n".join(lines[:line] + [new] + lines[line + 1:])))
        mutants.append(("a line doubled", b"\n".join(lines[:2] + lines[1:])))
        mutants.append(("the kernel line doubled", b"\n".join(lines[:1] + lines)))
        mutants.append(("lines reversed", b"\n".join(reversed(lines))))
        mutants.append(("binary", bytes(range(256)) * 8))
        mutants.append(("text", b"#!/bin/sh\necho hello\n"))
        for i, (what, content) in enumerate(mutants):
            path = self.file(f"mutant{i}.jsonl", content)
            self.run("cache", f"replay: {what}", ["sweep", "--replay", path])
            before = open(path, "rb").read()
            r = self.run("cache", f"resume: {what}", ["sweep", "--spec", spec, "--backend", "opencl", "--precision",
                                                      "f32", "--exhaustive", "--cache", path, "--tuning", "off"],
                         timeout=300)
            # A cache refused is left as it was; one taken may only grow by whole lines (a cut line removed).
            after = open(path, "rb").read()
            if r is not None and r.returncode == 3 and after != before:
                self.faults.append(f"cache: resume: {what}: refused, but {path} was changed")
            if r is not None and r.returncode == 0 and after and not after.endswith(b"\n"):
                self.faults.append(f"cache: resume: {what}: {path} left with a cut last line")
        for special in ("/dev/zero", self.work):
            self.run("cache", f"--replay {special}", ["sweep", "--replay", special])
            self.run("cache", f"--cache {special}", ["sweep", "--spec", spec, "--backend", "opencl", "--cache", special])

    def records(self):
        """Records files with hostile values in their fields, for report table and track import."""
        with open(EP) as f:
            base = json.load(f)
        history = os.path.join(self.work, "records-history.sqlite")
        r = self.run("records", "a good import", ["track", "import", "--history", history, LU], python=True)
        digest = hashlib.sha256(open(history, "rb").read()).hexdigest() if os.path.exists(history) else ""
        fields = ["real_time", "cpu_time", "time_unit", "name", "suite", "problem", "backend", "device_index",
                  "variant", "precision", "repetitions", "error_occurred", "verified", "gflops", "run_type"]
        for i in range(45):
            records = copy.deepcopy(base)
            where = self.rng.choice(["entry", "entry", "entry", "context", "top"])
            value = self.rng.choice(HOSTILE_VALUES + [float("nan"), float("inf"), -0.0, 0])
            if where == "entry":
                field = self.rng.choice(fields)
                records["benchmarks"][self.rng.randrange(len(records["benchmarks"]))][field] = value
                what = f"benchmarks[].{field} = {json.dumps(value)[:40]}"
            elif where == "context":
                field = self.rng.choice(["date", "gpubench_commit", "devices", "host_name", "test_hooks"])
                records["context"][field] = value
                what = f"context.{field} = {json.dumps(value)[:40]}"
            else:
                field = self.rng.choice(["benchmarks", "context", "failed_benchmarks"])
                records[field] = value
                what = f"{field} = {json.dumps(value)[:40]}"
            path = self.file(f"records{i}.json", json.dumps(records))
            self.run("records", f"report table: {what}", ["report", "table", path], python=True)
            r = self.run("records", f"track import: {what}", ["track", "import", "--history", history, path],
                         python=True)
            if r is not None and r.returncode != 0 and digest and \
                    hashlib.sha256(open(history, "rb").read()).hexdigest() != digest:
                self.faults.append(f"records: track import: {what}: refused, but the history changed")
            if r is not None and r.returncode == 0:
                digest = hashlib.sha256(open(history, "rb").read()).hexdigest()
        text = json.dumps(base)
        for i, cut in enumerate([0, 1, len(text) // 3, len(text) - 1]):
            path = self.file(f"cut{i}.json", text[:cut])
            self.run("records", f"cut at {cut}", ["report", "table", path], python=True)
            self.run("records", f"import cut at {cut}", ["track", "import", "--history", history, path], python=True)
        for special in ("/dev/zero", self.work, "/nonexistent.json"):
            self.run("records", f"report table {special}", ["report", "table", special], python=True)
            self.run("records", f"track import {special}", ["track", "import", "--history", history, special],
                     python=True)
        self.check_checks(history, "records")

    def check_checks(self, history, surface):
        for args in (["check", "--no-remeasure"], ["show"], ["runs"], ["publish", "--out", os.path.join(self.work, "site")],
                     ["export-reframe", "--out", os.path.join(self.work, "refs")]):
            self.run(surface, f"track {args[0]} over the history", ["track"] + args + ["--history", history],
                     python=True, timeout=120)

    def histories(self):
        """A history with its bytes cut or changed, and tables dropped."""
        history = os.path.join(self.work, "h.sqlite")
        self.run("history", "the import that makes it", ["track", "import", "--history", history, EP, LU], python=True)
        with open(history, "rb") as f:
            data = f.read()
        for i in range(12):
            broken = bytearray(data)
            if i < 4:
                broken = broken[: self.rng.randrange(len(broken))]
            else:
                for _ in range(8):
                    broken[self.rng.randrange(len(broken))] = self.rng.randrange(256)
            path = self.file(f"broken{i}.sqlite", bytes(broken))
            for args in (["check", "--no-remeasure"], ["show"], ["import", EP]):
                self.run("history", f"{args[0]} of a damaged history {i}", ["track"] + args + ["--history", path],
                         python=True)
        for table in ("runs", "medians", "alerts", "benchmarks"):
            path = os.path.join(self.work, f"no-{table}.sqlite")
            shutil.copy(history, path)
            db = sqlite3.connect(path)
            db.execute(f"DROP TABLE {table}")
            db.commit()
            db.close()
            self.run("history", f"a history without {table}", ["track", "check", "--no-remeasure", "--history", path],
                     python=True)
        zero = os.path.join(self.work, "zero.sqlite")
        shutil.copy(history, zero)
        db = sqlite3.connect(zero)
        db.execute("UPDATE medians SET median = 0")
        db.commit()
        db.close()
        self.check_checks(zero, "history")
        for special in ("/dev/zero", self.work):
            self.run("history", f"--history {special}", ["track", "show", "--history", special], python=True)

    def options(self):
        """Options given values nobody means."""
        values = ["", "-1", "0", "1e100", "nan", "inf", "abc", "9" * 40, "1,1", " ", "--x", "0x10", "3.5"]
        run_options = ["--repetitions", "--warmup", "--min-time", "--device", "--point-timeout", "--iterations",
                       "--tolerance", "--problem", "--precision", "--variant", "--format", "--baseline", "--filter",
                       "--busy-timeout", "--isolate", "--tuning"]
        for option in run_options:
            for value in self.rng.sample(values, 3):
                self.run("options", f"run {option} {value!r}", ["run", "--suite", "cg", "--backend", "openmp",
                                                               "--problem", "poisson2d:8", "--repetitions", "1",
                                                               option, value] if option not in ("--problem", "--repetitions")
                         else ["run", "--suite", "cg", "--backend", "openmp", option, value], timeout=120)
        for option in ["--max-evals", "--time-limit", "--time-budget", "--seed", "--param", "--strategy", "--objective",
                       "--seeds"]:
            for value in self.rng.sample(values, 2):
                self.run("options", f"sweep {option} {value!r}", ["sweep", "--suite", "ep", "--backend", "openmp",
                                                                 "--problem", "S", "--max-evals", "2", "--tuning", "off",
                                                                 option, value], timeout=120)
        for option in ["--alpha", "--min-effect", "--recent", "--busy-timeout"]:
            for value in ["-1", "5", "nan", "abc", "0"]:
                self.run("options", f"track check {option} {value}", ["track", "check", "--no-remeasure", "--history",
                                                                      os.path.join(self.work, "h.sqlite"), option, value],
                         python=True)
        for option in ["--width", "--height", "--dpi"]:
            for value in ["-5", "0", "nan", "100000", "abc"]:
                self.run("options", f"report figure {option} {value}", ["report", "figure", EP, "--kind", "speedup",
                                                                        "--baseline", "openmp:serial", "--out",
                                                                        os.path.join(self.work, "f.png"), option, value],
                         python=True)
        for system in ["a b:c", "", "x/y"]:
            self.run("options", f"export-reframe --system {system!r}", ["track", "export-reframe", "--history",
                                                                        os.path.join(self.work, "h.sqlite"), "--out",
                                                                        os.path.join(self.work, "rf"), "--system", system],
                     python=True)

    def special_files(self):
        """Files that never end, directories and devices where gpubench reads a file."""
        for special in ("/dev/zero", self.work, "/dev/null"):
            self.run("files", f"cg mtx:{special}", ["run", "--suite", "cg", "--backend", "openmp", "--problem",
                                                    f"mtx:{special}", "--repetitions", "1"])
            self.run("files", f"lu mtx:{special}", ["run", "--suite", "lu", "--backend", "openmp", "--problem",
                                                    f"mtx:{special}", "--repetitions", "1"])
            self.run("files", f"track run --set {special}", ["track", "run", "--set", special, "--history",
                                                              os.path.join(self.work, "set.sqlite")], python=True)
            self.run("files", f"tuning db {special}", ["tuning", "show", "--tuning-db", special])

    def writes(self):
        """Writes that a full disk or a file-size limit cuts short leave the earlier file, and report it."""
        out = os.path.join(self.work, "earlier.json")
        r = self.run("writes", "a good run", ["run", "--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:8",
                                              "--repetitions", "2", "--format", "json", "--out", out])
        if r is None or r.returncode != 0:
            return
        before = open(out, "rb").read()

        def limit(size):
            def apply():
                import resource
                resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
            return apply
        for size in (0, 512, 4096):
            r = self.run("writes", f"run --out under ulimit -f {size} B", ["run", "--suite", "cg", "--backend", "openmp",
                                                                          "--problem", "poisson2d:16", "--repetitions",
                                                                          "3", "--format", "json", "--out", out],
                         preexec=limit(size))
            self.expect_unchanged("writes", f"ulimit -f {size}", out, before)
            if r is not None and r.returncode == 0:
                self.faults.append(f"writes: ulimit -f {size}: the run said it wrote {out}")
            elif r is not None and '"benchmarks"' not in r.stdout:
                self.faults.append(f"writes: ulimit -f {size}: the records were not kept on stdout")
            table = os.path.join(self.work, "t.md")
            self.run("writes", "report table", ["report", "table", EP, LU, "--out", table], python=True)
            earlier = open(table, "rb").read()
            self.run("writes", f"report table under ulimit -f {size}", ["report", "table", EP, LU, "--format", "latex",
                                                                        "--out", table], python=True,
                     preexec=limit(size))
            if size < len(earlier):
                self.expect_unchanged("writes", f"report table under ulimit -f {size}", table, earlier)
        disk = os.path.join(self.work, "small-disk")
        os.makedirs(disk, exist_ok=True)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], capture_output=True).returncode:
            print("hostile_round: no tmpfs can be mounted here: the full-disk cases are left out", file=sys.stderr)
            return
        try:
            target = os.path.join(disk, "run.json")
            shutil.copy(out, target)
            try:
                with open(os.path.join(disk, "filler"), "wb") as f:
                    while True:
                        f.write(b"x" * 4096)
                        f.flush()
            except OSError:
                pass
            for args, python in ((["run", "--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:16",
                                   "--repetitions", "3", "--format", "json", "--out", target], False),
                                 (["report", "table", EP, LU, "--format", "latex", "--out", target], True),
                                 (["track", "publish", "--history", os.path.join(self.work, "h.sqlite"), "--out",
                                   os.path.join(disk, "site")], True),
                                 (["track", "import", "--history", os.path.join(disk, "h.sqlite"), EP], True)):
                self.run("writes", f"{args[0]} {args[1]} on a full disk", args, python=python)
                self.expect_unchanged("writes", f"{args[0]} on a full disk", target, before)
        finally:
            subprocess.run(["umount", disk])

    def signals(self):
        """SIGINT, SIGTERM and SIGHUP after the first point finished: the finished points are written."""
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            for isolate in ("on", "off"):
                out = os.path.join(self.work, f"signal-{sig}-{isolate}.json")
                args = ["run", "--suite", "cg", "--backend", "openmp", "--problem", "poisson2d:256", "--variant", "all",
                        "--precision", "all", "--repetitions", "60", "--isolate", isolate, "--format", "json",
                        "--out", out]
                self.cases += 1
                self.by_surface["signals"] = self.by_surface.get("signals", 0) + 1
                log = os.path.join(self.work, f"signal-{sig}-{isolate}.log")
                with open(log, "w") as err_file:
                    p = subprocess.Popen([GPUBENCH] + args, stdout=subprocess.DEVNULL, stderr=err_file, env=self.env,
                                         cwd=self.work, start_new_session=True)
                deadline = time.time() + 120
                try:
                    # Wait for the first point to end (the second one starting, on stderr), then signal.
                    while time.time() < deadline and p.poll() is None:
                        with open(log, errors="replace") as f:
                            if "[2/" in f.read():
                                break
                        time.sleep(0.05)
                    p.send_signal(sig)
                    p.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                    self.fault("signals", f"{signal.Signals(sig).name} --isolate {isolate}", args, "no exit within 120 s")
                    continue
                with open(log, errors="replace") as f:
                    err = f.read()
                what = f"{signal.Signals(sig).name} --isolate {isolate}"
                if p.returncode != 128 + sig:
                    self.fault("signals", what, args, f"exit {p.returncode}, not {128 + sig}", err)
                    continue
                try:
                    with open(out) as f:
                        records = json.load(f)
                except (OSError, ValueError) as e:
                    self.fault("signals", what, args, f"the finished points were lost ({e})", err)
                    continue
                if not records.get("benchmarks") or "ended_early" not in records.get("context", {}):
                    self.fault("signals", what, args, "the records hold no finished point or do not say why they ended",
                               err)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=55)
    parser.add_argument("--keep", help="work in this folder and keep it")
    parser.add_argument("--only", help="only these surfaces (a comma list: specs, caches, records, histories, options, "
                                       "special_files, writes, signals)")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="gpubench-hostile-")
    os.makedirs(work, exist_ok=True)
    r = Round(work, args.seed)
    start = time.time()
    try:
        for surface in (r.specs, r.caches, r.records, r.histories, r.options, r.special_files, r.writes, r.signals):
            if args.only and surface.__name__ not in args.only.split(","):
                continue
            before, faults = r.cases, len(r.faults)
            surface()
            print(f"hostile_round: {surface.__name__}: {r.cases - before} cases, {len(r.faults) - faults} faults "
                  f"({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
    except Exception as e:  # the round's own failure is a fault of the round, said with the rest
        r.faults.append(f"the round itself failed: {type(e).__name__}: {e}")
    finally:
        if not args.keep:
            subprocess.run(["umount", os.path.join(work, "small-disk")], capture_output=True)
            shutil.rmtree(work, ignore_errors=True)
    for f in r.faults:
        print("FAULT " + f)
    surfaces = ", ".join(f"{k} {v}" for k, v in r.by_surface.items())
    print(f"hostile_round: {r.cases} cases ({surfaces}) in {time.time() - start:.0f} s: {len(r.faults)} faults")
    return 1 if r.faults else 0


if __name__ == "__main__":
    sys.exit(main())
