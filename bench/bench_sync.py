"""bench_sync.py - the sync-allreduce model (issue 17) against real DDP runs:
PyTorch DistributedDataParallel, gloo, CPU, 1, 2 and 4 processes with one
thread each, a small MLP (64-64-10) on sklearn's digits, global batches 48,
96 and 192, every worker logging with slo.trainlog.StepLogger ("# mode:
sync-allreduce").

Instance types are emulated by a compute floor (slo.ddp_emu, doc/model.md
"Real runs"): a rank of type k with share b of the global batch sleeps, in
a DDP communication hook called when its gradients are ready, until its
step's compute (forward + backward since the step began) has lasted
fixed_ms(k) + b ms_per_sample(k); then the real gloo allreduce runs.  Steps
are 9-45 ms and mostly sleep, so 4 processes do not oversubscribe 2 cores
while they compute (the N = 4 allreduce still waits for time slices:
doc/model.md) and scheduling noise is small against the step.  The fit is not told the
floor: it fits every speed, overhead and allreduce term from the logs, and
the bench prints the fitted speeds beside the emulated ones (calibration).

Runs (RUNS below): emu.fast at N = 1, 2, 4 x B = 48, 96, 192; emu.slow alone
(N = 1) at the three batches; two mixed runs: 1 fast + 1 slow at equal
shares (the fast rank waits for the slow one at every allreduce: "slowest
worker" by real waiting) and 2 fast + 2 slow with shares proportional to
speed (uneven batches, the gradient weighted by share so that it is the
global batch's mean).

Fit rule (the same for every run): `slo fit train` gets each run's logs cut
to the window from the first step where rank 0's 25-step mean loss is <=
FIT_FROM x target (2 x 0.4 = 0.8) to the first where it is <= FIT_PAST x
target (0.32): the loss law is fitted over the part of the curve the
prediction uses (around the target), not the warm-up (the first ~100 steps,
where the loss stays near ln 10 and then drops: no hyperbola with a floor
>= 0 fits it) nor the long tail.  Then:

  1. one fit on every run (in-sample), and one leaving each run out (LOO:
     the run is predicted by a fit that never saw it);
  2. per run: measured step (max over ranks of the median step_s, as the fit
     takes it; the mean beside it) against the model's step (doc/model.md:
     slowest worker's t0_k + share / v_k, plus 2 (N-1) alpha + 2 (N-1)/N S /
     link when N >= 2); rank 0's wall time to loss 0.4 (the first step whose
     centred 25-step mean loss is <= 0.4) against j(B) x step.

usage: bench_sync.py [--steps N] [--target L] [--out DIR] [--quick]
                     [--probes P] [--json FILE] [--reuse] [--launcher local|srun]
--quick: the 7-run subset the regression test uses (tests/test_python_sync.sh).
Prints a table with relative errors and the mean |errors|.  About 4-5 minutes
on 2 shared cores."""

import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SLO = os.environ.get("SLO", "slo")
sys.path.insert(0, os.environ.get("SLO_PYTHONPATH",
                                  os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "..", "python")))
from slo.ddp_emu import EMU_TYPES, shares_for  # noqa: E402

WIN = 25
FIT_FROM, FIT_PAST = 2.0, 0.8

# (cluster [(type, count)] with ranks in this order, global batch, shares)
RUNS = ([([("emu.fast", n)], b, "equal") for b in (48, 96, 192) for n in (1, 2, 4)] +
        [([("emu.slow", 1)], b, "equal") for b in (48, 96, 192)] +
        [([("emu.fast", 1), ("emu.slow", 1)], 96, "equal"),
         ([("emu.fast", 2), ("emu.slow", 2)], 192, "speed")])
# the regression test's runs: N <= 2 only (at N = 4 the gloo allreduce's
# time on 2 loaded cores swings with the machine's load, 5-12 ms, beyond what a
# test's tolerance can hold; the bench shows it)
QUICK = ([([(t, 1)], b, "equal") for t in ("emu.fast", "emu.slow") for b in (48, 192)] +
         [([("emu.fast", 2)], b, "equal") for b in (96, 192)] +
         [([("emu.fast", 1), ("emu.slow", 1)], 96, "equal")])


def cluster_text(cl):
    return ",".join("%s=%d" % (t, c) for t, c in sorted(cl, key=lambda x: x[0].encode()))


def rank_types(cl):
    return [t for t, c in cl for _ in range(c)]


