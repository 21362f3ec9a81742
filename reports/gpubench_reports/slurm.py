"""gpubench track run --slurm: the tracked set on several machines, one Slurm job per partition.

Each partition gets a job (sbatch) that runs the tracked set there (`gpubench track run` with the
job's own records folder and a scratch history); the submitter waits for every job up to a
deadline, then imports each finished job's records into the one history, each run tagged with its
partition (the machine and devices come from the records). A job that could not be submitted (a
partition Slurm does not know), that failed, was cancelled, ran out of its time limit, or had
not started (or not finished) by the deadline is a failed run of that partition, with Slurm's
words for it: never silence.

Each job asks for its node to itself (--exclusive): jobs sharing a node's cores would time each
other. The jobs need the gpubench program, the set file and the records folder at the same paths on the
partitions' nodes (a shared file system, as on every cluster), and run with the submitter's
environment (sbatch's default --export=ALL).

The set file's "slurm" section (all optional):
    {"partitions": ["gpu-h100", "gpu-a100"], "account": "perf", "time_limit": "00:30:00",
     "gpus_per_job": 1, "sbatch_options": ["--qos=nightly"], "deadline_minutes": 90}
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import time

from .history import TrackError

# Slurm's job states: those that end a job well, badly, and those still on the way.
DONE_OK = {"COMPLETED"}
DONE_BAD = {"FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED",
            "REVOKED", "SPECIAL_EXIT"}
TIME_LIMIT = re.compile(r"^(\d+-)?\d{1,2}(:\d{2}){0,2}$|^\d+$")


def slurm_section(tracked, path, partitions_arg):
    """The set's "slurm" section, checked, with --slurm's partitions (a comma list) taking precedence."""
    section = tracked.get("slurm", {})
    if not isinstance(section, dict):
        raise TrackError(f"{path}: \"slurm\" is not an object")
    known = {"partitions", "account", "time_limit", "gpus_per_job", "sbatch_options", "deadline_minutes"}
    unknown = sorted(set(section) - known)
    if unknown:
        raise TrackError(f"{path}: \"slurm\" has no field {', '.join(unknown)} (valid: {', '.join(sorted(known))})")
    partitions = [p.strip() for p in partitions_arg.split(",")] if partitions_arg else section.get("partitions", [])
    if not isinstance(partitions, list) or not partitions or not all(isinstance(p, str) and p for p in partitions):
        raise TrackError("--slurm names no partition, and the set's \"slurm\" section has no \"partitions\" list")
    if len(set(partitions)) != len(partitions):
        raise TrackError(f"--slurm: a partition is named twice ({', '.join(partitions)})")
    for p in partitions:
        if not re.match(r"^[A-Za-z0-9_.-]+$", p):
            raise TrackError(f"--slurm: '{p}' is not a partition name (letters, digits, _ . -)")
    limit = section.get("time_limit", "01:00:00")
    if not isinstance(limit, str) or not TIME_LIMIT.match(limit):
        raise TrackError(f"{path}: slurm.time_limit '{limit}' is not one of Slurm's time formats (MM, HH:MM:SS, D-HH:MM:SS)")
    gpus = section.get("gpus_per_job", 0)
    if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 0:
        raise TrackError(f"{path}: slurm.gpus_per_job must be a whole number >= 0")
    extra = section.get("sbatch_options", [])
    if not isinstance(extra, list) or not all(isinstance(o, str) and o.startswith("-") for o in extra):
        raise TrackError(f"{path}: slurm.sbatch_options must be a list of sbatch options (each starting with -)")
    account = section.get("account", "")
    if not isinstance(account, str):
        raise TrackError(f"{path}: slurm.account must be text")
    deadline = section.get("deadline_minutes", minutes_of(limit) + 10)
    if not isinstance(deadline, (int, float)) or isinstance(deadline, bool) or deadline <= 0:
        raise TrackError(f"{path}: slurm.deadline_minutes must be a number > 0")
    return {"partitions": partitions, "account": account, "time_limit": limit, "gpus_per_job": gpus,
            "sbatch_options": extra, "deadline_minutes": float(deadline)}


def minutes_of(limit):
    """Slurm's time formats in minutes: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S."""
    days = 0
    if "-" in limit:
        d, limit = limit.split("-", 1)
        days = int(d)
        parts = [int(x) for x in limit.split(":")] + [0, 0]
        h, m, s = parts[0], parts[1], parts[2]
    else:
        parts = [int(x) for x in limit.split(":")]
        h, m, s = (0, parts[0], 0) if len(parts) == 1 else (0, parts[0], parts[1]) if len(parts) == 2 else tuple(parts)
    return days * 1440 + h * 60 + m + s / 60


