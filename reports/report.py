#!/usr/bin/python3
"""gpubench report: tables and figures from gpubench result records (gpubench_reports/report_cli.py)."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from gpubench_reports.report_cli import main  # noqa: E402  (the package beside this program)

if __name__ == "__main__":
    try:
        sys.exit(main())
    except ModuleNotFoundError as e:  # run by another Python than the one scripts/setup provides
        print(f"gpubench report: this Python ({sys.executable}) has no module {e.name!r}: run it as `gpubench report`, "
              "which uses Debian's /usr/bin/python3 with python3-scipy and python3-matplotlib (scripts/setup "
              "installs them), or name a Python that has them in GPUBENCH_PYTHON", file=sys.stderr)
        sys.exit(2)
