"""bench_sync.py - the sync-allreduce model (issue 17) against real DDP runs:
PyTorch DistributedDataParallel, gloo, CPU, 1, 2 and 4 local processes with
one thread each, a small MLP (64-64-10) on sklearn's digits, per-worker
batches 16 and 64 (global batches 16..256), every worker logging with
slo.trainlog.StepLogger ("# mode: sync-allreduce"). After training each
worker probes, with the same N processes up, the compute alone (DDP steps
under no_sync()) and the gloo allreduce of the gradient bytes alone (after a
barrier), medians, into probeRANK.json. Then:

  1. `slo fit train` on the logs of the runs with N <= the host's CPUs (a
     run with more processes than cores is oversubscribed: each ring hop
     waits for a time slice, which no link model describes; it is shown,
     predicted by extrapolation, but not fitted nor in the mean errors),
     and again leaving each run out (leave-one-run-out);
  2. per run: measured step (max over ranks of the median step_s, as the fit
     takes it; the mean beside it) against the model's step at that N and B;
     the steps j to the target (rank 0's loss, 25-step mean) and rank 0's
     wall time to it against the model's j(B) and j(B) x step.

usage: bench_sync.py [--steps N] [--target L] [--out DIR] [--workers 1,2,4]
                     [--launcher local|srun]
Prints a table with relative errors. About a minute on 2 shared cores."""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SLO = os.environ.get("SLO", "slo")


