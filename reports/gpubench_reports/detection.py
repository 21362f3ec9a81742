"""The regression check: each benchmark's run medians cut into steps (asv's penalised fit), a step
tested by the rank test (Mann-Whitney U), and the alerts that stay open until closed or acknowledged."""
import datetime
import math
import statistics
import sys

from .errors import UsageError
from .history import TrackError, db_path, load_history, run_stamp, samples_reader, today, utc_now, what_changed, writing


SUSPECT_ALPHA = 0.05  # the rank test's level for a change on tonight's run alone, before its re-measure
SUSPECT_Z = 2.0       # and how far (in night-to-night sigmas) tonight's run must sit off its level


class Options:
    def __init__(self, min_effect=0.02, alpha=0.01, recent=3, penalty=2.0, min_runs=5):
        self.min_effect, self.alpha, self.recent, self.penalty, self.min_runs = min_effect, alpha, recent, penalty, min_runs


def noise_of(logs):
    """Night-to-night noise (sigma of the log run medians) from successive differences, which a
    step moves only once and an outlier twice: 1.4826 * median(|diff|) / sqrt(2)."""
    diffs = [abs(b - a) for a, b in zip(logs, logs[1:])]
    if len(diffs) < 2:
        return None
    # A short history can only have seen its quiet nights: the estimate is widened by 1 + 1/sqrt(k).
    return 1.4826 * statistics.median(diffs) / math.sqrt(2) * (1 + 1 / math.sqrt(len(diffs)))


def segment(logs, sigma, options):
    """Step starts (indices, 0 first) of a penalised least-squares piecewise-constant fit by binary
    segmentation. A split must lower the squared error by more than penalty * sigma^2 * ln(n) and
    move the level by at least min_effect. Steps last at least two runs, except the newest run's,
    which is then a suspected step (tonight alone)."""
    n = len(logs)
    s1, s2 = [0.0], [0.0]
    for v in logs:
        s1.append(s1[-1] + v)
        s2.append(s2[-1] + v * v)

    def cost(a, b):
        return s2[b] - s2[a] - (s1[b] - s1[a]) ** 2 / (b - a)

    threshold = options.penalty * sigma * sigma * math.log(max(n, 3))
    min_shift = math.log1p(options.min_effect)
    starts, todo = [0], [(0, n)]
    while todo:
        a, b = todo.pop()
        best, where = threshold, None
        whole = cost(a, b)
        for k in range(a + 2, b - 1 if b < n else b):  # each side two runs, but the newest may stand alone
            if b - k < 2 and k != n - 1:
                continue
            gain = whole - cost(a, k) - cost(k, b)
            if gain > best and abs((s1[b] - s1[k]) / (b - k) - (s1[k] - s1[a]) / (k - a)) >= min_shift:
                best, where = gain, k
        if where is not None:
            starts.append(where)
            todo += [(a, where), (where, b)]
    return sorted(starts)


def mann_whitney(after, before, regression):
    """One-sided p of the rank test: the repetitions after the step slower (regression) or faster."""
    from scipy.stats import mannwhitneyu
    return float(mannwhitneyu(after, before, alternative="greater" if regression else "less").pvalue)


class Assessment:
    """One benchmark's history, its steps and tonight's verdict."""

    def __init__(self, bench, name, runs):
        self.bench, self.name, self.runs = bench, name, runs  # runs: [(run_id, date, commit, median, low, high, n)]
        self.steps = []        # (index, change): each step's first run, and the level change
        self.levels = []       # (first, end, seconds): the fitted level of each stretch of runs
        self.verdict = "same"  # same, regression, improvement, suspected, new, failed
        self.change = self.p = None
        self.index = None      # the first run of tonight's change
        self.failure = None
        self.regressions = []  # (index, change, p, level before): every confirmed slower step in the history


