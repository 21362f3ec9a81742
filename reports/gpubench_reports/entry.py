"""The report programs' entry: main() run, and a module missing from the Python that runs them
(another than Debian's, which scripts/setup provides) said in a line, exit 2, not a traceback."""
import sys
from typing import Callable


def run(main: Callable[[], int], program: str) -> None:
    try:
        sys.exit(main())
    except ModuleNotFoundError as e:
        print(f"gpubench {program}: this Python ({sys.executable}) has no module {e.name!r}: run it as "
              f"`gpubench {program}`, which uses Debian's /usr/bin/python3 with python3-scipy and python3-matplotlib "
              "(scripts/setup installs them), or name a Python that has them in GPUBENCH_PYTHON", file=sys.stderr)
        sys.exit(2)
