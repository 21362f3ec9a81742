#!/usr/bin/python3
"""Tests of reports/report.py (gpubench report): tables from the committed records equal the expected
files in tests/data/reports/, every figure kind makes a PNG of its size, the statistics and the
errors on synthetic records. Run by ctest; `test_report.py latex` is the LaTeX compile check (exit
77, a skip, where pdflatex is not installed).

    GPUBENCH_UPDATE_EXPECTED=1 test_report.py   rewrites the expected files (then read the diff)
"""
import contextlib
import csv
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(SOURCE, "reports"))
from gpubench_reports import figures, records, report_cli, statistics  # noqa: E402

DATA = os.path.join(SOURCE, "reports", "data")
EXPECTED = os.path.join(SOURCE, "tests", "data", "reports")

# name: (report.py table arguments, record files under reports/data)
TABLES = {
    "lu-openmp-gain.md": (["--baseline", "openmp:vendor", "--reduction-name", "gain"], ["h100-2026-11-25-lu-openmp-8192.json"]),
    "lu-cuda-ci.md": (["--ci", "--baseline", "cuda:vendor"], ["h100-2026-11-25-lu-cuda-16384.json"]),
    "lu-cuda-kernels.tex": (["--kind", "kernels", "--variant", "blocked", "--format", "latex"],
                            ["h100-2026-11-25-lu-cuda-4096.json", "h100-2026-11-25-lu-cuda-16384.json"]),
    "cg-kernels.csv": (["--kind", "kernels", "--variant", "classic", "--format", "csv"],
                       ["h100-2026-11-23-cg-opencl-poisson2d-4096-f64-tuned.json",
                        "h100-2026-11-23-cg-cuda-poisson2d-4096-f64-tuned.json",
                        "h100-host-2026-11-22-cg-openmp-poisson2d-4096-f64.json"]),
    "cg-theoretical.md": (["--kind", "kernels", "--variant", "classic", "--value", "theoretical_pct"],
                          ["h100-2026-11-23-cg-opencl-poisson2d-4096-f64-tuned.json",
                           "h100-2026-11-23-cg-cuda-poisson2d-4096-f64-tuned.json"]),
    "cg-wgcu-reduction.md": (["--kind", "sweep"], ["h100-2026-11-23-sweep-opencl-f64-poisson2d-4096.json"]),
    "ep-pairs.md": (["--kind", "pairs", "--pairs", "openmp:serial>openmp:reduce,openmp:reduce>cuda:reduce"],
                    ["h100-2026-11-23-ep-A-all-backends.json", "h100-2026-11-23-ep-B.json",
                     "h100-host-2026-11-23-ep-openmp-serial-B.json"]),
    "ep-result-blocks.md": (["--rows", "openmp:serial,cuda:reduce", "--ci"], ["h100-2026-11-23-ep-A-all-backends.json"]),
    "gemm-tiles.md": (["--kind", "sweep-grid", "--backend", "cuda", "--precision", "f32"],
                      ["h100-2026-11-24-gemm-study/gpu/tiles-64.json", "h100-2026-11-24-gemm-study/gpu/tiles-1024.json"]),
    "lu-study.csv": (["--kind", "lu-study", "--format", "csv"],
                     ["h100-2026-11-25-lu-study-opencl-0.json", "h100-2026-11-25-lu-study-cuda.json"]),
}


def run_report(argv):
    """report_cli.main's exit code, stdout and stderr."""
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = report_cli.main(argv)
    finally:
        sys.stdout, sys.stderr = saved
    out.seek(0)
    err.seek(0)
    result = code, out.read(), err.read()
    out.close()
    err.close()
    return result


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


class Tables(unittest.TestCase):
    def test_tables_from_the_committed_records_equal_the_expected_files(self):
        for name, (argv, files) in TABLES.items():
            with self.subTest(table=name):
                code, text, err = run_report(["table"] + argv + [os.path.join(DATA, f) for f in files])
                self.assertEqual(code, 0, err)
                path = os.path.join(EXPECTED, name)
                if os.environ.get("GPUBENCH_UPDATE_EXPECTED"):
                    with open(path, "w") as f:
                        f.write(text)
                with open(path) as f:
                    self.assertEqual(text, f.read(), f"{name} differs from {path}")

    def test_speedups_and_gains_are_the_ratios_of_the_medians(self):
        code, text, _ = run_report(["table", "--baseline", "openmp:vendor", "--format", "csv",
                                    os.path.join(DATA, "h100-2026-11-25-lu-openmp-8192.json")])
        self.assertEqual(code, 0)
        points = {p.variant: p.seconds() for p in records.load_records([os.path.join(DATA, "h100-2026-11-25-lu-openmp-8192.json")])}
        speedup = points["vendor"] / points["blocked"]
        self.assertIn(f"{speedup:.2f}x", text)
        self.assertIn(f"{100 * (points['vendor'] - points['blocked']) / points['vendor']:.1f} %", text)


def synthetic(path, times_ms, failed=None, variant="blocked", backend="openmp", kernels=None):
    """A records file of one point with these repetitions (and one failed point)."""
    entry = {"suite": "lu", "problem": "64", "backend": backend, "device_index": 0, "device": "host",
             "variant": variant, "precision": "f64", "run_type": "iteration", "time_unit": "ms", "verified": True,
             "gflops": 1.0, "roofline_pct": 2.0, "theoretical_pct": 3.0}
    benchmarks = [dict(entry, real_time=t, repetition_index=i, kernels=kernels or []) for i, t in enumerate(times_ms)]
    failed_list = []
    if failed:
        failed_list.append(dict(entry, variant="vendor", error_occurred=True, error_message=failed, verified=False,
                                real_time=0.0))
    with open(path, "w") as f:
        json.dump({"context": {}, "benchmarks": benchmarks, "failed_benchmarks": failed_list}, f)


