"""Where a run was taken (commit, machine, file system) and the history of recorded runs
(docs/perf/history.jsonl)."""
import json
import os
import platform
import subprocess

from . import ROOT

def git(*args):
    p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else ""


def file_system_of(path):
    """(type, mount point) of the file system holding `path`, from /proc/mounts."""
    real = os.path.realpath(path)
    best = ("n/a", "")
    try:
        for line in open("/proc/mounts"):
            fields = line.split()
            mnt = fields[1].replace("\\040", " ")
            if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best[1]):
                best = (fields[2], mnt)
    except OSError:
        pass
    return best


def machine_facts(work):
    cpu = "n/a"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                mem = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    fs_type, _ = file_system_of(work)
    return {"cpu_model": cpu, "cores": os.cpu_count(), "memory_gib": mem,
            "kernel": f"{platform.system()} {platform.release()}", "bench_dir_fs": fs_type,
            "python": f"{platform.python_implementation()} {platform.python_version()}"}


def history_record(cases, meta):
    return {
        "commit": meta["commit"], "dirty": meta["dirty"], "date": meta["datetime"],
        "machine": meta["facts"], "load": meta["load"], "runs": meta["runs"],
        "cases": {case.name: {"reference": case.reference_label, "file_bytes": case.file_bytes,
                              "commands": {c.label: {
                                  "median_ms": c.wall * 1000,
                                  "min_ms": c.spread()[0] * 1000,
                                  "p90_ms": c.spread()[1] * 1000,
                                  "max_ms": c.spread()[2] * 1000,
                                  "cpu_ms": c.cpu * 1000, "rss_kb": c.rss_kb,
                                  "exit_codes": c.exit_codes} for c in case.cmds}}
                  for case in cases},
        "targets": [t.record() for case in cases for t in case.targets],
    }


def read_history(path):
    runs = []
    if os.path.exists(path):
        for line in open(path):
            if line.strip():
                runs.append(json.loads(line))
    return runs