def free_port():
    """A TCP port on 127.0.0.1 free now (bound to 0, closed): every run's
    gloo rendezvous gets its own, so two benches or tests on one host (two CI
    runs) do not meet on a port derived from their pids."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_retrying(spec, logdir, launcher, attempts=3):
    """run() on a fresh free_port(), started again (at most `attempts` times
    in all) when the port was taken between free_port() closing it and rank 0
    binding it: c10d's TCPStore says "address already in use". Any other
    failure is raised at once."""
    for attempt in range(1, attempts + 1):
        shutil.rmtree(logdir, ignore_errors=True)
        try:
            return run(spec, free_port(), logdir, launcher)
        except Exception as e:  # mp.spawn's ProcessRaisedException carries the rank's traceback
            if attempt == attempts or "address already in use" not in str(e).lower():
                raise


def run(spec, port, logdir, launcher="local"):
    """One run: N local processes (mp.spawn of slo.ddp_emu.worker), or with
    launcher "srun" N tasks on the test cluster's nodes n1, n2
    (tests/slurm/cluster.sh: one task per node at N = 2, two at N = 4; the
    nodes share one host, so the rendezvous is 127.0.0.1)."""
    os.makedirs(logdir, exist_ok=True)
    world = len(spec["types"])
    if launcher == "local":
        import torch.multiprocessing as mp
        from slo.ddp_emu import worker
        mp.spawn(worker, args=(spec, port, logdir), nprocs=world, join=True)
        return
    os.chmod(logdir, 0o777)
    cmd = ["srun", "-N", str(min(world, 2)), "-n", str(world), "-w",
           "n1" if world == 1 else "n1,n2", "--cpus-per-task=1", "-t", "5", "--export=ALL",
           sys.executable, "-m", "slo.ddp_emu", json.dumps(spec), str(port), logdir]
    env = dict(os.environ, PYTHONPATH=os.environ.get("SLO_PYTHONPATH", ""))
    subprocess.run(cmd, check=True, env=env)


def read_log(path):
    """(comment lines + header, rows as text, rows (global_step, loss, step_s,
    time_s)) of one worker's log."""
    head, text, rows = [], [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("time_s"):
                head.append(line)
                continue
            t = line.strip().split(",")
            text.append(line)
            rows.append((int(t[1]), float(t[3]), float(t[7]), float(t[0])))
    return head, text, rows


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def crossing(rows, level):
    """Index of the first row whose centred WIN-step mean loss is <= level."""
    for i in range(WIN, len(rows) + 1):
        if sum(r[1] for r in rows[i - WIN:i]) / WIN <= level:
            return i - 1 - WIN // 2
    return None


def measured(logdir, world, target):
    """The run's step (max over ranks of the median step_s after the first
    row, as `slo fit train` takes it), the mean step, the step j where rank
    0's centred 25-step mean loss reaches the target and rank 0's wall time
    to it (time_s there), and the probes (max over ranks)."""
    steps, means = [], []
    for w in range(world):
        r = read_log(os.path.join(logdir, "w%d.csv" % w))[2]
        steps.append(median([s for _, _, s, _ in r[1:]]))
        means.append(sum(s for _, _, s, _ in r[1:]) / (len(r) - 1))
    r0 = read_log(os.path.join(logdir, "w0.csv"))[2]
    k = crossing(r0, target)
    hit, wall = (r0[k][0], r0[k][3]) if k is not None else (None, None)
    pr = [json.load(open(os.path.join(logdir, "probe%d.json" % w))) for w in range(world)]
    probe = {"allreduce_s": max(p["allreduce_s"] for p in pr),
             "cpu_share": sum(p["cpu_frac"] for p in pr) / (os.cpu_count() or 1)}
    return max(steps), max(means), hit, wall, probe


def trim(logdir, world, target, fitdir):
    """Copies of the run's logs cut to the fit rule's window: from the step
    where rank 0's centred 25-step mean loss first is <= FIT_FROM x target
    to the one where it first is <= FIT_PAST x target (to the end when it
    never gets there). Returns (paths, rows kept, first step, last step)."""
    r0 = read_log(os.path.join(logdir, "w0.csv"))[2]
    a, k = crossing(r0, FIT_FROM * target), crossing(r0, FIT_PAST * target)
    first = r0[a][0] if a is not None else r0[0][0]
    last = r0[k][0] if k is not None else r0[-1][0]
    os.makedirs(fitdir, exist_ok=True)
    paths = []
    for w in range(world):
        head, text, rows = read_log(os.path.join(logdir, "w%d.csv" % w))
        keep = [t for t, r in zip(text, rows) if first <= r[0] <= last]
        p = os.path.join(fitdir, "w%d.csv" % w)
        with open(p, "w") as f:
            f.writelines(head + keep)
        paths.append(p)
    return paths, len(keep), first, last


def predict(profile, types, shares, target):
    """doc/model.md's model for one run: the slowest rank's t0_k + share /
    v_k, the ring allreduce 2 (N-1)/N S / link + 2 (N-1) alpha (N >= 2,
    exposed: overlap 0 in a fitted profile), j(B) from the loss law at B0
    and Pollux's E(B). Returns (step, t_ar, j or None)."""
    p = profile
    inst = {i["type"]: i for i in p["instances"]}
    world, B = len(types), sum(shares)
    comp = max(inst[t].get("step_overhead_s", 0) + b / inst[t]["speed_samples_per_s"]
               for t, b in zip(types, shares))
    ar = p["allreduce"]
    bw = (2 * (world - 1) / world * p["gradient_bytes"] / (ar["link_mbps"] * 1e6)
          if "link_mbps" in ar else 0)  # a latency-only fit leaves the bytes term out
    t_ar = 0 if world == 1 else bw + 2 * (world - 1) * ar["latency_s"]
    step = comp + max(0.0, t_ar - ar.get("overlap", 0) * comp)
    e, lm = p["efficiency"], p["loss_model"]
    if target <= lm["gamma5"]:
        return step, t_ar, None
    j0 = lm["gamma3"] / (target - lm["gamma5"]) - lm["gamma1"]
    j = max(1.0, j0 * e["b0"] * (e["phi"] + B) / ((e["phi"] + e["b0"]) * B))
    return step, t_ar, j


def fit(paths):
    p = subprocess.run([SLO, "fit", "train"] + paths, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return json.loads(p.stdout), p.stderr.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--target", type=float, default=0.4)
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true", help="the regression test's 7 runs")
    ap.add_argument("--probes", type=int, default=300,
                    help="gloo allreduce probes per run after training (medians)")
    ap.add_argument("--reuse", action="store_true",
                    help="analyse the runs already in --out instead of running them")
    ap.add_argument("--json", default=None, help="write the per-run errors here")
    ap.add_argument("--launcher", choices=("local", "srun"), default="local",
                    help="local processes, or srun on the test cluster (bench_sync_slurm.sh)")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="bench_sync.")
    runs = []
    print("# launcher: %s" % ("srun on the test cluster (n1, n2: one host)"
                              if a.launcher == "srun" else "local processes"))
    print("# host: %d CPUs; one thread per process; load average %.2f at start" % (
        os.cpu_count() or 1, os.getloadavg()[0]))
    print("# emulated types (compute floor fixed_ms + share x ms_per_sample; the fit is not "
          "told them): " + "; ".join("%s %g ms + %g ms/sample" % (t, v["fixed_ms"],
                                                                  v["ms_per_sample"])
                                     for t, v in sorted(EMU_TYPES.items())))
    t_start = time.time()
    for cl, B, mode in (QUICK if a.quick else RUNS):
        types = rank_types(cl)
        shares = shares_for(types, B, mode)
        name = "%s-B%d-%s" % (cluster_text(cl).replace("=", "").replace(",", "+"), B, mode)
        d = os.path.join(out, name)
        spec = {"types": types, "shares": shares, "steps": a.steps,
                "cluster": cluster_text(cl), "probes": a.probes}
        l0 = os.getloadavg()[0]
        if not a.reuse:
            run_retrying(spec, d, a.launcher)
        fitpaths, nrows, first, last = trim(d, len(types), a.target, os.path.join(out, "fit", name))
        runs.append(dict(name=name, cl=cl, B=B, mode=mode, types=types, shares=shares, dir=d,
                         fit=fitpaths, fitrows=nrows, load=(l0, os.getloadavg()[0])))
        print("# run %s (shares %s): load average %.2f before, %.2f after; fit rows %d "
              "(steps %d-%d)" % (name, "/".join(map(str, shares)), l0, os.getloadavg()[0],
                                 nrows, first, last))
    print("# runs took %.0f s" % (time.time() - t_start))
    allpaths = lambda skip=None: [p for r in runs if r["name"] != skip for p in r["fit"]]
    prof, msg = fit(allpaths())
    print("# fit on all %d runs (rows where rank 0's 25-step mean loss is first <= %g to "
          "first <= %g):" % (len(runs), FIT_FROM * a.target, FIT_PAST * a.target))
    print("\n".join("#   " + l for l in msg.splitlines()))
    if prof is None:
        print("bench_sync: the fit was refused: the table needs it")
        return 1
    calib = []
    for i in prof["instances"]:
        e = EMU_TYPES[i["type"]]
        calib.append({"type": i["type"], "fitted_ms_per_sample": 1e3 / i["speed_samples_per_s"],
                      "emulated_ms_per_sample": e["ms_per_sample"],
                      "fitted_fixed_ms": 1e3 * i.get("step_overhead_s", 0),
                      "emulated_fixed_ms": e["fixed_ms"]})
        print("# calibration %s: fitted %.1f us/sample + %.2f ms (emulated %.1f us/sample + "
              "%.2f ms + the step's real work outside the floor)" % (
                  i["type"], 1e6 / i["speed_samples_per_s"], 1e3 * i.get("step_overhead_s", 0),
                  1e3 * e["ms_per_sample"], e["fixed_ms"]))
    print("# target loss %g; step = max over ranks of the median step_s; ttl = rank 0's wall "
          "time to the target; gloo = dist.all_reduce of the gradient bytes alone after a "
          "barrier (probe); t_ar = the fitted ring term; cpu = busy share of the 2 cores" % (
              a.target))
    hdr = ("run", "shares", "step meas", "mean", "pred", "err", "LOO", "gloo", "t_ar", "cpu",
           "j meas", "j pred", "ttl meas", "pred", "err", "LOO", "err")
    fmt = "%-28s %-11s %-9s %-8s %-8s %-6s %-6s %-7s %-7s %-4s %-6s %-6s %-8s %-7s %-6s %-7s %-6s"
    print(fmt % hdr)
    errs = {"step": [], "step LOO": [], "ttl": [], "ttl LOO": []}
    table = []
    for r in runs:
        world = len(r["types"])
        step_m, mean_m, hit, wall, probe = measured(r["dir"], world, a.target)
        step_p, t_ar, j = predict(prof, r["types"], r["shares"], a.target)
        loo, lmsg = fit(allpaths(skip=r["name"]))
        ttl_p = j * step_p if j else None
        se = (step_p - step_m) / step_m
        te = (ttl_p - wall) / wall if wall and ttl_p else None
        loo_t = loo_e = loo_se = None
        if loo:
            sp, _, jj = predict(loo, r["types"], r["shares"], a.target)
            loo_se = (sp - step_m) / step_m
            if jj and wall:
                loo_t = jj * sp
                loo_e = (loo_t - wall) / wall
        else:
            print("# LOO fit without %s refused: %s" % (r["name"], lmsg.splitlines()[-1]))
        for k, v in (("step", se), ("step LOO", loo_se), ("ttl", te), ("ttl LOO", loo_e)):
            if v is not None:
                errs[k].append(abs(v))
        table.append(dict(run=r["name"], step_meas=step_m, step_pred=step_p, step_err=se,
                          step_loo_err=loo_se, ttl_meas=wall, ttl_pred=ttl_p, ttl_err=te,
                          ttl_loo_err=loo_e, j_meas=hit, j_pred=j))
        f = lambda v, fm="%.4f": (fm % v) if v is not None else "-"
        ms = lambda v: "%.2fms" % (1e3 * v)
        pc = lambda v: f(100 * v if v is not None else None, "%+.0f%%")
        print(fmt % (
            r["name"], "/".join(map(str, r["shares"])), ms(step_m), ms(mean_m), ms(step_p),
            pc(se), pc(loo_se), ms(probe["allreduce_s"]) if world > 1 else "-",
            ms(t_ar) if world > 1 else "-", "%.0f%%" % (100 * probe["cpu_share"]),
            f(hit, "%d"), f(math.ceil(j) if j else None, "%d"), f(wall, "%.2f"),
            f(ttl_p, "%.2f"), pc(te), f(loo_t, "%.2f"), pc(loo_e)))
    for k in ("step", "step LOO", "ttl", "ttl LOO"):
        v = errs[k]
        if v:
            print("# mean |error| %s: %.1f%% over %d runs (max %.1f%%)" % (
                k, 100 * sum(v) / len(v), len(v), 100 * max(v)))
    if a.json:
        with open(a.json, "w") as fj:
            json.dump({"runs": table, "calibration": calib, "mean_abs": {k: sum(v) / len(v) for k, v in errs.items()
                                                   if v},
                       "max_abs": {k: max(v) for k, v in errs.items() if v},
                       "n": {k: len(v) for k, v in errs.items()}}, fj, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
