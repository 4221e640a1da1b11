"""bench_sync.py - the sync-allreduce model (issue 17) against real DDP runs:
PyTorch DistributedDataParallel, gloo, CPU, 1, 2 and 4 local processes with
one thread each, a small MLP (64-64-10) on sklearn's digits, per-worker
batches 16 and 64 (global batches 16..256), every worker logging with
slo.trainlog.StepLogger ("# mode: sync-allreduce"). Then:

  1. `slo fit train` on ALL runs' logs -> a fitted profile (in-sample), and
     again leaving each run out (out-of-sample: the run is predicted from a
     profile fitted without it, where the others still determine the fit);
  2. per run: measured step (max over ranks of the median step_s) against
     the model's step at that N and B, and measured time to the target loss
     (first step where rank 0's loss, averaged over 25 steps, is <= target,
     times the measured median step) against the model's j(B) x step.

usage: bench_sync.py [--steps N] [--target L] [--out DIR]
Prints a table with relative errors. Several minutes on 2 shared cores."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

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
    dist.destroy_process_group()


def run(world, batch, steps, port, logdir):
    os.makedirs(logdir, exist_ok=True)
    mp.spawn(worker, args=(world, batch, steps, port, logdir), nprocs=world, join=True)


def read_log(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("time_s"):
                continue
            t = line.strip().split(",")
            rows.append((int(t[1]), float(t[3]), float(t[7])))
    return rows


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def measured(logdir, world, target):
    steps = []
    for w in range(world):
        r = read_log(os.path.join(logdir, "w%d.csv" % w))
        steps.append(median([s for _, _, s in r[1:]]))
    step = max(steps)
    r0 = read_log(os.path.join(logdir, "w0.csv"))
    win = 25
    hit = None
    for i in range(win, len(r0) + 1):
        if sum(l for _, l, _ in r0[i - win:i]) / win <= target:
            hit = r0[i - 1][0] - win // 2
            break
    return step, hit


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--target", type=float, default=0.4)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="bench_sync.")
    runs = []
    port = 29600 + os.getpid() % 1000
    for batch in (16, 64):
        for world in (1, 2, 4):
            d = os.path.join(out, "b%d-n%d" % (batch, world))
            shutil.rmtree(d, ignore_errors=True)
            run(world, batch, a.steps, port, d)
            port += 1
            runs.append((batch, world, d))
    allpaths = lambda skip=None: [os.path.join(d, f) for b, w, d in runs if d != skip
                                  for f in sorted(os.listdir(d))]
    prof, msg = fit(allpaths())
    print("# in-sample fit (all 6 runs):")
    print("\n".join("#   " + l for l in msg.splitlines()))
    if prof is None:
        print("bench_sync: the fit was refused: the table needs it")
        return 1
    print("# %d steps per run, target loss %g (rank 0's loss, 25-step mean)" % (a.steps, a.target))
    print("%-6s %-3s %-5s %-10s %-10s %-7s %-10s %-10s %-7s %-10s %-7s" % (
        "b/GPU", "N", "B", "step meas", "step pred", "err", "ttl meas", "ttl pred", "err",
        "ttl LOO", "err"))
    errs = {"step": [], "ttl": [], "loo": []}
    for batch, world, d in runs:
        step_m, hit = measured(d, world, a.target)
        step_p, j = predict(prof, world, batch, a.target)
        loo, _ = fit(allpaths(skip=d))
        ttl_m = hit * step_m if hit else None
        ttl_p = j * step_p if j else None
        se = (step_p - step_m) / step_m
        errs["step"].append(abs(se))
        if ttl_m and ttl_p:
            te = (ttl_p - ttl_m) / ttl_m
            errs["ttl"].append(abs(te))
        loo_t = loo_e = None
        if loo and ttl_m:
            sp, jj = predict(loo, world, batch, a.target)
            if jj:
                loo_t = jj * sp
                loo_e = (loo_t - ttl_m) / ttl_m
                errs["loo"].append(abs(loo_e))
        f = lambda v, fmt="%.4f": (fmt % v) if v is not None else "-"
        print("%-6d %-3d %-5d %-10s %-10s %-7s %-10s %-10s %-7s %-10s %-7s" % (
            batch, world, batch * world, f(step_m, "%.5f"), f(step_p, "%.5f"),
            f(100 * se, "%+.0f%%"), f(ttl_m, "%.2f"), f(ttl_p, "%.2f"),
            f(100 * te, "%+.0f%%") if ttl_m and ttl_p else "-", f(loo_t, "%.2f"),
            f(100 * loo_e, "%+.0f%%") if loo_e is not None else "refused"))
    for k, v in errs.items():
        if v:
            print("# mean |error| %s: %.0f%% over %d runs" % (k, 100 * sum(v) / len(v), len(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
