"""slo-profile-train (python3 -m slo.profile_train) - run a training job for a
bounded number of steps on each instance type alone and on a few small
clusters, and collect the per-worker logs `slo fit train` reads
(doc/train-kit.md).

    slo-profile-train -o DIR [--types FILE] [--steps N] [--sizes 2,4]
                      [--cluster TYPE=N,...]... [--no-alone]
                      [--launcher auto|local|srun] [--timeout S] [-- COMMAND...]

COMMAND (default: the emulated PS job, python3 -m slo.ps) is started once per
rank of each run: rank 0 the parameter server, ranks 1..n the workers, with
RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and SLO_TRAIN_CLUSTER,
SLO_TRAIN_WORKER_TYPES, SLO_TRAIN_LOG_DIR, SLO_TRAIN_STEPS, SLO_TRAIN_TYPES
set (a worker also gets SLO_TRAIN_WORKER and SLO_TRAIN_TYPE, what
slo.trainlog.StepLogger.from_env reads).  Under srun every task gets the same
environment and takes its rank from SLURM_PROCID; the job maps rank r >= 1 to
worker r-1 and its type to item r-1 of SLO_TRAIN_WORKER_TYPES.

Runs: each type of the types file alone (one worker; skip with --no-alone),
then for each size in --sizes a cluster of that many workers spread round
robin over the types (2 workers of 2 types: a=1,b=1), then every --cluster.
Each run writes DIR/RUN/worker-W.csv, progress-W.json and, from slo.ps,
ps.json, with RUN the normalized cluster text ("=" as "-", "," as "_").
DIR/runs.json lists the runs: cluster, workers, exit status, wall s, logs,
and per worker its rows and median step time (s).

--launcher auto uses srun inside a Slurm allocation (SLURM_JOB_ID set) and
local processes otherwise.  Exit status: 0 every run succeeded; 2 bad
input (one message naming the option or file); 1 a run failed (its rank's
exit status and the last lines of its stderr are printed, or, when every
rank exited 0, each worker that logged no rows).
"""

import argparse
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

from . import trainlog
from .ps import InputError, load_types


def run_name(cluster):
    return trainlog.format_cluster(cluster).replace("=", "-").replace(",", "_")


def default_clusters(types, sizes, alone=True):
    """The runs of the module docstring: each type alone, then per size a
    round-robin spread over the types (in the types file's order)."""
    names = list(types)
    runs = [{t: 1} for t in names] if alone else []
    for n in sizes:
        c = {}
        for i in range(n):
            t = names[i % len(names)]
            c[t] = c.get(t, 0) + 1
        if c not in runs:
            runs.append(c)
    return runs


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def first_node_addr(nodelist):
    """The address of the allocation's first node (where srun starts task 0):
    its NodeAddr in `scontrol show node` (a node name need not resolve, as on
    a test cluster of fake nodes), else its name."""
    name = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                          text=True, check=True).stdout.split()[0]
    out = subprocess.run(["scontrol", "-o", "show", "node", name], capture_output=True,
                         text=True).stdout
    for tok in out.split():
        if tok.startswith("NodeAddr=") and len(tok) > len("NodeAddr="):
            return tok[len("NodeAddr="):]
    return name


def _tail(path, n=5):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def _median_step(path):
    rows, steps = 0, []
    try:
        with open(path, encoding="utf-8") as f:
            head = None
            for line in f:
                if line.startswith("#"):
                    continue
                fields = line.rstrip("\n").split(",")
                if head is None:
                    head = fields
                    continue
                rows += 1
                if "step_s" in head:
                    steps.append(float(fields[head.index("step_s")]))
    except OSError:
        return 0, None
    # the first step carries start-up (data load, first pull): left out
    return rows, (statistics.median(steps[1:]) if len(steps) > 1 else None)


def _port_taken(rec):
    """True when a run failed only because its MASTER_PORT was taken between
    _free_port() closing it and rank 0 binding it (another process on the
    host won the race: c10d's TCPStore says "Address already in use")."""
    return bool(rec["failed"]) and any("Address already in use" in f["stderr"]
                                       for f in rec["failed"])


def run_cluster(command, cluster, out_dir, steps, types_path, launcher, timeout, attempts=3):
    """Run command as a PS + workers job on cluster ({type: n}), logs in
    out_dir/RUN.  Returns the run's record for runs.json.  A run whose port
    was taken before rank 0 could bind it is started again on a new port, at
    most `attempts` times in all (the record's "attempts" says how many)."""
    for attempt in range(1, attempts + 1):
        rec = _run_cluster_once(command, cluster, out_dir, steps, types_path, launcher, timeout)
        rec["attempts"] = attempt
        if not _port_taken(rec):
            break
    return rec


