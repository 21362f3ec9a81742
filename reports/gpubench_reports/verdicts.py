"""The check's verdicts for a CI job (issue 58 item 2): JUnit XML (each benchmark a test case, a
regression or a failing point a failure with its figures), a markdown summary fit for a merge
request's comment, and the history's newest figures in Bencher's Metric Format (BMF JSON)."""
import json
import xml.etree.ElementTree as ET

from .detection import describe, describe_alert
from .history import ENERGY, RATIO, unit_of, what_changed

# Each benchmark's state in the check's count: failing, an open regression, acknowledged, or the
# verdict of tonight's run (track_cli.check's `of`).
LABELS = {"failed": "failing", "open": "regressed", "acked": "acknowledged", "improvement": "improved",
          "suspected": "suspected (one run)", "new": "with too little history", "same": "unchanged"}


def value_text(v, name):
    unit, scale = unit_of(name)
    return f"{v * scale:.4g} {unit}"


def junit(assessed, states, alerts, day):
    """JUnit XML of a check: one testsuite, a testcase per benchmark (classname gpubench.SUITE, its
    name the benchmark's); a failing point or an open regression a <failure> whose message is the
    check's line, a benchmark with too little history <skipped>, the others pass (an acknowledged
    regression, an improvement or a suspected change said in system-out)."""
    by_bench = {}
    for x in alerts:
        if x.state(day) != "closed":
            by_bench.setdefault(x.bench, []).append(x)
    failures = sum(s in ("failed", "open") for s in states)
    skipped = states.count("new")
    root = ET.Element("testsuites", name="gpubench track check", tests=str(len(assessed)), failures=str(failures),
                      errors="0", skipped=str(skipped))
    suite = ET.SubElement(root, "testsuite", name="gpubench track check", tests=str(len(assessed)),
                          failures=str(failures), errors="0", skipped=str(skipped), timestamp=day)
    for a, state in zip(assessed, states):
        case = ET.SubElement(suite, "testcase", classname="gpubench." + a.name.split("/", 1)[0], name=a.name,
                             time="0")
        if a.runs:
            props = ET.SubElement(case, "properties")
            ET.SubElement(props, "property", name="median", value=value_text(a.runs[-1][3], a.name))
            ET.SubElement(props, "property", name="commit", value=str(a.runs[-1][2]))
        lines = [describe_alert(x, day) for x in by_bench.get(a.bench, [])]
        if state == "failed":
            ET.SubElement(case, "failure", type="failed", message=a.failure or "failed").text = describe(a)
        elif state == "open":
            opened = [x for x in by_bench[a.bench] if x.state(day) == "open"]
            ET.SubElement(case, "failure", type="regression",
                          message=describe_alert(opened[0], day)).text = "\n".join(lines)
        elif state == "new":
            ET.SubElement(case, "skipped", message=describe(a))
        elif lines or state in ("improvement", "suspected"):
            ET.SubElement(case, "system-out").text = "\n".join(lines + ([describe(a)] if state != "acked" else []))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def cell(text):
    """A markdown table cell: its pipes escaped, its lines joined."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown(assessed, states, alerts, day, dashboard=None):
    """A summary of a check for a merge request's comment: the counts, then a table per kind of news
    (open regressions and failures first), each benchmark linked to its dashboard page where
    `dashboard` (the published site's URL) is given."""
    def link(a_or_x):
        name = cell(a_or_x.name)
        return f"[{name}]({dashboard.rstrip('/')}/b/{a_or_x.bench}.html)" if dashboard else name
    counts = ", ".join(f"{states.count(k)} {label}" for k, label in LABELS.items() if states.count(k))
    bad = states.count("failed") + states.count("open")
    out = [f"## gpubench track check: {'FAILED' if bad else 'passed'}", "",
           f"{len(assessed)} benchmarks: {counts or 'none'}.", ""]
    opened = [x for x in alerts if x.state(day) == "open"]
    if opened:
        out += ["### Regressions", "", "| benchmark | change | since | before it | p | what changed |",
                "|---|---:|---|---|---:|---|"]
        for x in sorted(opened, key=lambda x: -x.change):
            note = what_changed(x.commit, x.previous_commit).strip(" ()")
            out.append(f"| {link(x)} | {x.change * 100:+.1f}% | `{cell(x.commit)}` {x.date[:10]} | "
                       f"`{cell(x.previous_commit)}` {x.previous_date[:10]} | {x.p:.2g} | {cell(note)} |")
        out.append("")
    failing = [a for a, s in zip(assessed, states) if s == "failed"]
    if failing:
        out += ["### Failing", "", "| benchmark | why |", "|---|---|"]
        out += [f"| {link(a)} | {cell(a.failure)} |" for a in failing]
        out.append("")
    news = [(a, s) for a, s in zip(assessed, states) if s in ("improvement", "suspected")]
    if news:
        out += ["### Other changes", "", "| benchmark | verdict | change | since |", "|---|---|---:|---|"]
        for a, s in news:
            first = a.runs[a.index]
            out.append(f"| {link(a)} | {LABELS[s]} | {a.change * 100:+.1f}% | `{cell(first[2])}` {first[1][:10]} |")
        out.append("")
    acked = [x for x in alerts if x.state(day) == "acknowledged"]
    if acked:
        out += ["### Acknowledged", ""] + [f"- {link(x)}: {x.change * 100:+.1f}% since `{cell(x.commit)}`: "
                                           f"{cell(x.ack_reason)}" for x in acked] + [""]
    if dashboard:
        out += [f"The dashboard: {dashboard}", ""]
    return "\n".join(out)


def bmf(assessed):
    """The newest run of each benchmark in Bencher's Metric Format: {benchmark: {measure: {value,
    lower_value, upper_value}}}, the median and the quartiles of its repetitions. Times go to
    Bencher's built-in `latency` measure (nanoseconds); energy per iteration to `energy` (mJ), the
    OpenCL/CUDA ratio to `opencl-cuda-ratio` (x)."""
    out = {}
    for a in assessed:
        if not a.runs:
            continue
        _, _, _, median, low, high, _ = a.runs[-1]
        if ENERGY + " @ " in a.name:
            measure, scale, name = "energy", 1e3, a.name.replace(ENERGY, "")
        elif RATIO + " @ " in a.name:
            measure, scale, name = "opencl-cuda-ratio", 1.0, a.name.replace(RATIO, "")
        else:
            measure, scale, name = "latency", 1e9, a.name
        out.setdefault(name, {})[measure] = {"value": median * scale, "lower_value": low * scale,
                                             "upper_value": high * scale}
    return json.dumps(out, indent=1, sort_keys=True) + "\n"
