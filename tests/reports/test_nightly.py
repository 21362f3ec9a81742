#!/usr/bin/python3
"""The nightly tracking end to end (gpubench track run, check, publish) on this machine's CPU.

    test_nightly.py make DIR       eight nights of a small tracked set from commit aaaaaaa, then a
                                   night of commit bbbbbbb with a planted 2x slowdown (the test
                                   hook GPUBENCH_SLOWDOWN) in one kernel (GEMM's naive f64)
    test_nightly.py check DIR      track check reports that slowdown, with bbbbbbb, and nothing
                                   else; writes the dashboard to DIR/site
    test_nightly.py chromium DIR   the dashboard in headless Chromium: it loads without script
                                   errors and shows the planted step (exit 77 without chromium)

The nights are stamped with their commit and date by the test hook GPUBENCH_TRACK_STAMP."""
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import unittest

GPUBENCH = os.environ.get("GPUBENCH_BINARY", "gpubench")
PLANTED = "gemm/256/openmp:0/naive/f64"
NIGHTS = [("aaaaaaa", f"2026-11-{d:02}T03:00:00+0000") for d in range(1, 9)] + [("bbbbbbb", "2026-11-09T03:00:00+0000")]
SLOWDOWN = {"GPUBENCH_SLOWDOWN": "2@naive/f64"}
PLANTED_CHANGE = 1.0  # +100%
MACHINE_NOISE = 0.15  # the largest step of whole runs this shared 2-core machine makes on its own
# Kernels that take milliseconds or more: on two shared cores, shorter ones (and OpenMP's
# reductions) swing by 20% or more for seconds at a time. The slowdown goes into GEMM's naive f64
# kernel, whose runs kept within 1% on one CI machine but whose nightly medians spread over 14%
# (16.7-19.1 ms) on another, where a planted 10% was at times within the noise and rightly not
# reported, and a VM once spread the nights of one commit by 50%: the step planted here (2x) is
# far outside the night-to-night noise of any run the check is not skipped on, so the test checks
# the pipeline (run, re-measure, report with its commit, nothing else), not the check's power
# (reports/track/README.md measures that). EP's serial kernel runs in two modes 8-10% apart (a
# whole run in one of them), the noise a check must not report.
TRACKED = {"repetitions": 11, "runs": [
    {"name": "ep", "args": ["--suite", "ep", "--backend", "openmp", "--problem", "S", "--variant", "serial"]},
    {"name": "gemm", "args": ["--suite", "gemm", "--backend", "openmp", "--problem", "256", "--variant", "naive",
                              "--precision", "all"]}]}


