"""slo.ps - a real asynchronous parameter-server (PS) training job in PyTorch
(doc/train-kit.md, "The emulated job"): the setting spotDNN models.

One process per rank, torch.distributed with the gloo backend (CPU; the
same code runs where torch has CUDA, the tensors stay on the CPU):
rank 0 is the PS, ranks 1..n are workers.  The PS holds the parameters
of a small MLP (64-64-10) on sklearn's digits (load_digits: 1797 8x8
images shipped inside python3-sklearn, no network), split 1497 train /
300 test with a fixed seed.  A worker repeatedly pulls the parameters,
computes the gradient of the cross-entropy on its own random batch, and
pushes it; the PS applies each gradient as it arrives (plain SGD,
theta -= lr * g) with no barrier between workers, so a gradient may be
computed on parameters other workers updated since (asynchronous, stale
updates), and answers with the new parameters and its global counters.
Each worker logs every step with slo.trainlog.StepLogger; the PS writes
ps.json (steps, samples, elapsed s, held-out accuracy and loss).

Instance types are emulated by a calibrated slowdown: the job's types file
gives each type a compute multiplier k >= 1 and a batch size.  Each step the
worker measures its real compute time c (forward + backward, perf_counter),
takes the reference compute time r = max(c, floor) (floor = --floor-ms,
default 4 ms, so that steps are long enough to time on a loaded machine),
and sleeps k*r - c: the step's compute then lasts k*r, k times the
reference type's.  Sleeping costs no CPU, so 2 cores run a few workers
honestly.  Built-in types (used without --types):

    emu.fast  k = 1.0, batch 32
    emu.slow  k = 2.5, batch 16

The PS's network is emulated the same way when --ps-mbps B is given (the
PS's NIC, B MB/s = 1e6 bytes/s) with --worker-mbps W (each worker's NIC,
default unlimited) and --payload-bytes S (bytes moved each way per
iteration; default the parameter bytes, 19240 - too small to load any
link, so inflate it to see contention).  One iteration moves 2 S (push of
the gradient, pull of the parameters).  The PS keeps a virtual clock of
its link, a FIFO queue shared by all workers: a push arriving at t starts
its transfer at s = max(t, link_free), occupies the link 2 S / B
(link_free = s + 2 S / B) and completes at f = max(t + 2 S / W,
s + 2 S / B) (the worker's own NIC bounds it too; a type's "network_mbps" in the
types file is W for that type's workers).  The PS answers at once
with f - now, and the worker sleeps that long before its next step.  Alone
a step costs 2 S / min(W, B) more; with n workers whose n W > B the pushes
queue behind each other, the per-worker bandwidth 2 S / (transfer + wait)
falls towards B / n, and iteration time grows with n: the setting of
spotDNN's Eq. 8-9 (B_req = W, B_ps = B).  Sleeping costs no CPU.

Environment (set by slo-profile-train; or by hand / srun): RANK (or
SLURM_PROCID), WORLD_SIZE (or SLURM_NTASKS), MASTER_ADDR, MASTER_PORT,
SLO_TRAIN_CLUSTER ("TYPE=N,..."), SLO_TRAIN_WORKER_TYPES (the type of
workers 0..n-1, comma-separated), SLO_TRAIN_LOG_DIR, SLO_TRAIN_STEPS
(PS updates to run), SLO_TRAIN_TYPES (types file, optional).

Exit status: 0 done, 2 bad input (one message on stderr naming the
variable or file), 1 a runtime failure (e.g. a peer died: gloo's error).
"""

import argparse
import json
import math
import os
import sys
import time
from datetime import timedelta

from . import trainlog

BUILTIN_TYPES = {"emu.fast": {"slowdown": 1.0, "batch": 32},
                 "emu.slow": {"slowdown": 2.5, "batch": 16}}
SPLIT_SEED = 12
N_TEST = 300
HIDDEN = 64


class InputError(Exception):
    pass


