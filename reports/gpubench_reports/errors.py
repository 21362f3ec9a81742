"""What a failed report or track command says and exits with (the README's table of exit codes)."""
import sys


class ReportError(Exception):
    """Bad input (a file, its records): exit 3."""
    code = 3


class UsageError(ReportError):
    """A command line that cannot be done as asked: exit 2."""
    code = 2


# Exit codes, as the README's table gives them: 0 done; 2 usage; 3 bad input; 5 I/O (a file that
# cannot be read or written; for track, a busy or read-only history); 130 interrupted.
EXIT_IO = 5
EXIT_INTERRUPTED = 130


def failed(prog, e):
    """The one line and exit code of a failure that is not a ReportError."""
    if isinstance(e, KeyboardInterrupt):
        print(f"{prog}: interrupted: nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    where = f"{e.filename}: " if getattr(e, "filename", None) else ""
    print(f"{prog}: {where}{e.strerror or e}", file=sys.stderr)
    return EXIT_IO