def assess(a, options, samples_of, failure=None):
    """Fills a's steps and verdict. samples_of(run_ids) gives the repetitions of those runs."""
    a.failure = failure
    if failure:
        a.verdict = "failed"
        return a
    n = len(a.runs)
    logs = [math.log(r[3]) for r in a.runs]
    if n < options.min_runs:
        a.verdict = "new"
        a.levels = [(0, n, math.exp(statistics.median(logs)))] if n else []
        return a
    sigma = noise_of(logs[:-1]) or 0.0  # the noise before tonight's run, which may be the step
    spreads = [math.log(r[5] / r[4]) / 1.349 for r in a.runs if r[4] > 0 and r[5] > 0]
    spread = statistics.median(spreads) / math.sqrt(max(a.runs[-1][6], 1)) if spreads else 0.0
    sigma = max(sigma, spread, 1e-4)  # never below what one run's repetitions say its median can do
    # A run alone is an outlier, never a step: a running median of three takes it out (and keeps
    # every edge of two runs or more); the newest run stays as it is (tonight's may be a step).
    smooth = [statistics.median(logs[max(i - 1, 0):max(i - 1, 0) + 3]) for i in range(n - 1)] + [logs[-1]]
    starts = segment(smooth, sigma, options)
    if n - 1 - starts[-1] >= 2:  # tonight within a longer level: is it alone off it by SUSPECT_Z sigmas?
        level = statistics.median(smooth[max(starts[-1], n - 11):n - 1])
        if abs(logs[-1] - level) > SUSPECT_Z * sigma and abs(math.expm1(logs[-1] - level)) >= options.min_effect:
            starts.append(n - 1)  # a suspected step: its re-measure, a second run, must pass the fit's penalty
    # Each level is the median of its runs after the running median: an outlier inside a short level
    # (a 5x step whose second night read 250x) moves it no more than it moved the fit.
    level = [statistics.median(smooth[s:e]) for s, e in zip(starts, starts[1:] + [n])]
    a.levels = [(s, e, math.exp(v)) for s, e, v in zip(starts, starts[1:] + [n], level)]
    a.steps = [(s, math.exp(level[i] - level[i - 1]) - 1) for i, s in enumerate(starts) if i]
    # Every slower step of the whole history that the rank test confirms, however old: a regression
    # that landed while no check ran is still one (the alerts keep it open until it is dealt with).
    for (first, end, before), (s, e, after) in zip(a.levels, a.levels[1:]):
        if after / before - 1 >= options.min_effect and e - s >= 2:
            p = mann_whitney(samples_of([r[0] for r in a.runs[s:e]][:10]),
                             samples_of([r[0] for r in a.runs[first:end]][-10:]), True)
            if p < options.alpha:
                a.regressions.append((s, after / before - 1, p, before))
    if len(starts) < 2 or starts[-1] < n - options.recent:
        return a
    s, before = starts[-1], starts[-2]
    change = a.steps[-1][1]
    after_ids = [r[0] for r in a.runs[s:]][:10]
    before_ids = [r[0] for r in a.runs[before:s]][-10:]
    p = mann_whitney(samples_of(after_ids), samples_of(before_ids), change > 0)
    a.change, a.p, a.index = change, p, s
    if abs(change) < options.min_effect:
        return a
    if n - s >= 2 and p < options.alpha:
        a.verdict = "regression" if change > 0 else "improvement"
    elif n - s == 1 and p < max(options.alpha, SUSPECT_ALPHA):  # one run: its re-measure has the last word
        a.verdict = "suspected"
    return a


def assess_all(db, options, match=None):
    history, failed = load_history(db, match)
    return [assess(Assessment(b, name, runs), options, samples_reader(db, b), failed.get(b)) for b, name, runs in history]


ALERT_COLUMNS = ("id, benchmark_id, run_id, previous_run_id, change, p, before, detected, closed, closed_run_id, "
                 "ack_reason, ack_date, ack_until")


class Alert:
    """A regression a check found, as the history keeps it."""

    def __init__(self, row):
        (self.id, self.bench, self.run, self.previous, self.change, self.p, self.before, self.detected, self.closed,
         self.closed_run, self.ack_reason, self.ack_date, self.ack_until) = row
        self.name = None
        self.runs_since = 0    # runs from its step to the newest
        self.commit = self.date = self.previous_commit = self.previous_date = None
        self.closed_commit = self.closed_date = None
        self.new = self.moved = self.closed_now = False

    def state(self, today):
        """open, acknowledged or closed; an acknowledgement holds to the end of its --until day."""
        if self.closed:
            return "closed"
        if self.ack_reason and (not self.ack_until or self.ack_until >= today):
            return "acknowledged"
        return "open"

    def lapsed(self, today):
        return not self.closed and bool(self.ack_reason and self.ack_until and self.ack_until < today)


