# A ReFrame test of gpubench points, written by `gpubench track export-reframe` beside
# gpubench_points.json (each point's gpubench run arguments) and gpubench-references.yaml (the
# references per system partition, from gpubench's history). Run it with ReFrame 4.10 or newer:
#
#     reframe -C your-site-config.py -c gpubench_check.py -r
#
# with `gpubench` on the PATH of the partitions' nodes (or GPUBENCH set to the program). Each point
# runs `gpubench run ... --format json --out point.json`; the sanity check wants every entry of the
# point verified; the performance variable is the median time per iteration of its repetitions.
import json
import os
import statistics

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import parameter, performance_function, run_before, sanity_function

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "gpubench_points.json")) as f:
    POINTS = json.load(f)


def point_entries(path):
    """The point's repetitions in gpubench's records (Google Benchmark's layout): the entries that
    are not aggregates."""
    with open(path) as f:
        records = json.load(f)
    return [b for b in records.get("benchmarks", []) if b.get("run_type") != "aggregate"]


def median_ms(entries):
    """The median time per iteration of the repetitions, in ms (each entry's real_time in its time_unit)."""
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    return statistics.median(e["real_time"] * scale[e.get("time_unit", "ms")] for e in entries)


@rfm.simple_test
class GpubenchPoint(rfm.RunOnlyRegressionTest):
    point = parameter(sorted(POINTS))
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    executable = os.environ.get("GPUBENCH", "gpubench")
    reference = {"$ref": "gpubench-references.yaml"}
    tags = {"gpubench"}

    @run_before("run")
    def set_arguments(self):
        self.executable_opts = ["run"] + POINTS[self.point] + ["--repetitions", "5", "--format", "json", "--out",
                                                               "point.json"]

    @sanity_function
    def verified(self):
        path = os.path.join(self.stagedir, "point.json")
        entries = point_entries(path) if os.path.exists(path) else []
        return sn.all([sn.assert_true(entries, msg="gpubench wrote no repetition of the point")] +
                      [sn.assert_true(e.get("verified") and not e.get("error_occurred"),
                                      msg=f"not verified: {e.get('error_message', e.get('name'))}") for e in entries])

    @performance_function("ms")
    def time_per_iteration(self):
        return median_ms(point_entries(os.path.join(self.stagedir, "point.json")))
