#!/usr/bin/python3
"""The Debian package works away from the source tree (issue 31 item 2).

`cpack -G DEB` makes the package from this build; `dpkg-deb -x` unpacks it into a temporary folder;
then, in a mount namespace of its own (unshare -m) with a tmpfs over the source tree, the build
tree and the CUDA toolkit, and from /tmp:
- `gpubench --suite cg --backend openmp` runs and verifies (the committed tuning database read from
  <prefix>/share/gpubench);
- `gpubench report table` reads its records (the report programs from <prefix>/share/gpubench);
- every library the build put in lib/gpubench is in the package, the program links no CUDA
  library, and `--list-devices --backend cuda` says which library is
  missing where the toolkit cannot be seen.
Run as: test_install.py BUILD_DIR SOURCE_DIR (ctest passes both). Exit 77 (skipped, with why) where
no mount namespace can be made (not root, and no user namespaces).
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

BUILD, SOURCE = (os.path.abspath(a) for a in sys.argv[1:3])
CUDA = "/usr/local/cuda"


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(77)


def fail(why, output=""):
    print(f"FAILED: {why}\n{output}")
    sys.exit(1)


def run(command, **kw):
    return subprocess.run(command, capture_output=True, text=True, **kw)


def main():
    for tool in ("cpack", "dpkg-deb", "unshare"):
        if not shutil.which(tool):
            skip(f"{tool} is not installed")
    namespace = None
    for flags in (["-m"], ["-r", "-m"]):  # root (CI); else a user namespace
        if run(["unshare"] + flags + ["true"]).returncode == 0:
            namespace = flags
            break
    if not namespace:
        skip("unshare -m cannot make a mount namespace here (not root, no user namespaces)")
    work = tempfile.mkdtemp(prefix="gpubench-install-", dir="/tmp")
    try:
        packaged = run(["cpack", "-G", "DEB", "-B", os.path.join(work, "package"), "--config",
                        os.path.join(BUILD, "CPackConfig.cmake")], cwd=BUILD)
        debs = glob.glob(os.path.join(work, "package", "*.deb"))
        if packaged.returncode != 0 or len(debs) != 1:
            fail("cpack -G DEB made no package", packaged.stdout + packaged.stderr)
        info = run(["dpkg-deb", "--info", debs[0]]).stdout
        if "Depends:" not in info or "python3-matplotlib" not in info:
            fail("the package names no dependencies", info)
        root = os.path.join(work, "root")
        unpacked = run(["dpkg-deb", "-x", debs[0], root])
        if unpacked.returncode != 0:
            fail("dpkg-deb -x failed", unpacked.stderr)
        binary = os.path.join(root, "usr", "bin", "gpubench")
        for needed in ("usr/share/gpubench/reports/report.py", "usr/share/gpubench/tuning-db",
                       "usr/share/gpubench/reports/recipes"):
            if not os.path.exists(os.path.join(root, needed)):
                fail(f"the package has no {needed}")
        # Every module the build made, and each library a module links (Clang's tensor image).
        built = {os.path.basename(f) for f in glob.glob(os.path.join(BUILD, "lib", "gpubench", "*.so"))}
        shipped = {os.path.basename(f) for f in glob.glob(os.path.join(root, "usr", "lib", "gpubench", "*.so"))}
        if built - shipped:
            fail(f"the package lacks the build's {', '.join(sorted(built - shipped))} (lib/gpubench)")
        linked = run(["ldd", binary]).stdout
        cuda_linked = [line.strip() for line in linked.splitlines() if any(
            lib in line for lib in ("libcudart", "libcublas", "libcusparse", "libcusolver", "libcufft", "libnvrtc"))]
        if cuda_linked:
            fail("gpubench links CUDA libraries (they belong to the CUDA module)", "\n".join(cuda_linked))

        home = os.path.join(work, "home")
        os.makedirs(home)
        hidden = [SOURCE] + ([BUILD] if not BUILD.startswith(SOURCE + os.sep) else [])
        if os.path.isdir(CUDA):
            hidden.append(os.path.realpath(CUDA))
        q = shlex.quote
        script = "set -e\n" + "".join(f"mount -t tmpfs none {q(h)}\n" for h in hidden) + f"""
cd /tmp
test ! -e {q(os.path.join(SOURCE, 'reports', 'report.py'))}
export HOME={q(home)}
unset XDG_CACHE_HOME XDG_DATA_HOME
{q(binary)} --version
echo '== run'
{q(binary)} --suite cg --backend openmp --format json --out {q(os.path.join(work, 'run.json'))}
echo '== report'
{q(binary)} report table {q(os.path.join(work, 'run.json'))}
echo '== cuda'
{q(binary)} --list-devices --backend cuda || true
"""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUBENCH_")}
        r = run(["unshare"] + namespace + ["sh", "-c", script], env=env, timeout=1800)
        out = r.stdout + r.stderr
        if r.returncode != 0:
            fail(f"the installed gpubench failed away from the source tree (exit {r.returncode})", out)
        if "verified" not in out.split("== report")[0]:
            fail("the cg run did not verify", out)
        report = out.split("== report")[1].split("== cuda")[0]
        if "openmp:0" not in report:
            fail("gpubench report table printed no row for the run", out)
        cuda = out.split("== cuda")[1]
        if os.path.isdir(CUDA) and os.path.exists(os.path.join(BUILD, "lib", "gpubench", "libgpubench_cuda.so")):
            if "not found" not in cuda or "libcudart" not in cuda and "libcu" not in cuda:
                fail("--list-devices --backend cuda does not name the missing CUDA library", out)
        print(out)
        print("OK: the package runs a suite and a report with the source tree out of reach")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
