"""bench_ddp.py - default DDP vs `slo comm --recommend ddp` knobs vs the slo
plan hook, measured iteration time beside the simulator's prediction, on
this machine: 2 ranks, gloo over loopback, 1 thread each, for ResNet-18
(torchvision, 32x32 input, batch 8) and an MLP (3072-2048-2048-2048-10,
batch 32).  Per model:
  1. slo.profiler measures the per-layer CSV (one process, 1 thread);
  2. the link: gloo allreduce times of 2 ranks at 16 KiB .. 64 MiB, median
     of 5, fitted t = alpha + beta s (least squares on relative residuals,
     as the kernel's fit) and read under the ring model: latency alpha / 2,
     bandwidth 1 / beta (p = 2: 2(p-1)/p = 1);
  3. slo comm on the CSV and that link: T of the ddp policy (DDP's default
     buckets), --recommend ddp (knobs and T), the optimal plan (T, plan);
  4. the three runs, measured: median over 12 iterations (3 warm-up) of
     forward + backward + SGD step, a barrier before each iteration.
usage: SLO=path/to/slo python3 bench_ddp.py  (bench/bench_ddp.sh runs it)"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("SLO_PYTHONPATH", os.path.join(HERE, "..", "python")))
WORLD = 2


def make_model(name):
    torch.manual_seed(0)
    if name == "resnet18":
        import torchvision
        return torchvision.models.resnet18(num_classes=10), (8, 3, 32, 32)
    layers, width = [torch.nn.Flatten()], 3072
    for _ in range(3):
        layers += [torch.nn.Linear(width, 2048), torch.nn.ReLU()]
        width = 2048
    layers.append(torch.nn.Linear(width, 10))
    return torch.nn.Sequential(*layers), (32, 3, 32, 32)


def init(rank, port):
    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(WORLD))
    dist.init_process_group("gloo", init_method="env://")


def link_rank(rank, port, out):
    init(rank, port)
    pts = []
    for s in [16384 * 4 ** i for i in range(7)]:
        t = torch.ones(s // 4)
        times = []
        for _ in range(6):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            times.append(time.perf_counter() - t0)
        pts.append((s, statistics.median(times[1:])))
    if rank == 0:
        out.put(pts)
    dist.destroy_process_group()


def time_rank(rank, port, name, knobs, plan_path, out):
    from torch.nn.parallel import DistributedDataParallel as DDP
    import slo.ddp
    from slo.layers import forward_layers
    init(rank, port)
    lossf = torch.nn.CrossEntropyLoss()
    res = {}
    for variant in ("default", "recommended", "plan hook"):
        model, shape = make_model(name)
        if variant == "default":
            ddp = DDP(model)
        elif variant == "recommended":
            saved = dist._DEFAULT_FIRST_BUCKET_BYTES
            dist._DEFAULT_FIRST_BUCKET_BYTES = int(knobs["first_bucket_mb"] * 1048576)
            ddp = DDP(model, bucket_cap_mb=knobs["bucket_cap_mb"])
            dist._DEFAULT_FIRST_BUCKET_BYTES = saved
        else:
            ddp = DDP(model, bucket_cap_mb=slo.ddp.FINE_BUCKET_CAP_MB)
            slo.ddp.register_plan_hook(ddp, plan_path,
                                       layers=forward_layers(model, torch.zeros(1, *shape[1:])))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        g = torch.Generator().manual_seed(rank)
        x, y = torch.randn(*shape, generator=g), torch.randint(0, 10, (shape[0],), generator=g)
        times = []
        for it in range(15):
            dist.barrier()
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            lossf(ddp(x), y).backward()
            opt.step()
            times.append(time.perf_counter() - t0)
        res[variant] = statistics.median(times[3:])
        del ddp
    if rank == 0:
        out.put(res)
    dist.destroy_process_group()


def spawn(target, *args):
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    port = 29500 + (os.getpid() + int(time.time())) % 20000
    ps = [ctx.Process(target=target, args=(r, port) + args + (out,)) for r in range(WORLD)]
    for p in ps:
        p.start()
    v = out.get(timeout=600)
    for p in ps:
        p.join()
    return v


def fit(pts):
    import numpy as np
    s = np.array([p[0] for p in pts], float)
    t = np.array([p[1] for p in pts], float)
    a = np.stack([1 / t, s / t], 1)
    (alpha, beta), *_ = np.linalg.lstsq(a, np.ones_like(t), rcond=None)
    return max(alpha, 0.0), beta


def slo_json(args):
    r = subprocess.run([os.environ.get("SLO", "slo"), "comm"] + args + ["--json"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def bench(name, tmp):
    from slo import profiler
    torch.set_num_threads(1)
    model, shape = make_model(name)
    layers, fwd, rdy = profiler.profile(model, torch.randn(*shape), iterations=10)
    csv_path = os.path.join(tmp, name + ".csv")
    profiler.write_csv(csv_path, layers, fwd, rdy)
    alpha, beta = fit(spawn(link_rank))
    link = ["--model", csv_path, "--bandwidth", "%.0fB/s" % (1 / beta),
            "--latency", "%.3fus" % (alpha / 2 * 1e6), "--workers", "2"]
    pol = slo_json(link)
    by = {p["name"]: p for p in pol["policies"]}
    rec = slo_json(link + ["--recommend", "ddp"])["recommend"]
    plan_path = os.path.join(tmp, name + "_plan.json")
    with open(plan_path, "w") as f:
        json.dump(pol, f)
    meas = spawn(time_rank, name, rec["knobs"], plan_path)
    pred = {"default": by["ddp"]["iteration_s"], "recommended": rec["iteration_s"],
            "plan hook": by["optimal"]["iteration_s"]}
    print("\n%s: %d layers, %.1f MB of gradients; profiled F+Bw %.1f ms; link (gloo, 2 ranks, "
          "loopback) %.0f MB/s, alpha %.1f us per collective; --recommend ddp: bucket_cap_mb=%g, "
          "first bucket %g MiB; optimal plan %d blocks"
          % (name, len(layers), pol["model"]["bytes"] / 1e6, pol["compute_s"] * 1e3, 1 / beta / 1e6,
             alpha * 1e6, rec["knobs"]["bucket_cap_mb"], rec["knobs"]["first_bucket_mb"],
             by["optimal"]["n_blocks"]))
    print("| %-12s | %12s | %12s | %8s |" % ("variant", "predicted ms", "measured ms", "meas/pred"))
    print("|%s|%s|%s|%s|" % ("-" * 14, "-" * 14, "-" * 14, "-" * 10))
    for v in ("default", "recommended", "plan hook"):
        print("| %-12s | %12.1f | %12.1f | %8.2f |" % (v, pred[v] * 1e3, meas[v] * 1e3,
                                                     meas[v] / pred[v]))
    print("lower bound T_LB %.1f ms; measured ratio default / plan hook %.3f (predicted %.3f)"
          % (pol["lower_bound_s"] * 1e3, meas["default"] / meas["plan hook"],
             pred["default"] / pred["plan hook"]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name in sys.argv[1:] or ["resnet18", "mlp"]:
            bench(name, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
