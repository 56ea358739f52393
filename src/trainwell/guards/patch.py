"""Scoped wrappers for functions no PyTorch hook can see: gradient clipping and functional losses.

trainwell's own parts that replace those calls (`trainwell.Clipping`) tell the same listeners
directly (`trainwell.observe.signals`), so the guards see them exactly as the torch calls, and `fit()`, which
calls only its own parts, listens without wrapping anything (``wrap_torch=False``).

``torch.nn.utils.clip_grad_norm_``/``clip_grad_value_`` and ``F.cross_entropy``/``F.nll_loss``
are replaced by thin wrappers only while at least one watch is active, and restored when the
last one closes. Why wrappers and not a ``TorchFunctionMode``: clipping is a Python composite of
foreach kernels, so a mode would see anonymous ``_foreach_mul_`` calls and could not tell a clip
from an optimizer update; a wrapper sees the call itself, with its arguments, at the cost of
catching only calls made through the module attribute (``torch.nn.utils.clip_grad_norm_(...)``,
not a name imported with ``from torch.nn.utils import clip_grad_norm_`` before the watch began).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
import torch.nn.utils as nn_utils
import torch.nn.utils.clip_grad as clip_grad

from trainwell.observe.signals import (
    ClipListener,
    LossListener,
    clip_listeners,
    in_hooked_loss,
    loss_listeners,
    publish_clip_norms,
    thread_state,
)

_lock = threading.Lock()
_wrapping: dict[str, list[Callable]] = {"clip": [], "loss": []}  # listeners that need wrappers
_originals: dict[tuple[Any, str], Any] = {}
_made: dict[tuple[Callable, str], Callable] = {}  # (original, kind) -> its wrapper, made once
_CLIP = (("clip_grad_norm_", "clip_grad_norm_"), ("clip_grad_value_", "clip_grad_value_"))
_LOSS = (("cross_entropy", "cross_entropy"), ("nll_loss", "nll_loss"))


def add_clip_listener(listener: ClipListener, *, wrap_torch: bool = True) -> None:
    """``listener(call, parameters)`` for each clipping call: torch's clip functions (wrapped
    while a listener asks for ``wrap_torch``) and trainwell's `Clipping`."""
    _add(clip_listeners, listener, "clip" if wrap_torch else None)


def remove_clip_listener(listener: ClipListener) -> None:
    _remove(clip_listeners, listener)


def add_loss_listener(listener: LossListener, *, wrap_torch: bool = True) -> None:
    """``listener(kind, input)`` for each functional loss call (wrapped while a listener asks)."""
    _add(loss_listeners, listener, "loss" if wrap_torch else None)


def remove_loss_listener(listener: LossListener) -> None:
    _remove(loss_listeners, listener)


def _add(listeners: list, listener: Callable, wraps: str | None) -> None:
    with _lock:
        listeners.append(listener)
        if wraps is not None:
            _wrapping[wraps].append(listener)
        _sync_patches()


def _remove(listeners: list, listener: Callable) -> None:
    with _lock:
        if listener in listeners:
            listeners.remove(listener)
        for wrapping in _wrapping.values():
            if listener in wrapping:
                wrapping.remove(listener)
        _sync_patches()


def _sync_patches() -> None:
    _patch_group((nn_utils, clip_grad), _CLIP, bool(_wrapping["clip"]), _clip_wrapper)
    _patch_group((F,), _LOSS, bool(_wrapping["loss"]), _loss_wrapper)


def _patch_group(modules: tuple, names: tuple, active: bool, make: Callable) -> None:
    for module in modules:
        for attr, kind in names:
            key = (module, attr)
            if active and key not in _originals:
                original = getattr(module, attr)
                _originals[key] = original
                # the same wrapper each time (a window arms and disarms the loss wrapper)
                made = _made.get((original, kind))
                if made is None:
                    made = _made[(original, kind)] = make(original, kind)
                setattr(module, attr, made)
            elif not active and key in _originals:
                setattr(module, attr, _originals.pop(key))


def _clip_wrapper(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def clip(parameters: Any, *args: Any, **kwargs: Any) -> Any:
        params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        if getattr(thread_state, "in_part", False):
            return original(params, *args, **kwargs)
        for listener in list(clip_listeners):
            listener(kind, params)
        if kind == "clip_grad_norm_":
            total = _clip_norm_keeping_norms(params, *args, **kwargs)
            if total is not None:
                return total
        return original(params, *args, **kwargs)

    clip.__trainwell_guard__ = True  # type: ignore[attr-defined]
    return clip


def _loss_wrapper(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def loss(input: Any, *args: Any, **kwargs: Any) -> Any:
        if in_hooked_loss():
            in_hooked_loss(False)  # consumed: this is the hooked module's own call
        elif isinstance(input, torch.Tensor):
            for listener in list(loss_listeners):
                listener(kind, input)
        return original(input, *args, **kwargs)

    loss.__trainwell_guard__ = True  # type: ignore[attr-defined]
    return loss


_CLIP_WITH_NORM = getattr(nn_utils, "clip_grads_with_norm_", None)  # torch >= 2.6


def _clip_norm_keeping_norms(
    params: list[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> torch.Tensor | None:
    """``clip_grad_norm_`` with torch's own kernels in torch's order (so the same result), that
    also publishes the per-parameter norms it computes; None where only torch's own function
    gives the same result (mixed devices or dtypes, error_if_nonfinite, foreach=False)."""
    with_grad = [p for p in params if p.grad is not None]
    grads = [p.grad for p in with_grad]
    if (
        _CLIP_WITH_NORM is None
        or not grads
        or error_if_nonfinite
        or foreach is False
        or len({(g.device, g.dtype) for g in grads}) != 1
        or grads[0].is_sparse
    ):
        return None
    norms = torch.stack(torch._foreach_norm(grads, norm_type))
    total = torch.linalg.vector_norm(norms, norm_type)
    _CLIP_WITH_NORM(params, max_norm, total, foreach=foreach)
    publish_clip_norms(with_grad, norms)
    return total