def worker(rank, world, batch, steps, port, logdir):
    sys.path.insert(0, os.environ["SLO_PYTHONPATH"])
    from slo.trainlog import StepLogger
    from sklearn.datasets import load_digits
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world))
    dist.init_process_group("gloo", init_method="env://")
    x, y = load_digits(return_X_y=True)
    x = torch.tensor(x / 16.0, dtype=torch.float32)
    y = torch.tensor(y, dtype=torch.long)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    nbytes = sum(p.numel() * p.element_size() for p in model.parameters())
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    lossf = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1234 + rank)
    log = StepLogger(os.path.join(logdir, "w%d.csv" % rank), "cpu=%d" % world, rank, "cpu",
                     batch, comment="mode: sync-allreduce", model="digits-mlp",
                     parameter_bytes=nbytes)
    B = batch * world
    for step in range(1, steps + 1):
        idx = torch.randint(0, x.shape[0], (batch,), generator=g)
        opt.zero_grad()
        loss = lossf(ddp(x[idx]), y[idx])
        loss.backward()
        opt.step()
        log.log(step, step * B, float(loss))
    log.close()
    # Probes (not logged, not fitted): with the same N processes running,
    # (a) the compute alone: DDP steps under no_sync() (no allreduce), and
    # (b) the gloo allreduce of the gradient bytes alone, each call after a
    # barrier so that no worker's lateness is counted in it. Medians.
    probe = {"threads": torch.get_num_threads(), "interop": torch.get_num_interop_threads()}
    v = []
    for i in range(300):
        t = time.perf_counter()
        opt.zero_grad()
        with ddp.no_sync():
            lossf(ddp(x[:batch]), y[:batch]).backward()
        opt.step()
        v.append(time.perf_counter() - t)
    probe["compute_s"] = median(v[20:])
    buf = torch.zeros(nbytes // 4)
    v = []
    for i in range(320):
        dist.barrier()
        t = time.perf_counter()
        dist.all_reduce(buf)
        v.append(time.perf_counter() - t)
    probe["allreduce_s"] = median(v[20:])
    with open(os.path.join(logdir, "probe%d.json" % rank), "w") as f:
        json.dump(probe, f)
    dist.destroy_process_group()


def run(world, batch, steps, port, logdir, launcher="local"):
    """One run: N = world local processes (mp.spawn), or with launcher
    "srun" N tasks on the test cluster's nodes n1, n2 (tests/slurm/cluster.sh:
    one task per node at N = 2, two at N = 4; the nodes share one host, so
    the rendezvous is 127.0.0.1)."""
    os.makedirs(logdir, exist_ok=True)
    if launcher == "local":
        mp.spawn(worker, args=(world, batch, steps, port, logdir), nprocs=world, join=True)
        return
    os.chmod(logdir, 0o777)
    cmd = ["srun", "-N", str(min(world, 2)), "-n", str(world), "-w",
           "n1" if world == 1 else "n1,n2", "--cpus-per-task=1", "-t", "5", "--export=ALL",
           sys.executable, os.path.abspath(__file__), "--srun-worker",
           "%d,%d,%d" % (batch, steps, port), "--out", logdir]
    subprocess.run(cmd, check=True)


def read_log(path):
    """Rows (global_step, loss, step_s, time_s) of one worker's log."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("time_s"):
                continue
            t = line.strip().split(",")
            rows.append((int(t[1]), float(t[3]), float(t[7]), float(t[0])))
    return rows


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def measured(logdir, world, target):
    """The run's step (max over ranks of the median step_s after the first
    row, as `slo fit train` takes it), the mean step (load spikes included),
    the step index where rank 0's 25-step mean loss reaches the target and
    the wall time to it (rank 0's time_s there: the measured time to loss),
    and the probes (max over ranks)."""
    steps, means = [], []
    for w in range(world):
        r = read_log(os.path.join(logdir, "w%d.csv" % w))
        steps.append(median([s for _, _, s, _ in r[1:]]))
        means.append(sum(s for _, _, s, _ in r[1:]) / (len(r) - 1))
    r0 = read_log(os.path.join(logdir, "w0.csv"))
    win = 25
    hit = wall = None
    for i in range(win, len(r0) + 1):
        if sum(l for _, l, _, _ in r0[i - win:i]) / win <= target:
            k = i - 1 - win // 2
            hit, wall = r0[k][0], r0[k][3]
            break
    pr = [json.load(open(os.path.join(logdir, "probe%d.json" % w))) for w in range(world)]
    probe = {k: max(p[k] for p in pr) for k in pr[0]}
    return max(steps), max(means), hit, wall, probe


def predict(profile, world, batch, target):
    """The model of doc/model.md for N = world workers of 1 GPU at per-worker batch."""
    p = profile
    B = batch * world  # each run's own batch (the profile's batch is its default)
    v = p["instances"][0]["speed_samples_per_s"]
    comp = p["instances"][0].get("step_overhead_s", 0) + B / world / v
    ar = p["allreduce"]
    bw = (2 * (world - 1) / world * p["gradient_bytes"] / (ar["link_mbps"] * 1e6)
          if "link_mbps" in ar else 0)  # a latency-only fit leaves the bytes term out
    t_ar = 0 if world == 1 else bw + 2 * (world - 1) * ar["latency_s"]
    step = comp + max(0.0, t_ar - ar.get("overlap", 0) * comp)
    e, lm = p["efficiency"], p["loss_model"]
    if target <= lm["gamma5"]:
        return step, None
    j0 = lm["gamma3"] / (target - lm["gamma5"]) - lm["gamma1"]
    j = max(1.0, j0 * e["b0"] * (e["phi"] + B) / ((e["phi"] + e["b0"]) * B))
    return step, j


def fit(paths):
    p = subprocess.run([SLO, "fit", "train"] + paths, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return json.loads(p.stdout), p.stderr.strip()


def cores():
    """CPUs this process may run on (the affinity mask, else the count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--target", type=float, default=0.4)
    ap.add_argument("--out", default=None)
    ap.add_argument("--workers", default="1,2,4",
                    help="worker counts to run; those above the host's CPUs are run but "
                         "left out of the fit and the errors (oversubscribed)")
    ap.add_argument("--launcher", choices=("local", "srun"), default="local",
                    help="local processes, or srun on the test cluster (bench_sync_slurm.sh)")
    ap.add_argument("--srun-worker", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.srun_worker:  # one srun task: rank and world from Slurm
        batch, steps, port = (int(v) for v in a.srun_worker.split(","))
        worker(int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"]), batch, steps,
               port, a.out)
        return 0
    out = a.out or tempfile.mkdtemp(prefix="bench_sync.")
    ncpu = cores()
    worlds = [int(w) for w in a.workers.split(",")]
    runs = []
    port = 29600 + os.getpid() % 1000
    print("# launcher: %s" % ("srun on the test cluster (n1, n2: one host)"
                              if a.launcher == "srun" else "local processes"))
    print("# host: %d CPUs; one thread per process (torch.set_num_threads(1), "
          "OMP_NUM_THREADS=%s)" % (ncpu, os.environ.get("OMP_NUM_THREADS", "unset")))
    for batch in (16, 64):
        for world in worlds:
            d = os.path.join(out, "b%d-n%d" % (batch, world))
            shutil.rmtree(d, ignore_errors=True)
            l0 = os.getloadavg()[0]
            run(world, batch, a.steps, port, d, a.launcher)
            port += 1
            print("# run b/GPU %d N %d: load average %.2f before, %.2f after" % (
                batch, world, l0, os.getloadavg()[0]))
            runs.append((batch, world, d, world <= ncpu))
    fitted = [r for r in runs if r[3]]
    over = [r for r in runs if not r[3]]
    if over:
        print("# N > %d CPUs (%s): %d processes on %d cores oversubscribe: a worker waits "
              "for a time slice at every ring hop, which no link bandwidth or latency "
              "describes; these runs are shown (predicted by extrapolation) but are not in "
              "the fit or the mean errors" % (ncpu, ",".join(sorted({str(r[1]) for r in over})),
                                              over[0][1], ncpu))
    allpaths = lambda skip=None: [os.path.join(d, f) for b, w, d, _ in fitted if d != skip
                                  for f in sorted(os.listdir(d)) if f.endswith(".csv")]
    prof, msg = fit(allpaths())
    print("# fit on the %d runs with N <= %d CPUs:" % (len(fitted), ncpu))
    print("\n".join("#   " + l for l in msg.splitlines()))
    if prof is None:
        print("bench_sync: the fit was refused: the table needs it")
        return 1
    print("# %d steps per run, target loss %g (rank 0's loss, 25-step mean); step = max over "
          "ranks of the median step_s; ttl = rank 0's wall time to the target" % (
              a.steps, a.target))
    print("# probes (same N processes, medians): comp = a DDP step under no_sync() (no "
          "allreduce); gloo = dist.all_reduce of the gradient bytes alone after a barrier; "
          "fit t_ar = the fitted 2 (N-1) latency")
    hdr = ("b/GPU", "N", "B", "step meas", "mean", "step pred", "err", "LOO", "comp", "gloo",
           "fit t_ar", "j meas", "j pred", "ttl meas", "ttl pred", "err", "ttl LOO", "err")
    fmt = ("%-6s %-3s %-5s %-9s %-9s %-9s %-6s %-6s %-8s %-8s %-8s %-6s %-6s %-8s %-8s %-6s "
           "%-8s %-7s")
    print(fmt % hdr)
    errs = {"step": [], "ttl": [], "loo": []}
    for batch, world, d, inside in runs:
        step_m, mean_m, hit, wall, probe = measured(d, world, a.target)
        step_p, j = predict(prof, world, batch, a.target)
        loo = None
        if inside:
            loo, _ = fit(allpaths(skip=d))
        ttl_p = j * step_p if j else None
        se = (step_p - step_m) / step_m
        te = (ttl_p - wall) / wall if wall and ttl_p else None
        loo_t = loo_e = loo_se = None
        if loo:
            sp, jj = predict(loo, world, batch, a.target)
            loo_se = (sp - step_m) / step_m
            errs.setdefault("step LOO", []).append(abs(loo_se))
            if jj and wall:
                loo_t = jj * sp
                loo_e = (loo_t - wall) / wall
        if inside:
            errs["step"].append(abs(se))
            if te is not None:
                errs["ttl"].append(abs(te))
            if loo_e is not None:
                errs["loo"].append(abs(loo_e))
        ar = prof["allreduce"]
        t_ar = 0 if world == 1 else 2 * (world - 1) * ar["latency_s"] + (
            2 * (world - 1) / world * prof["gradient_bytes"] / (ar["link_mbps"] * 1e6)
            if "link_mbps" in ar else 0)
        f = lambda v, fm="%.4f": (fm % v) if v is not None else "-"
        us = lambda v: "%.0fus" % (1e6 * v)
        print(fmt % (
            batch, world if inside else "%d*" % world, batch * world, us(step_m), us(mean_m),
            us(step_p), f(100 * se, "%+.0f%%"),
            f(100 * loo_se if loo_se is not None else None, "%+.0f%%"), us(probe["compute_s"]),
            us(probe["allreduce_s"]) if world > 1 else "-", us(t_ar) if world > 1 else "-",
            f(hit, "%d"), f(math.ceil(j) if j else None, "%d"), f(wall, "%.3f"), f(ttl_p, "%.3f"), f(100 * te if te is not None else None, "%+.0f%%"),
            f(loo_t, "%.3f") if inside else "-",
            f(100 * loo_e if loo_e is not None else None, "%+.0f%%") if inside else "n/a"))
    if over:
        print("# * oversubscribed (N > %d CPUs): not in the fit or the means" % ncpu)
    for k in ("step", "step LOO", "ttl", "loo"):
        v = errs.get(k)
        if v:
            print("# mean |error| %s: %.0f%% over %d runs" % (k, 100 * sum(v) / len(v), len(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