def load_types(path):
    """{type: {"slowdown": k >= 1, "batch": int >= 1}} from a JSON file
    {"types": {NAME: {"slowdown": K, "batch": B}, ...}}, or the built-in
    types when path is None.  InputError names the file and field."""
    if not path:
        return dict(BUILTIN_TYPES)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e.strerror)) from None
    except ValueError as e:
        raise InputError("%s: not a JSON document (%s)" % (path, e)) from None
    types = doc.get("types") if isinstance(doc, dict) else None
    if not isinstance(types, dict) or not types:
        raise InputError("%s: expected an object \"types\" naming at least one type, found %s"
                         % (path, "none" if types is None else type(types).__name__))
    out = {}
    for name, t in types.items():
        try:
            trainlog._check_type(name, "types")
        except ValueError as e:
            raise InputError("%s: %s" % (path, e)) from None
        if not isinstance(t, dict):
            raise InputError("%s: types.%s: expected an object, found %r" % (path, name, t))
        k, b = t.get("slowdown"), t.get("batch")
        if isinstance(k, bool) or not isinstance(k, (int, float)) or not k >= 1 or k > 1000:
            raise InputError("%s: types.%s.slowdown: expected a number in [1, 1000] (compute "
                             "time over the reference type's), found %r" % (path, name, k))
        if isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= 1024:
            raise InputError("%s: types.%s.batch: expected an integer in [1, 1024] (samples "
                             "per step), found %r" % (path, name, b))
        out[name] = {"slowdown": float(k), "batch": b}
        if "network_mbps" in t:
            w = t["network_mbps"]
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.001 <= w <= 1e7:
                raise InputError("%s: types.%s.network_mbps: expected MB/s in [0.001, 1e7] "
                                 "(the worker's NIC under --ps-mbps), found %r" % (path, name, w))
            out[name]["network_mbps"] = float(w)
    return out


def _env(name, env, default=None):
    v = env.get(name, default)
    if v is None:
        raise InputError("%s: expected it in the environment (slo-profile-train sets it), "
                         "found it unset" % name)
    return v


def _int_env(names, env):
    for n in names:
        if n in env:
            try:
                return int(env[n])
            except ValueError:
                raise InputError("%s: expected an integer, found %r" % (n, env[n])) from None
    raise InputError("%s: expected it in the environment, found it unset" % " or ".join(names))


def data():
    """(x_train, y_train, x_test, y_test): digits scaled to [0, 1], a fixed
    permutation (seed SPLIT_SEED), the last N_TEST images held out."""
    import numpy as np
    import torch
    from sklearn.datasets import load_digits
    d = load_digits()
    perm = np.random.RandomState(SPLIT_SEED).permutation(len(d.target))
    x = torch.tensor(d.data[perm] / 16.0, dtype=torch.float32)
    y = torch.tensor(d.target[perm], dtype=torch.int64)
    return x[:-N_TEST], y[:-N_TEST], x[-N_TEST:], y[-N_TEST:]


def model():
    import torch
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, HIDDEN), torch.nn.ReLU(),
                               torch.nn.Linear(HIDDEN, 10))


class _TargetWatch:
    """Watches the loss on the whole training set for run_ps's target: the
    PS hands it a copy of the parameters every eval_every updates (put: a
    19 KB clone, microseconds) and a thread evaluates the copies in order,
    off the PS's critical path (an evaluation in the PS loop would delay
    every reply, and so every worker's step, by its forward pass of 1497
    images).  reached is set at the first copy whose loss is <= target; its
    step, samples and elapsed s are those of the moment the copy was taken."""

    def __init__(self, target, smoothing):
        import queue
        import threading
        self.target, self.smoothing = target, smoothing
        self.x, self.y = data()[:2]
        self.q = queue.Queue()
        self.evals, self.first = [], None
        self.reached = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def put(self, step, samples, elapsed, theta):
        if not self.reached.is_set():
            self.q.put((step, samples, elapsed, theta.clone()))

    def _run(self):
        import torch
        from torch.nn.utils import vector_to_parameters
        net = model()
        while True:
            item = self.q.get()
            if item is None:
                return
            step, samples, elapsed, theta = item
            if self.first is not None:
                continue
            with torch.no_grad():
                vector_to_parameters(theta, net.parameters())
                tl = torch.nn.functional.cross_entropy(net(self.x), self.y,
                                                       label_smoothing=self.smoothing).item()
            self.evals.append([step, samples, round(elapsed, 6), tl])
            if tl <= self.target:
                self.first = self.evals[-1]
                self.reached.set()

    def finish(self):
        """Evaluate what is queued, stop the thread: (evals, first or None)."""
        self.q.put(None)
        self.thread.join()
        return self.evals, self.first