class Synthetic(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.file = os.path.join(self.dir, "r.json")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_a_problem_size_is_the_generators_parameter_not_a_digit_of_its_name(self):
        # Issue 32 item 3: poisson2d:4096 plotted at x = 2 (the first number in the name).
        self.assertEqual(records.size_of("poisson2d:4096"), 4096)
        self.assertEqual(records.size_of("poisson3d:128"), 128)
        self.assertEqual(records.size_of("2048"), 2048)
        self.assertEqual(records.size_of("40x70x20:TN"), 40)
        self.assertEqual(records.size_of("npb:C"), records.NPB_CLASSES.index("C"))
        self.assertEqual(records.size_of("B"), records.NPB_CLASSES.index("B"))

    def test_a_host_blas_narrower_than_the_host_is_flagged_under_the_table(self):
        # Issue 36 item 3: a vendor baseline whose kernels use less than the host has says so.
        synthetic(self.file, [1.0, 2.0], variant="vendor")
        with open(self.file) as f:
            data = json.load(f)
        weaker = ("OpenBLAS runs its Prescott kernels (SSE3) on a host with AVX-512: a baseline narrower than the "
                  "host; OPENBLAS_CORETYPE=SkylakeX chooses kernels for it")
        for b in data["benchmarks"]:
            b["host_blas"] = {"library": "OpenBLAS", "core": "Prescott", "weaker_than_host": weaker}
        with open(self.file, "w") as f:
            json.dump(data, f)
        code, text, err = run_report(["table", self.file])
        self.assertEqual(code, 0, err)
        self.assertEqual(text.count("WARNING: "), 1, text)
        self.assertIn("vendor", text.split("WARNING: ")[1])
        self.assertIn(weaker, text)
        synthetic(self.file, [1.0, 2.0], variant="vendor")  # no host_blas, or one that runs the host's kernels
        code, text, err = run_report(["table", self.file])
        self.assertNotIn("WARNING", text)
        self.assertNotIn("% of best host BLAS", text)

    def test_host_rows_are_stated_against_the_best_host_blas_measured(self):
        # Issue 36 item 3: two host BLAS (OpenBLAS 2 ms, BLIS 1 ms) and an own kernel (4 ms).
        files = []
        for variant, ms, library in (("vendor", 2.0, "OpenBLAS"), ("blis", 1.0, "BLIS"), ("blocked", 4.0, None)):
            path = os.path.join(self.dir, variant + ".json")
            synthetic(path, [ms, ms], variant=variant)
            with open(path) as f:
                data = json.load(f)
            if library:
                for b in data["benchmarks"]:
                    b["host_blas"] = {"library": library, "core": "skx" if library == "BLIS" else "SkylakeX"}
            with open(path, "w") as f:
                json.dump(data, f)
            files.append(path)
        code, text, err = run_report(["table"] + files)
        self.assertEqual(code, 0, err)
        rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| lu/")}
        self.assertIn("| 25.0 % of BLIS skx |", rows["lu/64/openmp:0/blocked/f64"])
        self.assertIn("| 50.0 % of BLIS skx |", rows["lu/64/openmp:0/vendor/f64"])
        self.assertIn("| 100.0 % of BLIS skx |", rows["lu/64/openmp:0/blis/f64"])

    def test_a_baseline_that_is_not_there_is_an_error_and_a_file_named_twice_is_read_once(self):
        # Issue 32 item 5.
        synthetic(self.file, [1.0, 2.0, 3.0])
        code, _, err = run_report(["table", "--baseline", "cuda:vendor", self.file])
        self.assertEqual(code, 3)
        self.assertIn("--baseline cuda:vendor: no point of the records is that baseline", err)
        self.assertIn("openmp:blocked", err)
        code, text, err = run_report(["table", self.file, self.file])
        self.assertEqual(code, 0, err)
        self.assertNotIn("newer than", text + err)

    def test_every_rate_is_the_rate_of_the_time_beside_it(self):
        # Issue 32 item 1: repetitions of 8.5 us and 7.87 ms (median 3.939 ms): GFLOP/s is 2 x 64^3 over
        # 3.939 ms (0.133), not the median of the repetitions' rates (30.86); % roof and % theor likewise.
        flops = 2 * 64 ** 3
        records = {"context": {}, "benchmarks": [
            {"suite": "gemm", "problem": "64", "backend": "openmp", "device_index": 0, "device": "host",
             "variant": "tiled", "precision": "f64", "run_type": "iteration", "time_unit": "ms", "verified": True,
             "real_time": t, "repetition_index": i, "flops_per_iteration": flops, "gflops": flops / (t * 1e-3) / 1e9,
             "attainable_gflops": 100.0, "theoretical_gflops": 400.0,
             "roofline_pct": flops / (t * 1e-3) / 1e9, "theoretical_pct": flops / (t * 1e-3) / 1e9 / 4}
            for i, t in enumerate([0.0085, 7.87])]}
        with open(self.file, "w") as f:
            json.dump(records, f)
        code, text, err = run_report(["table", "--format", "csv", self.file])
        self.assertEqual(code, 0, err)
        row = next(line for line in text.splitlines() if line.startswith("gemm/64"))
        cells = row.split(",")
        median_s = (0.0085 + 7.87) / 2 * 1e-3
        self.assertAlmostEqual(float(cells[2]), median_s * 1e3, places=3)           # ms/iter
        self.assertAlmostEqual(float(cells[3]), flops / median_s / 1e9, places=3)   # GFLOP/s: 0.133
        self.assertAlmostEqual(float(cells[4]), 100 * flops / median_s / 1e9 / 100.0, places=3)  # % roof
        self.assertAlmostEqual(float(cells[5]), 100 * flops / median_s / 1e9 / 400.0, places=3)  # % theor

    def test_the_confidence_interval_is_students_t_over_the_repetitions(self):
        synthetic(self.file, [1.0, 2.0, 3.0])
        mean, half, rel = statistics.confidence([1.0, 2.0, 3.0])
        self.assertAlmostEqual(mean, 2.0)
        self.assertAlmostEqual(half, 4.302653 * 1.0 / 3 ** 0.5, places=4)  # t(0.975, 2) s / sqrt(n)
        self.assertAlmostEqual(rel, half / 2.0)
        code, text, _ = run_report(["table", "--ci", self.file])
        self.assertEqual(code, 0)
        self.assertRegex(text, r"\| 2\.000 \| 2\.000 ± 2\.5 \| 124\.2\d % \|")
        self.assertIsNone(statistics.confidence([1.0]))

    def test_a_failed_point_keeps_its_row_and_gets_no_number(self):
        synthetic(self.file, [1.0, 1.0], failed="verification failed: HPL's scaled residual 40 must be < 16")
        code, text, _ = run_report(["table", "--baseline", "openmp:vendor", self.file])
        self.assertEqual(code, 0)
        row = next(line for line in text.splitlines() if "/vendor/" in line)
        self.assertIn("FAILED: verification failed: HPL's scaled residual 40 must be < 16", row)
        self.assertNotRegex(row.split("FAILED")[0], r"\d\.\d")
        blocked = next(line for line in text.splitlines() if "/blocked/" in line)
        self.assertIn("| - | - |", blocked)  # no speedup against a failed baseline

    def test_the_overhead_row_is_the_iteration_beyond_its_kernels(self):
        synthetic(self.file, [10.0], kernels=[{"kernel": "a", "ms_per_iteration": 6.0}, {"kernel": "b", "ms_per_iteration": 3.0}])
        code, text, _ = run_report(["table", "--kind", "kernels", "--format", "csv", self.file])
        self.assertEqual(code, 0)
        self.assertIn("overhead,1.000\n", text)
        self.assertIn("total,10.00\n", text)

    def test_a_point_in_two_files_is_taken_from_the_newer_never_mixed(self):
        old, new = os.path.join(self.dir, "old.json"), os.path.join(self.dir, "new.json")
        synthetic(old, [30.0, 30.0, 30.0])
        synthetic(new, [7.0, 7.0, 7.0])
        for path, date in ((old, "2026-11-24T00:50:00+0000"), (new, "2026-11-24T00:57:00+0000")):
            with open(path) as f:
                records = json.load(f)
            records["context"]["date"] = date
            with open(path, "w") as f:
                json.dump(records, f)
        for order in ([old, new], [new, old]):
            code, text, _ = run_report(["table", "--format", "csv"] + order)
            self.assertEqual(code, 0)
            self.assertIn("lu/64/openmp:0/blocked/f64,host,7.000,", text)
            code, text, _ = run_report(["table"] + order)
            self.assertIn("- lu/64/openmp:0/blocked/f64: from " + os.path.basename(self.dir) + "/new.json, newer than "
                          + os.path.basename(self.dir) + "/old.json", text)

    def test_bad_input_is_named(self):
        with open(self.file, "w") as f:
            f.write("{not json")
        code, _, err = run_report(["table", self.file])
        self.assertEqual(code, 3)
        self.assertIn(self.file, err)
        code, _, err = run_report(["table", os.path.join(self.dir, "missing.json")])
        self.assertEqual(code, 3)
        self.assertIn("missing.json", err)
        synthetic(self.file, [1.0])
        code, _, err = run_report(["table", "--backend", "cuda", self.file])
        self.assertEqual((code, "no points match" in err), (3, True))
        code, _, err = run_report(["table", "--baseline", "cuda", self.file])
        self.assertEqual(code, 3)
        self.assertIn("'cuda' (in --baseline, --rows or --pairs): expected BACKEND[:DEVICE]:VARIANT", err)
        code, _, err = run_report(["study", "no-such-study"])
        self.assertEqual(code, 3)
        self.assertIn("valid: cg-multi-gpu, cg-thesis, fused-cg, gemm, lu, nas", err)

    def test_gzipped_records_read_as_the_plain_ones(self):
        # The project commits its records gzipped (reports/data/*/*.json.gz).
        synthetic(self.file, [1.0, 2.0, 3.0])
        zipped = self.file + ".gz"
        with open(self.file, "rb") as src, gzip.open(zipped, "wb") as dst:
            dst.write(src.read())
        plain, zipped_table = run_report(["table", self.file]), run_report(["table", zipped])
        self.assertEqual(plain[0], 0, plain[2])
        self.assertEqual(zipped_table, plain)
        with open(zipped, "wb") as f:
            f.write(b"\x1f\x8b not gzip")
        code, _, err = run_report(["table", zipped])
        self.assertEqual(code, 3)
        self.assertIn(zipped, err)

    def test_every_commands_help_prints(self):
        # argparse formats help with %: a literal "%" in a help text was a traceback.
        for command in (["--help"], ["table", "--help"], ["figure", "--help"], ["study", "--help"]):
            with self.subTest(command=command):
                with self.assertRaises(SystemExit) as e:
                    run_report(command)
                self.assertEqual(e.exception.code, 0)

    def test_every_option_says_what_it_takes_and_a_figure_without_out_is_a_usage_error(self):
        # Issue 58 item 6: `report table --format` had no help text; a figure without --out exited 3,
        # where a usage error exits 2 (the README's table of exit codes).
        for argv in (["table", "--help"], ["portability", "--help"], ["models", "--help"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    report_cli.main(argv)
            self.assertRegex(out.getvalue().replace("\n", " "), r"--format \{markdown,latex,csv\}\s+markdown \(default\)")
        code, _, err = run_report(["figure", "--kind", "scaling", os.path.join(DATA, "h100-2026-11-25-lu-cuda-4096.json")])
        self.assertEqual(code, 2, err)
        self.assertIn("a figure needs --out", err)
        track_help = subprocess.run([sys.executable, os.path.join(SOURCE, "reports", "track.py"), "publish", "--help"],
                                    capture_output=True, text=True).stdout
        self.assertIn("the pages' title", track_help)

    def test_a_malformed_recipe_is_named(self):
        recipe = os.path.join(self.dir, "recipe.json")
        with open(recipe, "w") as f:
            json.dump({"title": "t", "outputs": [{"name": "x", "records": ["a.json"]}]}, f)
        code, _, err = run_report(["study", recipe, "--out", os.path.join(self.dir, "out")])
        self.assertEqual(code, 3)
        self.assertIn("recipe.json: not a gpubench recipe (output 'x' needs a name, records and a table or figure", err)

    def test_a_study_without_its_records_names_the_run_that_makes_them(self):
        code, _, err = run_report(["study", "lu", "--data", self.dir, "--out", os.path.join(self.dir, "out")])
        self.assertEqual(code, 3)
        self.assertIn("--run makes them on this machine's devices: gpubench run --suite lu", err)


class Portability(unittest.TestCase):
    """Issue 38 item 4: PP over platforms, against hand-computed cases."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def records(self, name, points):
        """A records file: (device, backend, variant, ms or None for a failed point, % roof) each."""
        benchmarks, failed = [], []
        for device, backend, variant, ms, roof in points:
            e = {"suite": "gemm", "problem": "64", "backend": backend, "device_index": 0, "device": device,
                 "variant": variant, "precision": "f64", "run_type": "iteration", "time_unit": "ms",
                 "gflops": 1.0, "roofline_pct": roof}
            if ms is None:
                failed.append(dict(e, error_occurred=True, error_message="wrong", verified=False, real_time=0.0))
            else:
                benchmarks += [dict(e, real_time=ms, verified=True, repetition_index=i) for i in range(2)]
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump({"context": {"date": "2026-11-27"}, "benchmarks": benchmarks, "failed_benchmarks": failed}, f)
        return path

    def test_pp_is_the_harmonic_mean_and_zero_where_a_variant_does_not_run(self):
        from gpubench_reports import portability
        self.assertEqual(portability.pp([0.5, 0.5, 1.0]), 0.6)
        self.assertAlmostEqual(portability.pp([0.5, 0.25, 1.0]), 3 / 7)
        self.assertEqual(portability.pp([1.0, None]), 0.0)
        self.assertEqual(portability.pp([1.0, 0.0]), 0.0)
        self.assertEqual(portability.pp([]), 0.0)
        files = [self.records("a.json", [("A", "opencl", "vendor", 1.0, 90.0), ("A", "opencl", "x", 2.0, 50.0),
                                         ("A", "cuda", "y", 1.0, 80.0), ("A", "cuda", "z", 4.0, 10.0)]),
                 self.records("b.json", [("B", "opencl", "vendor", 2.0, 90.0), ("B", "opencl", "x", 4.0, 40.0),
                                         ("B", "cuda", "y", 1.0, 70.0), ("B", "cuda", "z", None, 0.0)]),
                 # PoCL names the host's CPU pthread-ARCH-MODEL: the same platform as MODEL.
                 self.records("c.json", [("C", "opencl", "vendor", 1.0, 120.0), ("pthread-zen-C", "opencl", "x", 1.0, 100.0)])]
        from gpubench_reports.portability import platform_of
        for name, platform in (("cpu-skylake-avx512-Intel(R) Xeon(R) Processor", "Intel(R) Xeon(R) Processor"),
                               ("pthread-skylake-avx512-AMD EPYC", "AMD EPYC"), ("pthread-zen-C", "C"),
                               ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3")):
            self.assertEqual(platform_of(type("P", (), {"device": name})()), platform)
        code, out, err = run_report(["portability"] + files + ["--format", "csv"])
        self.assertEqual(code, 0, err)
        rows = {tuple(r[3:5]): r for r in (line.split(",") for line in out.splitlines()[1:])}
        # x: the best on A is 1 ms (vendor, y), on B 1 ms (y, another API), on C 1 ms: app 1/2, 1/4, 1/1
        # -> 3 / (2 + 4 + 1) = 42.9%; arch 0.5, 0.4, 1 -> 3 / (2 + 2.5 + 1) = 54.5%.
        self.assertEqual(rows[("x", "opencl")][-2:], ["54.5", "42.9"])
        self.assertEqual(rows[("x", "opencl")][5:8], ["50.0 / 50.0", "40.0 / 25.0", "100 / 100"])
        # y runs on A and B, not on C: 0. z failed on B: it does not run there either.
        self.assertEqual(rows[("y", "cuda")][-2:], ["0", "0"])
        self.assertEqual(rows[("y", "cuda")][7], "does not run")
        self.assertEqual(rows[("z", "cuda")][6], "does not run")
        # vendor: on B y (cuda) was faster, so 0.5 there; above the roof on C counts as 100.
        self.assertEqual(rows[("vendor", "opencl")][5:8], ["90.0 / 100", "90.0 / 50.0", "100 / 100"])
        self.assertEqual(rows[("vendor", "opencl")][-1], "75.0")  # 3 / (1 + 2 + 1)
        # Over A and B alone, y runs everywhere: app 1, 1 -> 100%.
        code, out, err = run_report(["portability"] + files + ["--platforms", "A,B", "--variant", "y", "--format", "csv"])
        self.assertEqual(code, 0, err)
        self.assertEqual(out.splitlines()[1].split(",")[-2:], ["74.7", "100"])  # arch 2 / (1/0.8 + 1/0.7)
        code, out, err = run_report(["portability"] + files + ["--platforms", "A,Q"])
        self.assertEqual(code, 2)
        self.assertIn("no point of the records ran on Q", err)

    def test_the_cascade_plot_is_drawn_per_suite(self):
        files = [self.records("a.json", [("A", "opencl", "x", 2.0, 50.0)]), self.records("b.json", [("B", "opencl", "x", 1.0, 90.0)])]
        out = os.path.join(self.dir, "pp.png")
        code, _, err = run_report(["portability"] + files + ["--figure", out])
        self.assertEqual(code, 0, err)
        self.assertEqual(png_size(out), (800, 500))


class Models(unittest.TestCase):
    """Issue 39 item 3: the programming models side by side on one device, per suite."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_each_api_beside_the_fastest_and_its_best_own_variant(self):
        records = Portability.records
        files = [records(self, "gpu.json", [("G", "cuda", "tiled", 2.0, 40.0), ("G", "cuda", "vendor", 1.0, 80.0),
                                            ("G", "opencl", "tiled", 3.0, 26.7), ("G", "omp_target", "tiled", 8.0, 10.0),
                                            ("G", "omp_target", "naive", 16.0, 5.0), ("G", "opencl", "naive", None, 0.0)]),
                 # one API alone on a device: nothing to compare there
                 records(self, "cpu.json", [("C", "openmp", "tiled", 1.0, 50.0)])]
        png = os.path.join(self.dir, "models.png")
        code, out, err = run_report(["models"] + files + ["--apis", "cuda,opencl,omp_target", "--format", "csv",
                                                          "--figure", png])
        self.assertEqual(code, 0, err)
        rows = {r[4]: r for r in csv.reader(io.StringIO(out)) if len(r) > 4}
        self.assertEqual(rows["variant"][5:], ["cuda", "opencl", "omp_target", "gaps: why"])
        self.assertEqual(rows["tiled"][5:], ["2.000 ms, 40.0% roof", "3.000 ms, 26.7% roof, 1.50x",
                                             "8.000 ms, 10.0% roof, 4.00x", ""])
        # naive failed on OpenCL: no number; omp_target's alone.
        self.assertEqual(rows["naive"][5:], ["-", "-", "16.00 ms, 5.00% roof", ""])
        # best own leaves the vendor library out: CUDA's tiled, not cuBLAS's 1 ms. These records
        # name no causes: the ledger says so rather than leave the gap unexplained.
        self.assertEqual(rows["best own"][5:], ["2.000 ms, 40.0% roof (tiled)", "3.000 ms, 26.7% roof, 1.50x (tiled)",
                                                "8.000 ms, 10.0% roof, 4.00x (tiled)",
                                                "opencl 1.50x: cause not recorded | omp_target 4.00x: cause not recorded"])
        self.assertNotIn("C", {r[3] for r in csv.reader(io.StringIO(out)) if len(r) > 4})
        self.assertGreater(png_size(png)[0], 100)
        # No device with two APIs: said, not an empty table.
        code, out, err = run_report(["models", files[1]])
        self.assertEqual(code, 3, out)
        self.assertIn("two APIs or more", err)


    def test_the_ledger_says_each_gap_and_what_forces_it(self):
        """Issue 56 item 5: the causes the slower APIs' records carry, each with what forces it."""
        def entry(backend, ms, causes=None):
            e = {"suite": "cg", "problem": "npb:C", "backend": backend, "device_index": 0, "device": "G",
                 "variant": "form1", "precision": "f64", "run_type": "iteration", "time_unit": "ms",
                 "real_time": ms, "verified": True}
            if causes is not None:
                e["gap_causes"] = causes
            return e
        slab = {"by": "api", "cause": "slices of x in 48 KiB"}
        mine = {"by": "gpubench", "cause": "no subgroup shuffles"}
        benchmarks = [entry("cuda", 2.0), entry("cuda", 2.0),
                      # each repetition carries the causes: said once; a malformed entry is passed over
                      entry("opencl", 3.8, [slab, mine]), entry("opencl", 3.8, [slab, "junk", {"by": "api"}]),
                      entry("omp_target", 20.0, "not a list"), entry("omp_target", 20.0),
                      # within 2% of the fastest: no gap to explain
                      entry("viennacl", 2.02, [slab])]
        path = os.path.join(self.dir, "ledger.json")
        with open(path, "w") as f:
            json.dump({"context": {}, "benchmarks": benchmarks, "failed_benchmarks": []}, f)
        code, out, err = run_report(["models", path, "--format", "csv"])
        self.assertEqual(code, 0, err)
        rows = {r[4]: r for r in csv.reader(io.StringIO(out)) if len(r) > 4}
        self.assertEqual(rows["variant"][-1], "gaps: why")
        self.assertEqual(rows["best own"][-1],
                         "opencl 1.90x: slices of x in 48 KiB [the API]; no subgroup shuffles [gpubench's choice] | "
                         "omp_target 10.0x: cause not recorded")
        self.assertEqual(rows["form1"][-1], "")
        code, out, err = run_report(["models", path])
        self.assertEqual(code, 0, err)
        self.assertIn("gaps: why", out)
        self.assertIn("what forces it", out)


    def test_a_gap_beside_a_swept_api_says_where_no_sweep_was_run(self):
        """The records' launch sources: the slower point's kernels ran their heuristic launch where the
        fastest's ran swept ones, so part of the gap is gpubench's (a sweep not run), said without a
        recorded cause; nothing is added where both ran swept launches, or where the fastest did not."""
        def entry(backend, ms, index, sources):
            launch = {k: {"from": v, "lines": 1} for k, v in sources.items()}
            return {"suite": "ft", "problem": "npb:B", "backend": backend, "device_index": index, "device": "G",
                    "variant": "fast", "precision": "f64", "run_type": "iteration", "time_unit": "ms",
                    "real_time": ms, "verified": True, "params": {"launch": launch}}
        swept = {"cffts1": "tuned", "cffts2": "tuned (nearest size)", "cffts3": "device default"}
        cases = [
            ({"cffts1": "tuned", "cffts2": "heuristic", "cffts3": "heuristic"}, swept,
             "opencl 1.50x: cffts2, cffts3 ran opencl's heuristic launch (not swept on this device) where cuda's "
             "kernels ran swept ones: part of the gap is a sweep not run (gpubench sweep --suite ft --backend "
             "opencl:1 --problem npb:B) [gpubench's choice]"),
            (swept, swept, "opencl 1.50x: cause not recorded"),
            ({"cffts1": "heuristic"}, {"cffts1": "heuristic"}, "opencl 1.50x: cause not recorded"),
            ({"cffts1": "off"}, {"cffts1": "tuned", "cffts2": "heuristic"}, "opencl 1.50x: cause not recorded"),
        ]
        for i, (slower, fastest, ledger) in enumerate(cases):
            path = os.path.join(self.dir, f"sweeps-{i}.json")
            with open(path, "w") as f:
                json.dump({"context": {}, "benchmarks": [entry("cuda", 2.0, 0, fastest), entry("opencl", 3.0, 1, slower)],
                           "failed_benchmarks": []}, f)
            code, out, err = run_report(["models", path, "--format", "csv"])
            self.assertEqual(code, 0, err)
            rows = {r[4]: r for r in csv.reader(io.StringIO(out)) if len(r) > 4}
            self.assertEqual(rows["best own"][-1], ledger, i)


class StudyRun(unittest.TestCase):
    """A recipe whose records are missing runs them with --run (gpubench from GPUBENCH_BINARY, as ctest sets it)."""

    def test_a_recipe_runs_what_its_data_lacks_and_writes_its_outputs(self):
        binary = os.environ.get("GPUBENCH_BINARY")
        if not binary or not os.path.exists(binary):
            self.skipTest("GPUBENCH_BINARY is not set to a built gpubench (ctest sets it)")
        work = tempfile.mkdtemp()
        try:
            recipe = os.path.join(work, "r.json")
            runs = [["run", "--suite", "lu", "--backend", "openmp", "--problem", n, "--variant", "blocked,vendor",
                     "--repetitions", "2", "--tuning-db", os.path.join(work, "db")] for n in ("17", "40")]
            with open(recipe, "w") as f:
                json.dump({"title": "T", "source": "S", "runs": {"lu-*.json": runs},
                           "outputs": [{"name": "t", "table": ["--baseline", "openmp:vendor"], "records": ["lu-*.json"]},
                                       {"name": "f", "figure": ["--kind", "scaling"], "records": ["lu-*.json"]}]}, f)
            out = os.path.join(work, "out")
            r = subprocess.run([binary, "report", "study", recipe, "--data", os.path.join(work, "none"), "--out", out, "--run"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            with open(os.path.join(out, "t.md")) as f:
                table = f.read()
            for n in ("17", "40"):
                self.assertRegex(table, rf"\| lu/{n}/openmp:0/blocked/f64 \| .* \| [0-9.]+x \|")
            self.assertTrue(os.path.exists(os.path.join(out, "data", "lu-all.json")))
            self.assertEqual(png_size(os.path.join(out, "f.png")), (800, 500))
            with open(os.path.join(out, "README.md")) as f:
                self.assertIn("Records that this command ran", f.read())
        finally:
            shutil.rmtree(work)


class Strategies(unittest.TestCase):
    """The strategy study: gpubench replays a committed sweep cache (no device), report draws its table and figure."""

    def setUp(self):
        self.binary = os.environ.get("GPUBENCH_BINARY")
        if not self.binary or not os.access(self.binary, os.X_OK):
            self.skipTest("GPUBENCH_BINARY is not set to a built gpubench (ctest sets it)")
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_a_committed_cache_replays_into_a_table_and_a_figure(self):
        cache = os.path.join(DATA, "tuner", "gemm-8192-tuned-cuda-f64.jsonl")
        replayed = os.path.join(self.dir, "replay.json")
        done = subprocess.run([self.binary, "sweep", "--replay", cache, "--strategy", "random,bayes", "--seeds", "10",
                               "--format", "json", "--out", replayed], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        replays = json.load(open(replayed))["replays"]
        self.assertEqual(len(replays), 1)
        self.assertEqual(replays[0]["measured"], replays[0]["declared"])  # the whole space was swept
        self.assertEqual({r["strategy"] for r in replays[0]["runs"]}, {"random", "bayes"})
        code, table, err = run_report(["table", replayed, "--kind", "strategies"])
        self.assertEqual(code, 0, err)
        self.assertIn("| tuned 8192 f64 cuda (173) | bayes | 20 |", table)
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return
        out = os.path.join(self.dir, "strategies.png")
        code, _, err = run_report(["figure", replayed, "--kind", "strategies", "--out", out])
        self.assertEqual(code, 0, err)
        self.assertGreater(os.path.getsize(out), 5000)
        # A file that is not a replay is named.
        code, _, err = run_report(["table", cache, "--kind", "strategies"])
        self.assertNotEqual(code, 0)
        self.assertIn("gemm-8192-tuned-cuda-f64.jsonl", err)


class Figures(unittest.TestCase):
    """Every figure kind: a PNG of the size asked for (8 x 5 in at 100 dpi), or the sweep's grid."""

    def setUp(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("python3-matplotlib is not installed (scripts/setup installs it)")
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def figure(self, argv, files, size=(800, 500)):
        out = os.path.join(self.dir, argv[1] + ".png")
        code, _, err = run_report(["figure"] + argv + [os.path.join(DATA, f) for f in files] + ["--out", out])
        self.assertEqual(code, 0, err)
        self.assertGreater(os.path.getsize(out), 5000)
        self.assertEqual(png_size(out), size)

    def test_every_figure_kind(self):
        cg = ["h100-2026-11-23-cg-opencl-poisson2d-4096-f64-tuned.json", "h100-2026-11-23-cg-cuda-poisson2d-4096-f64-tuned.json"]
        self.figure(["--kind", "roofline", "--kernels"], cg)
        self.figure(["--kind", "kernels"], cg)
        self.figure(["--kind", "speedup", "--baseline", "cuda:vendor"], ["h100-2026-11-25-lu-cuda-4096.json", "h100-2026-11-25-lu-cuda-16384.json"])
        self.figure(["--kind", "scaling", "--y", "time"], ["h100-2026-11-23-ep-A-all-backends.json", "h100-2026-11-23-ep-B.json"])
        self.figure(["--kind", "scaling"], ["h100-2026-11-25-lu-study-cuda.json"])
        # Eight swept CG kernels: a grid of 3 x 3 panels, each 400 x 312.5 px.
        self.figure(["--kind", "sweep", "--y", "time"], ["h100-2026-11-23-sweep-cuda-f64-poisson2d-4096.json"], (1200, 937))
        self.figure(["--kind", "sweep", "--x", "problem", "--backend", "cuda"],
                    ["h100-2026-11-24-gemm-study/gpu/tiles-64.json", "h100-2026-11-24-gemm-study/gpu/tiles-1024.json"])

    def test_the_roofline_draws_every_level_of_the_hierarchy_from_committed_records(self):
        # Issue 38 item 3: the H100's L2 and L1/shared roofs beside DRAM's, one roof for the device
        # its two APIs see, and a kernel above the DRAM roof (CG's cg_update on OpenCL) under the L2's.
        plt = figures.pyplot()
        records = os.path.join(DATA, "h100-2026-11-27-issue38", "cg-1024-breakdown.json.gz")
        args = report_cli.make_parser().parse_args(["figure", "--kind", "roofline", "--kernels", records, "--out", "x.png"])
        fig = figures.draw(plt, args)
        try:
            ax = fig.axes[0]
            labels = [t.get_text() for t in ax.get_legend().get_texts()]
            roofs = [label for label in labels if "GB/s" in label]
            self.assertEqual(len(roofs), 3, roofs)  # DRAM, L2, L1: once for cuda:0 and opencl:1 together
            self.assertIn("cuda:0, opencl:1", roofs[0])
            self.assertRegex(roofs[1], r"L2 1\d{4} GB/s")
            self.assertRegex(roofs[2], r"L1/shared 2\d{4} GB/s")
            # Each level's line: min(peak, intensity x its bandwidth), above DRAM's at every intensity below the ridge.
            lines = {line.get_label(): line for line in ax.get_lines()}
            dram, l2 = lines[roofs[0]].get_ydata(), lines[roofs[1]].get_ydata()
            self.assertGreater(l2[0] / dram[0], 3)
        finally:
            plt.close(fig)
        with open(os.path.join(DATA, "h100-2026-11-27-issue38", "cg-1024-breakdown.txt")) as f:
            self.assertRegex(f.read(), r"cg_update .* 10\d\.\d\* \(L2 \d+\.\d%\)")

    def test_no_two_labels_overlap_at_5_20_and_60_points(self):
        # Issue 32 item 10: every text of every figure kind (ticks, labels, legends, titles), drawn,
        # keeps clear of every other and within the figure, at 5, 20 and 60 points.
        sys.path.insert(0, os.path.join(SOURCE, "reports"))
        plt = figures.pyplot()
        cg = os.path.join(DATA, "h100-2026-11-23-cg-cuda-poisson2d-4096-f64-tuned.json")
        for points in (5, 20, 60):
            records = self.copies(cg, points)
            for kind in (["roofline", "--kernels"], ["kernels"], ["speedup", "--baseline", "cuda:vendor"],
                         ["scaling"]):
                args = report_cli.make_parser().parse_args(["figure", "--kind"] + kind + [records, "--out", "x.png"])
                fig = figures.draw(plt, args)
                try:
                    fig.canvas.draw()
                    renderer = fig.canvas.get_renderer()
                    texts = list(fig.texts)
                    for ax in fig.axes:  # what is drawn: the ticks within the view (not the Text kept beyond it)
                        for axis in (ax.xaxis, ax.yaxis):
                            texts += [t for tick in axis._update_ticks() for t in (tick.label1, tick.label2)]
                            texts.append(axis.label)
                        texts += [ax.title, ax._left_title, ax._right_title] + list(ax.texts)
                        if ax.get_legend():
                            texts += ax.get_legend().get_texts()
                    texts = [t for t in texts if t.get_visible() and t.get_text().strip()]
                    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
                    where = f"{kind[0]} at {points} points"
                    self.assertGreater(len(boxes), 5, where)
                    frame = fig.bbox
                    for text, b in boxes:
                        self.assertTrue(b.x0 >= frame.x0 - 1 and b.x1 <= frame.x1 + 1 and b.y0 >= frame.y0 - 1
                                        and b.y1 <= frame.y1 + 1, f"{where}: '{text}' leaves the figure")
                    for i, (ta, a) in enumerate(boxes):
                        for tb, b in boxes[i + 1:]:
                            w = min(a.x1, b.x1) - max(a.x0, b.x0)
                            h = min(a.y1, b.y1) - max(a.y0, b.y0)
                            self.assertFalse(w > 1 and h > 1, f"{where}: '{ta}' and '{tb}' overlap")
                finally:
                    plt.close(fig)

    def copies(self, path, points):
        """A records file of `points` points: path's four CG variants at points / 4 sizes (the last
        size cut to make the count)."""
        with open(path) as f:
            records = json.load(f)
        out, made = [], 0
        for size in range(4096, 4096 + points):
            keep = [b for b in records["benchmarks"]]
            variants = sorted({b["variant"] for b in keep})
            for v in variants:
                if made == points:
                    break
                made += 1
                for b in keep:
                    if b["variant"] == v:
                        c = json.loads(json.dumps(b).replace("poisson2d:4096", f"poisson2d:{size}"))
                        out.append(c)
            if made == points:
                break
        records["benchmarks"] = out
        target = os.path.join(self.dir, f"cg-{points}.json")
        with open(target, "w") as f:
            json.dump(records, f)
        return target

    def drawn(self, argv):
        args = report_cli.make_parser().parse_args(["figure"] + argv + ["--out", "x.png"])
        return figures.draw(figures.pyplot(), args)

    def test_error_bars_span_the_repetitions_quartiles(self):
        # Issue 58: the scaling, speedup and roofline figures carry each point's interquartile range,
        # the tables' spread; a point of one repetition has none.
        two = os.path.join(self.dir, "two.json")
        with open(two, "w") as f:
            points = []
            for problem, times in (("64", [1.0, 2.0, 3.0, 4.0, 9.0]), ("128", [10.0, 12.0, 14.0])):
                for variant, scale in (("blocked", 1.0), ("vendor", 2.0)):
                    points += [{"suite": "lu", "problem": problem, "backend": "openmp", "device_index": 0,
                                "device": "host", "variant": variant, "precision": "f64", "run_type": "iteration",
                                "time_unit": "ms", "verified": True, "real_time": t * scale, "repetition_index": i,
                                "flops_per_iteration": 1e9, "arithmetic_intensity": 2.0,
                                "ceilings": {"bandwidth_gbps": 100.0, "peak_gflops": 1000.0}}
                               for i, t in enumerate(times)]
            json.dump({"context": {}, "benchmarks": points}, f)
        plt = figures.pyplot()

        def bars(fig):
            """Each error bar's (low, high) as drawn, of every errorbar container or bar chart."""
            from matplotlib.container import ErrorbarContainer
            spans = []
            for c in fig.axes[0].containers:
                if isinstance(c, ErrorbarContainer) and c.lines[2]:
                    for seg in c.lines[2][0].get_segments():
                        spans.append((round(min(seg[:, 1]), 6), round(max(seg[:, 1]), 6)))
            return sorted(spans)

        # Times: the blocked line's quartiles (64: 2 and 4 ms; 128: 11 and 13), the vendor's twice them.
        fig = self.drawn(["--kind", "scaling", "--y", "time", two])
        try:
            self.assertEqual(bars(fig), [(2.0, 4.0), (4.0, 8.0), (11.0, 13.0), (22.0, 26.0)])
        finally:
            plt.close(fig)
        # GFLOP/s at the quartiles: 1e9 FLOP in 4 ms and 2 ms (250 and 500), in 13 and 11 ms.
        fig = self.drawn(["--kind", "scaling", "--backend", "openmp", "--variant", "blocked", two])
        try:
            self.assertEqual(bars(fig), [(round(1 / 0.013, 6), round(1 / 0.011, 6)), (250.0, 500.0)])
        finally:
            plt.close(fig)
        # The speedup over vendor: its fastest quarter over blocked's slowest and back (64: 4 / 4 and 8 / 2).
        fig = self.drawn(["--kind", "speedup", "--baseline", "openmp:vendor", "--variant", "blocked", two])
        try:
            self.assertEqual(bars(fig), [(1.0, 4.0), (round(22 / 13, 6), round(26 / 11, 6))])
        finally:
            plt.close(fig)
        fig = self.drawn(["--kind", "roofline", "--variant", "blocked", two])
        try:
            self.assertEqual(bars(fig), [(round(1 / 0.013, 6), round(1 / 0.011, 6)), (250.0, 500.0)])
        finally:
            plt.close(fig)
        one = os.path.join(self.dir, "one.json")
        synthetic(one, [5.0])
        fig = self.drawn(["--kind", "scaling", "--y", "time", one])
        try:
            self.assertEqual(bars(fig), [])
        finally:
            plt.close(fig)

    def test_a_point_on_the_tensor_cores_is_drawn_under_its_units_roof(self):
        # Issue 59 item 5: a kernel the record places against the f64 tensor cores' peak gets that
        # roof, named and dash-dotted, beside the FMA roof of the points on the FMA pipes.
        path = os.path.join(self.dir, "tensor.json")
        points = []
        for variant, ceilings in (("tuned", {"bandwidth_gbps": 3000.0, "peak_gflops": 33000.0}),
                                  ("tensor", {"bandwidth_gbps": 3000.0, "peak_gflops": 60000.0,
                                              "peak_unit": "f64 tensor"})):
            points.append({"suite": "gemm", "problem": "4096", "backend": "cuda", "device_index": 0,
                           "device": "H100", "variant": variant, "precision": "f64", "run_type": "iteration",
                           "time_unit": "ms", "verified": True, "real_time": 3.0, "repetition_index": 0,
                           "flops_per_iteration": 2 * 4096.0 ** 3, "arithmetic_intensity": 341.0,
                           "ceilings": ceilings})
        with open(path, "w") as f:
            json.dump({"context": {}, "benchmarks": points}, f)
        fig = self.drawn(["--kind", "roofline", path])
        try:
            lines = {line.get_label(): line for line in fig.axes[0].get_lines() if "DRAM" in line.get_label()}
            self.assertEqual(len(lines), 2, list(lines))
            fma = next(line for label, line in lines.items() if "FMA 33000 GFLOP/s" in label)
            tensor = next(line for label, line in lines.items() if "f64 tensor 60000 GFLOP/s" in label)
            self.assertEqual(fma.get_linestyle(), "-")
            self.assertEqual(tensor.get_linestyle(), "-.")
            self.assertEqual(max(tensor.get_ydata()), 60000.0)
        finally:
            figures.pyplot().close(fig)

    def test_a_caption_sits_under_the_axes_within_the_figure(self):
        text = ("LU factorisation on the host: the blocked variant against LAPACKE, median of the repetitions, "
                "bars their interquartile range. " * 3).strip()
        fig = self.drawn(["--kind", "scaling", "--y", "time", "--caption", text,
                          os.path.join(DATA, "h100-2026-11-25-lu-study-cuda.json")])
        try:
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            [cap] = [t for t in fig.texts if "LAPACKE" in t.get_text()]
            self.assertEqual(" ".join(cap.get_text().split()), " ".join(text.split()))
            self.assertGreater(cap.get_text().count("\n"), 0)  # wrapped
            box, frame = cap.get_window_extent(renderer), fig.bbox
            self.assertTrue(box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0)
            ax = fig.axes[0]
            below = min(ax.xaxis.label.get_window_extent(renderer).y0,
                        min(t.get_window_extent(renderer).y0 for t in ax.get_xticklabels() if t.get_text()))
            self.assertLess(box.y1, below)
        finally:
            figures.pyplot().close(fig)
        out = os.path.join(self.dir, "captioned.png")
        code, _, err = run_report(["figure", "--kind", "scaling", "--caption", "a caption",
                                   os.path.join(DATA, "h100-2026-11-25-lu-study-cuda.json"), "--out", out])
        self.assertEqual(code, 0, err)
        self.assertEqual(png_size(out), (800, 500))

    def test_a_figure_without_what_it_needs_says_so(self):
        out = os.path.join(self.dir, "x.png")
        code, _, err = run_report(["figure", "--kind", "speedup", os.path.join(DATA, "h100-2026-11-25-lu-cuda-4096.json"), "--out", out])
        self.assertEqual(code, 3)
        self.assertIn("needs --baseline", err)
        synthetic(os.path.join(self.dir, "r.json"), [1.0, 2.0])  # no per-kernel times
        code, _, err = run_report(["figure", "--kind", "kernels", os.path.join(self.dir, "r.json"), "--out", out])
        self.assertEqual(code, 3)
        self.assertIn("--breakdown", err)


def latex_check():
    """The LaTeX tables compile in a booktabs document; 77 (skip) without pdflatex."""
    if not shutil.which("pdflatex"):
        print("SKIPPED: pdflatex is not installed (Debian's texlive-latex-recommended has it and booktabs)")
        return 77
    work = tempfile.mkdtemp()
    try:
        tables = [n for n in TABLES if n.endswith(".tex")]
        code, text, err = run_report(["table", "--ci", "--baseline", "cuda:vendor", "--format", "latex",
                                      os.path.join(DATA, "h100-2026-11-25-lu-cuda-16384.json")])
        if code:
            print(err)
            return 1
        body = [text] + [open(os.path.join(EXPECTED, n)).read() for n in tables]
        doc = ("\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\\usepackage{booktabs}"
               "\\usepackage[landscape,margin=1cm]{geometry}\\begin{document}\\tiny\n"
               + "\n\\bigskip\n".join(body) + "\\end{document}\n")
        with open(os.path.join(work, "t.tex"), "w") as f:
            f.write(doc)
        r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=work,
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.getsize(os.path.join(work, "t.pdf")):
            print(r.stdout[-3000:])
            return 1
        print(f"pdflatex compiled {len(body)} tables")
        return 0
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    if sys.argv[1:] == ["latex"]:
        sys.exit(latex_check())
    unittest.main()