def gpubench(args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([GPUBENCH] + args, capture_output=True, text=True, env=e)


def make(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tracked = os.path.join(folder, "tracked.json")
    with open(tracked, "w") as f:
        json.dump(TRACKED, f)
    env = {"GPUBENCH_TUNING_DB": os.path.join(folder, "tuning-db")}
    for commit, date in NIGHTS:
        night = dict(env, GPUBENCH_TRACK_STAMP=f"{commit}@{date}", **(SLOWDOWN if commit == "bbbbbbb" else {}))
        planted = ["--allow-test-hooks"] if commit == "bbbbbbb" else []
        r = gpubench(["track", "run", "--set", tracked, "--history", os.path.join(folder, "history.sqlite"),
                      "--records", os.path.join(folder, "records")] + planted, night)
        if r.returncode != 0:
            sys.exit(f"track run for {commit} {date} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    print(f"test_nightly: {len(NIGHTS)} nights in {folder}/history.sqlite")
    return 0


def measured_noise(history):
    """This machine's own night-to-night noise, measured in the history made here, by benchmark: the
    spread (max / min - 1) of its run medians over the nights of commit aaaaaaa, which changed
    nothing between them (issue 55 item 14: a margin from the machine's own noise, not a constant
    that another machine's noise outgrows). Each benchmark has its own: one kernel that two shared
    cores swing by 30% says nothing of another's steps."""
    db = sqlite3.connect(history)
    rows = db.execute("SELECT b.name, m.median FROM medians m JOIN runs r ON r.id = m.run_id "
                      "JOIN benchmarks b ON b.id = m.benchmark_id WHERE r.gpubench_commit = 'aaaaaaa'").fetchall()
    db.close()
    by = {}
    for name, median in rows:
        by.setdefault(name, []).append(median)
    return {name: max(v) / min(v) - 1 for name, v in by.items() if len(v) > 1 and min(v) > 0}


def margin(noise):
    """What a check must not report at a benchmark of this noise: its noise with a margin, at least
    MACHINE_NOISE."""
    return max(MACHINE_NOISE, 1.25 * noise + 0.02)


NOT_APART = "site-not-published.txt"  # in DIR: why the check (and so the dashboard) was skipped


class Check(unittest.TestCase):
    folder = None

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.history = os.path.join(self.dir, "history.sqlite")
        shutil.copy(os.path.join(self.folder, "history.sqlite"), self.history)
        self.env = {"GPUBENCH_TUNING_DB": os.path.join(self.folder, "tuning-db")}  # the nights' ceilings
        # What the check must not report: a change within a benchmark's own measured noise (with a
        # margin). The planted 2x must stand clear of its kernel's noise to be told apart.
        self.noise = measured_noise(self.history)
        planted = [name for name in self.noise if name.startswith(PLANTED)]
        if len(planted) != 1:
            self.fail(f"the nights hold {planted} for {PLANTED}: one benchmark expected")
        self.planted = planted[0]
        self.margin = margin(self.noise[self.planted])
        if self.margin >= 0.35:
            why = (f"this machine's nights of one commit spread {self.planted} by {self.noise[self.planted]:.0%}: a "
                   "planted 2x step is not apart from its noise here (run the test on a quieter machine)")
            with open(os.path.join(self.folder, NOT_APART), "w") as f:
                f.write(why + "\n")
            self.skipTest(why)

    def margin_of(self, benchmark):
        """What the check must not report of a benchmark that was not slowed: the machine's noise, the
        largest spread any benchmark showed over the nights of one commit. A shared VM that swings
        one kernel by that much over eight nights may swing another so on the ninth (a CI run
        failed so: one kernel's own eight nights are too few to bound its ninth)."""
        return margin(max([self.noise.get(benchmark, 0.0)] + list(self.noise.values())))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_the_planted_slowdown_is_reported_with_its_commit_and_nothing_else(self):
        # The night's check: the planted kernel changed on tonight's run alone, so it is re-measured
        # (the slowdown still planted, as the commit's code would be) before it is reported.
        verdicts = os.path.join(self.dir, "verdicts.json")
        r = gpubench(["track", "check", "--allow-test-hooks", "--history", self.history, "--json", verdicts],
                     dict(self.env, GPUBENCH_TRACK_STAMP=f"bbbbbbb@{NIGHTS[-1][1]}", **SLOWDOWN))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"REGRESSION  {PLANTED} @ ", r.stdout)
        # (the planted kernel may also have an older step of the machine's own, between runs of one commit)
        line = next(x for x in r.stdout.splitlines() if x.startswith(f"REGRESSION  {PLANTED}") and "since bbbbbbb" in x)
        self.assertIn("since bbbbbbb (2026-11-09), before it aaaaaaa (2026-11-08)", line)
        self.assertIn("2 runs", line)  # tonight's and the re-measured one
        with open(verdicts) as f:
            out = json.load(f)
        # The planted slowdown is reported, blamed on bbbbbbb, at its size. Nothing else is reported
        # at a size this machine does not reach on its own: this shared 2-core machine moves whole
        # runs by up to 14% for seconds at a time (a real step as the check sees it: another
        # kernel may move with bbbbbbb's night and its re-measure, as naive f32 did by 11.6% once).
        reported = [v for v in out["verdicts"] if v["verdict"] != "same" and v.get("commit") != v.get("previous_commit")]
        planted = [v for v in reported if v["benchmark"].startswith(PLANTED)]
        self.assertEqual(len(planted), 1, reported)
        self.assertEqual((planted[0]["commit"], planted[0]["previous_commit"]), ("bbbbbbb", "aaaaaaa"))
        # At its size, as far as this machine's noise lets a run show it: the nights of one commit
        # spread by up to `noise` (the largest of any benchmark), and a night may sit at either end.
        noise = max(self.noise.values()) + 0.1
        low, high = (1 + PLANTED_CHANGE) / (1 + noise) - 1, (1 + PLANTED_CHANGE) * (1 + noise) - 1
        self.assertTrue(low <= planted[0]["change"] <= high,
                        f"{planted} not within {low:+.0%}..{high:+.0%} (the nights' spread: {self.noise})")
        others = [v for v in reported if v not in planted and abs(v.get("change") or 1) >= self.margin_of(v["benchmark"])]
        self.assertEqual(others, [], f"reported beyond this machine's own noise (spread of the nights of one commit: {self.noise})")
        blamed = [x for x in out["alerts"] if x["state"] == "open" and x["commit"] != x["previous_commit"]]
        self.assertIn(PLANTED, [x["benchmark"].split(" @ ")[0] for x in blamed], out["alerts"])
        self.assertEqual([x for x in blamed if not x["benchmark"].startswith(PLANTED)
                          and abs(x["change"]) >= self.margin_of(x["benchmark"])], [], out["alerts"])
        publish = gpubench(["track", "publish", "--history", self.history, "--out", os.path.join(self.folder, "site")])
        self.assertEqual(publish.returncode, 0, publish.stderr)

    def test_without_a_remeasure_it_is_only_suspected(self):
        r = gpubench(["track", "check", "--history", self.history, "--no-remeasure", "--match", self.planted,
                      "--min-effect", str(round(self.margin * 100))], self.env)  # (above its own noise)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"suspected   {PLANTED} @ ", r.stdout)  # (others may be too: one run is not enough)
        self.assertIn("0 regressed", r.stdout)

    def test_the_nights_before_the_slowdown_report_nothing(self):
        db = __import__("sqlite3").connect(self.history)
        night = db.execute("SELECT id FROM runs WHERE gpubench_commit = 'bbbbbbb'").fetchall()
        for (run,) in night:
            for table in ("samples", "medians", "failures"):
                db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run,))
            db.execute("DELETE FROM runs WHERE id = ?", (run,))
        db.commit()
        db.close()
        # This shared 2-core machine moves whole runs by up to 14% (EP's serial kernel has two modes
        # 8-10% apart): with every step of the history now kept open, the check asked of each
        # benchmark is one for changes above its own noise.
        for benchmark in sorted(self.noise):
            with self.subTest(benchmark=benchmark):
                effect = round(self.margin_of(benchmark) * 100)
                if effect >= 100:  # check takes effects below 100%: nothing to tell apart from such noise
                    self.skipTest(f"this machine's nights of one commit spread a benchmark by {effect}% or more "
                                  f"({self.noise}): no change of {benchmark} is apart from that noise here")
                r = gpubench(["track", "check", "--history", self.history, "--match", benchmark,
                              "--min-effect", str(effect)], self.env)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("0 failing, 0 regressed, 0 acknowledged, 0 improved, 0 suspected", r.stdout)

    def test_a_bad_tracked_set_is_named(self):
        bad = os.path.join(self.dir, "set.json")
        with open(bad, "w") as f:
            json.dump({"repetitions": 5, "runs": [{"name": "x", "args": ["--suite", "ep", "--out", "y.json"]}]}, f)
        r = gpubench(["track", "run", "--set", bad, "--history", self.history])
        self.assertEqual(r.returncode, 3)
        self.assertIn("set.json: not a tracked set: run 'x'", r.stderr)
        r = gpubench(["track", "run", "--only", "nothere", "--history", self.history])
        self.assertEqual(r.returncode, 3)
        self.assertIn("no run named nothere", r.stderr)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