class _Link:
    """The PS's NIC as a FIFO virtual clock (module docstring): transfer(t)
    for a push arriving at monotonic time t s returns the s the worker must
    wait from t for its 2 S bytes to be moved.  ps_mbps None: no link, 0."""

    def __init__(self, ps_mbps, worker_mbps, payload_bytes, own_mbps=None):
        self.on = ps_mbps is not None
        self.occ = 2.0 * payload_bytes / (ps_mbps * 1e6) if self.on else 0.0
        self.own = 2.0 * payload_bytes / (worker_mbps * 1e6) if worker_mbps else 0.0
        # per worker (0..n-1): its type's network_mbps where the types file
        # gives one, else --worker-mbps
        self.own_w = [2.0 * payload_bytes / (m * 1e6) if m else self.own
                      for m in (own_mbps or [])]
        self.free = 0.0

    def transfer(self, t, worker=None):
        if not self.on:
            return 0.0
        start = max(t, self.free)
        self.free = start + self.occ
        own = self.own_w[worker] if worker is not None and worker < len(self.own_w) else self.own
        return max(own, self.free - t)


def run_ps(world, steps, lr, log_dir, cluster, target=None, eval_every=5, smoothing=0.0,
           link=None, net_doc=None):
    """The PS loop (rank 0): answer every worker's pull or push, in arrival
    order, until steps updates are done (or, with target, until the loss on
    the whole training set, evaluated every eval_every updates, is <= target)
    and every worker was told to stop.
    Message worker -> PS: [batch, loss, gradient...] (batch 0: a pull, no
    gradient); PS -> worker: [global_step, global_samples, stop, applied,
    theta...] (applied: this push's gradient was applied; after the last
    update it is not)."""
    import torch
    import torch.distributed as dist
    from torch.nn.utils import parameters_to_vector, vector_to_parameters
    net = model()
    theta = parameters_to_vector(net.parameters()).detach().clone()
    n_par = theta.numel()
    msg = torch.zeros(n_par + 2)
    reply = torch.zeros(n_par + 5)
    link = link or _Link(None, None, 0)
    step = samples = 0
    active = world - 1
    per_worker = [0] * (world - 1)
    ev = _TargetWatch(target, smoothing) if target is not None else None
    t0 = time.monotonic()
    while active > 0:
        src = dist.recv(msg)
        t_arr = time.monotonic()
        b = int(msg[0].item())
        stop = step >= steps or (ev is not None and ev.reached.is_set())
        applied = b > 0 and not stop
        if applied:
            theta.add_(msg[2:], alpha=-lr)
            step += 1
            samples += b
            per_worker[src - 1] += 1
            stop = step >= steps
            if ev is not None and step % eval_every == 0:
                ev.put(step, samples, time.monotonic() - t0, theta)
        reply[0], reply[1] = step, samples
        reply[2], reply[3] = 1.0 if stop else 0.0, 1.0 if applied else 0.0
        reply[4] = (link.transfer(t_arr, src - 1) - (time.monotonic() - t_arr)
                    if applied else 0.0)
        reply[5:] = theta
        dist.send(reply, dst=src)
        if stop:
            active -= 1
    elapsed = time.monotonic() - t0
    evals, reached = ev.finish() if ev is not None else ([], None)
    vector_to_parameters(theta, net.parameters())
    _, _, xt, yt = data()
    with torch.no_grad():
        out = net(xt)
        acc = (out.argmax(1) == yt).float().mean().item()
        test_loss = torch.nn.functional.cross_entropy(out, yt, label_smoothing=smoothing).item()
    trainlog.write_json_atomic(os.path.join(log_dir, "ps.json"), {
        "format": "slo-train-ps-1", "cluster": cluster, "global_step": step,
        "global_samples": samples, "updates_per_worker": per_worker,
        "elapsed_s": round(elapsed, 6), "test_accuracy": acc, "test_loss": test_loss,
        "parameters": n_par, "parameter_bytes": n_par * 4, "n_test": N_TEST,
        "node": trainlog.node_name(), "network": net_doc,
        "target": None if target is None else {
            "loss": target, "eval_every": eval_every, "reached": reached is not None,
            "global_step": reached[0] if reached else None,
            "global_samples": reached[1] if reached else None,
            "elapsed_s": reached[2] if reached else None,
            "train_loss": reached[3] if reached else None},
        "train_loss_evals": evals})


