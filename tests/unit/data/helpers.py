"""Datasets shared by the data tests."""

from __future__ import annotations

import random

import numpy as np
import torch
from torch.utils.data import Dataset


def tensors(n: int = 23, features: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return torch.randn(n, features, generator=g), torch.arange(n)


class Augmenting(Dataset):
    """Each item adds noise from the torch, numpy and python streams of whoever loads it."""

    def __init__(self, n: int = 20) -> None:
        self.x = torch.arange(n, dtype=torch.float64)[:, None].repeat(1, 3)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        noise = torch.tensor(
            [torch.rand(1).item(), float(np.random.rand()), random.random()], dtype=torch.float64
        )
        return self.x[i] + noise, i


class AugmentingBatches(Augmenting):
    """The same augmentations, fetched a whole batch at a time (torch's __getitems__ contract)."""

    def __getitems__(self, indices: list[int]):
        return [self[i] for i in indices]


class Expensive(Dataset):
    """Counts its __getitem__ calls; samples mix tensors, arrays, numbers, tuples and dicts."""

    def __init__(self, n=12, fingerprint="v1", fail_at=None):
        self.n, self.fingerprint, self.fail_at = n, fingerprint, fail_at
        self.calls = 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.calls += 1
        if i == self.fail_at:
            raise RuntimeError("preprocessing failed")
        return {
            "image": torch.arange(6, dtype=torch.float32).reshape(2, 3) * i,
            "half": torch.full((2,), i / 4, dtype=torch.bfloat16),
            "label": i % 3,
            "weight": i / 10,
            "flag": i % 2 == 0,
            "extra": (np.int16(i), np.arange(3, dtype=np.uint8) + i),
        }


def same_batches(a: list, b: list) -> bool:
    """Whether two lists of (nested) batches are equal tensor for tensor."""
    if len(a) != len(b):
        return False
    return all(_equal(x, y) for x, y in zip(a, b))


def _equal(x, y) -> bool:
    if isinstance(x, torch.Tensor):
        return isinstance(y, torch.Tensor) and x.dtype == y.dtype and torch.equal(x, y)
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_equal(x[k], y[k]) for k in x)
    if isinstance(x, list | tuple):
        return (
            isinstance(y, list | tuple)
            and len(x) == len(y)
            and all(_equal(i, j) for i, j in zip(x, y))
        )
    return x == y