def update_alerts(db, assessed, options, persist=True):
    """The history's alerts brought up to date with the benchmarks assessed. Each regression their
    histories hold (a.regressions) is an alert: the one stored for that step (its first run within
    two runs of it: more nights can move the fitted edge) or a new one. An alert closes when a level
    of two runs or more after its step is back within --min-effect of the level before it. Written
    in one transaction when persist (a read-only history: shown, not kept, and said). Returns every
    alert of those benchmarks."""
    now = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
    stored = {}
    for row in db.execute(f"SELECT {ALERT_COLUMNS} FROM alerts ORDER BY id"):
        stored.setdefault(row[1], []).append(Alert(row))
    alerts = []
    for a in assessed:
        mine = stored.get(a.bench, [])
        position = {r[0]: i for i, r in enumerate(a.runs)}
        matched = set()
        for s, change, p, before in a.regressions:
            near = [x for x in mine if id(x) not in matched and x.run in position and abs(position[x.run] - s) <= 2]
            if near:
                x = near[0]
                x.moved = (x.run, x.change, x.p, x.before) != (a.runs[s][0], change, p, before)
                x.run, x.previous, x.change, x.p, x.before = a.runs[s][0], a.runs[s - 1][0], change, p, before
            else:
                x = Alert((None, a.bench, a.runs[s][0], a.runs[s - 1][0], change, p, before, now, None, None, None,
                           None, None))
                x.new = True
                mine.append(x)
            matched.add(id(x))
        for x in mine:
            at = position.get(x.run)
            if x.closed or at is None:
                continue
            for first, end, level in a.levels:
                if first > at and end - first >= 2 and level <= x.before * (1 + options.min_effect):
                    x.closed, x.closed_run, x.closed_now = now, a.runs[first][0], True
                    break
        stamps = {r[0]: (r[2], r[1]) for r in a.runs}  # (commit, date) of its runs, read once

        def stamp_of(run):
            return stamps.get(run) or run_stamp(db, run)
        for x in mine:
            x.name = a.name
            x.runs_since = len(a.runs) - position[x.run] if x.run in position else 0
            x.commit, x.date = stamp_of(x.run)
            x.previous_commit, x.previous_date = stamp_of(x.previous)
            if x.closed_run is not None:
                x.closed_commit, x.closed_date = stamp_of(x.closed_run)
        alerts += mine
    changed = [x for x in alerts if x.new or x.moved or x.closed_now]
    if persist and changed and db.readonly:
        print(f"gpubench track: {db_path(db)} is read-only: the alerts are shown, not kept", file=sys.stderr)
    elif persist and changed:
        with writing(db):
            for x in changed:
                if x.new:
                    x.id = db.execute("INSERT INTO alerts (benchmark_id, run_id, previous_run_id, change, p, before, "
                                      "detected, closed, closed_run_id) VALUES (?,?,?,?,?,?,?,?,?)",
                                      (x.bench, x.run, x.previous, x.change, x.p, x.before, x.detected, x.closed,
                                       x.closed_run)).lastrowid
                else:
                    db.execute("UPDATE alerts SET run_id = ?, previous_run_id = ?, change = ?, p = ?, before = ?, "
                               "closed = ?, closed_run_id = ? WHERE id = ?",
                               (x.run, x.previous, x.change, x.p, x.before, x.closed, x.closed_run, x.id))
    return alerts


def describe_alert(x, day):
    """The check's line of one alert."""
    state = x.state(day)
    same = what_changed(x.commit, x.previous_commit)
    step = (f"{x.change * 100:+.1f}% (p = {x.p:.2g}, {x.runs_since} run{'s' if x.runs_since != 1 else ''}) "
            f"since {x.commit} ({x.date[:10]}), before it {x.previous_commit} ({x.previous_date[:10]}){same}")
    if state == "closed":
        return (f"closed      {x.name}: {x.change * 100:+.1f}% since {x.commit} ({x.date[:10]}) is over: back within "
                f"the minimum effect of before it since {x.closed_commit} ({x.closed_date[:10]})")
    if state == "acknowledged":
        until = f", until {x.ack_until}" if x.ack_until else ""
        return f"acknowledged {x.name}: {step}; acknowledged {x.ack_date[:10]}{until}: {x.ack_reason}"
    found = "found by this check" if x.new else f"open since {x.detected[:10]}"
    lapsed = f"; its acknowledgement lapsed after {x.ack_until} ({x.ack_reason})" if x.lapsed(day) else ""
    return f"REGRESSION  {x.name}: {step}; {found}{lapsed}"


