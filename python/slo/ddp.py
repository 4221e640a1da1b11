"""slo.ddp - a PyTorch DDP communication hook that executes a `slo comm`
block plan (doc/comm.md, "PyTorch DDP hook").

Shape: torch.distributed.algorithms.ddp_comm_hooks (a state object and
hook(state, bucket) -> torch.futures.Future[torch.Tensor]).  The plan's
byte offsets refer to the flat forward-order buffer of the model's layers
(slo.layers.forward_layers); the hook keeps such a buffer, copies each DDP
bucket's gradients into it as DDP hands the bucket over, and issues the
plan's blocks, in the plan's order 0..n_blocks-1 and identically on every
rank, as soon as (1) every layer a block has bytes of is ready, (2) every
layer >= its hold_layer is ready and (3) every earlier block was issued:
the issue rule of libsloprophet (doc/runtime.md, "Ordering guarantee").
Each block is one allreduce (SUM, after scaling by 1/world_size exactly as
DDP's built-in path does); a block of one range is reduced in place in the
buffer, a block of several ranges through a packed copy.  The hook's
futures complete when the last bucket arrives: every block is issued by
then; the results are copied back into DDP's buckets.

When the hook sees gradients: DDP hands a bucket over when all of its
gradients are ready, so the finer the buckets the closer the issue times are
to the plan's; construct DDP with bucket_cap_mb=FINE_BUCKET_CAP_MB (one
gradient per bucket; DDP 1.13's first bucket still holds up to 1 MiB).

Gradients equal DDP's default (allreduce of 1/p-scaled buckets) bit for bit
when the sum is order independent per element: 2 ranks (a + b = b + a) on
any backend, and ranks whose collective sums every element in the same
order for any message size.  The test (tests/python/ddp_check.py) checks
it on ResNet-18 with gloo and 2 ranks.
"""

import torch
import torch.distributed as dist

from . import plan as slo_plan
from .layers import forward_layers
from .plan import PlanError

FINE_BUCKET_CAP_MB = 1e-6


