"""The user's project that a tracked set tracks (issue 58 item 1): its git work tree, the state its
runs are stamped with, and its commits measured one by one (track run --commits A..B) or bisected
(track bisect BENCHMARK GOOD BAD), each in a checkout of its own with the set's build command run
there first."""
import json
import os
import subprocess

from .files import write_atomic
from .history import TrackError


def git(folder, *args):
    """git -C FOLDER ARGS: (exit code, its output stripped)."""
    try:
        r = subprocess.run(["git", "-C", folder] + list(args), capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        return 127, "git is not installed"
    except subprocess.TimeoutExpired:
        return 124, "git did not answer within 60 s"
    return r.returncode, (r.stdout if r.returncode == 0 else r.stderr).strip()


def project_of(set_path, named, own):
    """The work tree a tracked set's runs are stamped with: the one it names (an error if that is no git
    work tree), else the one the set file lies in, unless that is gpubench's own (its commit is the
    records' gpubench_commit already) or there is none (None)."""
    folder = os.path.dirname(os.path.abspath(set_path))
    where = os.path.normpath(os.path.join(folder, named)) if named else folder
    code, top = git(where, "rev-parse", "--show-toplevel")
    if code != 0:
        if named:
            raise TrackError(f"{set_path}: its project {where} is not a git work tree ({top.splitlines()[-1] if top else code})")
        return None
    own = git(own, "rev-parse", "--show-toplevel")
    if not named and own[0] == 0 and os.path.realpath(own[1]) == os.path.realpath(top):
        return None
    return os.path.realpath(top)


def project_state(top):
    """{"path", "commit", "branch", "dirty"} of a project's work tree now (dirty: a change to a tracked
    file or a file git does not ignore)."""
    code, commit = git(top, "rev-parse", "HEAD")
    if code != 0:
        raise TrackError(f"the project {top} has no commit to stamp its runs with ({commit.splitlines()[-1] if commit else code})")
    _, branch = git(top, "rev-parse", "--abbrev-ref", "HEAD")
    code, status = git(top, "status", "--porcelain")
    if code != 0:
        raise TrackError(f"the project {top}: git status failed ({status})")
    return {"path": top, "commit": commit, "branch": branch if branch and branch != "HEAD" else None,
            "dirty": bool(status), "seq": sequence_of(top, commit)}


def sequence_of(top, commit):
    """The commit's place in the project's first-parent history (1 for the root), which orders the
    runs of commits that git dates the same second; None where git cannot count it."""
    code, out = git(top, "rev-list", "--count", "--first-parent", commit, "--")
    return int(out) if code == 0 and out.strip().isdigit() else None


def annotate(target, project=None, date=None):
    """The records gpubench wrote at TARGET, read and written back once: their context carries the
    project's state (`project`) and, for a commit's run, the commit's date (`date`: the history orders
    runs by it, so a range's runs stand in the project's order; when it was measured is kept as
    context.measured_date). Returns the records."""
    try:
        with open(target) as f:
            records = json.load(f)
    except (OSError, ValueError) as e:
        raise TrackError(f"{target}: cannot read the records gpubench wrote ({e})")
    context = records.get("context") if isinstance(records, dict) else None
    if isinstance(context, dict) and (project or date):
        if project:
            context["project"] = project
        if date:
            context["measured_date"] = context.get("date")
            context["date"] = date
        try:
            write_atomic(target, json.dumps(records, indent=2) + "\n")
        except OSError as e:
            raise TrackError(f"{target}: cannot stamp the records with the project's commit ({e.strerror or e})")
    return records


def commits_in(top, spec):
    """The commits of a range A..B (git's meaning: B's ancestors that are not A's), oldest first, or
    of one commit; TrackError naming what git did not know."""
    if ".." in spec:
        a, _, b = spec.partition("..")
        if not a or not b or b.startswith("."):
            raise TrackError(f"--commits {spec}: not A..B (two commits, branches or tags of the project)")
        code, out = git(top, "rev-list", "--reverse", "--first-parent", f"{a}..{b}", "--")
    else:
        code, out = git(top, "rev-parse", "--verify", "--end-of-options", spec + "^{commit}")
    if code != 0:
        raise TrackError(f"--commits {spec}: not commits of the project {top} ({out.splitlines()[-1] if out else code})")
    commits = out.split()
    if not commits:
        raise TrackError(f"--commits {spec}: no commits in that range of the project {top}")
    return commits


def resolve(top, name):
    """A commit, branch or tag of the project as its full hash."""
    code, out = git(top, "rev-parse", "--verify", "--end-of-options", name + "^{commit}")
    if code != 0:
        raise TrackError(f"'{name}' is not a commit of the project {top} ({out.splitlines()[-1] if out else code})")
    return out


def describe_commit(top, commit):
    """(committer date, ISO 8601; subject) of a commit."""
    _, out = git(top, "show", "-s", "--format=%cI%n%s", commit)
    date, _, subject = out.partition("\n")
    return date, subject


class Checkout:
    """One commit of the project in a scratch folder of its own (a clone sharing the project's objects:
    the project's own work tree and .git are not written), its build command run there."""

    def __init__(self, top, scratch):
        self.top, self.folder = top, os.path.join(scratch, "checkout")
        code, out = git(scratch, "clone", "-q", "--shared", "--no-checkout", top, self.folder)
        if code != 0:
            raise TrackError(f"cannot clone the project {top} into {self.folder} ({out})")

    def at(self, commit, build):
        """The checkout at `commit`, built with the set's build command (a shell command, run in the
        checkout's top folder with GPUBENCH_PROJECT_DIR and GPUBENCH_PROJECT_COMMIT set)."""
        code, out = git(self.folder, "checkout", "-q", "--force", "--detach", commit)
        if code == 0:
            code, out = git(self.folder, "clean", "-q", "-d", "-f", "-x")
        if code != 0:
            raise TrackError(f"cannot check out {commit[:12]} of the project {self.top} ({out})")
        if build:
            env = dict(os.environ, GPUBENCH_PROJECT_DIR=self.folder, GPUBENCH_PROJECT_COMMIT=commit)
            r = subprocess.run(["/bin/sh", "-c", build], cwd=self.folder, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                log = (r.stdout + r.stderr).strip().splitlines()[-20:]
                raise TrackError(f"the set's build command ({build}) failed at {commit[:12]} (exit {r.returncode}):\n  "
                                 + "\n  ".join(log))
        return self.folder


def rebased(args, top, folder):
    """A set entry's arguments with the paths into the project's work tree moved into the checkout's."""
    out = []
    for a in args:
        for prefix in ("", "--spec="):
            path = os.path.realpath(a[len(prefix):]) if a.startswith(prefix) and os.path.isabs(a[len(prefix):]) else ""
            if path and (path == top or path.startswith(top + os.sep)):
                a = prefix + folder + path[len(top):]
                break
        out.append(a)
    return out
