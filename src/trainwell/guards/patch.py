"""Scoped wrappers for functions no PyTorch hook can see: gradient clipping and functional losses.

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

ClipListener = Callable[[str, list[torch.Tensor]], None]
LossListener = Callable[[str, torch.Tensor], None]

_lock = threading.Lock()
_clip_listeners: list[ClipListener] = []
_loss_listeners: list[LossListener] = []
_originals: dict[tuple[Any, str], Any] = {}
_CLIP = (("clip_grad_norm_", "norm"), ("clip_grad_value_", "value"))
_LOSS = (("cross_entropy", "cross_entropy"), ("nll_loss", "nll_loss"))
_state = threading.local()  # per-thread: inside a loss module already checked by its hook


def add_clip_listener(listener: ClipListener) -> None:
    _add(_clip_listeners, listener)


def remove_clip_listener(listener: ClipListener) -> None:
    _remove(_clip_listeners, listener)


def add_loss_listener(listener: LossListener) -> None:
    _add(_loss_listeners, listener)


def remove_loss_listener(listener: LossListener) -> None:
    _remove(_loss_listeners, listener)


def in_hooked_loss(flag: bool | None = None) -> bool:
    """Get (or set) the per-thread flag: a loss module's own hook already checks the next call.

    Set by the module's forward pre-hook, consumed by the one functional call its forward makes.
    """
    if flag is not None:
        _state.inside = flag
    return getattr(_state, "inside", False)


def _add(listeners: list, listener: Callable) -> None:
    with _lock:
        listeners.append(listener)
        _sync_patches()


def _remove(listeners: list, listener: Callable) -> None:
    with _lock:
        if listener in listeners:
            listeners.remove(listener)
        _sync_patches()


def _sync_patches() -> None:
    _patch_group((nn_utils, clip_grad), _CLIP, bool(_clip_listeners), _clip_wrapper)
    _patch_group((F,), _LOSS, bool(_loss_listeners), _loss_wrapper)


def _patch_group(modules: tuple, names: tuple, active: bool, make: Callable) -> None:
    for module in modules:
        for attr, kind in names:
            key = (module, attr)
            if active and key not in _originals:
                original = getattr(module, attr)
                _originals[key] = original
                setattr(module, attr, make(original, kind))
            elif not active and key in _originals:
                setattr(module, attr, _originals.pop(key))


def _clip_wrapper(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def clip(parameters: Any, *args: Any, **kwargs: Any) -> Any:
        params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        for listener in list(_clip_listeners):
            listener(kind, params)
        return original(params, *args, **kwargs)

    clip.__trainwell_guard__ = True  # type: ignore[attr-defined]
    return clip


def _loss_wrapper(original: Callable, kind: str) -> Callable:
    @functools.wraps(original)
    def loss(input: Any, *args: Any, **kwargs: Any) -> Any:
        if in_hooked_loss():
            in_hooked_loss(False)  # consumed: this is the hooked module's own call
        elif isinstance(input, torch.Tensor):
            for listener in list(_loss_listeners):
                listener(kind, input)
        return original(input, *args, **kwargs)

    loss.__trainwell_guard__ = True  # type: ignore[attr-defined]
    return loss