def run_worker(rank, wtype, spec, floor_s, log_dir, cluster, seed, smoothing=0.0):
    """A worker (rank >= 1): pull, compute on a random batch of spec["batch"]
    samples, stretch compute to slowdown x reference (module docstring),
    push, log the PS's answer; until the PS says stop."""
    import torch
    import torch.distributed as dist
    from torch.nn.utils import parameters_to_vector, vector_to_parameters
    net = model()
    params = list(net.parameters())
    n_par = parameters_to_vector(params).numel()
    x, y, _, _ = data()
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    b, k = spec["batch"], spec["slowdown"]
    msg = torch.zeros(n_par + 2)
    reply = torch.zeros(n_par + 5)
    dist.send(msg, dst=0)                          # pull: batch 0
    dist.recv(reply, src=0)
    if reply[2].item():
        return 0
    log = trainlog.StepLogger(os.path.join(log_dir, "worker-%d.csv" % (rank - 1)), cluster,
                              rank - 1, wtype, b,
                              progress=os.path.join(log_dir, "progress-%d.json" % (rank - 1)),
                              comment="slo.ps digits MLP 64-%d-10, %d parameters, async PS, "
                                      "type %s slowdown %g" % (HIDDEN, n_par, wtype, k))
    with log:
        while True:
            t = time.perf_counter()
            vector_to_parameters(reply[5:], params)
            idx = torch.randint(0, x.shape[0], (b,), generator=g)
            net.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x[idx]), y[idx], label_smoothing=smoothing)
            loss.backward()
            msg[0], msg[1] = b, loss.item()
            msg[2:] = parameters_to_vector([p.grad for p in params])
            c = time.perf_counter() - t
            time.sleep(max(0.0, k * max(c, floor_s) - c))
            dist.send(msg, dst=0)
            dist.recv(reply, src=0)
            wait = reply[4].item()
            if wait > 0:                           # the emulated transfer (--ps-mbps)
                time.sleep(wait)
            if reply[3].item():
                log.log(int(reply[0].item()), int(reply[1].item()), msg[1].item())
            if reply[2].item():
                break
    return 0


