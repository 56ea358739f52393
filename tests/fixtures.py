"""Tiny models, data and configs shared by the tests: one place instead of a copy per file."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import trainwell as tw


def blobs(n: int = 240, seed: int = 0, features: int = 4, classes: int = 3):
    """``(x, y)``: ``classes`` separable Gaussian blobs in ``features`` dimensions."""
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % classes
    x = torch.randn(n, features, generator=g) * 1.5
    x[:, :classes] += nn.functional.one_hot(y, classes).float() * 1.2
    return x, y


def mlp(seed: int = 0, features: int = 4, hidden: int = 16, classes: int = 3) -> nn.Module:
    """A two-layer MLP with fixed initial weights."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, classes))


def quiet_config(**sections: Any) -> tw.Config:
    """A config that prints nothing, trains a few epochs and keeps every other default;
    ``sections`` override, e.g. ``quiet_config(train={"max_epochs": 2})``."""
    tree: dict[str, Any] = {
        "run": {"quiet": True},
        "train": {"max_epochs": 3},
        "optim": {"lr": 0.05},
    }
    for key, value in sections.items():
        tree.setdefault(key, {}).update(value)
    return tw.build_config(tree)
