"""Optimizers with parameter groups done right.

- No weight decay for biases, normalization layers and embeddings, decided by module type
  (the parameter's owning module), never by matching name strings.
- Optional layer-wise LR decay for fine-tuning: the head keeps the peak LR, each layer below
  it gets ``layer_decay`` times the LR of the layer above.
- Frozen parameters (``requires_grad=False``) are left out.
- The fastest kernel available: fused where the device supports it, else foreach.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from trainwell.config import OptimConfig
from trainwell.errors import ConfigError

#: Module types whose parameters are never weight-decayed.
NO_DECAY_TYPES: tuple[type[nn.Module], ...] = (
    nn.modules.batchnorm._NormBase,  # BatchNorm*, InstanceNorm*, SyncBatchNorm
    nn.LayerNorm,
    nn.GroupNorm,
    nn.LocalResponseNorm,
    nn.Embedding,
    nn.EmbeddingBag,
) + ((nn.RMSNorm,) if hasattr(nn, "RMSNorm") else ())


def param_groups(
    model: nn.Module,
    *,
    weight_decay: float,
    lr: float,
    layer_decay: float | None = None,
    layer_of: Callable[[str], int] | None = None,
    no_decay_types: tuple[type[nn.Module], ...] = NO_DECAY_TYPES,
) -> list[dict[str, Any]]:
    """Parameter groups: decay / no-decay, times one group per layer when ``layer_decay`` is set.

    Each group carries ``base_lr`` (its peak LR), which schedules scale.
    """
    no_decay = _no_decay_ids(model, no_decay_types)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if layer_decay is None:
        depth_of: Callable[[str], int] = lambda _name: 0  # noqa: E731
        num_layers = 0
    else:
        depth_of = layer_of or layer_index_fn(model)
        num_layers = max(depth_of(n) for n, _ in named) if named else 0
    groups: dict[tuple[int, bool], dict[str, Any]] = {}
    for name, param in named:
        layer = depth_of(name)
        decays = id(param) not in no_decay
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


def _no_decay_ids(model: nn.Module, no_decay_types: tuple[type[nn.Module], ...]) -> set[int]:
    ids: set[int] = set()
    for module in model.modules():
        if isinstance(module, no_decay_types):
            ids.update(id(p) for p in module.parameters(recurse=False))
        bias = getattr(module, "bias", None)
        if isinstance(bias, nn.Parameter):
            ids.add(id(bias))
    return ids


def layer_index_fn(model: nn.Module) -> Callable[[str], int]:
    """Map parameter names to layer depth for layer-wise LR decay.

    The model's largest ``ModuleList``/``Sequential`` is taken as its stack of layers: what
    is registered before it (embeddings) is layer 0, its i-th block is layer i + 1, and what
    comes after it (final norm, head) is the top layer. A model without such a stack uses its
    top-level children in registration order.
    """
    stack_name, stack = _largest_stack(model)
    param_order = [n for n, _ in model.named_parameters()]
    if stack is None:
        children = [name for name, _ in model.named_children()]
        index = {name: i for i, name in enumerate(children)}
        top = len(children)
        return lambda name: index.get(name.split(".")[0], top)
    prefix = f"{stack_name}." if stack_name else ""
    first_in_stack = next((i for i, n in enumerate(param_order) if n.startswith(prefix)), 0)
    position = {n: i for i, n in enumerate(param_order)}
    top = len(stack) + 1

    def depth(name: str) -> int:
        if name.startswith(prefix):
            return int(name[len(prefix) :].split(".")[0]) + 1
        return 0 if position.get(name, 0) < first_in_stack else top

    return depth


def _largest_stack(model: nn.Module) -> tuple[str, nn.Module | None]:
    """The outermost ModuleList/Sequential of numbered blocks (the longest among equals)."""
    candidates = [
        (name.count(".") if name else -1, -len(module), name, module)
        for name, module in model.named_modules()
        if isinstance(module, nn.ModuleList | nn.Sequential)
        and len(module) > 1
        and all(k.isdigit() for k, _ in module.named_children())
    ]
    if not candidates:
        return "", None
    _, _, name, module = min(candidates, key=lambda c: (c[0], c[1]))
    return name, module


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
