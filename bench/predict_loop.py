"""predict_loop.py - pieces of the spotDNN predictability loop on the Slurm
test cluster (tests/slurm_predict.sh, bench/bench_predict.sh; doc/train-kit.md,
"Checking the prediction").

  predict_loop.py run-plan OUTDIR TYPES TARGET [PS-ARGS...]
      inside a planned batch job: start the emulated PS job (slo.ps) on the
      plan's nodes, one worker per node (the node's instance type, from its
      Slurm feature), the PS beside worker 0, until the PS's training-set
      loss is <= TARGET; writes OUTDIR/plan.json (the plan's SLO_* variables)
      and the run's logs (ps.json, worker-W.csv, progress-W.json).
  predict_loop.py compare OUTDIR TOLERANCE_PCT [CHECKS]
      predicted (SLO_TIME_S, SLO_ITERATIONS) against measured (ps.json's
      target crossing) time and iterations to the target loss; prints one
      TSV line "plan predicted_s measured_s time_err_pct predicted_it
      measured_it it_err_pct" on stdout, and "ok"/"not ok" lines on stderr;
      exit 1 when a check fails or the run is not usable. CHECKS (default
      time,iterations): time, iterations, s_per_it (the time per update, the
      performance model alone) within TOLERANCE_PCT; deadline (the measured
      time within the plan's SLO_DEADLINE_S).
  predict_loop.py scratch-workload PROFDIR TYPES LOSSFIT.json NAME OUT.json
      development only (never used by the test): a workload profile from a
      slo-profile-train directory with the per-type speeds measured here and
      placeholder bandwidths, for when `slo fit train` cannot write a
      complete profile.

The emulated types: TYPES is a slo.ps types file whose names are the test
catalog's instance types (tests/slurm/workloads/digits-types.json); a
worker trains with the types file's batch (the catalog's GPUs per node times
the profile's per-GPU batch: slo fit train derives the latter from it).
"""

import json
import os
import socket
import subprocess
import sys


def die(msg):
    print("predict_loop: %s" % msg, file=sys.stderr)
    sys.exit(2)


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def node_info(name):
    """(NodeAddr, [features]) of a node, from `scontrol -o show node`."""
    out = subprocess.run(["scontrol", "-o", "show", "node", name], capture_output=True,
                         text=True).stdout
    addr, feats = name, []
    for tok in out.split():
        if tok.startswith("NodeAddr="):
            addr = tok.split("=", 1)[1] or name
        elif tok.startswith("AvailableFeatures="):
            feats = [f for f in tok.split("=", 1)[1].split(",") if f and f != "(null)"]
    return addr, feats


