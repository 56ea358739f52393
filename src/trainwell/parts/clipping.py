"""Gradient clipping, always after backward (and after unscaling) and before the step.

`Clipping` computes each gradient's norm once and keeps them: the global norm is logged, and
the runtime guards read the per-parameter norms to find inf/NaN without a second pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch

from trainwell.observe import signals


def param_norms(grads: list[torch.Tensor], norm_type: float = 2.0) -> torch.Tensor:
    """Each gradient's norm, stacked into one device tensor (one foreach kernel where possible).

    Sharded gradients (FSDP2's DTensors) give each whole gradient's norm, the same on every
    rank: the norms of the local shards, combined in one all-reduce.
    """
    if is_sharded(grads[0]):
        return _sharded_param_norms(grads, norm_type)
    if len({(g.device, g.dtype) for g in grads}) == 1 and not grads[0].is_sparse:
        norms = torch._foreach_norm(grads, norm_type)
    else:  # mixed devices or dtypes: one norm at a time, gathered as float32
        norms = [torch.linalg.vector_norm(g.float(), norm_type) for g in grads]
    first = grads[0].device
    return torch.stack([n.to(first) for n in norms])


def is_sharded(tensor: torch.Tensor) -> bool:
    """Whether ``tensor`` is a DTensor (FSDP2's sharded parameters and gradients)."""
    return hasattr(tensor, "device_mesh") and hasattr(tensor, "to_local")


def _sharded_param_norms(grads: list[torch.Tensor], norm_type: float) -> torch.Tensor:
    import torch.distributed as dist  # only sharded runs get here

    mesh = grads[0].device_mesh
    if mesh.ndim != 1 or not all(
        g.device_mesh == mesh and all(p.is_shard() for p in g.placements) for g in grads
    ):  # replicated or 2-D layouts: DTensor's own (one collective per gradient)
        return torch.stack([n.full_tensor() for n in torch._foreach_norm(grads, norm_type)])
    norms = param_norms([g.to_local() for g in grads], norm_type).float()
    group = mesh.get_group()
    if math.isinf(norm_type):
        dist.all_reduce(norms, op=dist.ReduceOp.MAX, group=group)
        return norms
    powered = norms.pow(norm_type)
    dist.all_reduce(powered, group=group)
    return powered.pow(1.0 / norm_type)


def local_parts(grads: list[torch.Tensor]) -> list[torch.Tensor]:
    """Each gradient's local shard (the gradient itself unless sharded): what in-place
    arithmetic on gradients works on."""
    return [g.to_local() if is_sharded(g) else g for g in grads]


def grad_norm(parameters: Iterable[torch.Tensor], norm_type: float = 2.0) -> torch.Tensor:
    """The global norm of all gradients, as a device tensor (no host sync)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.zeros(())
    return torch.linalg.vector_norm(param_norms(grads, norm_type), norm_type)


class Clipping:
    """Clip by global norm and/or by value; returns the pre-clip global norm for logging.

    ``max_norm=None`` and ``max_value=None`` only measure the norm. The arithmetic is that of
    ``torch.nn.utils.clip_grad_norm_`` (same kernels, same order), so results are identical.
    After each call, ``last_norms`` holds ``(parameters with a gradient, their pre-clip norms)``.
    """

    def __init__(self, max_norm: float | None = 1.0, max_value: float | None = None) -> None:
        self.max_norm = max_norm
        self.max_value = max_value
        self.last_norms: tuple[list[torch.Tensor], torch.Tensor] | None = None

    def __call__(self, parameters: Iterable[torch.Tensor]) -> torch.Tensor:
        params = list(parameters)
        signals.clip_called("Clipping", params)  # the runtime guards see it as clip_grad_norm_
        params = [p for p in params if p.grad is not None]
        if not params:
            self.last_norms = None
            return torch.zeros(())
        grads = [p.grad for p in params]
        norms = param_norms(grads)  # before any clipping: what logging and guards must see
        total = torch.linalg.vector_norm(norms, 2.0)
        self.last_norms = (params, norms)
        signals.publish_clip_norms(params, norms)
        if self.max_value is not None:
            with signals.inside_part():  # already told the guards, as Clipping
                torch.nn.utils.clip_grad_value_(params, self.max_value)
            if self.max_norm is not None:  # re-measure: value clipping changed the gradients
                total_after = torch.linalg.vector_norm(param_norms(grads), 2.0)
                self._scale(grads, total_after)
            return total
        if self.max_norm is not None:
            self._scale(grads, total)
        return total

    def _scale(self, grads: list[torch.Tensor], total: torch.Tensor) -> None:
        # No error_if_nonfinite and no branch on the value: either would sync with the host.
        if is_sharded(grads[0]):  # each shard scaled by the global coefficient
            grads = local_parts(grads)
        coef = torch.clamp(self.max_norm / (total + 1e-6), max=1.0)
        if len({(g.device, g.dtype) for g in grads}) == 1:
            torch._foreach_mul_(grads, coef.to(grads[0].device))
        else:
            for g in grads:
                g.mul_(coef.to(g.device, g.dtype))
