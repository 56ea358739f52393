"""Signals from trainwell's own parts to whoever watches: the runtime guards.

A part that replaces a torch call (`trainwell.Clipping` for ``clip_grad_norm_``) says so here
(`clip_called`, and the norms it computed: `publish_clip_norms`), so the guards see it exactly
as the torch call, without wrapping anything. The listener lists live here; the guards add
their listeners (and, for a hand-written loop, wrappers around torch's own functions:
`trainwell.guards.patch`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import torch

ClipListener = Callable[[str, list[torch.Tensor]], None]
LossListener = Callable[[str, torch.Tensor], None]

clip_listeners: list[ClipListener] = []
loss_listeners: list[LossListener] = []


class _ThreadState(threading.local):
    """Per thread: ``in_part`` (inside a trainwell part), ``inside`` (inside a loss module
    already checked by its hook), ``clip_norms`` (the norms the last clip published). The class
    attributes are every thread's defaults: reading one never fails (a failed attribute lookup
    raises and catches an AttributeError, microseconds on a path taken every step)."""

    in_part: bool = False
    inside: bool = False
    clip_norms: tuple[list[torch.Tensor], torch.Tensor] | None = None


thread_state = _ThreadState()


def clip_called(call: str, parameters: list[torch.Tensor]) -> None:
    """A trainwell part clips ``parameters`` (all of them, with or without a gradient)."""
    if clip_listeners and not getattr(thread_state, "in_part", False):
        for listener in list(clip_listeners):
            listener(call, parameters)


def publish_clip_norms(parameters: list[torch.Tensor], norms: torch.Tensor) -> None:
    """The pre-clip per-parameter norms a clip just computed (for the guards, while any
    listens): the non-finite and gradient-norm guards reuse them instead of a second pass."""
    if clip_listeners:
        thread_state.clip_norms = (parameters, norms)


def take_clip_norms() -> tuple[list[torch.Tensor], torch.Tensor] | None:
    """The norms the last clip published in this thread, once (None: no clip since)."""
    norms = getattr(thread_state, "clip_norms", None)
    thread_state.clip_norms = None
    return norms


class inside_part:  # noqa: N801 - used like a function: `with inside_part():`
    """The torch calls a trainwell part makes inside this block are the part's own: the part
    has told the listeners already, so the wrappers stay quiet."""

    def __enter__(self) -> None:
        self.outer = getattr(thread_state, "in_part", False)
        thread_state.in_part = True

    def __exit__(self, *exc: object) -> None:
        thread_state.in_part = self.outer


def in_hooked_loss(flag: bool | None = None) -> bool:
    """Get (or set) the per-thread flag: a loss module's own hook already checks the next call.

    Set by the module's forward pre-hook, consumed by the one functional call its forward makes.
    """
    if flag is not None:
        thread_state.inside = flag
    return getattr(thread_state, "inside", False)
