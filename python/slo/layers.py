"""slo.layers - a model's layers as `slo comm` sees them: the leaf modules
(and any module that owns parameters itself) in the order of their first
call in a forward pass, each with the bytes of the gradients it owns.  The
flat gradient buffer of a plan is these layers' parameters in this order
(doc/comm.md, "Model"): layer j owns bytes [o_j, o_j + s_j)."""

import torch


class Layer:
    __slots__ = ("name", "type", "module", "params", "grad_bytes")

    def __init__(self, name, module):
        self.name = name
        self.type = type(module).__name__
        self.module = module
        self.params = [p for p in module.parameters(recurse=False) if p.requires_grad]
        self.grad_bytes = sum(p.numel() * p.element_size() for p in self.params)


def _candidates(model):
    for name, m in model.named_modules():
        if not any(True for _ in m.children()) or any(
                p.requires_grad for p in m.parameters(recurse=False)):
            yield name or type(m).__name__, m


def forward_layers(model, example_input):
    """The layers of model in first-call order of one forward pass on
    example_input (a tensor or a tuple of tensors; run under torch.no_grad).
    Modules never called are appended after, in definition order (their
    gradients, if any, stay in the plan's buffer so every parameter has an
    offset).  Errors: ValueError when a parameter with requires_grad belongs
    to no layer or to two (shared weights: not in the plan's model)."""
    cands = list(_candidates(model))
    order, handles = [], []
    seen = set()

    def pre(mod, _inp):
        if id(mod) not in seen:
            seen.add(id(mod))
            order.append(mod)

    for _, m in cands:
        handles.append(m.register_forward_pre_hook(pre))
    training = [(m, m.training) for m in model.modules()]
    model.eval()  # no running-statistics update from this pass
    try:
        with torch.no_grad():
            model(*example_input) if isinstance(example_input, tuple) else model(example_input)
    finally:
        for h in handles:
            h.remove()
        for m, t in training:
            m.training = t
    names = {id(m): n for n, m in cands}
    mods = order + [m for _, m in cands if id(m) not in seen]
    layers = [Layer(names[id(m)], m) for m in mods]
    owner = {}
    for j, layer in enumerate(layers):
        for p in layer.params:
            if p.data_ptr() in owner:
                raise ValueError("parameter of layer %s is also in layer %s: shared weights are "
                                 "not a per-layer model" % (layer.name, layers[owner[p.data_ptr()]].name))
            owner[p.data_ptr()] = j
    for n, p in model.named_parameters():
        if p.requires_grad and p.data_ptr() not in owner:
            raise ValueError("parameter %s: expected it in one layer, found it in none" % n)
    return layers
