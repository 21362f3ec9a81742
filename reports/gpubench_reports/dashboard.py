"""gpubench track publish: the history as a static site (no server): index.html, a summary of
what changed with a filterable table of every benchmark, and one page per benchmark with its
time series (the median of each run, the spread of its repetitions, the fitted levels and each
step marked with its commit)."""
import datetime
import errno
import html
import json
import math
import os

from .errors import UsageError
from .files import write_atomic
from .history import JOB, base_name, partition_of, unit_of

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.regression, .failed { color: #b00020; font-weight: bold; } .suspected { color: #b36b00; font-weight: bold; }
.improvement { color: #1b7a1b; font-weight: bold; } .new, .same { color: #666; }
.meta { color: #555; } input#filter { font-size: 14px; padding: 3px 6px; width: 28em; }
tr.alert td:not(:first-child):not(:last-child) { white-space: nowrap; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
"""

# Marks the page loaded and records any script error in the page itself (the dashboard's test reads both).
GUARD = ("<script>window.addEventListener('error', function (e) { document.documentElement.setAttribute("
         "'data-script-errors', (document.documentElement.getAttribute('data-script-errors') || '') + e.message + ';'); });"
         "</script>")
# The page's own check of its drawing, for its test: how many pairs of visible text labels overlap.
OVERLAPS = """
function labelOverlaps() {
  var boxes = [];
  document.querySelectorAll('svg text').forEach(function (t) {
    var b = t.getBoundingClientRect();
    if (b.width > 0 && b.height > 0) boxes.push(b);
  });
  var pairs = 0;
  for (var i = 0; i < boxes.length; i++)
    for (var j = i + 1; j < boxes.length; j++) {
      var a = boxes[i], b = boxes[j];
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) pairs++;
    }
  document.documentElement.setAttribute('data-label-overlaps', String(pairs));
}
"""
FILTER = """<script>""" + OVERLAPS + """
function filterRows() {
  var words = document.getElementById('filter').value.toLowerCase().split(/\\s+/).filter(Boolean);
  var machine = document.getElementById('machine').value;
  var shown = 0;
  document.querySelectorAll('#all tbody tr').forEach(function (row) {
    var text = row.getAttribute('data-name');
    var keep = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
               (machine === '' || row.getAttribute('data-machine') === machine);
    row.style.display = keep ? '' : 'none';
    if (keep) shown++;
  });
  document.getElementById('shown').textContent = shown;
}
document.addEventListener('DOMContentLoaded', function () {
  var select = document.getElementById('machine');
  var asked = /(?:^#|&)machine=([^&]*)/.exec(window.location.hash);  // index.html#machine=NAME picks one
  if (asked) select.value = decodeURIComponent(asked[1]);
  document.getElementById('filter').addEventListener('input', filterRows);
  select.addEventListener('change', filterRows);
  filterRows();
  labelOverlaps();
  document.documentElement.setAttribute('data-ready', '1');
});
</script>"""
READY = ("<script>" + OVERLAPS + "document.addEventListener('DOMContentLoaded', function () {"
         " var log = document.getElementById('log');"
         " if (log) log.addEventListener('change', function () {"
         "  document.getElementById('chart-linear').style.display = log.checked ? 'none' : '';"
         "  document.getElementById('chart-log').style.display = log.checked ? '' : 'none';"
         "  labelOverlaps(); });"
         " labelOverlaps(); document.documentElement.setAttribute('data-ready', '1'); });</script>")

E = html.escape


def page(title, body, script):
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{GUARD}<title>{E(title)}</title>"
            f"<style>{STYLE}</style>{script}</head><body>\n{body}\n</body></html>\n")


def fmt_ms(value, name=""):
    """A series' value in its unit's scale (history.unit_of: ms, mJ or a ratio)."""
    return f"{value * unit_of(name)[1]:.4g}"


def change_text(a):
    return f"{a.change * 100:+.1f}%" if a.change is not None else ""


def axis_range(a):
    """The time range a chart shows: its levels and the runs within 1.5x of them (a run further off
    is drawn apart, so that one wild night does not flatten the rest)."""
    levels = [v for _, _, v in a.levels] or [r[3] for r in a.runs]
    inside = [r[3] for r in a.runs if min(levels) / 1.5 <= r[3] <= max(levels) * 1.5]
    return min(inside + levels), max(inside + levels)


def sparkline(a, width=160, height=28):
    values = [r[3] for r in a.runs[-60:]]
    if len(values) < 2:
        return ""
    lo, hi = axis_range(a)
    values = [min(max(v, lo), hi) for v in values]  # a run off the range sits on its edge
    span = (hi - lo) or hi or 1
    points = " ".join(f"{i * (width - 4) / (len(values) - 1) + 2:.1f},{height - 3 - (v - lo) / span * (height - 6):.1f}"
                      for i, v in enumerate(values))
    return (f'<svg width="{width}" height="{height}" aria-label="the last {len(values)} medians">'
            f'<polyline points="{points}" fill="none" stroke="#3465a4" stroke-width="1.2"/></svg>')


def run_labels(runs):
    """Each run's x label: its date, or its date and time where several runs share a day."""
    days = [r[1][:10] for r in runs]
    if len(set(days)) == len(days):
        return days
    return [f"{r[1][5:10]} {r[1][11:16]}" for r in runs]


def chart(a, log=False, width=1100, height=440):
    """The benchmark's runs: median (dots), the repetitions' quartiles (bars), each level (lines),
    each step (a dashed line with its commit and change). The y axis follows the levels and the
    runs near them: a run far off them (more than 1.5x) is drawn apart, as a triangle on the
    axis's edge (its value on hover), so that one wild night does not flatten the rest. log: a
    logarithmic y axis."""
    runs = a.runs
    n = len(runs)
    left, right, top, bottom = 70, 20, 44, 60
    lo, hi = axis_range(a)
    if log:
        lo, hi = lo / 1.05, hi * 1.05
    else:
        pad = max((hi - lo) * 0.25, hi * 0.03)
        lo, hi = max(lo - pad, 0), hi + pad
    w, h = width - left - right, height - top - bottom

    def x(i):
        return left + (i + 0.5) * w / n

    def y(v):
        v = min(max(v, lo), hi)
        if log:
            return top + h - math.log(v / lo) / math.log(hi / lo) * h
        return top + h - (v - lo) / (hi - lo) * h

    kind = "log" if log else "linear"
    hidden = ' style="display:none"' if log else ""
    out = [f'<svg id="chart-{kind}" class="chart" width="{width}" height="{height}" role="img" '
           f'aria-label="{E(a.name)} ({kind} axis)"{hidden}>',
           f'<defs><clipPath id="plot-{kind}"><rect x="{left}" y="{top}" width="{w}" height="{h}"/></clipPath></defs>',
           f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafafa" stroke="#ccc"/>']
    for k in range(6):  # y ticks, evenly spaced on the axis
        v = lo * (hi / lo) ** (k / 5) if log else lo + (hi - lo) * k / 5
        out.append(f'<line x1="{left}" x2="{left + w}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e4e4e4"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{fmt_ms(v, a.name)}</text>')
    out.append(f'<text x="14" y="{top + h / 2}" transform="rotate(-90 14 {top + h / 2})" text-anchor="middle">'
               f'{unit_of(a.name)[0]} per iteration ({kind} axis; median, bars: quartiles of the repetitions)</text>')
    labels = run_labels(runs)
    ticks = max(1, math.ceil(n / (w / (7 * max(len(t) for t in labels) + 16))))  # labels at least 16 px apart
    for i in range(0, n, ticks):
        out.append(f'<text class="xlabel" x="{x(i):.1f}" y="{top + h + 16}" text-anchor="middle">{E(labels[i])}</text>')
    out.append(f'<g clip-path="url(#plot-{kind})">')
    for s, e, level in a.levels:  # the fitted levels
        out.append(f'<line class="level" x1="{x(s) - w / n / 2:.1f}" x2="{x(e - 1) + w / n / 2:.1f}" y1="{y(level):.1f}" '
                   f'y2="{y(level):.1f}" stroke="#888" stroke-width="2" opacity="0.7"/>')
    bar = max(1.0, min(6.0, w / n * 0.6))
    dot = max(1.2, min(3.5, w / n * 0.4))
    apart = []
    for i, r in enumerate(runs):
        tip = f'<title>{E(r[2])} {E(r[1])}: {fmt_ms(r[3], a.name)} {unit_of(a.name)[0]} ({r[6]} repetitions)</title>'
        if not lo <= r[3] <= hi:
            apart.append((i, r, tip))
            continue
        out.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(r[4]):.1f}" y2="{y(r[5]):.1f}" stroke="#9db7d9" '
                   f'stroke-width="{bar:.1f}"/><circle cx="{x(i):.1f}" cy="{y(r[3]):.1f}" r="{dot:.1f}" fill="#204a87">'
                   f'{tip}</circle>')
    out.append("</g>")
    for i, r, tip in apart:  # off the axis: a triangle on its edge, pointing the way, with the value
        high = r[3] > hi
        edge = top if high else top + h
        d = -1 if high else 1
        out.append(f'<g class="apart"><path d="M{x(i) - 5:.1f},{edge - d * 2:.1f} L{x(i) + 5:.1f},{edge - d * 2:.1f} '
                   f'L{x(i):.1f},{edge - d * 2 + d * 8:.1f} Z" fill="#b36b00">{tip}</path></g>')
    # Step labels in rows above the plot: a label goes to the first row where it clears the one before.
    rows = []
    for s, change in a.steps:
        colour = "#b00020" if change > 0 else "#1b7a1b"
        at = x(s) - w / n / 2
        text = f"{runs[s][2]} {change * 100:+.1f}%"
        row = next((k for k, end in enumerate(rows) if end + 6 <= at), len(rows))
        if row == len(rows):
            rows.append(0)
        rows[row] = at + 4 + 6.5 * len(text)
        out.append(f'<g class="step" data-commit="{E(runs[s][2])}"><line x1="{at:.1f}" x2="{at:.1f}" y1="{top - 14 * row}" '
                   f'y2="{top + h}" stroke="{colour}" stroke-dasharray="5,4" stroke-width="1.5"/>'
                   f'<text x="{at + 4:.1f}" y="{top - 4 - 14 * row}" fill="{colour}">{E(text)}</text></g>')
    if len(rows) > 3:  # more rows than the margin holds: the svg grows upward
        more = 14 * (len(rows) - 3)
        out[0] = out[0].replace(f'height="{height}"', f'height="{height + more}" viewBox="0 {-more} {width} {height + more}"', 1)
    dates = "each run's" if ticks == 1 else f"every {ticks}th run's"
    out.append(f'<text x="{left + w / 2}" y="{height - 12}" text-anchor="middle">runs, oldest to newest ({n}; {dates} '
               f'date{"" if len(labels[0]) == 10 else " and time (UTC)"}'
               + (f"; {len(apart)} off the axis, drawn on its edge" if apart else "") + ")</text></svg>")
    return "".join(out)


def benchmark_page(a, alerts, day, index_name):
    head = f'<p><a href="../{index_name}">all benchmarks</a></p><h1>{E(a.name)}</h1>'
    if not a.runs:
        return page(a.name, head + f'<p class="failed">no run measured it: {E(a.failure or "")}</p>', READY)
    body = [head, f'<p class="meta">{len(a.runs)} runs, {E(a.runs[0][1][:10])} to {E(a.runs[-1][1][:10])}. '
                  f'Tonight: <span class="{a.verdict}">{E(a.verdict)}</span> {E(change_text(a))}'
                  + (f' (p = {a.p:.2g})' if a.p is not None and a.verdict != "same" else "")
                  + (f': {E(a.failure)}' if a.failure else "") + '</p>',
            '<p><label><input type="checkbox" id="log"> logarithmic time axis</label></p>', chart(a), chart(a, log=True)]
    if a.steps:
        body.append("<h2>Steps</h2><table><tr><th>first run</th><th>commit</th><th>before it</th><th>change</th></tr>")
        for s, change in a.steps:
            cls = "regression" if change > 0 else "improvement"
            body.append(f'<tr class="steprow"><td>{E(a.runs[s][1])}</td><td>{E(a.runs[s][2])}</td><td>{E(a.runs[s - 1][2])}</td>'
                        f'<td class="num {cls}">{change * 100:+.1f}%</td></tr>')
        body.append("</table>")
    if alerts:
        body.append("<h2>Regressions</h2>")
        body += alert_rows(alerts, day, lambda x: E(x.name))
    unit = unit_of(a.name)[0]
    body.append(f"<h2>The last runs</h2><table><tr><th>date</th><th>commit</th><th>median ({unit})</th>"
                f"<th>quartiles ({unit})</th><th>repetitions</th></tr>")
    for r in reversed(a.runs[-20:]):
        body.append(f'<tr><td>{E(r[1])}</td><td>{E(r[2])}</td><td class="num">{fmt_ms(r[3], a.name)}</td>'
                    f'<td class="num">{fmt_ms(r[4], a.name)} - {fmt_ms(r[5], a.name)}</td><td class="num">{r[6]}</td></tr>')
    body.append("</table>")
    return page(a.name, "\n".join(body), READY)


MARK = ".gpubench-site"  # in a folder publish made: the files it wrote there (the next publish removes stale ones)


def site_files(out):
    """The files an earlier publish wrote in out ([] for a new or empty folder); None for a folder
    publish did not make."""
    if not os.path.exists(out):
        return []
    if not os.path.isdir(out):
        raise NotADirectoryError(errno.ENOTDIR, "a file, not a folder: nothing was written", out)
    mark = os.path.join(out, MARK)
    if os.path.exists(mark):
        try:
            with open(mark) as f:
                files = json.load(f)["files"]
            if isinstance(files, list) and all(isinstance(x, str) for x in files):
                return files
        except (OSError, ValueError, KeyError, TypeError):
            pass
        raise UsageError(f"--out {out}: its {MARK} is damaged; remove the folder or name another")
    return [] if not os.listdir(out) else None


def alert_rows(alerts, day, link):
    rows = ['<table id="regressions"><tr><th>benchmark</th><th>state</th><th>change</th><th>since commit</th>'
            "<th>first run</th><th>before it</th><th>p</th><th>found</th><th>closed or acknowledged</th></tr>"]
    order = {"open": 0, "acknowledged": 1, "closed": 2}
    for x in sorted(alerts, key=lambda x: (order[x.state(day)], x.name, x.date)):
        state = x.state(day)
        if state == "closed":
            note = f"closed {x.closed[:10]}: back since {E(x.closed_commit)} ({E(x.closed_date[:10])})"
        elif x.ack_reason:
            until = f" until {E(x.ack_until)}" if x.ack_until else ""
            note = (f"{'lapsed' if state == 'open' else 'acknowledged'} {E(x.ack_date[:10])}{until}: {E(x.ack_reason)}")
        else:
            note = ""
        cls = {"open": "regression", "acknowledged": "suspected", "closed": "same"}[state]
        verdict = ' data-verdict="regression"' if state == "open" else ""
        rows.append(f'<tr class="alert" data-state="{state}"{verdict}><td>{link(x)}</td><td class="{cls}">{state}</td>'
                    f'<td class="num">{x.change * 100:+.1f}%</td><td>{E(x.commit)}</td><td>{E(x.date[:10])}</td>'
                    f'<td>{E(x.previous_commit)}</td><td class="num">{x.p:.2g}</td><td>{E(x.detected[:10])}</td>'
                    f"<td>{note}</td></tr>")
    rows.append("</table>")
    return rows


LOCAL = "here"  # the machine key of runs not made through Slurm


def machine_key(name):
    """The machine a benchmark belongs to: its Slurm partition, or LOCAL."""
    return partition_of(name) or LOCAL


def machines_of(assessed):
    """[(key, label)] of the machines the benchmarks ran on: the runs not through Slurm first."""
    keys = sorted({machine_key(a.name) for a in assessed}, key=lambda k: (k != LOCAL, k))
    return [(k, "runs not through Slurm" if k == LOCAL else f"partition {k}") for k in keys]


def machines_page(assessed, fleet, title):
    """Every point measured on more than one machine, a column per machine: its last median, and its
    ratio to the first machine's that has it."""
    by_point = {}
    for a in assessed:
        if a.runs and not a.name.startswith(JOB):
            by_point.setdefault(base_name(a.name), {})[machine_key(a.name)] = a
    rows = []
    for point, cells in sorted(by_point.items()):
        if len(cells) < 2:
            continue
        first = next(cells[k] for k, _ in fleet if k in cells)
        row = [f"<td>{E(point)}</td>"]
        for key, _ in fleet:
            a = cells.get(key)
            if a is None:
                row.append('<td class="num">-</td>')
                continue
            value = a.runs[-1][3]
            ratio = value / first.runs[-1][3] if first.runs[-1][3] else 0
            row.append(f'<td class="num" data-machine="{E(key)}"><a href="b/{a.bench}.html">{fmt_ms(value, a.name)} '
                       f'{unit_of(a.name)[0]}</a>{"" if a is first else f" ({ratio:.2f}x)"}</td>')
        rows.append(f'<tr data-point="{E(point.lower())}">' + "".join(row) + "</tr>")
    head = "".join(f"<th>{E(label)}</th>" for _, label in fleet)
    body = [f"<h1>{E(title)}: the machines side by side</h1>",
            '<p class="meta">Each point measured on more than one machine: its last median on each, and its ratio to the '
            'first machine\'s (left). <a href="index.html">Back to the summary</a>.</p>',
            f'<table id="machines"><thead><tr><th>point</th>{head}</tr></thead><tbody>', *rows, "</tbody></table>"]
    if not rows:
        body.insert(2, '<p id="no-common-points">No point ran on two machines.</p>')
    return page(title + ": machines", "\n".join(body), READY)


def publish(db, assessed, alerts, out, title, history):
    earlier = site_files(out)
    if earlier is None:
        raise UsageError(f"--out {out}: a folder gpubench did not make, holding {len(os.listdir(out))} files "
                         f"(publish would overwrite or mix with them): name a new or empty folder")
    os.makedirs(os.path.join(out, "b"), exist_ok=True)
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    runs, first, last = db.execute("SELECT count(*), min(date), max(date) FROM runs").fetchone()
    machines = [m for (m,) in db.execute("SELECT DISTINCT machine FROM runs ORDER BY machine")]
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    changed = [a for a in assessed if a.verdict in ("suspected", "failed", "improvement")]
    order = {"failed": 0, "suspected": 2, "improvement": 3}
    changed.sort(key=lambda a: (order[a.verdict], a.name))
    opened = {x.bench for x in alerts if x.state(day) == "open"}
    body = [f"<h1>{E(title)}</h1>",
            f'<p class="meta">{len(assessed)} benchmarks, {runs} runs from {E((first or "")[:10])} to '
            f'{E((last or "")[:10])} on {E(", ".join(machines))}. History: {E(history)}. Published {generated}.</p>',
            "<h2>Regressions</h2>"]
    if alerts:
        counts = {k: sum(x.state(day) == k for x in alerts) for k in ("open", "acknowledged", "closed")}
        body.append(f'<p class="meta">{counts["open"]} open, {counts["acknowledged"]} acknowledged (gpubench track ack), '
                    f'{counts["closed"]} closed (their level came back). An open one fails every check until it is '
                    "closed or acknowledged.</p>")
        body += alert_rows(alerts, day, lambda x: f'<a href="b/{x.bench}.html">{E(x.name)}</a>')
    else:
        body.append('<p id="no-regressions">None: no slower step in the history.</p>')
    body.append("<h2>What else changed tonight</h2>")
    if changed:
        body.append('<table id="changed"><tr><th>benchmark</th><th>verdict</th><th>change</th><th>since commit</th>'
                    "<th>first run</th><th>before it</th><th>p</th></tr>")
        for a in changed:
            step = a.index is not None and a.verdict != "failed"
            body.append(f'<tr class="change" data-verdict="{a.verdict}"><td><a href="b/{a.bench}.html">{E(a.name)}</a></td>'
                        f'<td class="{a.verdict}">{E(a.verdict)}{": " + E(a.failure) if a.failure else ""}</td>'
                        f'<td class="num">{E(change_text(a)) if step else ""}</td>'
                        f'<td>{E(a.runs[a.index][2]) if step else ""}</td><td>{E(a.runs[a.index][1][:10]) if step else ""}</td>'
                        f'<td>{E(a.runs[a.index - 1][2]) if step else ""}</td>'
                        f'<td class="num">{f"{a.p:.2g}" if step else ""}</td></tr>')
        body.append("</table>")
    else:
        body.append('<p id="nothing-changed">Nothing else: no suspected change, improvement or failure in the recent runs.</p>')
    fleet = machines_of(assessed)
    options = "".join(f'<option value="{E(key)}">{E(label)}</option>' for key, label in fleet)
    body.append('<h2>Every benchmark</h2><p><input id="filter" placeholder="filter: words of the name, e.g. cuda f64 cg">'
                f' <select id="machine"><option value="">every machine</option>{options}</select>'
                ' <span id="shown"></span> shown' + (' &middot; <a href="machines.html">the machines side by side</a>'
                                                     if len(fleet) > 1 else "") +
                '</p><table id="all"><thead><tr><th>benchmark</th><th>runs</th>'
                "<th>last median</th><th>last commit</th><th>tonight</th><th>the last 60 runs</th></tr></thead><tbody>")
    acked = {x.bench for x in alerts if x.state(day) == "acknowledged"}
    for a in sorted(assessed, key=lambda a: a.name):
        last_run = a.runs[-1] if a.runs else None
        verdict, cls = a.verdict, a.verdict
        if a.verdict in ("same", "regression") and a.bench in opened | acked:
            verdict = "regression open" if a.bench in opened else "regression acknowledged"
            cls = "regression" if a.bench in opened else "suspected"
        body.append(f'<tr data-name="{E(a.name.lower())}" data-machine="{E(machine_key(a.name))}"><td><a href="b/{a.bench}.html">{E(a.name)}</a></td>'
                    f'<td class="num">{len(a.runs)}</td><td class="num">{fmt_ms(last_run[3], a.name) + " " + unit_of(a.name)[0] if last_run else ""}</td>'
                    f'<td>{E(last_run[2]) if last_run else ""}</td><td class="{cls}">{E(verdict)} '
                    f'{E(change_text(a)) if a.verdict != "same" else ""}</td><td>{sparkline(a)}</td></tr>')
    body.append("</tbody></table>")
    written = {"index.html", "verdicts.json", MARK}
    # Each file whole or as it was: a full disk leaves the earlier dashboard's pages readable.
    write_atomic(os.path.join(out, "index.html"), page(title, "\n".join(body), FILTER))
    if len(fleet) > 1:
        write_atomic(os.path.join(out, "machines.html"), machines_page(assessed, fleet, title))
        written.add("machines.html")
    of_bench = {}  # each benchmark's alerts
    for x in alerts:
        of_bench.setdefault(x.bench, []).append(x)
    for a in assessed:
        write_atomic(os.path.join(out, "b", f"{a.bench}.html"), benchmark_page(a, of_bench.get(a.bench, []), day, "index.html"))
        written.add(f"b/{a.bench}.html")
    write_atomic(os.path.join(out, "verdicts.json"), json.dumps(
        [{"benchmark": a.name, "page": f"b/{a.bench}.html", "verdict": a.verdict,
          "regressions": {k: sum(x.state(day) == k for x in of_bench.get(a.bench, []))
                          for k in ("open", "acknowledged", "closed")}} for a in assessed]))
    stale = [x for x in earlier if x not in written and os.path.isfile(os.path.join(out, x))]
    for x in stale:  # the pages of benchmarks no longer published (another --match, a new history)
        os.remove(os.path.join(out, x))
    write_atomic(os.path.join(out, MARK), json.dumps({"files": sorted(written)}, indent=0))
    print(f"gpubench track publish: wrote {os.path.join(out, 'index.html')} and {len(assessed)} benchmark pages"
          + (f"; removed {len(stale)} stale pages of an earlier publish" if stale else ""))
    return 0