def run_plan(outdir, types_path, target, ps_args):
    env = dict(os.environ)
    for v in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLO_PLAN", "SLO_TIME_S", "SLO_ITERATIONS"):
        if not env.get(v):
            die("%s: expected it in the environment (a job planned by spank_slo.so), "
                "found it unset" % v)
    with open(types_path, encoding="utf-8") as f:
        types = json.load(f)["types"]
    os.makedirs(outdir, exist_ok=True)
    plan = {k: v for k, v in env.items() if k.startswith("SLO_") and not k.startswith("SLO_TRAIN")}
    plan["SLURM_JOB_ID"] = env["SLURM_JOB_ID"]
    plan["SLURM_JOB_NODELIST"] = env["SLURM_JOB_NODELIST"]
    nodes = subprocess.run(["scontrol", "show", "hostnames", env["SLURM_JOB_NODELIST"]],
                           capture_output=True, text=True, check=True).stdout.split()
    wtypes, addr0 = [], None
    for n in nodes:
        addr, feats = node_info(n)
        addr0 = addr0 or addr
        t = [f for f in feats if f in types]
        if len(t) != 1:
            die("node %s: expected exactly one feature naming a type of %s, found %s"
                % (n, types_path, ",".join(feats) or "none"))
        wtypes.append(t[0])
    counts = {}
    for t in wtypes:
        counts[t] = counts.get(t, 0) + 1
    want = dict(p.split(":") for p in env["SLO_PLAN"].split(","))
    if {t: int(c) for t, c in want.items() if int(c) > 0} != counts:
        die("SLO_PLAN %s: expected the job's nodes to have these types, found %s"
            % (env["SLO_PLAN"], counts))
    gres = env.get("SLO_GRES", "")
    plan["worker_types"] = wtypes
    plan["nodes"] = nodes
    plan["target_loss"] = target
    with open(os.path.join(outdir, "plan.json"), "w", encoding="utf-8") as f:
        json.dump(plan, f, indent=1, sort_keys=True)
    # one task per line: the PS (task 0) on the first node, worker w on node w
    hostfile = os.path.join(outdir, "hostfile")
    with open(hostfile, "w", encoding="utf-8") as f:
        f.write("\n".join([nodes[0]] + nodes) + "\n")
    cluster = ",".join("%s=%d" % (t, counts[t]) for t in sorted(counts))
    iters = int(float(env["SLO_ITERATIONS"]))
    env.update({"SLURM_HOSTFILE": hostfile, "MASTER_ADDR": addr0,
                "MASTER_PORT": str(_free_port()), "SLO_TRAIN_CLUSTER": cluster,
                "SLO_TRAIN_WORKER_TYPES": ",".join(wtypes), "SLO_TRAIN_LOG_DIR": outdir,
                # a cap only: the PS stops at the target loss; 3x the plan's
                # iterations leaves room for a prediction that is far off
                "SLO_TRAIN_STEPS": str(3 * iters + 500), "SLO_TRAIN_TYPES": types_path,
                "OMP_NUM_THREADS": "1"})
    # the plan's allocation holds one task per node: --overcommit lets the
    # PS start beside worker 0 (the test cluster binds no CPUs, task/none, so
    # both share the node's 2 CPUs as in the profiling runs)
    cmd = ["srun", "--distribution=arbitrary", "--ntasks=%d" % (len(nodes) + 1),
           "--overcommit", "--kill-on-bad-exit=1", sys.executable, "-m", "slo.ps",
           "--target-loss", str(target)] + ps_args
    print("predict_loop: plan %s gres %s: %s on %s" % (env["SLO_PLAN"], gres, " ".join(cmd),
                                                      ",".join(nodes)), flush=True)
    return subprocess.run(cmd, env=env).returncode


def _err(pred, meas):
    return 100.0 * (pred - meas) / meas


CHECKS = ("time", "iterations", "s_per_it", "deadline")


