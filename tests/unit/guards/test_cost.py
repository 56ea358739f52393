"""The per-step work of the guards stays small: structural checks, no timings (see
`python benchmarks/guards.py --loops` for the measured cost)."""

from __future__ import annotations

import torch
from torch import nn

from trainwell.guards import base


class _Sharded(torch.Tensor):
    """Stands for a DTensor: a tensor subclass whose local shard must be taken."""


def _grads() -> list[torch.Tensor]:
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model(torch.randn(3, 4)).sum().backward()
    return [p.grad for p in model.parameters()]


def test_tensor_norms_takes_shards_only_of_sharded_tensors(monkeypatch) -> None:
    """CPU. The per-step norms of plain gradients do no per-tensor shard lookup (hasattr on a
    tensor misses through its slow path, microseconds each, every step); a list holding a
    sharded tensor still goes through local_shard, and both give the same norms."""
    grads = _grads()
    expected = torch.stack([g.norm() for g in grads])
    seen: list[type] = []

    def shard(tensor: torch.Tensor) -> torch.Tensor:
        seen.append(type(tensor))
        return tensor.as_subclass(torch.Tensor)

    monkeypatch.setattr(base, "local_shard", shard)
    assert torch.allclose(base.tensor_norms(grads), expected)
    assert seen == []  # plain tensors: no lookup at all
    mixed = [grads[0].as_subclass(_Sharded), *grads[1:]]
    assert torch.allclose(base.tensor_norms(mixed), expected)
    assert _Sharded in seen