def _run_cluster_once(command, cluster, out_dir, steps, types_path, launcher, timeout):
    cluster = trainlog.parse_cluster(cluster)
    text = trainlog.format_cluster(cluster)
    wtypes = [t for t in sorted(cluster, key=lambda s: s.encode()) for _ in range(cluster[t])]
    n = len(wtypes)
    d = os.path.join(out_dir, run_name(cluster))
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    env = dict(os.environ, WORLD_SIZE=str(n + 1), SLO_TRAIN_CLUSTER=text,
               SLO_TRAIN_WORKER_TYPES=",".join(wtypes), SLO_TRAIN_LOG_DIR=os.path.abspath(d),
               SLO_TRAIN_STEPS=str(steps), OMP_NUM_THREADS="1")
    if types_path:
        env["SLO_TRAIN_TYPES"] = os.path.abspath(types_path)
    t0 = time.monotonic()
    procs = []
    if launcher == "srun":
        host = first_node_addr(os.environ["SLURM_JOB_NODELIST"])
        env.pop("RANK", None)                  # each task's rank is its SLURM_PROCID
        env.update(MASTER_ADDR=host, MASTER_PORT=str(_free_port()))
        err = open(os.path.join(d, "srun.err"), "w")
        procs.append(("srun", subprocess.Popen(
            ["srun", "--ntasks=%d" % (n + 1), "--cpus-per-task=1", "--kill-on-bad-exit=1",
             "--export=ALL"] + command, env=env, stdout=subprocess.DEVNULL, stderr=err),
            err.name))
    else:
        env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
        for r in range(n + 1):
            e = dict(env, RANK=str(r))
            if r:
                e.update(SLO_TRAIN_WORKER=str(r - 1), SLO_TRAIN_TYPE=wtypes[r - 1])
            name = "ps" if r == 0 else "worker-%d" % (r - 1)
            err = open(os.path.join(d, name + ".err"), "w")
            procs.append((name, subprocess.Popen(command, env=e, stdout=subprocess.DEVNULL,
                                                 stderr=err, start_new_session=True), err.name))
    failed = []
    deadline = t0 + timeout
    while True:                    # poll all: a dead rank leaves the others waiting
        codes = [p.poll() for _, p, _ in procs]
        bad = [i for i, c in enumerate(codes) if c not in (None, 0)]
        late = time.monotonic() > deadline
        if bad or late or all(c == 0 for c in codes):
            break
        time.sleep(0.05)
    if bad or late:
        for i, (name, p, errpath) in enumerate(procs):
            if i in bad or (late and p.poll() is None):
                failed.append((name, None if p.poll() is None else p.returncode, errpath))
        for _, q, _ in procs:
            if q.poll() is None:
                if launcher == "srun":
                    q.terminate()
                else:
                    os.killpg(q.pid, signal.SIGTERM)
        for _, q, _ in procs:
            try:
                q.wait(timeout=10)
            except subprocess.TimeoutExpired:
                q.kill()
                q.wait()
    wall = time.monotonic() - t0
    workers = []
    for w in range(n):
        log = os.path.join(d, "worker-%d.csv" % w)
        rows, med = _median_step(log)
        workers.append({"worker": w, "type": wtypes[w], "log": os.path.relpath(log, out_dir),
                        "rows": rows, "median_step_s": med})
    # every rank exiting 0 without logging a row (a command that does not
    # log with slo.trainlog.StepLogger.from_env()) leaves nothing to fit:
    # the run failed (status "no rows": the worker's log is named)
    if not failed:
        failed = [("worker-%d" % w["worker"], "no rows", None) for w in workers if not w["rows"]]
    return {"cluster": text, "dir": os.path.relpath(d, out_dir), "workers": n,
            "exit": 0 if not failed else 1, "wall_s": round(wall, 3), "logs": workers,
            "failed": [{"rank": f[0], "status": f[1], "stderr": _tail(f[2]) if f[2] else ""}
                       for f in failed]}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="slo-profile-train",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True, help="directory for the logs")
    ap.add_argument("--types", help="types file (JSON; default slo.ps's built-in types)")
    ap.add_argument("--steps", type=int, default=300, help="PS updates per run (default 300)")
    ap.add_argument("--sizes", default="2,4", help="cluster sizes, comma-separated (default 2,4)")
    ap.add_argument("--cluster", action="append", default=[], help="an extra run TYPE=N,...")
    ap.add_argument("--no-alone", action="store_true", help="no single-worker runs")
    ap.add_argument("--launcher", choices=("auto", "local", "srun"), default="auto")
    ap.add_argument("--timeout", type=float, default=300, help="s per run at most (default 300)")
    ap.add_argument("command", nargs="*", help="the training command (after --)")
    a = ap.parse_args(argv)
    prog = "slo-profile-train"
    try:
        if not 1 <= a.steps <= 10**7:
            raise InputError("--steps: expected an integer in [1, 10000000], found %d" % a.steps)
        try:
            sizes = [int(s) for s in a.sizes.split(",") if s.strip()] if a.sizes else []
        except ValueError:
            raise InputError("--sizes: expected integers like 2,4, found %r" % a.sizes) from None
        if any(not 1 <= s <= 64 for s in sizes):
            raise InputError("--sizes: expected sizes in [1, 64], found %r" % a.sizes)
        types = load_types(a.types)
        runs = default_clusters(types, sizes, alone=not a.no_alone)
        for spec in a.cluster:
            try:
                c = trainlog.parse_cluster(spec)
            except ValueError as e:
                raise InputError("--cluster %s: %s" % (spec, e)) from None
            for t in c:
                if t not in types:
                    raise InputError("--cluster %s: type %s: expected one of %s, found it "
                                     "missing from the types file" % (spec, t,
                                                                      ", ".join(types)))
            if c not in runs:
                runs.append(c)
        if not runs:
            raise InputError("expected at least one run, found none (--no-alone, no --sizes, "
                             "no --cluster)")
        launcher = a.launcher
        if launcher == "auto":
            launcher = "srun" if os.environ.get("SLURM_JOB_ID") else "local"
        if launcher == "srun" and not os.environ.get("SLURM_JOB_NODELIST"):
            raise InputError("--launcher srun: expected a Slurm allocation (SLURM_JOB_NODELIST), "
                             "found none")
        if not (math.isfinite(a.timeout) and 0 < a.timeout <= 86400):
            raise InputError("--timeout: expected seconds in (0, 86400], found %r" % a.timeout)
        if os.path.exists(a.output) and not os.path.isdir(a.output):
            raise InputError("-o %s: expected a directory, found a file" % a.output)
        try:
            os.makedirs(a.output, exist_ok=True)
        except OSError as e:
            raise InputError("-o %s: expected a directory that can be created, found: %s"
                             % (a.output, e.strerror or e)) from None
        if not os.access(a.output, os.W_OK | os.X_OK):
            raise InputError("-o %s: expected a writable directory, found it not writable"
                             % a.output)
    except InputError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    command = a.command or [sys.executable, "-m", "slo.ps"]
    records, status = [], 0
    for c in runs:
        rec = run_cluster(command, c, a.output, a.steps, a.types, launcher, a.timeout)
        records.append(rec)
        meds = ", ".join("%s %s" % (w["type"], "-" if w["median_step_s"] is None else
                                    "%.2f ms" % (1000 * w["median_step_s"]))
                         for w in rec["logs"])
        print("%-28s %d workers  %6.1f s  %s  median step: %s"
              % (rec["cluster"], rec["workers"], rec["wall_s"],
                 "ok" if not rec["exit"] else "FAILED", meds))
        for f in rec["failed"]:
            if f["status"] == "no rows":
                print("%s: run %s: rank %s exited 0 but logged no rows to %s (expected the "
                      "command to log each step with slo.trainlog.StepLogger.from_env())"
                      % (prog, rec["cluster"], f["rank"],
                         os.path.join(a.output, rec["dir"], "%s.csv" % f["rank"])),
                      file=sys.stderr)
                continue
            print("%s: run %s: rank %s exited %s: %s" % (prog, rec["cluster"], f["rank"],
                                                        "on timeout" if f["status"] is None
                                                        else "with status %s" % f["status"],
                                                        f["stderr"].strip()), file=sys.stderr)
        if rec["exit"]:
            status = 1
    trainlog.write_json_atomic(os.path.join(a.output, "runs.json"),
                               {"format": "slo-profile-train-1", "steps": a.steps,
                                "launcher": launcher, "command": command, "runs": records})
    return status


if __name__ == "__main__":
    sys.exit(main())