def compare(outdir, tol, checks=("time", "iterations")):
    try:
        with open(os.path.join(outdir, "plan.json"), encoding="utf-8") as f:
            plan = json.load(f)
        with open(os.path.join(outdir, "ps.json"), encoding="utf-8") as f:
            ps = json.load(f)
    except (OSError, ValueError) as e:
        print("not ok - %s: no usable plan.json/ps.json (%s)" % (outdir, e), file=sys.stderr)
        return 1
    tg = ps.get("target") or {}
    if not tg.get("reached"):
        print("not ok - %s: the run stopped at its cap of %d updates without reaching loss %s"
              % (outdir, ps.get("global_step", 0), plan.get("target_loss")), file=sys.stderr)
        return 1
    try:
        pt, pi = float(plan["SLO_TIME_S"]), int(float(plan["SLO_ITERATIONS"]))
        mt, mi = float(tg["elapsed_s"]), int(tg["global_step"])
        dl = float(plan["SLO_DEADLINE_S"]) if "deadline" in checks else None
    except (KeyError, TypeError, ValueError) as e:
        print("not ok - %s: plan.json / ps.json without a usable %s" % (outdir, e),
              file=sys.stderr)
        return 1
    if pi < 1 or mi < 1:
        print("not ok - %s: expected >= 1 update planned and measured, found %d and %d"
              % (outdir, pi, mi), file=sys.stderr)
        return 1
    et, ei = _err(pt, mt), _err(pi, mi)
    es = _err(pt / pi, mt / mi)
    print("%s\t%.2f\t%.2f\t%+.1f\t%d\t%d\t%+.1f" % (plan["SLO_PLAN"], pt, mt, et, pi, mi, ei))
    fails = 0
    for what in checks:
        if what == "deadline":
            ok = mt <= dl
            print("%s - measured time to loss %s %.2f s within the SLO's deadline %g s (planned "
                  "%.2f s)" % ("ok" if ok else "not ok", tg["loss"], mt, dl, pt), file=sys.stderr)
            fails += not ok
            continue
        e, p, m = {"time": (et, "%.2f s" % pt, "%.2f s" % mt),
                   "iterations": (ei, pi, mi),
                   "s_per_it": (es, "%.2f ms" % (1000 * pt / pi),
                                "%.2f ms" % (1000 * mt / mi))}[what]
        ok = abs(e) <= tol
        fails += not ok
        print("%s - %s to loss %s: predicted %s, measured %s, error %+.1f %% (tolerance %g %%)"
              % ("ok" if ok else "not ok",
                 "time per update" if what == "s_per_it" else what, tg["loss"], p, m, e, tol),
              file=sys.stderr)
    return 1 if fails else 0


def scratch_workload(profdir, types_path, lossfit, name, out):
    with open(os.path.join(profdir, "runs.json"), encoding="utf-8") as f:
        runs = json.load(f)["runs"]
    with open(types_path, encoding="utf-8") as f:
        types = json.load(f)["types"]
    with open(lossfit, encoding="utf-8") as f:
        loss = json.load(f)["loss_model"]
    inst, s_bytes = [], None
    for r in runs:
        if r["workers"] != 1 or r["exit"] != 0:
            continue
        lg = r["logs"][0]
        with open(os.path.join(profdir, r["dir"], "ps.json"), encoding="utf-8") as f:
            s_bytes = json.load(f)["parameter_bytes"]
        steps = []
        with open(os.path.join(profdir, lg["log"]), encoding="utf-8") as f:
            head = None
            for line in f:
                if line.startswith("#"):
                    continue
                v = line.rstrip("\n").split(",")
                if head is None:
                    head = v
                    continue
                steps.append(float(v[head.index("step_s")]))
        mean = sum(steps[1:]) / len(steps[1:])
        b = types[lg["type"]]["batch"]
        inst.append({"type": lg["type"], "batch_per_gpu": b // 2,
                     "speed_samples_per_s": round(b / mean, 3)})
    doc = {"name": name, "description": "SCRATCH (development only): speeds from %s" % profdir,
           "s_parm_mb": s_bytes / 1e6, "b_req_mbps": 1000, "b_ps_mbps": 100000,
           "b_pcie_mbps": 10000, "contention": {"alpha1": 0.5, "beta1": -1.2},
           "compat": "paper", "loss_model": loss, "instances": inst}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    return 0


def main(argv):
    if len(argv) >= 4 and argv[0] == "run-plan":
        return run_plan(argv[1], argv[2], float(argv[3]), argv[4:])
    if len(argv) in (3, 4) and argv[0] == "compare":
        checks = argv[3].split(",") if len(argv) == 4 else ["time", "iterations"]
        if not all(c in CHECKS for c in checks):
            die("compare CHECKS: expected a comma-separated list of %s, found %r"
                % (", ".join(CHECKS), argv[3]))
        return compare(argv[1], float(argv[2]), checks)
    if len(argv) == 6 and argv[0] == "scratch-workload":
        return scratch_workload(*argv[1:])
    die("usage: see the module docstring (run-plan | compare | scratch-workload)")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