def main(argv=None, env=None):
    env = os.environ if env is None else env
    ap = argparse.ArgumentParser(prog="python3 -m slo.ps", description=__doc__.split("\n")[0])
    ap.add_argument("--lr", type=float, default=0.1, help="SGD step size (default 0.1)")
    ap.add_argument("--floor-ms", type=float, default=4.0,
                    help="least reference compute time per step, ms (default 4)")
    ap.add_argument("--seed", type=int, default=1, help="batch sampling seed (default 1)")
    ap.add_argument("--label-smoothing", type=float, default=0.0,
                    help="cross-entropy label smoothing in [0, 0.5] (default 0); > 0 gives the "
                         "training loss a floor above 0, the asymptotic loss of spotDNN's Eq. 3")
    ap.add_argument("--target-loss", type=float, default=None,
                    help="stop once the loss on the whole training set is <= this (checked "
                         "by the PS every --eval-every updates; SLO_TRAIN_STEPS stays a cap)")
    ap.add_argument("--eval-every", type=int, default=5,
                    help="updates between the PS's training-set loss evaluations with "
                         "--target-loss (default 5)")
    ap.add_argument("--ps-mbps", type=float, default=None,
                    help="emulate the PS's NIC at this many MB/s, shared by all workers "
                         "(module docstring; default: no emulated network)")
    ap.add_argument("--worker-mbps", type=float, default=None,
                    help="with --ps-mbps: each worker's NIC, MB/s (default unlimited)")
    ap.add_argument("--payload-bytes", type=int, default=None,
                    help="with --ps-mbps: bytes moved each way per iteration (default the "
                         "model's parameter bytes)")
    ap.add_argument("--timeout", type=float, default=120,
                    help="s to wait for a peer before failing (default 120)")
    a = ap.parse_args(argv)
    try:
        # isfinite: nan passes every "not in range" comparison
        if not (math.isfinite(a.lr) and 0 < a.lr <= 1e3):
            raise InputError("--lr: expected a step size in (0, 1000], found %r" % a.lr)
        if not (math.isfinite(a.floor_ms) and 0 <= a.floor_ms <= 1e6):
            raise InputError("--floor-ms: expected ms in [0, 1e6], found %r" % a.floor_ms)
        for opt, v in (("--ps-mbps", a.ps_mbps), ("--worker-mbps", a.worker_mbps)):
            if v is not None and not 0.001 <= v <= 1e7:
                raise InputError("%s: expected MB/s in [0.001, 1e7], found %r" % (opt, v))
        if a.payload_bytes is not None and not 1 <= a.payload_bytes <= 10 ** 10:
            raise InputError("--payload-bytes: expected bytes in [1, 1e10], found %d"
                             % a.payload_bytes)
        if a.ps_mbps is None and (a.worker_mbps is not None or a.payload_bytes is not None):
            raise InputError("--%s: expected it only with --ps-mbps (the emulated PS "
                             "network), found --ps-mbps unset"
                             % ("worker-mbps" if a.worker_mbps is not None else "payload-bytes"))
        rank = _int_env(("RANK", "SLURM_PROCID"), env)
        world = _int_env(("WORLD_SIZE", "SLURM_NTASKS"), env)
        if world < 2 or not 0 <= rank < world:
            raise InputError("RANK/WORLD_SIZE: expected 0 <= rank < world size, world size "
                             ">= 2 (a PS and a worker), found rank %d of %d" % (rank, world))
        cluster = trainlog.format_cluster(_env("SLO_TRAIN_CLUSTER", env))
        wtypes = _env("SLO_TRAIN_WORKER_TYPES", env).split(",")
        counts = trainlog.parse_cluster(cluster)
        if len(wtypes) != world - 1 or sorted(wtypes) != sorted(
                t for t, n in counts.items() for _ in range(n)):
            raise InputError("SLO_TRAIN_WORKER_TYPES: expected %d types matching the cluster "
                             "%s, found %r" % (world - 1, cluster, ",".join(wtypes)))
        types = load_types(env.get("SLO_TRAIN_TYPES"))
        for t in counts:
            if t not in types:
                raise InputError("SLO_TRAIN_CLUSTER: type %s: expected one of the types file's "
                                 "(%s), found it missing" % (t, ", ".join(sorted(types))))
        steps = _int_env(("SLO_TRAIN_STEPS",), env)
        if steps < 1:
            raise InputError("SLO_TRAIN_STEPS: expected an integer >= 1, found %d" % steps)
        log_dir = _env("SLO_TRAIN_LOG_DIR", env)
        if not os.path.isdir(log_dir):
            raise InputError("SLO_TRAIN_LOG_DIR: expected a directory, found %r" % log_dir)
        _env("MASTER_ADDR", env)
        _env("MASTER_PORT", env)
        if a.target_loss is not None and not (a.target_loss > 0 and a.target_loss < 1e6):
            raise InputError("--target-loss: expected a loss > 0, found %r" % a.target_loss)
        if not 0 <= a.label_smoothing <= 0.5:
            raise InputError("--label-smoothing: expected a number in [0, 0.5], found %r"
                             % a.label_smoothing)
        if not 1 <= a.eval_every <= 1000000:
            raise InputError("--eval-every: expected an integer >= 1, found %d" % a.eval_every)
    except (InputError, ValueError) as e:
        print("slo.ps: %s" % e, file=sys.stderr)
        return 2
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", env["MASTER_ADDR"])
    os.environ.setdefault("MASTER_PORT", env["MASTER_PORT"])
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=timedelta(seconds=a.timeout))
    try:
        if rank == 0:
            n_par = sum(p.numel() for p in model().parameters())
            pb = a.payload_bytes if a.payload_bytes is not None else 4 * n_par
            own = [types[t].get("network_mbps") for t in wtypes]
            link = _Link(a.ps_mbps, a.worker_mbps, pb, own)
            net_doc = None if a.ps_mbps is None else {
                "ps_mbps": a.ps_mbps, "worker_mbps": a.worker_mbps, "payload_bytes": pb}
            if a.ps_mbps is not None and any(own):
                net_doc["worker_network_mbps"] = [m or a.worker_mbps for m in own]
            run_ps(world, steps, a.lr, log_dir, cluster, a.target_loss, a.eval_every,
                   a.label_smoothing, link, net_doc)
        else:
            wt = wtypes[rank - 1]
            run_worker(rank, wt, types[wt], a.floor_ms / 1000.0, log_dir, cluster, a.seed,
                       a.label_smoothing)
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
