"""slo.plan - read a `slo comm` block plan and check it against a model's
gradients with the rules of the Prophet MPI runtime (libsloprophet).

A plan (doc/comm.md, "Plan JSON") is either a plan object
  {"policy", "model": {"name", "layers", "bytes"}, "elem_bytes", "n_blocks",
   "blocks": [{"first_layer", "last_layer", "bytes", "hold_layer"?,
               "ranges": [{"offset_bytes", "bytes"}]}]}
or a whole `slo comm --json` document (one policy picked by name).  Byte
offsets are integers at element granularity in the flat forward-order
gradient buffer: layer j owns bytes [o_j, o_j + s_j).

Shared with libsloprophet (mpi_runtime/prophet_plan.c, doc/runtime.md):
  * the gradient list is the model's layers in forward order, layer j =
    gradient j with S_j bytes (0 for parameter-free layers);
  * the same local checks, in the same order: element size, layer count,
    total bytes (the plan's model.bytes = sum S_j), every range inside the
    buffer at whole elements, the ranges tiling the buffer exactly once,
    each range's first_layer/last_layer the layers its bytes fall in;
  * the same 64-bit FNV-1a checksums, byte for byte: grads_checksum is
    slo__prophet_grads_checksum(S, G, elem) and schedule_checksum is
    slo__prophet_schedule_checksum of the plan mapped to per-gradient
    pieces (identity plan space), so one plan on one gradient list gives the
    same hex figures in a PyTorch job and in an MPI job;
  * the same agreement: every rank exchanges (status, gradient count,
    bytes, gradient checksum, plan checksum, block count) in one fixed-size
    collective before anything is issued, and every rank raises the same
    error (slo.ddp).
"""

import json

FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211
MASK64 = (1 << 64) - 1
# the largest plan libsloprophet reads (the kernel's input limit, 64 MiB)
MAX_PLAN_CHARS = 64 << 20


class PlanError(ValueError):
    """A plan that cannot run on this model (one clear message)."""


def fnv(h, word):
    """64-bit FNV-1a over the 8 little-endian bytes of word (prophet_plan.c fnv)."""
    for i in range(8):
        h ^= (word >> (8 * i)) & 0xFF
        h = (h * FNV_PRIME) & MASK64
    return h


def grads_checksum(grad_bytes, elem_bytes):
    """slo__prophet_grads_checksum: FNV-1a of (elem, G, S_0 .. S_{G-1})."""
    h = fnv(fnv(FNV_OFFSET, elem_bytes), len(grad_bytes))
    for s in grad_bytes:
        h = fnv(h, s)
    return h


