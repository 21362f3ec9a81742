"""gpubench track publish: the history as a static site (no server): index.html, a summary of
what changed with a filterable table of every benchmark, and one page per benchmark with its
time series (the median of each run, the spread of its repetitions, the fitted levels and each
step marked with its commit)."""
import datetime
import html
import json
import os

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.regression, .failed { color: #b00020; font-weight: bold; } .suspected { color: #b36b00; font-weight: bold; }
.improvement { color: #1b7a1b; font-weight: bold; } .new, .same { color: #666; }
.meta { color: #555; } input { font-size: 14px; padding: 3px 6px; width: 28em; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
"""

# Marks the page loaded and records any script error in the page itself (the dashboard's test reads both).
GUARD = ("<script>window.addEventListener('error', function (e) { document.documentElement.setAttribute("
         "'data-script-errors', (document.documentElement.getAttribute('data-script-errors') || '') + e.message + ';'); });"
         "</script>")
FILTER = """<script>
function filterRows() {
  var words = document.getElementById('filter').value.toLowerCase().split(/\\s+/).filter(Boolean);
  var shown = 0;
  document.querySelectorAll('#all tbody tr').forEach(function (row) {
    var text = row.getAttribute('data-name');
    var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
    row.style.display = keep ? '' : 'none';
    if (keep) shown++;
  });
  document.getElementById('shown').textContent = shown;
}
document.addEventListener('DOMContentLoaded', function () {
  document.getElementById('filter').addEventListener('input', filterRows);
  filterRows();
  document.documentElement.setAttribute('data-ready', '1');
});
</script>"""
READY = ("<script>document.addEventListener('DOMContentLoaded', function () {"
         " document.documentElement.setAttribute('data-ready', '1'); });</script>")

E = html.escape


def page(title, body, script):
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{GUARD}<title>{E(title)}</title>"
            f"<style>{STYLE}</style>{script}</head><body>\n{body}\n</body></html>\n")


def fmt_ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.4g}"


def change_text(a):
    return f"{a.change * 100:+.1f}%" if a.change is not None else ""


def sparkline(runs, width=160, height=28):
    values = [r[3] for r in runs[-60:]]
    if len(values) < 2:
        return ""
    lo, hi = min(values), max(values)
    span = (hi - lo) or hi or 1
    points = " ".join(f"{i * (width - 4) / (len(values) - 1) + 2:.1f},{height - 3 - (v - lo) / span * (height - 6):.1f}"
                      for i, v in enumerate(values))
    return (f'<svg width="{width}" height="{height}" aria-label="the last {len(values)} medians">'
            f'<polyline points="{points}" fill="none" stroke="#3465a4" stroke-width="1.2"/></svg>')


def chart(a, width=1100, height=420):
    """The benchmark's runs: median (dots), the repetitions' quartiles (bars), each level (lines),
    each step (a dashed line with its commit and change)."""
    runs = a.runs
    n = len(runs)
    left, right, top, bottom = 70, 20, 30, 60
    medians = [r[3] for r in runs]  # the axis follows the medians; a wild quartile is cut at its edge
    lo, hi = min(medians), max(medians)
    pad = max((hi - lo) * 0.25, hi * 0.03)
    lo, hi = max(lo - pad, 0), hi + pad
    w, h = width - left - right, height - top - bottom

    def x(i):
        return left + (i + 0.5) * w / n

    def y(v):
        return top + h - (v - lo) / (hi - lo) * h

    out = [f'<svg id="chart" width="{width}" height="{height}" role="img" aria-label="{E(a.name)}">',
           f'<defs><clipPath id="plot"><rect x="{left}" y="{top}" width="{w}" height="{h}"/></clipPath></defs>',
           f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafafa" stroke="#ccc"/>']
    for k in range(6):  # y ticks
        v = lo + (hi - lo) * k / 5
        out.append(f'<line x1="{left}" x2="{left + w}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e4e4e4"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{fmt_ms(v)}</text>')
    out.append(f'<text x="14" y="{top + h / 2}" transform="rotate(-90 14 {top + h / 2})" text-anchor="middle">'
               'ms per iteration (median; bars: quartiles of the repetitions)</text>')
    ticks = max(1, n // 10)
    for i in range(0, n, ticks):
        out.append(f'<text x="{x(i):.1f}" y="{top + h + 16}" text-anchor="middle">{E(runs[i][1][:10])}</text>')
    out.append('<g clip-path="url(#plot)">')
    for s, e, level in a.levels:  # the fitted levels
        out.append(f'<line class="level" x1="{x(s) - w / n / 2:.1f}" x2="{x(e - 1) + w / n / 2:.1f}" y1="{y(level):.1f}" '
                   f'y2="{y(level):.1f}" stroke="#888" stroke-width="2" opacity="0.7"/>')
    bar = max(1.0, min(6.0, w / n * 0.6))
    dot = max(1.2, min(3.5, w / n * 0.4))
    for i, r in enumerate(runs):
        out.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(r[4]):.1f}" y2="{y(r[5]):.1f}" stroke="#9db7d9" '
                   f'stroke-width="{bar:.1f}"/><circle cx="{x(i):.1f}" cy="{y(r[3]):.1f}" r="{dot:.1f}" fill="#204a87">'
                   f'<title>{E(r[2])} {E(r[1])}: {fmt_ms(r[3])} ms ({r[6]} repetitions)</title></circle>')
    out.append("</g>")
    for s, change in a.steps:
        colour = "#b00020" if change > 0 else "#1b7a1b"
        out.append(f'<g class="step" data-commit="{E(runs[s][2])}"><line x1="{x(s) - w / n / 2:.1f}" '
                   f'x2="{x(s) - w / n / 2:.1f}" y1="{top}" y2="{top + h}" stroke="{colour}" stroke-dasharray="5,4" '
                   f'stroke-width="1.5"/><text x="{x(s) - w / n / 2 + 4:.1f}" y="{top + 14}" fill="{colour}">'
                   f'{E(runs[s][2])} {change * 100:+.1f}%</text></g>')
    dates = "each run's date" if ticks == 1 else f"the date of every {ticks}th run"
    out.append(f'<text x="{left + w / 2}" y="{height - 12}" text-anchor="middle">runs, oldest to newest ({n}; {dates})</text></svg>')
    return "".join(out)


def benchmark_page(a, index_name):
    head = f'<p><a href="../{index_name}">all benchmarks</a></p><h1>{E(a.name)}</h1>'
    if not a.runs:
        return page(a.name, head + f'<p class="failed">no run measured it: {E(a.failure or "")}</p>', READY)
    body = [head, f'<p class="meta">{len(a.runs)} runs, {E(a.runs[0][1][:10])} to {E(a.runs[-1][1][:10])}. '
                  f'Tonight: <span class="{a.verdict}">{E(a.verdict)}</span> {E(change_text(a))}'
                  + (f' (p = {a.p:.2g})' if a.p is not None and a.verdict != "same" else "")
                  + (f': {E(a.failure)}' if a.failure else "") + '</p>', chart(a)]
    if a.steps:
        body.append("<h2>Steps</h2><table><tr><th>first run</th><th>commit</th><th>before it</th><th>change</th></tr>")
        for s, change in a.steps:
            cls = "regression" if change > 0 else "improvement"
            body.append(f'<tr class="steprow"><td>{E(a.runs[s][1])}</td><td>{E(a.runs[s][2])}</td><td>{E(a.runs[s - 1][2])}</td>'
                        f'<td class="num {cls}">{change * 100:+.1f}%</td></tr>')
        body.append("</table>")
    body.append("<h2>The last runs</h2><table><tr><th>date</th><th>commit</th><th>median (ms)</th>"
                "<th>quartiles (ms)</th><th>repetitions</th></tr>")
    for r in reversed(a.runs[-20:]):
        body.append(f'<tr><td>{E(r[1])}</td><td>{E(r[2])}</td><td class="num">{fmt_ms(r[3])}</td>'
                    f'<td class="num">{fmt_ms(r[4])} - {fmt_ms(r[5])}</td><td class="num">{r[6]}</td></tr>')
    body.append("</table>")
    return page(a.name, "\n".join(body), READY)


def publish(db, assessed, out, title, history):
    os.makedirs(os.path.join(out, "b"), exist_ok=True)
    runs, first, last = db.execute("SELECT count(*), min(date), max(date) FROM runs").fetchone()
    machines = [m for (m,) in db.execute("SELECT DISTINCT machine FROM runs ORDER BY machine")]
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    changed = [a for a in assessed if a.verdict in ("regression", "suspected", "failed", "improvement")]
    order = {"failed": 0, "regression": 1, "suspected": 2, "improvement": 3}
    changed.sort(key=lambda a: (order[a.verdict], a.name))
    body = [f"<h1>{E(title)}</h1>",
            f'<p class="meta">{len(assessed)} benchmarks, {runs} runs from {E((first or "")[:10])} to '
            f'{E((last or "")[:10])} on {E(", ".join(machines))}. History: {E(history)}. Published {generated}.</p>',
            "<h2>What changed</h2>"]
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
        body.append('<p id="nothing-changed">Nothing changed: no regression, improvement or failure in the recent runs.</p>')
    body.append('<h2>Every benchmark</h2><p><input id="filter" placeholder="filter: words of the name, e.g. cuda f64 cg">'
                ' <span id="shown"></span> shown</p><table id="all"><thead><tr><th>benchmark</th><th>runs</th>'
                "<th>last median (ms)</th><th>last commit</th><th>tonight</th><th>the last 60 runs</th></tr></thead><tbody>")
    for a in sorted(assessed, key=lambda a: a.name):
        last_run = a.runs[-1] if a.runs else None
        body.append(f'<tr data-name="{E(a.name.lower())}"><td><a href="b/{a.bench}.html">{E(a.name)}</a></td>'
                    f'<td class="num">{len(a.runs)}</td><td class="num">{fmt_ms(last_run[3]) if last_run else ""}</td>'
                    f'<td>{E(last_run[2]) if last_run else ""}</td><td class="{a.verdict}">{E(a.verdict)} '
                    f'{E(change_text(a)) if a.verdict != "same" else ""}</td><td>{sparkline(a.runs)}</td></tr>')
    body.append("</tbody></table>")
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(page(title, "\n".join(body), FILTER))
    for a in assessed:
        with open(os.path.join(out, "b", f"{a.bench}.html"), "w") as f:
            f.write(benchmark_page(a, "index.html"))
    with open(os.path.join(out, "verdicts.json"), "w") as f:
        json.dump([{"benchmark": a.name, "page": f"b/{a.bench}.html", "verdict": a.verdict} for a in assessed], f)
    print(f"gpubench track publish: wrote {os.path.join(out, 'index.html')} and {len(assessed)} benchmark pages")
    return 0
