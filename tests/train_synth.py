#!/usr/bin/env python3
"""train_synth.py SPEC.json OUTDIR - synthetic per-worker training logs of an
asynchronous parameter-server job drawn from spotDNN's model (the format
StepLogger writes, doc/formats.md "Training logs"), with seeded noise, for
tests/cli_fit_profile.sh.

SPEC (JSON):
  seed, steps (PS updates per run), noise (relative sd of each step time),
  loss_noise (absolute sd of each loss), model, parameter_bytes,
  b_req_mbps, b_ps_mbps, alpha1, beta1, pcie_mbps (default 10000),
  types: {TYPE: {"batch": samples per step, "gpus": g, "t_comp_s": s,
                 "network_mbps": MB/s or absent, "pcie_mbps": MB/s or absent}},
  loss: {"gamma1".."gamma5"} (spotdnn-2023 form; gamma4 absent: 2022 form),
  clusters: ["TYPE=N,TYPE=N", ...]

Model (paper Eqs. 4-9): a worker of type k in a cluster of n workers has
B_req^k = min(network_mbps, b_req_mbps) (b_req_mbps without network_mbps),
B_wk = B_req^k when n B_req^k <= B_ps, else P B_ps / n + (1 - P) B_req^k
with P = clamp(alpha1 sqrt(n) + beta1, 0, 1); its step takes
T = t_comp + 2 S / B_wk + 2 g S / B_pcie (S = parameter_bytes / 1e6 MB),
times (1 + noise x N(0, 1)). The PS applies every push on arrival
(event-driven: the worker whose step ends first pushes next), so
global_samples / global_step is the weighted-average batch of Eq. 4. The
loss after j = global_samples / b_w normalized iterations is Eq. 3 with the
cluster's model b_w and R (Eq. 5), plus loss_noise x N(0, 1).
Standard library only; random.Random(seed) per run, so the output is the
same on every machine.
"""
import heapq
import json
import math
import os
import random
import sys


def parse_cluster(text):
    out = []
    for item in text.split(","):
        t, n = item.split("=")
        out.append((t, int(n)))
    return sorted(out)


def main():
    spec = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    S = spec["parameter_bytes"] / 1e6
    b_ps = spec["b_ps_mbps"]
    pcie = spec.get("pcie_mbps", 10000.0)
    loss = spec["loss"]
    for ci, text in enumerate(spec["clusters"]):
        rng = random.Random(spec["seed"] * 1000 + ci)
        cl = parse_cluster(text)
        n = sum(c for _, c in cl)
        workers = []
        for t, c in cl:
            ty = spec["types"][t]
            b_req = min(ty.get("network_mbps", 1e300), spec["b_req_mbps"])
            if n * b_req <= b_ps:
                bwk = b_req
            else:
                p = min(max(spec["alpha1"] * math.sqrt(n) + spec["beta1"], 0.0), 1.0)
                bwk = p * b_ps / n + (1 - p) * b_req
            T = ty["t_comp_s"] + 2 * S / bwk + 2 * ty["gpus"] * S / ty.get("pcie_mbps", pcie)
            for _ in range(c):
                workers.append((t, ty["batch"], T))
        rate = sum(1 / T for _, _, T in workers)
        speed = sum(b / T for _, b, T in workers)
        bw = speed / rate
        total = speed
        w = [b / T / total for _, b, T in workers]
        R = math.sqrt(max(sum(x * x for x in w) - 2 * max(w) + 1, 0)) if n > 1 else 0.0
        if "gamma4" in loss:
            stale = math.sqrt((R + loss["gamma4"]) * n)
        else:
            stale = math.sqrt(n)
        name = text.replace("=", "-").replace(",", "_")
        files = []
        for i, (t, b, T) in enumerate(workers):
            path = os.path.join(out, "%s.w%d.csv" % (name, i))
            f = open(path, "w")
            f.write("# synthetic log (tests/train_synth.py, seed %d)\n" % spec["seed"])
            f.write("# model: %s\n# parameter_bytes: %d\n" % (spec["model"],
                                                              spec["parameter_bytes"]))
            f.write("# cluster: %s\n" % ",".join("%s=%d" % x for x in cl))
            f.write("time_s,global_step,global_samples,loss,worker,type,batch,step_s\n")
            files.append(f)
        heap = []
        for i, (t, b, T) in enumerate(workers):
            d = T * (1 + spec["noise"] * rng.gauss(0, 1))
            heapq.heappush(heap, (d, i, d))
        step = samples = 0
        while step < spec["steps"]:
            now, i, d = heapq.heappop(heap)
            t, b, T = workers[i]
            step += 1
            samples += b
            j = samples / bw
            lv = (loss["gamma2"] * bw + loss["gamma3"]) * stale / (j + loss["gamma1"]) + \
                loss["gamma5"] + spec["loss_noise"] * rng.gauss(0, 1)
            files[i].write("%.6f,%d,%d,%.8g,%d,%s,%d,%.6f\n"
                           % (now, step, samples, max(lv, 0.0), i, t, b, d))
            d2 = T * (1 + spec["noise"] * rng.gauss(0, 1))
            heapq.heappush(heap, (now + d2, i, d2))
        for f in files:
            f.close()


if __name__ == "__main__":
    main()