def round_to_elements(nbytes, elem_bytes):
    """slo_comm_round_to_elements: elem x round(bytes / elem), half away from zero."""
    q, r = divmod(int(nbytes), elem_bytes) if float(nbytes).is_integer() else (None, None)
    if q is None:
        import math
        return elem_bytes * int(math.floor(nbytes / elem_bytes + 0.5))
    return elem_bytes * (q + (1 if 2 * r >= elem_bytes else 0))


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    """json object_pairs_hook: a dict, or _DuplicateKey(key) for a key given twice."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


class Plan:
    """A parsed plan: blocks in issue order, each a list of (offset, bytes)."""

    def __init__(self, policy, model_name, n_layers, total_bytes, elem_bytes, blocks, source):
        self.policy = policy
        self.model_name = model_name
        self.n_layers = n_layers
        self.total_bytes = total_bytes
        self.elem_bytes = elem_bytes
        self.blocks = blocks  # [{"ranges": [(off, size, first, last)], "bytes", "hold_layer"}]
        self.source = source

    @property
    def n_blocks(self):
        return len(self.blocks)


def _int(v, path, src, lo=0):
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise PlanError("%s: %s: expected an integer >= %d, found %s" % (src, path, lo, json.dumps(v)))
    return v


def parse_plan(text, source="plan", policy=None):
    """Read a plan object or a `slo comm --json` document (policy by name;
    None: the document's only policy, else "optimal").  Errors: PlanError
    naming the source and the JSON path."""
    try:
        # a key given twice is refused, as libsloprophet's reader (jansson
        # JSON_REJECT_DUPLICATES) does: json.loads alone keeps the last one
        doc = json.loads(text, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as e:
        raise PlanError("%s: expected `slo comm --json` output, found the key \"%s\" given "
                        "twice in one object" % (source, e.args[0])) from None
    except ValueError as e:
        raise PlanError("%s: not a JSON document: %s" % (source, e)) from None
    if not isinstance(doc, dict):
        raise PlanError("%s: expected a JSON object, found %s" % (source, type(doc).__name__))
    if "policies" in doc:
        pols = doc["policies"]
        if not isinstance(pols, list):
            raise PlanError("%s: policies: expected a list, found %s" % (source, json.dumps(pols)))
        at = {p.get("name"): i for i, p in reversed(list(enumerate(pols))) if isinstance(p, dict)}
        names = [p.get("name") for p in pols if isinstance(p, dict)]
        want = policy or (names[0] if len(names) == 1 else "optimal")
        if want not in at:
            raise PlanError("%s: policies: expected a policy named \"%s\", found %s"
                            % (source, want, ", ".join(map(str, names)) or "none"))
        entry = pols[at[want]]
        model = doc.get("model", {})
        name, blocks_doc = want, entry.get("blocks")
        elem = entry.get("elem_bytes", 4)
        path = "policies[%d]" % at[want]
    else:
        model = doc.get("model", {})
        name, blocks_doc = doc.get("policy", ""), doc.get("blocks")
        elem = doc.get("elem_bytes", 4)
        path = ""
        if policy and name != policy:
            raise PlanError("%s: policy: expected \"%s\", found \"%s\"" % (source, policy, name))
    if not isinstance(model, dict):
        raise PlanError("%s: model: expected an object, found %s" % (source, json.dumps(model)))
    n_layers = _int(model.get("layers"), "model.layers", source, 1)
    elem = _int(elem, "elem_bytes", source, 1)
    mb = model.get("bytes")
    if isinstance(mb, bool) or not isinstance(mb, (int, float)) or not mb >= 0 or mb >= 2 ** 53:
        raise PlanError("%s: model.bytes: expected a number >= 0, found %s" % (source, json.dumps(mb)))
    total = round_to_elements(mb, elem)
    if not isinstance(blocks_doc, list):
        raise PlanError("%s: %sblocks: expected a list, found %s"
                        % (source, path + "." if path else "", json.dumps(blocks_doc)))
    blocks = []
    for b, blk in enumerate(blocks_doc):
        bp = "%sblocks[%d]" % (path + "." if path else "", b)
        if not isinstance(blk, dict) or not isinstance(blk.get("ranges"), list) or not blk["ranges"]:
            raise PlanError("%s: %s: expected an object with a non-empty ranges list" % (source, bp))
        ranges = []
        for r, rg in enumerate(blk["ranges"]):
            rp = "%s.ranges[%d]" % (bp, r)
            if not isinstance(rg, dict):
                raise PlanError("%s: %s: expected an object {\"offset_bytes\", \"bytes\"}, found %s"
                                % (source, rp, json.dumps(rg)))
            off = _int(rg.get("offset_bytes"), rp + ".offset_bytes", source)
            size = _int(rg.get("bytes"), rp + ".bytes", source, 1)
            if off % elem or size % elem:
                raise PlanError("%s: %s: expected whole elements of %d bytes, found bytes %d..%d"
                                % (source, rp, elem, off, off + size))
            ranges.append((off, size))
        nbytes = _int(blk.get("bytes"), bp + ".bytes", source, 1)
        if nbytes != sum(s for _, s in ranges):
            raise PlanError("%s: %s.bytes: expected the sum of its ranges, %d, found %d"
                            % (source, bp, sum(s for _, s in ranges), nbytes))
        hold = _int(blk.get("hold_layer", n_layers), bp + ".hold_layer", source)
        if hold > n_layers:
            raise PlanError("%s: %s.hold_layer: expected 0..%d, found %d" % (source, bp, n_layers, hold))
        blocks.append({"ranges": ranges, "bytes": nbytes, "hold_layer": hold,
                       "first_layer": blk.get("first_layer"), "last_layer": blk.get("last_layer")})
    pieces = sorted((o, s, b) for b, blk in enumerate(blocks) for o, s in blk["ranges"])
    at = 0
    for o, s, b in pieces:
        if o != at:
            raise PlanError("%s: expected byte ranges that cover every gradient byte once, found "
                            "bytes %d..%d %s" % (source, min(o, at), max(o, at),
                                                 "in no block" if o > at else "in two blocks"))
        at = o + s
    if at != total:
        raise PlanError("%s: expected byte ranges that cover every gradient byte once (model.bytes "
                        "%d), found the ranges end at byte %d" % (source, total, at))
    return Plan(name, model.get("name", ""), n_layers, total, elem, blocks, source)


def load_plan(path, policy=None):
    """parse_plan of the file at path (PlanError naming the path when it cannot be read)."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read(MAX_PLAN_CHARS + 1)
    except OSError as e:
        raise PlanError("%s: cannot open: %s" % (path, e.strerror)) from None
    except UnicodeDecodeError as e:
        raise PlanError("%s: expected UTF-8 JSON text, found byte 0x%02x at offset %d"
                        % (path, e.object[e.start], e.start)) from None
    if len(text) > MAX_PLAN_CHARS:
        raise PlanError("%s: expected an input of at most 64 MiB, found more" % path)
    return parse_plan(text, path, policy)


def check_plan(plan, grad_bytes, model_name="model"):
    """The runtime's local checks (slo_prophet_check_plan) of plan against a
    gradient list grad_bytes[G] (bytes of layer j, forward order).  Returns
    the per-block pieces [(layer, offset_in_layer, bytes)] in flat-offset order.
    Errors: PlanError with the runtime's wording."""
    G = len(grad_bytes)
    total = sum(grad_bytes)
    if plan.n_layers != G:
        raise PlanError("%s: model.layers: expected %d (the gradient list of %s), found %d: a plan "
                        "for another gradient list (model \"%s\")"
                        % (plan.source, G, model_name, plan.n_layers, plan.model_name))
    if plan.total_bytes != total:
        raise PlanError("%s: model.bytes: expected %d (the gradients of %s, %d layers), found %d: "
                        "the plan's bytes do not match the model's gradients (model \"%s\")"
                        % (plan.source, total, model_name, G, plan.total_bytes, plan.model_name))
    for s in grad_bytes:
        if s % plan.elem_bytes:
            raise PlanError("%s: elem_bytes: expected a size that divides every gradient, found %d "
                            "and a gradient of %d bytes" % (plan.source, plan.elem_bytes, s))
    starts, at = [], 0
    for s in grad_bytes:
        starts.append(at)
        at += s
    import bisect
    out = []
    for b, blk in enumerate(plan.blocks):
        pieces = []
        fl = ll = None
        for r, (off, size) in enumerate(blk["ranges"]):
            end = off + size
            j = bisect.bisect_right(starts, off) - 1
            while j + 1 < G and starts[j + 1] <= off:
                j += 1
            first = None
            while off < end:
                while grad_bytes[j] == 0 or starts[j] + grad_bytes[j] <= off:
                    j += 1
                if first is None:
                    first = j
                take = min(end, starts[j] + grad_bytes[j]) - off
                pieces.append((j, off - starts[j], take))
                off += take
            fl = first if fl is None or first < fl else fl
            ll = pieces[-1][0] if ll is None or pieces[-1][0] > ll else ll
        bfl, bll = blk.get("first_layer"), blk.get("last_layer")
        if bfl is not None and bll is not None and (bfl, bll) != (fl, ll):
            raise PlanError("%s: blocks[%d]: expected layers %d-%d (the layers its bytes fall in, "
                            "in the gradients of %s), found layers %s-%s: a plan for another "
                            "model (\"%s\")" % (plan.source, b, fl, ll, model_name, bfl, bll,
                                                 plan.model_name))
        pieces.sort(key=lambda p: (starts[p[0]] + p[1]))
        out.append(pieces)
    return out


def schedule_checksum(plan, pieces, grad_bytes):
    """slo__prophet_schedule_checksum of the plan mapped to gradients
    (identity plan space): FNV-1a of the gradient checksum, block count,
    then per block (pieces, bytes, hold) and each piece (gradient, offset
    in the gradient, bytes)."""
    h = fnv(grads_checksum(grad_bytes, plan.elem_bytes), plan.n_blocks)
    for b, blk in enumerate(plan.blocks):
        h = fnv(fnv(fnv(h, len(pieces[b])), blk["bytes"]), blk["hold_layer"])
        for g, off, size in pieces[b]:
            h = fnv(fnv(fnv(h, g), off), size)
    return h
