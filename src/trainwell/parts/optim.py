"""Optimizers with parameter groups done right.

- No weight decay on any parameter with ``ndim <= 1`` (every bias, hand-written norm scales,
  learned scalars and 1-D scales), on the parameters of normalization and embedding modules
  (by module type), and on bias parameters of other shapes (``module.bias``,
  ``nn.MultiheadAttention``'s ``bias_k``/``bias_v``); never by matching name strings.
  Matrices and kernels of all other modules decay. ``no_decay=`` replaces the rule.
- Optional layer-wise LR decay for fine-tuning: the head keeps the peak LR, each layer below
  it gets ``layer_decay`` times the LR of the layer above. Layers are the blocks of the model's
  stacks (``nn.ModuleList``/``nn.Sequential``), found as `layer_index_fn` describes or named by
  ``optim.layers``; encoder and decoder stacks are numbered one after the other.
- Frozen parameters (``requires_grad=False``) are left out.
- The fastest kernel available: fused where the device supports it, else foreach.

Details and examples: docs/optim.md.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import OptimConfig
from trainwell.errors import ConfigError

#: Module types whose parameters are never weight-decayed (norms and embeddings), whatever
#: their shape.
NO_DECAY_TYPES: tuple[type[nn.Module], ...] = (
    nn.modules.batchnorm._NormBase,  # BatchNorm*, InstanceNorm*, SyncBatchNorm
    nn.LayerNorm,
    nn.GroupNorm,
    nn.LocalResponseNorm,
    nn.Embedding,
    nn.EmbeddingBag,
) + ((nn.RMSNorm,) if hasattr(nn, "RMSNorm") else ())

#: Embedding module types: their parameters are layer 0 for layer-wise LR decay wherever they
#: are registered (e.g. a decoder's own position embeddings).
EMBEDDING_TYPES: tuple[type[nn.Module], ...] = (nn.Embedding, nn.EmbeddingBag)

#: Bias parameters of built-in modules that are not 1-D, by module type and attribute.
_BIAS_ATTRIBUTES: dict[type[nn.Module], tuple[str, ...]] = {
    nn.MultiheadAttention: ("in_proj_bias", "bias_k", "bias_v"),  # bias_k/v: (1, 1, embed_dim)
}

NoDecayRule = Callable[[str, nn.Parameter], bool]


def param_groups(
    model: nn.Module,
    *,
    weight_decay: float,
    lr: float,
    layer_decay: float | None = None,
    layer_of: Callable[[str], int] | None = None,
    layers: str | Sequence[str] | None = None,
    no_decay: NoDecayRule | None = None,
    no_decay_types: tuple[type[nn.Module], ...] = NO_DECAY_TYPES,
) -> list[dict[str, Any]]:
    """Parameter groups: decay / no-decay, times one group per layer when ``layer_decay`` is set.

    ``no_decay(name, param) -> bool`` replaces the default rule (`default_no_decay`); extend
    the default with ``rule = default_no_decay(model)`` and
    ``no_decay=lambda n, p: rule(n, p) or ...``. ``layers`` names the stacks of layers for
    layer-wise LR decay (dotted paths, comma-separated, e.g. ``"encoder.layers,decoder.layers"``;
    see `layer_index_fn`); ``layer_of(name) -> int`` replaces the numbering altogether.

    Each group carries ``base_lr`` (its peak LR), which schedules scale, and ``layer``.
    """
    is_no_decay = no_decay or default_no_decay(model, no_decay_types)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if layers is not None and layer_of is None:
        _resolve_stacks(model, layers)  # a wrong path fails even with layer decay off
    if layer_decay is None:
        depth_of: Callable[[str], int] = lambda _name: 0  # noqa: E731
        num_layers = 0
    else:
        depth_of = layer_of or layer_index_fn(model, layers)
        num_layers = max(depth_of(n) for n, _ in named) if named else 0
    groups: dict[tuple[int, bool], dict[str, Any]] = {}
    for name, param in named:
        layer = depth_of(name)
        decays = not is_no_decay(name, param)
        key = (layer, decays)
        if key not in groups:
            scale = layer_decay ** (num_layers - layer) if layer_decay is not None else 1.0
            groups[key] = {
                "params": [],
                "names": [],
                "weight_decay": weight_decay if decays else 0.0,
                "lr": lr * scale,
                "base_lr": lr * scale,
                "layer": layer,
            }
        groups[key]["params"].append(param)
        groups[key]["names"].append(name)
    return [groups[k] for k in sorted(groups)]


def default_no_decay(
    model: nn.Module, no_decay_types: tuple[type[nn.Module], ...] = NO_DECAY_TYPES
) -> NoDecayRule:
    """The default rule: ``rule(name, param)`` is True for parameters that are not decayed.

    No decay for: every parameter with ``ndim <= 1`` (biases, the weight of a norm written by
    hand, learned scalars such as a temperature, 1-D scales); every parameter registered on a
    module of ``no_decay_types`` (norms and embeddings); a module's ``bias`` attribute of any
    shape and ``nn.MultiheadAttention``'s ``in_proj_bias``, ``bias_k`` and ``bias_v``. A
    parameter shared by several modules (tied weights) is exempt if any owner exempts it.
    Everything else (the >= 2-D weights of linear, convolution and attention projections,
    custom matrices) decays. Names are not looked at.
    """
    exempt: set[int] = set()
    for module in model.modules():
        if isinstance(module, no_decay_types):
            exempt.update(id(p) for p in module.parameters(recurse=False))
        attributes = ("bias",) + next(
            (attrs for cls, attrs in _BIAS_ATTRIBUTES.items() if isinstance(module, cls)), ()
        )
        for attribute in attributes:
            bias = getattr(module, attribute, None)
            if isinstance(bias, nn.Parameter):
                exempt.add(id(bias))
    return lambda _name, param: param.ndim <= 1 or id(param) in exempt


def layer_index_fn(
    model: nn.Module, layers: str | Sequence[str] | None = None
) -> Callable[[str], int]:
    """Map parameter names to layer depth for layer-wise LR decay.

    The layers are the blocks of the model's *stacks*: ``layers`` names them (dotted paths to
    ``nn.ModuleList``/``nn.Sequential`` modules, as a list or comma-separated); without it
    they are found:

    - candidates are the ``ModuleList``/``Sequential`` modules with two or more children
      named 0, 1, ... that are not inside another candidate (so the blocks' own inner
      ``Sequential``/``ModuleList`` are not stacks);
    - the stacks are the candidates whose children all have submodules of their own (blocks,
      e.g. ``encoder.layers`` and ``decoder.layers`` of ``nn.Transformer``, the ``block`` lists
      of a T5 encoder and decoder, the stages of a ResNet), so that a head written as
      ``nn.Sequential(nn.Linear, nn.ReLU, nn.Linear)`` is not one;
    - if no candidate is made of blocks, the largest candidate is the one stack (e.g. a model
      that is an ``nn.Sequential`` of plain layers).

    Numbering, in the order of ``model.named_parameters()`` (registration order): the stacks
    are numbered one after the other in the order of their first parameter, block ``i`` of a
    stack starting at ``n`` being layer ``n + i + 1`` (encoder blocks 1..E, then decoder blocks
    E+1..E+D). Parameters of embedding modules outside the stacks are layer 0; other parameters
    registered before the first stack are layer 0, those between two stacks (an encoder's final
    norm) share the layer of the last block before them, and those after the last stack (final
    norm, head) are the top layer, one above the last block. A model without any stack uses its
    top-level children in registration order (child ``i`` is layer ``i``). Only modules that
    own parameters count as layers: a ReLU, pooling or dropout between two layers takes no
    number, so ``Sequential(Linear, ReLU, Linear)`` has layers 1 and 2, one decay apart.
    """
    stacks = _resolve_stacks(model, layers) if layers is not None else _find_stacks(model)
    if not stacks:
        children = _layers_of(model)
        index = {name: i for i, name in enumerate(children)}
        top = len(children)
        return lambda name: index.get(name.split(".")[0], top)
    order = [n for n, _ in model.named_parameters()]
    prefixes = [
        (f"{path}." if path else "", {child: i for i, child in enumerate(_layers_of(m))})
        for path, m in stacks
    ]

    def block_of(name: str) -> tuple[int, int] | None:  # (stack number, block position)
        for k, (prefix, blocks) in enumerate(prefixes):
            if name.startswith(prefix):
                return k, blocks.get(name[len(prefix) :].split(".")[0], 0)
        return None

    where = [block_of(n) for n in order]
    first = {}  # stack number -> position of its first parameter
    for i, w in enumerate(where):
        if w is not None:
            first.setdefault(w[0], i)
    offset, total = {}, 0
    for k in sorted(range(len(stacks)), key=lambda k: first.get(k, len(order))):
        offset[k] = total
        total += len(prefixes[k][1])
    top = total + 1
    embedding = {
        f"{module_name}.{p_name}" if module_name else p_name
        for module_name, module in model.named_modules()
        if isinstance(module, EMBEDDING_TYPES)
        for p_name, _ in module.named_parameters(recurse=False)
    }
    last_in_stack = max((i for i, w in enumerate(where) if w is not None), default=-1)
    depth: dict[str, int] = {}
    current = 0  # the layer of the last block seen
    for i, (name, w) in enumerate(zip(order, where, strict=True)):
        if w is not None:
            current = depth[name] = offset[w[0]] + w[1] + 1
        elif name in embedding:
            depth[name] = 0
        else:
            depth[name] = top if i > last_in_stack else current
    return lambda name: depth.get(name, top)


def _layers_of(module: nn.Module) -> list[str]:
    """The names of ``module``'s children that own parameters: its layers. A ReLU, a pooling
    or a dropout between them is no layer (it has no LR to decay), so it takes no number."""
    return [
        name
        for name, child in module.named_children()
        if next(child.parameters(), None) is not None
    ]


def _is_list(module: nn.Module) -> bool:
    return isinstance(module, nn.ModuleList | nn.Sequential)


def _find_stacks(model: nn.Module) -> list[tuple[str, nn.Module]]:
    """The stacks of layers of ``model``, as `layer_index_fn` describes."""
    candidates = [
        (name, module)
        for name, module in model.named_modules()
        if _is_list(module)
        and len(module) > 1
        and all(k.isdigit() for k, _ in module.named_children())
    ]
    outermost = [
        (name, module)
        for name, module in candidates
        if not any(_inside(name, other) for other, _ in candidates if other != name)
    ]
    blocks = [
        (name, module)
        for name, module in outermost
        if all(next(child.children(), None) is not None for child in module.children())
    ]
    if blocks:
        return blocks
    if not outermost:
        return []
    return [max(outermost, key=lambda c: len(c[1]))]  # the first of the longest


def _inside(name: str, other: str) -> bool:
    return other == "" or name.startswith(f"{other}.")


def _resolve_stacks(model: nn.Module, layers: str | Sequence[str]) -> list[tuple[str, nn.Module]]:
    """The modules named by ``optim.layers``, or a `ConfigError` listing the model's lists."""
    paths = [p.strip() for p in layers.split(",")] if isinstance(layers, str) else list(layers)
    stacks: list[tuple[str, nn.Module]] = []
    for path in dict.fromkeys(paths):
        try:
            module = model.get_submodule(path)
        except AttributeError:
            problem = f"the model ({type(model).__name__}) has no submodule {path!r}"
        else:
            if _is_list(module) and len(module) > 0:
                stacks.append((path, module))
                continue
            problem = f"{path!r} is a {type(module).__name__}, not a ModuleList or Sequential"
        raise ConfigError(f"optim.layers={layers!r}: {problem}; {_list_candidates(model)}")
    for name, _ in stacks:
        outer = next((o for o, _ in stacks if o != name and _inside(name, o)), None)
        if outer is not None:
            raise ConfigError(
                f"optim.layers={layers!r}: {name!r} lies inside {outer!r}; name the stacks of "
                "layers, not a stack and its blocks' inner lists"
            )
    return stacks