def alert_json(x, day):
    out = {"benchmark": x.name, "state": x.state(day), "change": x.change, "p": x.p, "commit": x.commit,
           "date": x.date, "previous_commit": x.previous_commit, "runs_since": x.runs_since, "detected": x.detected}
    out.update(commits(x.commit, x.previous_commit))
    if x.closed:
        out.update(closed=x.closed, closed_commit=x.closed_commit, closed_date=x.closed_date)
    if x.ack_reason:
        out["acknowledged"] = {"reason": x.ack_reason, "date": x.ack_date, "until": x.ack_until, "lapsed": x.lapsed(day)}
    return out


def acknowledge(db, options, benchmark, reason, until):
    """track ack: the open regressions of one benchmark (its whole name, or words of it that name one)
    acknowledged, with why, for good or to the end of the day --until."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise UsageError("--reason: say why the regression is accepted (it is shown beside it)")
    if until is not None:
        try:
            datetime.date.fromisoformat(until)
        except ValueError:
            raise UsageError(f"--until {until}: not a date (YYYY-MM-DD)")
        if until < today():
            raise UsageError(f"--until {until}: that day is over")
    assessed = assess_all(db, options)
    alerts = [x for x in update_alerts(db, assessed, options) if not x.closed]
    exact = [x for x in alerts if x.name == benchmark]
    words = benchmark.lower().split()
    chosen = exact or [x for x in alerts if all(w in x.name.lower() for w in words)]
    names = sorted({x.name for x in chosen})
    if not names:
        known = [a.name for a in assessed if a.name == benchmark or all(w in a.name.lower() for w in words)]
        raise TrackError(f"'{benchmark}': " + ("no open regression of " + (known[0] if len(known) == 1 else
                         f"the {len(known)} benchmarks it names") if known else "no benchmark of the history has that name")
                         + " (gpubench track check lists the open ones)")
    if len(names) > 1:
        raise TrackError(f"'{benchmark}' names {len(names)} benchmarks with open regressions; name one:\n  "
                         + "\n  ".join(names))
    now = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
    with writing(db):
        for x in chosen:
            db.execute("UPDATE alerts SET ack_reason = ?, ack_date = ?, ack_until = ? WHERE id = ?",
                       (reason, now, until, x.id))
    for x in chosen:
        print(f"gpubench track: acknowledged {x.name}: {x.change * 100:+.1f}% since {x.commit} ({x.date[:10]})"
              + (f", until {until}" if until else "") + f": {reason}")
    return 0


def commits(after, before):
    """The two parts of a step's commits for the JSON verdicts, where the runs name a project:
    the project's commits (its range) and gpubench's."""
    if not getattr(after, "project", None) or not getattr(before, "project", None):
        return {}
    return {"project_commit": after.project, "previous_project_commit": before.project,
            "project_dirty": after.dirty or before.dirty, "gpubench_commit": after.gpubench,
            "previous_gpubench_commit": before.gpubench}


def describe(a):
    name = a.name
    if a.verdict == "failed":
        return f"FAILED      {name}: {a.failure}"
    if a.verdict == "new":
        return f"new         {name}: {len(a.runs)} runs (a verdict needs 5)"
    if a.index is None or a.verdict == "same":
        return f"same        {name}"
    first, prev = a.runs[a.index], a.runs[a.index - 1]
    runs = len(a.runs) - a.index
    label = {"regression": "REGRESSION", "improvement": "improvement", "suspected": "suspected"}[a.verdict]
    same = what_changed(first[2], prev[2])
    return (f"{label:<11} {name}: {a.change * 100:+.1f}% (p = {a.p:.2g}, {runs} run{'s' if runs > 1 else ''}) "
            f"since {first[2]} ({first[1][:10]}), before it {prev[2]} ({prev[1][:10]}){same}")


def verdict_json(a):
    out = {"benchmark": a.name, "verdict": a.verdict, "runs": len(a.runs)}
    if a.failure:
        out["failure"] = a.failure
    if a.index is not None and a.verdict not in ("same", "new", "failed"):
        out.update(change=a.change, p=a.p, commit=a.runs[a.index][2], date=a.runs[a.index][1],
                   previous_commit=a.runs[a.index - 1][2], runs_since=len(a.runs) - a.index)
        out.update(commits(a.runs[a.index][2], a.runs[a.index - 1][2]))
    return out
