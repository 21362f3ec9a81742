#!/usr/bin/python3
"""gpubench track: nightly performance tracking (gpubench_reports/track_cli.py)."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from gpubench_reports.entry import run  # noqa: E402  (the package beside this program)
from gpubench_reports.track_cli import main  # noqa: E402

if __name__ == "__main__":
    run(main, "track")
