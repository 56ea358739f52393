"""Gradient clipping, always after backward (and after unscaling) and before the step."""

from __future__ import annotations

from collections.abc import Iterable

import torch


def grad_norm(parameters: Iterable[torch.Tensor], norm_type: float = 2.0) -> torch.Tensor:
    """The global norm of all gradients, as a device tensor (no host sync)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.zeros(())
    norms = torch._foreach_norm(grads, norm_type) if hasattr(torch, "_foreach_norm") else None
    if norms is None:  # pragma: no cover - very old torch
        norms = [torch.linalg.vector_norm(g, norm_type) for g in grads]
    return torch.linalg.vector_norm(torch.stack([n.to(grads[0].device) for n in norms]), norm_type)


class Clipping:
    """Clip by global norm and/or by value; returns the pre-clip global norm for logging.

    ``max_norm=None`` and ``max_value=None`` only measure the norm.
    """

    def __init__(self, max_norm: float | None = 1.0, max_value: float | None = None) -> None:
        self.max_norm = max_norm
        self.max_value = max_value

    def __call__(self, parameters: Iterable[torch.Tensor]) -> torch.Tensor:
        params = [p for p in parameters if p.grad is not None]
        if self.max_value is not None:
            pre_clip = grad_norm(params)  # measured before value clipping changes the gradients
            torch.nn.utils.clip_grad_value_(params, self.max_value)
            if self.max_norm is not None:
                torch.nn.utils.clip_grad_norm_(params, self.max_norm)
            return pre_clip
        if self.max_norm is not None:
            # No error_if_nonfinite: it would sync with the host on every step.
            return torch.nn.utils.clip_grad_norm_(params, self.max_norm)
        return grad_norm(params)