class Dashboard(unittest.TestCase):
    folder = None
    chromium = None
    no_site = None  # why the nights' dashboard was not published, where the check was skipped

    def site(self):
        if self.no_site:
            self.skipTest(self.no_site)
        return os.path.join(self.folder, "site")

    def dom(self, page):
        r = subprocess.run([self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
                            "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + page],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        self.assertNotIn("Uncaught", r.stderr)  # a script error reaches the console log
        return r.stdout

    def test_the_summary_loads_and_names_the_planted_step(self):
        site = self.site()
        dom = self.dom(os.path.join(site, "index.html"))
        self.assertIn('data-ready="1"', dom)  # the page's script ran to its end
        self.assertNotRegex(dom, "<html[^>]*data-script-errors")  # the page's error handler marks them there
        rows = [x for x in dom.split("<tr") if 'data-verdict="regression"' in x and PLANTED in x and "bbbbbbb" in x]
        self.assertEqual(len(rows), 1, rows)
        self.assertIn('data-state="open"', rows[0])
        self.assertIn(PLANTED, rows[0])
        self.assertIn("bbbbbbb", rows[0])
        self.assertIn("+", rows[0])
        # No improvement blamed on a change of code (one between runs of one commit, this shared
        # machine's own, may be listed: its "since" and "before it" commits are the same).
        import re
        for row in [x for x in dom.split("<tr") if 'data-verdict="improvement"' in x]:
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
            self.assertEqual(cells[3], cells[5], row)

    def test_the_benchmark_page_marks_the_step_and_renders(self):
        site = self.site()
        with open(os.path.join(site, "verdicts.json")) as f:
            page = next(v["page"] for v in json.load(f) if v["benchmark"].startswith(PLANTED))
        dom = self.dom(os.path.join(site, page))
        self.assertIn('data-ready="1"', dom)
        self.assertNotRegex(dom, "<html[^>]*data-script-errors")  # the page's error handler marks them there
        self.assertIn('class="step" data-commit="bbbbbbb"', dom)
        shot = os.path.join(self.folder, "dashboard.png")
        if os.path.exists(shot):
            os.remove(shot)
        r = subprocess.run([self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1200,800", f"--screenshot={shot}", "file://" + os.path.join(site, page)],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        self.assertEqual(png_size(shot), (1200, 800))
        self.assertGreater(os.path.getsize(shot), 20000)  # a drawn chart, not a blank page


    def test_no_two_labels_overlap_at_5_20_and_60_runs(self):
        # Issue 32 item 10: the page measures its own text boxes once drawn (data-label-overlaps).
        # Steps close together, a wild run and several runs a day are the hard cases.
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from test_track import nights
        work = tempfile.mkdtemp()
        try:
            history = os.path.join(work, "h.sqlite")
            series = {5: [1.0, 1.0, 1.0, 1.3, 1.3], 20: [1.0] * 6 + [1.2] * 3 + [1.0] * 3 + [38] + [1.4] * 7,
                      60: [1.0] * 8 + [1.1] * 3 + [1.25] * 3 + [1.0] * 3 + [0.8] * 3 + [1.0] * 20 + [40] + [1.3] * 19}
            for n, levels in series.items():
                nights(history, levels, name=f"cg/{n}/openmp:0/classic/f64 @ cpu")
            db = sqlite3.connect(history)  # the 60-run one: three runs a day
            db.execute("UPDATE runs SET date = '2026-11-' || printf('%02d', 1 + (id - 26) / 3) || 'T0' || ((id - 26) % 3) "
                       "|| ':15:00' WHERE id > 25")
            db.commit()
            db.close()
            site = os.path.join(work, "site")
            r = gpubench(["track", "publish", "--history", history, "--out", site])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(site, "verdicts.json")) as f:
                pages = {v["benchmark"].split("/")[1]: v["page"] for v in json.load(f)}
            for page in ["index.html"] + [pages[str(n)] for n in series]:
                dom = self.dom(os.path.join(site, page))
                self.assertIn('data-label-overlaps="0"', dom, page)
                if page != "index.html":
                    self.assertIn('class="step"', dom)
            self.assertIn("and time (UTC)", dom)  # several runs a day: their labels carry the time
            self.assertIn('class="apart"', dom)   # the 40x run is drawn on the edge
        finally:
            shutil.rmtree(work)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "check", "chromium"):
        sys.exit(__doc__)
    mode, folder = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "make":
        return make(folder)
    if not os.path.exists(os.path.join(folder, "history.sqlite")):
        sys.exit(f"no history in {folder}: run test_nightly.py make {folder} first")
    if mode == "chromium":
        Dashboard.chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not Dashboard.chromium:
            print("SKIPPED: the dashboard test needs chromium (Debian's chromium package; scripts/setup installs it)")
            return 77
        if os.path.exists(os.path.join(folder, NOT_APART)):
            with open(os.path.join(folder, NOT_APART)) as f:
                Dashboard.no_site = "the check published no dashboard: " + f.read().strip()
        elif not os.path.exists(os.path.join(folder, "site", "index.html")):
            sys.exit(f"no dashboard in {folder}/site: run test_nightly.py check {folder} first")
    Check.folder = Dashboard.folder = folder
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Check if mode == "check" else Dashboard)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.skipped:  # ctest's SKIP_RETURN_CODE: a skip is said, not passed
        print("SKIPPED: " + "; ".join(sorted({why for _, why in result.skipped})))
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
