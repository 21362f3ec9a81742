"""The Python reader of gpubench's records (reports/records.py) against a real run and hostile
input: entries typed by the published schema, errors that name the file, entry and field."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SOURCE, "reports"))  # a test imports the module it tests
from gpubench_reports import schema as records  # noqa: E402

BINARY = os.environ.get("GPUBENCH_BINARY", "")


class Reader(unittest.TestCase):
    def test_schema_is_what_gpubench_prints(self):
        if not BINARY:
            self.skipTest("GPUBENCH_BINARY not set")
        printed = subprocess.run([BINARY, "schema"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(json.loads(printed), records.load_schema())

    def test_a_run_reads_typed(self):
        if not BINARY:
            self.skipTest("GPUBENCH_BINARY not set")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "run.json")
            subprocess.run([BINARY, "--suite", "ep", "--backend", "openmp", "--problem", "S", "--variant", "reduce",
                            "--repetitions", "2", "--format", "json", "--out", out],
                           capture_output=True, check=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
            r = records.read_file(out)
        iterations = [e for e in r.benchmarks if e.run_type == "iteration"]
        self.assertEqual(len(iterations), 2)
        for e in iterations:
            self.assertEqual((e.suite, e.backend, e.variant, e.precision), ("ep", "openmp", "reduce", "f64"))
            self.assertIs(e.get("verified"), True)
            self.assertIsInstance(e.get("device_seconds"), float)
            self.assertFalse(e.failed)
        # Every field the schema declares that the entry has was checked: the schema covers the
        # harness's fields, a suite's own (EP's sx) are the extra ones.
        fields = records.entry_fields()
        for name in ("suite", "kernels", "params", "time_includes", "real_time", "gflops"):
            self.assertIn(name, fields)
        self.assertNotIn("sx", fields)
        self.assertIn("sx", iterations[0].fields)

    def test_a_field_of_the_wrong_type_is_named(self):
        entry = {"name": "ep/npb:S/openmp:0/reduce/f64", "run_type": "iteration", "suite": "ep", "problem": "npb:S",
                 "backend": "openmp", "variant": "reduce", "precision": "f64", "timed_iterations": "one"}
        with self.assertRaises(records.RecordsError) as e:
            records.read({"context": {}, "benchmarks": [entry]}, "bad.json")
        self.assertIn("bad.json: ep/npb:S/openmp:0/reduce/f64: timed_iterations is \"one\", not an integer", str(e.exception))
        entry["timed_iterations"] = True  # a boolean is no count
        with self.assertRaises(records.RecordsError):
            records.read({"context": {}, "benchmarks": [entry]}, "bad.json")
        del entry["timed_iterations"]
        del entry["suite"]
        with self.assertRaises(records.RecordsError) as e:
            records.read({"context": {}, "benchmarks": [entry]}, "bad.json")
        self.assertIn("no 'suite'", str(e.exception))
        for bad in ([], {"context": {}}, {"benchmarks": {}}, {"benchmarks": [], "context": []}, {"benchmarks": [3]}):
            with self.assertRaises(records.RecordsError):
                records.read(bad, "bad.json")

    def test_report_names_a_mistyped_field(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.json")
            with open(path, "w") as f:
                json.dump({"context": {}, "benchmarks": [{
                    "name": "x", "run_name": "x", "run_type": "iteration", "suite": "ep", "problem": "npb:S",
                    "backend": "openmp", "variant": "reduce", "precision": "f64", "real_time": 1.0,
                    "time_unit": "ns", "verified": "yes"}]}, f)
            r = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "reports", "report.py"), "table", path],
                               capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("Traceback", r.stderr)
        self.assertIn("verified is \"yes\", not a boolean", r.stderr)


if __name__ == "__main__":
    unittest.main()
