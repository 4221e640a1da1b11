#!/usr/bin/env python3
"""sync_synth.py - synthetic DDP worker logs for `slo fit train` (issue 17),
drawn from the sync-allreduce model with known coefficients and seeded
noise, in StepLogger's format (python/slo/trainlog.py):

    sync_synth.py OUTDIR [--drop-worker] [--bad-shares] [--one-batch] [--max2]

Runs: type "cpu" (1 GPU per instance) at N = 1, 2, 4 workers and per-worker
batches 16 and 64 (global batch B = 16 N, 64 N). True values (printed as JSON
on stdout): speed 400 samples/s, step overhead 0.01 s, link 50 MB/s, latency 0.002 s, gradient
bytes 4e6, B0 16, phi 200, loss 30 / (j0 + 40) + 0.3 with j0 the steps at B0.
Step times get 1% multiplicative noise, losses 0.003 additive (random.Random(17)).
--drop-worker leaves one worker's log out; --bad-shares writes a batch that
does not sum to the global batch; --one-batch runs every N at one global batch
64 (then phi is not determined); --max2 writes the N = 1 and 2 runs only (a
2-core host: the allreduce is then determined at N = 2 only)."""
import json
import os
import random
import sys

TRUE = {"speed": 400.0, "step_overhead_s": 0.01, "link_mbps": 50.0, "latency_s": 0.002, "bytes": 4e6, "b0": 16,
        "phi": 200.0, "gamma1": 40.0, "gamma3": 30.0, "gamma5": 0.3}


def main(argv):
    out = argv[1]
    flags = set(argv[2:])
    rng = random.Random(17)
    os.makedirs(out, exist_ok=True)
    batches = [64] if "--one-batch" in flags else [16, 64]
    t = TRUE
    for b in batches:
        for n in ((1, 2) if "--max2" in flags else (1, 2, 4)):
            if "--one-batch" in flags:  # a fixed global batch 64, split over the workers
                B, b = 64, 64 // n
            else:
                B = b * n
            comp = t["step_overhead_s"] + B / n / t["speed"]
            ar = 0 if n == 1 else (2 * (n - 1) / n * t["bytes"] / (t["link_mbps"] * 1e6) +
                                   2 * (n - 1) * t["latency_s"])
            step = comp + ar
            eff = t["b0"] * (t["phi"] + B) / ((t["phi"] + t["b0"]) * B)  # steps at B per j0
            steps = 300
            for w in range(n):
                if "--drop-worker" in flags and n == 4 and b == 16 and w == 3:
                    continue
                wb = b + (1 if "--bad-shares" in flags and n == 2 and w == 0 else 0)
                path = os.path.join(out, "b%d-n%d-w%d.csv" % (b, n, w))
                with open(path, "w") as f:
                    f.write("# mode: sync-allreduce\n# model: synth-ddp\n")
                    f.write("# parameter_bytes: %d\n" % t["bytes"])
                    f.write("# cluster: cpu=%d\n" % n)
                    f.write("time_s,global_step,global_samples,loss,worker,type,batch,step_s\n")
                    now = 0.0
                    for j in range(1, steps + 1):
                        s = step * (1 + 0.01 * rng.gauss(0, 1))
                        now += s
                        j0 = j / eff
                        loss = t["gamma3"] / (j0 + t["gamma1"]) + t["gamma5"] + 0.003 * rng.gauss(0, 1)
                        f.write("%.6f,%d,%d,%.8g,%d,cpu,%d,%.6f\n" % (now, j, j * B, loss, w, wb, s))
    json.dump(t, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv)