class PlanHookState:
    """The hook's state: the checked plan, the flat buffer and the record of
    issued collectives (log: [(block, bytes)] of the current iteration, in
    issue order; sequence_checksum: FNV-1a of every (block, bytes) since
    registration, the formula of slo_prophet_sequence_checksum)."""

    def __init__(self, plan, layers, pieces, process_group, grad_checksum, plan_checksum):
        self.plan = plan
        self.layers = layers
        self.pieces = pieces
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.grads_checksum = grad_checksum
        self.plan_checksum = plan_checksum
        self.elem = plan.elem_bytes
        p0 = next(p for layer in layers for p in layer.params)
        self.flat = torch.zeros(plan.total_bytes // self.elem, dtype=p0.dtype, device=p0.device)
        self.param_at = {}  # data_ptr -> (layer, first element, numel)
        at = 0
        for j, layer in enumerate(layers):
            for p in layer.params:
                self.param_at[p.data_ptr()] = (j, at, p.numel())
                at += p.numel()
        self.layer_params = [len(layer.params) for layer in layers]
        G = len(layers)
        self.block_layers = []
        for b, blk in enumerate(plan.blocks):
            need = {g for g, _, _ in pieces[b]}
            need.update(j for j in range(blk["hold_layer"], G) if self.layer_params[j])
            self.block_layers.append(need)
        self.log = []
        self.iterations = 0
        self.sequence_checksum = slo_plan.FNV_OFFSET
        self._reset()

    def _reset(self):
        self.left = list(self.layer_params)
        self.next_block = 0
        self.works = []
        self.pending = []
        self.log = []

    def _issuable(self, b):
        return all(self.left[j] == 0 for j in self.block_layers[b])

    def _issue(self):
        while self.next_block < self.plan.n_blocks and self._issuable(self.next_block):
            b = self.next_block
            ranges = [(o // self.elem, s // self.elem) for o, s in self.plan.blocks[b]["ranges"]]
            if len(ranges) == 1:
                t = self.flat.narrow(0, ranges[0][0], ranges[0][1])
            else:
                t = torch.cat([self.flat.narrow(0, o, n) for o, n in ranges])
            t.mul_(1.0 / self.world_size)
            work = dist.all_reduce(t, group=self.process_group, async_op=True)
            self.works.append((work, t if len(ranges) > 1 else None, ranges))
            nbytes = self.plan.blocks[b]["bytes"]
            self.log.append((b, nbytes))
            self.sequence_checksum = slo_plan.fnv(slo_plan.fnv(self.sequence_checksum, b), nbytes)
            self.next_block += 1


def plan_hook(state, bucket):
    """DDP communication hook executing state's plan (register with
    register_plan_hook, which checks the plan on every rank first)."""
    st = state
    if bucket.index() == 0:
        st._reset()
    spots = []
    for p, g in zip(bucket.parameters(), bucket.gradients()):
        at = st.param_at.get(p.data_ptr())
        if at is None:
            raise RuntimeError("slo plan hook: a DDP bucket holds a parameter that is not in the "
                               "plan's layers (the model changed after register_plan_hook)")
        j, off, n = at
        st.flat.narrow(0, off, n).copy_(g.reshape(-1))
        st.left[j] -= 1
        spots.append((off, n))
    st._issue()
    fut = torch.futures.Future()
    st.pending.append((fut, bucket.buffer(), spots))
    if bucket.is_last():
        if st.next_block != st.plan.n_blocks:
            raise RuntimeError("slo plan hook: block %d not issuable after the last bucket "
                               "(every gradient is ready): a bug" % st.next_block)
        for work, packed, ranges in st.works:
            work.wait()
            if packed is not None:
                at = 0
                for o, n in ranges:
                    st.flat.narrow(0, o, n).copy_(packed.narrow(0, at, n))
                    at += n
        for f, buf, sp in st.pending:
            at = 0
            for off, n in sp:
                buf.narrow(0, at, n).copy_(st.flat.narrow(0, off, n))
                at += n
            f.set_result(buf)
        st.iterations += 1
    return fut



def register_plan_hook(ddp_model, plan, example_input=None, layers=None, process_group=None,
                       policy=None, model_name=None):
    """Check plan (a path, JSON text or slo.plan.Plan) against the model of
    ddp_model on every rank and register plan_hook.  layers: the model's
    layers (slo.layers.forward_layers of ddp_model.module), or None to find
    them with one forward pass on example_input (no statistics updated).
    Collective over process_group (default: the world): every rank enters
    one all_gather_object of (failure text, gradient count, bytes, gradient
    checksum, plan checksum, blocks), so a rank with a bad or different plan
    makes every rank raise the same PlanError and none waits.
    Errors (PlanError): a plan that does not parse, for another model
    (layer count, layer bounds), whose bytes do not match the gradients,
    with another element size; "plans differ between ranks: rank 0's has N
    blocks (checksum X), rank R's has M blocks (checksum Y)"; "gradient
    lists differ between ranks: ..." (texts of libsloprophet's set_plan).
    Returns the PlanHookState."""
    module = ddp_model.module
    model_name = model_name or type(module).__name__
    err = None
    state = None
    G = total = gsum = psum = nblocks = 0
    try:
        if layers is None:
            if example_input is None:
                raise PlanError("register_plan_hook: expected layers or an example_input, "
                                "found neither")
            layers = forward_layers(module, example_input)
        grad_bytes = [layer.grad_bytes for layer in layers]
        G, total = len(grad_bytes), sum(grad_bytes)
        if isinstance(plan, slo_plan.Plan):
            p = plan
        elif isinstance(plan, str) and plan.lstrip().startswith("{"):
            p = slo_plan.parse_plan(plan, "plan", policy)
        else:
            p = slo_plan.load_plan(plan, policy)
        elems = {q.element_size() for layer in layers for q in layer.params}
        if elems != {p.elem_bytes}:
            raise PlanError("%s: elem_bytes: expected %s (the gradients' element size), found %d"
                            % (p.source, "/".join(map(str, sorted(elems))), p.elem_bytes))
        pieces = slo_plan.check_plan(p, grad_bytes, model_name)
        gsum = slo_plan.grads_checksum(grad_bytes, p.elem_bytes)
        psum = slo_plan.schedule_checksum(p, pieces, grad_bytes)
        nblocks = p.n_blocks
        state = PlanHookState(p, layers, pieces, process_group, gsum, psum)
    except (PlanError, ValueError) as e:
        err = str(e)
    except Exception as e:  # noqa: BLE001 - any failure here must reach the agreement below,
        # or this rank would leave the others waiting in all_gather_object
        err = "register_plan_hook: %s: %s" % (type(e).__name__, e)
    mine = (err, G, total, gsum, psum, nblocks)
    allv = [None] * dist.get_world_size(process_group)
    dist.all_gather_object(allv, mine, group=process_group)
    rank = dist.get_rank(process_group)
    for r, v in enumerate(allv):
        if v[0] is not None:
            raise PlanError(v[0] if r == rank else "rank %d: %s" % (r, v[0]))
    z = allv[0]
    for r, v in enumerate(allv):
        if v[3] != z[3] or v[1] != z[1]:
            raise PlanError("gradient lists differ between ranks: rank 0 has %d gradients, %d bytes "
                            "(checksum %016x); rank %d has %d gradients, %d bytes (checksum %016x)"
                            % (z[1], z[2], z[3], r, v[1], v[2], v[3]))
        if v[4] != z[4]:
            raise PlanError("plans differ between ranks: rank 0's has %d blocks (checksum %016x), "
                            "rank %d's has %d blocks (checksum %016x)"
                            % (z[5], z[4], r, v[5], v[4]))
    ddp_model.register_comm_hook(state, plan_hook)
    return state
