"""A real Slurm on this host for the tests: munged with a key of its own (mungekey), slurmctld -D and
slurmd -D (Debian slurm-wlm, munge) from a generated configuration in a temporary folder, with no
systemd and no cgroup plugin (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none), the node
named by `hostname -s`, and the partitions asked for on it. Used as a context manager: the
daemons are stopped and the folder removed on the way out.

    with SlurmCluster(["alpha", "beta"]) as cluster:
        subprocess.run(["sbatch", ...], env=cluster.env)

why_not() says why no cluster can be started here (a missing program, not root), or "".
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", "scancel")


def why_not():
    missing = [p for p in PROGRAMS if not shutil.which(p) and not os.path.exists(f"/usr/sbin/{p}")]
    if missing:
        return f"Slurm or munge is not installed ({', '.join(missing)} missing: scripts/setup installs slurm-wlm and munge)"
    if os.geteuid() != 0:
        return "slurmd launches jobs as root here (SlurmUser=root): the tests that start Slurm need root"
    return ""


def program(name):
    return shutil.which(name) or f"/usr/sbin/{name}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmCluster:
    def __init__(self, partitions, cpus=None):
        self.partitions = partitions
        self.cpus = cpus or os.cpu_count() or 1
        self.dir = None
        self.daemons = []
        self.outputs = []
        self.env = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="gpubench-slurm-")
        os.chmod(self.dir, 0o700)
        d = self.dir
        for sub in ("state", "spool", "log"):
            os.makedirs(os.path.join(d, sub))
        key = os.path.join(d, "munge.key")
        subprocess.run([program("mungekey"), "--create", f"--keyfile={key}"], check=True, capture_output=True)
        os.chmod(key, 0o400)
        self.socket = os.path.join(d, "munge.socket")
        subprocess.run([program("munged"), f"--key-file={key}", f"--socket={self.socket}",
                        f"--pid-file={d}/munged.pid", f"--log-file={d}/log/munged.log", f"--seed-file={d}/munge.seed",
                        "--force"], check=True, capture_output=True)
        host = socket.gethostname().split(".")[0]
        ctld_port, d_port = free_port(), free_port()
        lines = [
            "ClusterName=gpubenchci", f"SlurmctldHost={host}", "SlurmUser=root",
            f"SlurmctldPort={ctld_port}", f"SlurmdPort={d_port}",
            "AuthType=auth/munge", f"AuthInfo=socket={self.socket}", "CredType=cred/munge",
            f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool",
            f"SlurmctldPidFile={d}/slurmctld.pid", f"SlurmdPidFile={d}/slurmd.pid",
            f"SlurmctldLogFile={d}/log/slurmctld.log", f"SlurmdLogFile={d}/log/slurmd.log",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none", "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU", "MpiDefault=none",
            "ReturnToService=2", "SlurmdTimeout=60", "InactiveLimit=0", "KillWait=5", "MinJobAge=600",
            f"NodeName={host} CPUs={self.cpus} State=UNKNOWN",
        ]
        for i, p in enumerate(self.partitions):
            lines.append(f"PartitionName={p} Nodes={host} {'Default=YES ' if i == 0 else ''}MaxTime=INFINITE State=UP")
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for daemon in ("slurmctld", "slurmd"):
            out = open(os.path.join(d, "log", f"{daemon}.out"), "w")
            self.outputs.append(out)
            self.daemons.append(subprocess.Popen([program(daemon), "-D", "-f", self.conf], stdout=out,
                                                 stderr=subprocess.STDOUT, env=self.env, start_new_session=True))
            if daemon == "slurmctld":
                time.sleep(1)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = subprocess.run(["sinfo", "-h", "-o", "%P %t"], capture_output=True, text=True, env=self.env)
            states = info.stdout.split()
            if info.returncode == 0 and states and all(s in ("idle", "mix", "alloc") for s in states[1::2]):
                return self
            time.sleep(1)
        self.__exit__(None, None, None)
        raise RuntimeError(f"Slurm did not come up in 60 s: {info.stdout} {info.stderr}")

    def log(self, daemon):
        try:
            with open(os.path.join(self.dir, "log", f"{daemon}.log")) as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def __exit__(self, *exc):
        for p in reversed(self.daemons):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.daemons:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        try:
            with open(os.path.join(self.dir, "munged.pid")) as f:
                os.kill(int(f.read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
        for out in self.outputs:
            out.close()
        time.sleep(0.5)
        shutil.rmtree(self.dir, ignore_errors=True)
        return False
