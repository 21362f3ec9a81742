#!/usr/bin/python3
"""gpubench report: tables and figures from gpubench result records (gpubench_reports/report_cli.py)."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from gpubench_reports.entry import run  # noqa: E402  (the package beside this program)
from gpubench_reports.report_cli import main  # noqa: E402

if __name__ == "__main__":
    run(main, "report")
