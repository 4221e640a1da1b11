"""ddp_check.py - the slo plan hook against PyTorch's default DDP, on a real
model (torchvision ResNet-18, random weights, synthetic batch of 32x32
images, 10 classes), gloo, torchrun-style env:// launch of WORLD ranks by
torch.multiprocessing, 1 thread each (tests/test_python_ddp.sh).

usage: ddp_check.py MODE PLAN [PLAN_RANK1]
       srun -n 2 ddp_check.py srun-MODE PLAN [PLAN_RANK1]   (one rank per task)
  MODE equal   two DDP copies of one model, default DDP and the plan hook
               (fine buckets), the same batches: every gradient must be
               bit-identical (torch.equal) after each of 3 iterations (an SGD
               step between them, DDP rebuilds its buckets after the first);
               every rank's recorded collectives must be the plan's blocks
               0..n-1 in order with their bytes, the same on every rank.
               Prints "equal ITER PARAMS BLOCKS CHECKSUM" per rank.
  MODE refuse  register the hook with PLAN on rank 0 and PLAN_RANK1 on the
               others (or PLAN everywhere): every rank must raise PlanError;
               prints "refused RANK: MESSAGE" per rank.
The reference is PyTorch's own DDP, independent of slo: nothing is restated."""

import copy
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

WORLD = 2


def batch(rank, it):
    g = torch.Generator().manual_seed(1000 * it + rank)
    return torch.randn(4, 3, 32, 32, generator=g), torch.randint(0, 10, (4,), generator=g)


def run(rank, mode, plans, port, out):
    try:
        run1(rank, mode, plans, port, out)
    except BaseException as e:  # report, never leave the parent waiting
        out.put((rank, ["FAIL rank %d: %s: %s" % (rank, type(e).__name__, e)]))
        raise


def run1(rank, mode, plans, port, out):
    import torchvision
    from torch.nn.parallel import DistributedDataParallel as DDP
    sys.path.insert(0, os.environ["SLO_PYTHONPATH"])
    import slo.ddp
    from slo.layers import forward_layers

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(WORLD))
    dist.init_process_group("gloo", init_method="env://")
    torch.manual_seed(0)
    model_a = torchvision.models.resnet18(num_classes=10)
    model_b = copy.deepcopy(model_a)
    ex = torch.zeros(1, 3, 32, 32)
    layers = forward_layers(model_b, ex)
    plan = plans[0] if rank == 0 or len(plans) == 1 else plans[1]
    lines = []
    ddp_b = DDP(model_b, bucket_cap_mb=slo.ddp.FINE_BUCKET_CAP_MB)
    if mode == "refuse":
        try:
            slo.ddp.register_plan_hook(ddp_b, plan, layers=layers, model_name="resnet18")
            lines.append("accepted %d" % rank)
        except slo.ddp.PlanError as e:
            lines.append("refused %d: %s" % (rank, e))
        out.put((rank, lines))
        dist.destroy_process_group()
        return
    ddp_a = DDP(model_a)
    st = slo.ddp.register_plan_hook(ddp_b, plan, layers=layers, model_name="resnet18")
    opt_a = torch.optim.SGD(model_a.parameters(), lr=0.1)
    opt_b = torch.optim.SGD(model_b.parameters(), lr=0.1)
    lossf = torch.nn.CrossEntropyLoss()
    expect = [(b, blk["bytes"]) for b, blk in enumerate(st.plan.blocks)]
    for it in range(3):
        x, y = batch(rank, it)
        for ddp, opt in ((ddp_a, opt_a), (ddp_b, opt_b)):
            opt.zero_grad(set_to_none=True)
            lossf(ddp(x), y).backward()
        names = [n for n, _ in model_a.named_parameters()]
        diff = [n for n, pa, pb in zip(names, model_a.parameters(), model_b.parameters())
                if not torch.equal(pa.grad, pb.grad)]
        logs = [None] * WORLD
        dist.all_gather_object(logs, list(st.log))
        if diff:
            lines.append("FAIL iteration %d: %d gradients differ, first %s" % (it, len(diff), diff[0]))
        if any(lg != expect for lg in logs):
            lines.append("FAIL iteration %d: collectives not in plan order on every rank: %s"
                         % (it, [lg[:5] for lg in logs]))
        lines.append("equal %d %d %d %016x" % (it, len(names), len(st.log), st.sequence_checksum))
        opt_a.step()
        opt_b.step()
    out.put((rank, lines))
    dist.destroy_process_group()


class _Print:
    """out.put for a rank launched by srun: print its lines."""

    def put(self, item):
        for line in item[1]:
            print(line, flush=True)
        if any(line.startswith("FAIL") for line in item[1]):
            self.failed = True

    failed = False


def main():
    mode, plans = sys.argv[1], sys.argv[2:]
    if mode.startswith("srun-"):
        # one rank per srun task (SLURM_PROCID of SLURM_NTASKS = 2); the
        # rendezvous port from the job and step ids, the same on every task
        if os.environ.get("SLURM_NTASKS") != str(WORLD):
            print("FAIL: expected srun -n %d, found SLURM_NTASKS=%s"
                  % (WORLD, os.environ.get("SLURM_NTASKS")))
            return 1
        port = 29500 + (int(os.environ["SLURM_JOB_ID"]) * 7 + int(os.environ.get("SLURM_STEP_ID", "0"))) % 20000
        out = _Print()
        try:
            run1(int(os.environ["SLURM_PROCID"]), mode[5:], plans, port, out)
        except BaseException as e:
            print("FAIL rank %s: %s: %s" % (os.environ["SLURM_PROCID"], type(e).__name__, e))
            return 1
        return 1 if out.failed else 0
    for attempt in range(3):
        rc, lines = local_run(mode, plans)
        # the port is chosen free, closed, then bound by rank 0: another
        # process on the host can take it in between; that race, and only
        # it, is retried on a new port
        if not any("Address already in use" in line for line in lines):
            break
    for line in lines:
        print(line)
    return rc


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def local_run(mode, plans):
    """The WORLD ranks as spawned processes; (exit status, report lines)."""
    port = free_port()
    report = []
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=run, args=(r, mode, plans, port, out)) for r in range(WORLD)]
    for p in procs:
        p.start()
    got = {}
    try:
        for _ in range(WORLD):
            r, lines = out.get(timeout=float(os.environ.get("SLO_TEST_TIMEOUT", "240")))
            got[r] = lines
    except Exception:  # queue.Empty: a rank hung or died
        report.append("FAIL: %d of %d ranks reported (hang or crash)" % (len(got), WORLD))
    for p in procs:
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
            report.append("FAIL: a rank did not exit")
    for r in sorted(got):
        report.extend(got[r])
    bad = len(got) != WORLD or any(p.exitcode for p in procs)
    return (1 if bad else 0), report


if __name__ == "__main__":
    raise SystemExit(main())
