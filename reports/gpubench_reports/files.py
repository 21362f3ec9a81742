"""Reading the files a user names and writing the ones gpubench makes, so that nothing is lost.

Reading: only a regular file (or a named pipe), and never more than such a file can hold, so that
/dev/zero or a directory is refused by name instead of filling the memory. Writing: into a
temporary file beside the target, renamed over it once whole, so that a full disk or a file-size
limit leaves the earlier file as it was."""
import contextlib
import os
import stat
import tempfile
import zlib
from typing import Iterator, Union

from .errors import ReportError

# The most a records file (or any JSON gpubench reads) may hold, and what a gzip may unpack to.
MAX_INPUT_BYTES = 1 << 30


def kind_of(path: str) -> str:
    """'' for a file gpubench may read (regular, a named pipe), else what it is ('a directory')."""
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: str, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of `path` (unpacked when it is named *.gz): a ReportError naming it when it is not a
    file, cannot be read, or holds (or unpacks to) more than `max_bytes`."""
    try:
        kind = kind_of(path)
        if kind:
            raise ReportError(f"{path}: is {kind}, not a file")
        with open(path, "rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror or e}") from None
    if len(raw) > max_bytes:
        raise ReportError(f"{path}: larger than {max_bytes >> 20} MiB, more than such a file holds")
    if path.endswith(".gz"):
        try:
            unpack = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            data = unpack.decompress(raw, max_bytes + 1)
        except zlib.error as e:
            raise ReportError(f"{path}: not gzip data ({e})") from None
        if len(data) > max_bytes or unpack.unconsumed_tail:
            raise ReportError(f"{path}: unpacks to more than {max_bytes >> 20} MiB, more than such a file holds")
        raw = data
    return raw


def write_atomic(path: str, data: Union[str, bytes]) -> None:
    """Writes `data` to `path` through a temporary file in the same directory renamed over it: on any
    failure (a full disk, a file-size limit) `path` is as it was and the temporary is gone. An OSError
    names `path`. A `path` that is not a regular file (/dev/null, /dev/stdout) is written directly."""
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    except OSError as e:
        e.filename = path
        raise
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(path):
            os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except OSError as e:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if not e.filename:
            e.filename = path
        elif e.filename == temporary:
            e.filename = path
        raise


# The largest figure drawn, in pixels a side (Agg's own limit is 2^16).
MAX_FIGURE_PIXELS = 20000


@contextlib.contextmanager
def figure_size_checked(path: str) -> Iterator[None]:
    """Matplotlib's refusal of a figure too large to draw (it lays figures out by drawing them) as
    the UsageError it is: --width, --height and --dpi name a figure that cannot be made."""
    from .errors import UsageError
    try:
        yield
    except ValueError as e:
        if "Image size" not in str(e):
            raise
        raise UsageError(f"{path}: {e} (pixels: lower --width, --height or --dpi)") from None


def save_figure(fig, path: str) -> None:
    """A matplotlib figure written to `path` as write_atomic writes (the format from its extension);
    a UsageError when it would be larger than MAX_FIGURE_PIXELS a side (--width, --height, --dpi)."""
    from .errors import UsageError
    width, height = fig.get_size_inches() * fig.dpi
    if max(width, height) > MAX_FIGURE_PIXELS:
        raise UsageError(f"{path}: a figure of {width:.0f} x {height:.0f} pixels is larger than {MAX_FIGURE_PIXELS} a "
                         "side: lower --width, --height or --dpi")
    import io
    data = io.BytesIO()
    fig.savefig(data, format=os.path.splitext(path)[1][1:].lower())
    write_atomic(path, data.getvalue())


def inches(text: str) -> float:
    """An argparse type: a figure's side in inches, in (0, 100]."""
    import argparse
    import math
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of inches") from None
    if not math.isfinite(value) or not 0 < value <= 100:
        raise argparse.ArgumentTypeError(f"{text}: inches in (0, 100]")
    return value


def dpi(text: str) -> int:
    """An argparse type: dots per inch, a whole number in [10, 1200]."""
    import argparse
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of dots per inch") from None
    if not 10 <= value <= 1200:
        raise argparse.ArgumentTypeError(f"{text}: dots per inch in [10, 1200]")
    return value
