"""slo.profiler - measure a model's per-layer forward times, gradient ready
times and gradient bytes, and write the per-layer CSV `slo comm --model`
reads (doc/comm.md, "Per-layer CSV"; columns topo_index, layer_type,
layer_name, forward_ms, ready_ms, param_bytes).

What is measured, per iteration (median over the timed iterations):
  forward_ms  the wall time from the end of the previous layer call to the
              end of this layer's call (forward hooks), summed over the
              layer's calls; so the column sums to the whole forward pass
              (module-free ops such as a residual add count to the next
              layer);
  ready_ms    ms from the start of loss.backward() to the moment the last
              gradient of the layer is computed (tensor hooks on its
              parameters); the planner models backward as running from the
              last layer down, so a layer counts as ready once it and every
              later layer is (r_j = max over m >= j), and a parameter-free
              layer is ready with the layer after it (its backward time goes
              to the next parameter layer below);
  param_bytes the bytes of the layer's own gradients (numel x element size).
Layers are slo.layers.forward_layers (first-call order).  The last
layer's ready time is the backward of the loss and the last layer only.
"""

import csv
import os
import statistics
import time

import torch

from .layers import forward_layers


def profile(model, example_input, loss_fn=None, iterations=10, warmup=3):
    """Profile model on example_input (a batch).  loss_fn(output) -> scalar
    (default output.float().sum()).  Returns (layers, forward_ms[n],
    ready_ms[n]) with the rules of the module docstring."""
    layers = forward_layers(model, example_input)
    n = len(layers)
    index = {id(layer.module): j for j, layer in enumerate(layers)}
    loss_fn = loss_fn or (lambda out: out.float().sum())
    fw_runs, rd_runs = [], []
    state = {}

    def post(mod, _inp, _out):
        t = time.perf_counter()
        state["fw"][index[id(mod)]] += t - state["last"]
        state["last"] = t

    def grad_hook(j):
        def h(_g):
            t = time.perf_counter()
            if t > state["rd"][j]:
                state["rd"][j] = t
        return h

    handles = [layer.module.register_forward_hook(post) for layer in layers]
    for j, layer in enumerate(layers):
        for p in layer.params:
            handles.append(p.register_hook(grad_hook(j)))
    try:
        for it in range(warmup + iterations):
            model.zero_grad(set_to_none=True)
            state["fw"] = [0.0] * n
            state["rd"] = [float("-inf")] * n
            state["last"] = time.perf_counter()
            out = model(*example_input) if isinstance(example_input, tuple) else model(example_input)
            loss = loss_fn(out)
            t0 = time.perf_counter()
            loss.backward()
            if it >= warmup:
                fw_runs.append([f * 1e3 for f in state["fw"]])
                rd = [(t - t0) * 1e3 if t > float("-inf") else float("-inf") for t in state["rd"]]
                # a layer is ready once it and every later layer is
                acc = 0.0
                for j in range(n - 1, -1, -1):
                    acc = max(acc, rd[j])
                    rd[j] = acc
                rd_runs.append(rd)
    finally:
        for h in handles:
            h.remove()
    fwd = [statistics.median(r[j] for r in fw_runs) for j in range(n)]
    rdy = [statistics.median(r[j] for r in rd_runs) for j in range(n)]
    for j in range(n - 2, -1, -1):  # medians of monotone rows stay monotone; keep exact
        rdy[j] = max(rdy[j], rdy[j + 1])
    return layers, fwd, rdy


def write_csv(path, layers, forward_ms, ready_ms):
    """Write the per-layer CSV (doc/comm.md) to path."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["topo_index", "layer_type", "layer_name", "forward_ms", "ready_ms", "param_bytes"])
        for j, layer in enumerate(layers):
            w.writerow([j, layer.type, layer.name, "%.6f" % forward_ms[j], "%.6f" % ready_ms[j],
                        layer.grad_bytes])


def main(argv=None):
    import argparse
    import torchvision
    ap = argparse.ArgumentParser(prog="python3 -m slo.profiler",
                                 description="Write the per-layer CSV of a torchvision model "
                                             "for `slo comm --model`.")
    ap.add_argument("--model", default="resnet18", help="a torchvision.models name (resnet18)")
    ap.add_argument("--batch", type=_at_least(1), default=8, help="samples per iteration, >= 1")
    ap.add_argument("--size", type=_at_least(1), default=32, help="input height = width, pixels")
    ap.add_argument("--classes", type=_at_least(1), default=10)
    ap.add_argument("--iterations", type=_at_least(1), default=10,
                    help="timed iterations (the median is written), >= 1")
    ap.add_argument("--threads", type=_at_least(1), default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    builder = getattr(torchvision.models, a.model, None)
    if a.model.startswith("_") or not callable(builder):
        ap.error("--model: expected a torchvision.models name such as resnet18, found \"%s\"" % a.model)
    # the output is written only after profiling: say now if it cannot be
    outdir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(outdir) or not os.access(outdir, os.W_OK):
        ap.error("-o/--output %s: expected a file in a writable directory, found %s"
                 % (a.output, "no directory " + outdir if not os.path.isdir(outdir)
                    else "directory " + outdir + " not writable"))
    try:
        model = builder(num_classes=a.classes)
        x = torch.randn(a.batch, 3, a.size, a.size)
        layers, fwd, rdy = profile(model, x, iterations=a.iterations)
    except (RuntimeError, ValueError, TypeError) as e:
        ap.error("--model %s on a batch of %d x 3 x %d x %d (--batch, --size), %d classes: "
                 "the model cannot run it: %s" % (a.model, a.batch, a.size, a.size, a.classes,
                                                  str(e).splitlines()[0] if str(e) else type(e).__name__))
    # atomically: a temporary file beside the output, renamed over it
    tmp = "%s.tmp%d" % (a.output, os.getpid())
    try:
        write_csv(tmp, layers, fwd, rdy)
        os.replace(tmp, a.output)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        ap.error("-o/--output %s: cannot write: %s" % (a.output, e.strerror or e))
    return 0


def _at_least(low):
    """argparse type: an integer >= low, else the option's error."""
    import argparse

    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("expected an integer >= %d, found \"%s\"" % (low, text))
        if v < low:
            raise argparse.ArgumentTypeError("expected an integer >= %d, found %d" % (low, v))
        return v
    return parse


if __name__ == "__main__":
    raise SystemExit(main())