def _list_candidates(model: nn.Module, limit: int = 8) -> str:
    found = []
    for name, module in model.named_modules():
        if not (_is_list(module) and len(module) > 0 and name):
            continue
        kinds = {type(child).__name__ for child in module.children()}
        what = kinds.pop() if len(kinds) == 1 else "modules"
        found.append(f"{name} ({len(module)} x {what})")
    if not found:
        return "the model has no ModuleList or Sequential; pass layer_of= to build_optimizer"
    more = f", and {len(found) - limit} more" if len(found) > limit else ""
    return f"its ModuleLists/Sequentials: {', '.join(found[:limit])}{more}"


def build_optimizer(
    model: nn.Module,
    config: OptimConfig | None = None,
    *,
    layer_of: Callable[[str], int] | None = None,
    **overrides: Any,
) -> torch.optim.Optimizer:
    """AdamW (default) or SGD with momentum over `param_groups` of ``model``.

    Build it after the model is on its device and in its final dtype: the optimizer holds
    references to the parameter objects that exist now.
    """
    config = config or OptimConfig()
    if overrides:
        import dataclasses

        config = dataclasses.replace(config, **overrides)
    groups = param_groups(
        model,
        weight_decay=config.weight_decay,
        lr=config.lr,
        layer_decay=config.layer_decay,
        layer_of=layer_of,
        layers=config.layers,
    )
    if not groups:
        raise ConfigError(
            "the model has no trainable parameters (all have requires_grad=False); unfreeze "
            "some with p.requires_grad_(True)"
        )
    device = next(p for g in groups for p in g["params"]).device
    if config.name == "adamw":
        cls: type[torch.optim.Optimizer] = torch.optim.AdamW
        kwargs: dict[str, Any] = {"lr": config.lr, "betas": config.betas, "eps": config.eps}
    else:
        cls = torch.optim.SGD
        kwargs = {"lr": config.lr, "momentum": config.momentum, "nesterov": config.nesterov}
    kwargs.update(_kernel_choice(cls, config.impl, device))
    try:
        return cls(groups, **kwargs)
    except (RuntimeError, ValueError) as exc:
        if not kwargs.get("fused"):
            raise
        if config.impl == "fused":
            raise ConfigError(
                f"optim.impl=fused is not available for these parameters ({exc}); "
                "use optim.impl=auto"
            ) from None
        kwargs.pop("fused")  # auto: e.g. a dtype or device the fused kernel lacks
        return cls(groups, **kwargs)


def _kernel_choice(cls: type, impl: str, device: torch.device) -> dict[str, Any]:
    accepts = inspect.signature(cls.__init__).parameters
    if impl == "for_loop":
        return {"foreach": False}
    if impl == "foreach":
        return {"foreach": True}
    fused_ok = "fused" in accepts and device.type in _fused_devices()
    if impl == "fused" or fused_ok:
        return {"fused": True}
    return {}


def _fused_devices() -> set[str]:
    # Fused AdamW/SGD kernels exist for CUDA; CPU and MPS gained them in PyTorch 2.4.
    try:
        from torch.utils._foreach_utils import _get_fused_kernels_supported_devices
    except ImportError:  # pragma: no cover - older torch
        return {"cuda"}
    return set(_get_fused_kernels_supported_devices())
