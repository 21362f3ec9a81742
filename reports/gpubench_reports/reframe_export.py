"""gpubench track export-reframe: the history's reference values per system partition, for ReFrame.

Writes into --out:
- gpubench-references.yaml: an external reference file as ReFrame 4.10 documents them (the
  `reference = {'$ref': FILE}` of a test; reframe/core/pipeline.py, "External references"): the
  test's class name, then `$index: ['$partition', 'point']`, then per system partition
  ("SYSTEM:PARTITION") and per gpubench point its performance variable `time_per_iteration` as
  [reference, lower, upper, unit]: the benchmark's latest level (the check's fitted level of its
  newest stretch of runs), no lower bound (faster is never a failure), and an upper bound of
  max(3 sigma, --min-effect) from the benchmark's measured night-to-night noise.
- gpubench_points.json: each point's gpubench run arguments (suite, problem, backend, device,
  variant, precision, and the tracked run's own options);
- gpubench_check.py: a ReFrame test, GpubenchPoint, parameterised by those points, that runs
  `gpubench run ... --format json` and reads the point's median time per iteration from its JSON.

A benchmark tracked without Slurm is listed under partition DEFAULT_PARTITION (--partition names
it). Energy and ratio series, and the Slurm jobs' own series, are left out: ReFrame checks the
time of a point.
"""
import errno
import json
import math
import os
import re

from .errors import UsageError
from .files import write_atomic
from .detection import assess_all, noise_of
from .history import JOB, TrackError, base_name, partition_of, unit_of

TEST_CLASS = "GpubenchPoint"
PERF_VARIABLE = "time_per_iteration"
CHECK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "reframe", "gpubench_check.py")
POINT = re.compile(r"^(?P<suite>[^/]+)/(?P<problem>[^/]+)/(?P<backend>[a-z_]+):(?P<index>\d+)/(?P<variant>[^/]+)/"
                   r"(?P<precision>[^/ ]+) @ (?P<device>.+)$")


def yaml_text(value):
    """A YAML scalar for a string: JSON's double-quoted form (YAML 1.2 reads it as the same string)."""
    return json.dumps(value)


def references(db, options, system, default_partition):
    """{partition fullname: {point: [ref ms, None, upper, 'ms']}}, {point: run arguments}."""
    refs, points = {}, {}
    for a in assess_all(db, options):
        if not a.runs or a.failure or a.name.startswith(JOB) or unit_of(a.name)[0] != "ms":
            continue
        partition = partition_of(a.name)
        point = base_name(a.name)
        m = POINT.match(point)
        if not m or "[" in point:
            continue
        level = a.levels[-1][2] if a.levels else a.runs[-1][3]
        sigma = noise_of([math.log(r[3]) for r in a.runs]) or 0.0
        upper = max(options.min_effect, 3 * math.expm1(sigma))
        refs.setdefault(f"{system}:{partition or default_partition}", {})[point] = [
            float(f"{level * 1e3:.6g}"), None, round(upper, 4), "ms"]
        points[point] = ["--suite", m["suite"], "--problem", m["problem"], "--backend", m["backend"], "--device",
                         m["index"], "--variant", m["variant"], "--precision", m["precision"]]
    return refs, points


def reference_yaml(refs):
    lines = ["# gpubench track export-reframe: ReFrame 4.10 external references (reference = {'$ref': ...})",
             f"{TEST_CLASS}:", "  $index: ['$partition', 'point']"]
    for partition, by_point in sorted(refs.items()):
        lines.append(f"  {yaml_text(partition)}:")
        for point, (ref, lower, upper, unit) in sorted(by_point.items()):
            lines.append(f"    {yaml_text(point)}:")
            lines.append(f"      {PERF_VARIABLE}: [{ref!r}, {'null' if lower is None else repr(lower)}, {upper!r}, "
                         f"{yaml_text(unit)}]")
    return "\n".join(lines) + "\n"


def export_reframe(db, options, out, system, default_partition):
    if not re.match(r"^[A-Za-z0-9_.-]+$", system) or not re.match(r"^[A-Za-z0-9_.-]+$", default_partition):
        raise UsageError(f"--system '{system}' and --partition '{default_partition}' must be names (letters, digits, _ . -)")
    refs, points = references(db, options, system, default_partition)
    if not refs:
        raise TrackError("the history holds no benchmark with runs to take a reference from")
    if os.path.exists(out) and not os.path.isdir(out):  # an I/O fault, as publish's (exit 5)
        raise NotADirectoryError(errno.ENOTDIR, "--out is a file, not a folder", out)
    os.makedirs(out, exist_ok=True)
    # Each file whole or as it was (a full disk, a file-size limit: the earlier export stays).
    write_atomic(os.path.join(out, "gpubench-references.yaml"), reference_yaml(refs))
    write_atomic(os.path.join(out, "gpubench_points.json"), json.dumps(points, indent=1, sort_keys=True) + "\n")
    with open(CHECK, "rb") as f:
        write_atomic(os.path.join(out, "gpubench_check.py"), f.read())
    count = sum(len(v) for v in refs.values())
    print(f"gpubench track export-reframe: {count} references over {len(refs)} partitions "
          f"({', '.join(sorted(refs))}) into {os.path.join(out, 'gpubench-references.yaml')}, the test "
          f"{os.path.join(out, 'gpubench_check.py')}")
    return 0
