"""slo.ddp_emu - a real PyTorch DDP job (gloo, CPU) whose instance types are
emulated by a calibrated compute floor (doc/model.md, "Real runs"; issue 17).

The job: an MLP 64-64-10 (19240 bytes of fp32 gradients) on sklearn's
digits (all 1797 images, scaled to [0, 1]), plain SGD lr 0.1, one thread
per process, DistributedDataParallel over gloo.  Each rank draws its own
random batch of its share b of the global batch B (torch.Generator seeded
1234 + rank) and logs every step with slo.trainlog.StepLogger
(comment "mode: sync-allreduce", model "digits-mlp", parameter_bytes).

The emulation: a rank of type k stretches its step's compute (forward and
backward, from the step's start to the moment DDP hands over its gradient
bucket) to at least

    floor_k(b) = fixed_ms(k) + b x ms_per_sample(k)   milliseconds

by sleeping in a DDP communication hook before it issues the allreduce
(the default hook's allreduce of the 1/N-scaled bucket, real gloo).  The
sleep costs no CPU, so 4 such processes share 2 cores without waiting for
time slices while they compute (gloo's allreduce at N = 4 still does), and a
step of 9-45 ms dwarfs the scheduling noise of a shared
machine.  With shares that differ between ranks ("uneven batches"), each
rank's loss is weighted by b N / B before backward, so that the allreduced
mean gradient is the global batch's mean (what a framework with uneven
batches computes).  What the emulation does not model: real GPUs' compute
scaling with the batch (the floor is linear in b by construction) and a
real network (the allreduce runs on loopback).

EMU_TYPES (the two types every bench and test uses):

    emu.fast  fixed 5 ms + 0.10 ms/sample   (10000 samples/s beyond the fixed part)
    emu.slow  fixed 5 ms + 0.20 ms/sample   (5000 samples/s)

Calibration: `slo fit train` on the runs alone recovers 1 / ms_per_sample
and fixed_ms plus the step's real work outside the floor (the optimizer
step, the logger: ~0.1-0.3 ms) - bench/bench_sync.py prints both.

After training each rank probes, with the same N processes up, the gloo
allreduce of the gradient bytes alone (spec "probes" calls, default 300,
each after a barrier, median) and its CPU share (process CPU time / wall time of the training
loop), into probeRANK.json.

Command line (one srun task; rank and world from SLURM_PROCID / _NTASKS):
    python3 -m slo.ddp_emu SPEC_JSON PORT LOGDIR
SPEC_JSON: {"types": [type of rank 0, 1, ...], "shares": [samples per rank],
"steps": S, "cluster": "TYPE=N,...", "probes": P (optional)}.
"""

import json
import os
import sys
import time

EMU_TYPES = {"emu.fast": {"fixed_ms": 5.0, "ms_per_sample": 0.10},
             "emu.slow": {"fixed_ms": 5.0, "ms_per_sample": 0.20}}


def shares_for(types, batch, mode):
    """Per-rank shares (samples, summing to batch) of ranks of the given
    types: "equal" batch / N each (batch must divide), "speed" in proportion
    to 1 / ms_per_sample, largest remainder. ValueError on a bad split."""
    n = len(types)
    if mode == "equal":
        if batch % n:
            raise ValueError("shares: expected a global batch divisible by %d ranks, found %d"
                             % (n, batch))
        return [batch // n] * n
    if mode != "speed":
        raise ValueError("shares: expected equal or speed, found %r" % mode)
    v = [1.0 / EMU_TYPES[t]["ms_per_sample"] for t in types]
    exact = [batch * x / sum(v) for x in v]
    out = [int(e) for e in exact]
    for i in sorted(range(n), key=lambda i: out[i] - exact[i])[:batch - sum(out)]:
        out[i] += 1
    if min(out) < 1:
        raise ValueError("shares: a rank would get no sample of batch %d" % batch)
    return out


class _Floor:
    """The hook's state: the step's start and its compute floor, s."""

    def __init__(self, floor_s, process_group=None):
        self.floor_s = floor_s
        self.t0 = 0.0
        self.process_group = process_group
        self.slept = 0.0


def floor_hook(state, bucket):
    """DDP communication hook: sleep until the step's compute has lasted
    state.floor_s (on the first bucket of the step), then the default
    allreduce of the bucket (1/N-scaled, SUM: DDP's own path)."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    if bucket.index() == 0:
        wait = state.t0 + state.floor_s - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
            state.slept += wait
    return default_hooks.allreduce_hook(state.process_group, bucket)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def worker(rank, spec, port, logdir):
    """One rank of the job (module docstring); world = len(spec["types"])."""
    import torch
    import torch.distributed as dist
    from sklearn.datasets import load_digits
    from torch.nn.parallel import DistributedDataParallel as DDP
    from slo.trainlog import StepLogger

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    types, shares = spec["types"], spec["shares"]
    world, B = len(types), sum(shares)
    wtype, b = types[rank], shares[rank]
    emu = EMU_TYPES[wtype]
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
    st = _Floor(1e-3 * (emu["fixed_ms"] + b * emu["ms_per_sample"]))
    ddp.register_comm_hook(st, floor_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    lossf = torch.nn.CrossEntropyLoss()
    weight = b * world / B  # the global batch's mean gradient under uneven shares
    g = torch.Generator().manual_seed(1234 + rank)
    # every rank up before the logger's clock starts: time_s (the measured
    # time to loss) is training, not the other ranks' start-up
    dist.barrier()
    log = StepLogger(os.path.join(logdir, "w%d.csv" % rank), spec["cluster"], rank, wtype, b,
                     comment="mode: sync-allreduce", model="digits-mlp",
                     parameter_bytes=nbytes)
    c0, w0 = time.process_time(), time.perf_counter()
    for step in range(1, spec["steps"] + 1):
        st.t0 = time.perf_counter()
        idx = torch.randint(0, x.shape[0], (b,), generator=g)
        opt.zero_grad()
        loss = lossf(ddp(x[idx]), y[idx])
        (loss * weight if weight != 1 else loss).backward()
        opt.step()
        log.log(step, step * B, float(loss))
    cpu = (time.process_time() - c0) / (time.perf_counter() - w0)
    log.close()
    buf = torch.zeros(nbytes // 4)
    v = []
    for i in range(spec.get("probes", 300) + 20):
        dist.barrier()
        t = time.perf_counter()
        dist.all_reduce(buf)
        v.append(time.perf_counter() - t)
    probe = {"allreduce_s": median(v[20:]), "cpu_frac": cpu, "threads": torch.get_num_threads(),
             "floor_s": st.floor_s, "slept_s": st.slept}
    with open(os.path.join(logdir, "probe%d.json" % rank), "w") as f:
        json.dump(probe, f)
    dist.destroy_process_group()


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: python3 -m slo.ddp_emu SPEC_JSON PORT LOGDIR\n")
        return 2
    spec = json.loads(argv[1])
    worker(int(os.environ["SLURM_PROCID"]), spec, int(argv[2]), argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