def job_script(binary, set_path, only, job_dir):
    """The job: the tracked set on the node, its records kept in the job's folder."""
    command = [binary, "track", "run", "--set", os.path.abspath(set_path), "--records", os.path.join(job_dir, "records"),
               "--history", os.path.join(job_dir, "scratch-history.sqlite")]
    if only:
        command += ["--only", ",".join(only)]
    return ("#!/bin/sh\n"
            "# gpubench track run --slurm: the tracked set on this partition's node\n"
            "echo \"gpubench: job $SLURM_JOB_ID on $(hostname) in partition $SLURM_JOB_PARTITION\"\n"
            f"exec {shlex.join(command)}\n")


def sbatch(section, partition, script, job_dir, run=subprocess.run):
    """Submits one partition's job; (job id, None) or (None, sbatch's error)."""
    # --exclusive: a benchmark has its node to itself (two jobs sharing a node's cores time each other).
    command = ["sbatch", "--parsable", "--exclusive", "--partition", partition, "--time", section["time_limit"],
               "--job-name", f"gpubench-track-{partition}", "--output", os.path.join(job_dir, "slurm-%j.out"),
               "--chdir", job_dir]
    if section["account"]:
        command += ["--account", section["account"]]
    if section["gpus_per_job"]:
        command += [f"--gpus={section['gpus_per_job']}"]
    command += section["sbatch_options"] + [script]
    try:
        done = run(command, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        return None, "sbatch is not installed here (Debian slurm-client)"
    except subprocess.TimeoutExpired:
        return None, "sbatch did not answer in 120 s (is slurmctld up?)"
    if done.returncode != 0:
        words = " ".join(line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip())
        return None, f"sbatch refused the job: {words or f'exit {done.returncode}'}"
    job = done.stdout.strip().split(";")[0]
    if not job.isdigit():
        return None, f"sbatch answered '{done.stdout.strip()}', not a job id"
    return job, None


def job_state(job, run=subprocess.run):
    """{"JobState": ..., "Reason": ..., "ExitCode": ..., ...} as scontrol shows the job, or None when
    Slurm no longer knows it (purged after MinJobAge)."""
    try:
        done = run(["scontrol", "show", "job", "-o", job], capture_output=True, text=True, timeout=60)
    except (FileNotFoundError, subprocess.TimeoutExpired) as e:
        raise TrackError(f"scontrol show job {job}: {e}")
    if done.returncode != 0:
        if "Invalid job id" in (done.stderr or ""):
            return None
        raise TrackError(f"scontrol show job {job}: {(done.stderr or done.stdout).strip()}")
    fields = {}
    for token in done.stdout.split():
        key, _, value = token.partition("=")
        if key and key not in fields:
            fields[key] = value
    return fields


def describe(fields):
    """Slurm's words for how a job ended or where it stands: its state, reason and exit code."""
    state = fields.get("JobState", "?")
    words = [state]
    if fields.get("Reason") and fields["Reason"] != "None":
        words.append(f"reason {fields['Reason']}")
    if fields.get("ExitCode") and fields["ExitCode"] != "0:0":
        words.append(f"exit code {fields['ExitCode']}")
    if fields.get("TimeLimit"):
        words.append(f"time limit {fields['TimeLimit']}")
    return ", ".join(words)


def scancel(job, run=subprocess.run):
    try:
        run(["scancel", job], capture_output=True, timeout=60)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        pass


def run_fleet(binary, set_path, section, only, records_dir, night, poll_s=None, run=subprocess.run, log=sys.stderr):
    """Submits the set to every partition and waits for them. Returns [(partition, job dir, records
    [paths], failure or None, scontrol's fields of the job)], in the partitions' order."""
    poll_s = poll_s if poll_s is not None else float(os.environ.get("GPUBENCH_SLURM_POLL_S", "10"))
    jobs = []
    for partition in section["partitions"]:
        job_dir = os.path.join(os.path.abspath(records_dir), f"{night}-slurm-{partition}")
        os.makedirs(job_dir, exist_ok=True)
        script = os.path.join(job_dir, "job.sh")
        with open(script, "w") as f:
            f.write(job_script(binary, set_path, only, job_dir))
        os.chmod(script, 0o755)
        job, error = sbatch(section, partition, script, job_dir, run)
        if error:
            print(f"gpubench track: {partition}: {error}", file=log)
        else:
            print(f"gpubench track: {partition}: job {job} submitted ({job_dir})", file=log, flush=True)
        jobs.append({"partition": partition, "dir": job_dir, "job": job, "failure": error, "fields": None, "done": bool(error)})
    deadline = time.monotonic() + section["deadline_minutes"] * 60
    previous = signal.signal(signal.SIGTERM, interrupted)  # a scheduler's kill, as Ctrl-C
    try:
        wait_for(jobs, deadline, section, poll_s, run, log)
    except KeyboardInterrupt:  # no job is left behind on the cluster
        for j in jobs:
            if not j["done"] and j["job"]:
                scancel(j["job"], run)
        print("gpubench track: interrupted: the fleet's unfinished jobs were cancelled", file=log)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    return collect(jobs)


def interrupted(signum, frame):
    raise KeyboardInterrupt


def wait_for(jobs, deadline, section, poll_s, run, log):
    """Polls the jobs until every one has ended or the deadline passed (those then cancelled)."""
    while not all(j["done"] for j in jobs):
        for j in jobs:
            if j["done"]:
                continue
            fields = job_state(j["job"], run)
            if fields is None:  # purged: it ended; its output says how
                j["done"] = True
                j["fields"] = {"JobState": "UNKNOWN (purged by Slurm)"}
                continue
            j["fields"] = fields
            state = fields.get("JobState", "")
            if state in DONE_OK or state in DONE_BAD:
                j["done"] = True
                print(f"gpubench track: {j['partition']}: job {j['job']} {describe(fields)}", file=log, flush=True)
        if all(j["done"] for j in jobs):
            break
        if time.monotonic() > deadline:
            for j in jobs:
                if not j["done"]:
                    state = (j["fields"] or {}).get("JobState", "?")
                    j["failure"] = (f"job {j['job']} had not started by the deadline ({section['deadline_minutes']:g} min): "
                                    if state == "PENDING" else
                                    f"job {j['job']} had not finished by the deadline ({section['deadline_minutes']:g} min): ") \
                        + describe(j["fields"] or {}) + "; cancelled"
                    scancel(j["job"], run)
                    j["done"] = True
            break
        time.sleep(poll_s)


def collect(jobs):
    """Each job's records and its failure, if any, in Slurm's words."""
    results = []
    for j in jobs:
        records = sorted(os.path.join(j["dir"], "records", f) for f in os.listdir(os.path.join(j["dir"], "records"))
                         if f.endswith(".json")) if os.path.isdir(os.path.join(j["dir"], "records")) else []
        failure = j["failure"]
        if not failure and j["fields"] is not None:
            state = j["fields"].get("JobState", "")
            if state not in DONE_OK or not records:
                failure = f"job {j['job']} " + (describe(j["fields"]) if state not in DONE_OK else "completed and wrote no records")
                tail = output_tail(j["dir"], j["job"])
                if tail:
                    failure += f" (its output ends: {tail})"
        results.append((j["partition"], j["dir"], records, failure, j["fields"] or {}))
    return results


def output_tail(job_dir, job):
    path = os.path.join(job_dir, f"slurm-{job}.out")
    try:
        with open(path, errors="replace") as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError:
        return ""
    return " / ".join(lines[-3:])[-400:]


def run_seconds(fields):
    """The job's RunTime (scontrol's [D-]HH:MM:SS) in seconds, or None."""
    text = fields.get("RunTime", "")
    return minutes_of(text) * 60 if TIME_LIMIT.match(text or "x") else None
