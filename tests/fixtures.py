"""Tiny models, data and configs shared by the tests: one place instead of a copy per file.

Every helper is deterministic: data come from their own ``torch.Generator``, models seed the
global generator before building (except `Net`, which the guards tests seed around it).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import trainwell as tw


def blobs(
    n: int = 240,
    seed: int = 0,
    features: int = 4,
    classes: int = 3,
    *,
    scale: float = 1.5,
    shift: float = 1.2,
):
    """``(x, y)``: ``classes`` separable Gaussian blobs in ``features`` dimensions: noise of
    standard deviation ``scale``, class ``c`` moved by ``shift`` along feature ``c``."""
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % classes
    x = torch.randn(n, features, generator=g) * scale
    x[:, :classes] += nn.functional.one_hot(y, classes).float() * shift
    return x, y


def separated_blobs(n: int = 240, seed: int = 0):
    """`blobs` that a few epochs learn for certain: noise 0.5, classes 3 apart."""
    return blobs(n, seed, scale=0.5, shift=3.0)


def random_data(n: int = 64, features: int = 4, classes: int = 3, seed: int = 0):
    """``(x, y)``: Gaussian features and uniformly random labels (nothing to learn)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, features, generator=g), torch.randint(0, classes, (n,), generator=g)


def batches(n: int = 20, size: int = 16, seed: int = 0):
    """``n`` batches of `random_data`'s kind (4 features, 3 classes), drawn one after another
    from one generator."""
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(size, 4, generator=g), torch.randint(0, 3, (size,), generator=g))
        for _ in range(n)
    ]


def layers(
    features: int = 4,
    hidden: int = 16,
    classes: int = 3,
    *,
    dropout: float = 0.0,
    batchnorm: bool = False,
) -> list[nn.Module]:
    """Linear → [BatchNorm1d] → ReLU → [Dropout] → Linear: the stack of `mlp` and `Net`."""
    stack: list[nn.Module] = [nn.Linear(features, hidden)]
    if batchnorm:
        stack.append(nn.BatchNorm1d(hidden))
    stack.append(nn.ReLU())
    if dropout:
        stack.append(nn.Dropout(dropout))
    stack.append(nn.Linear(hidden, classes))
    return stack


def mlp(
    seed: int = 0,
    features: int = 4,
    hidden: int = 16,
    classes: int = 3,
    *,
    dropout: float = 0.0,
    batchnorm: bool = False,
) -> nn.Module:
    """A two-layer MLP (an ``nn.Sequential`` of `layers`) with fixed initial weights."""
    torch.manual_seed(seed)
    return nn.Sequential(*layers(features, hidden, classes, dropout=dropout, batchnorm=batchnorm))


class Net(nn.Module):
    """The MLP of `mlp` as a module of its own (its layers under ``net``), unseeded;
    ``dropout``/``batchnorm`` add the layers whose mode matters."""

    def __init__(self, dropout: bool = False, batchnorm: bool = False) -> None:
        super().__init__()
        self.net = nn.Sequential(*layers(dropout=0.1 if dropout else 0.0, batchnorm=batchnorm))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def quiet_config(*, max_epochs: int = 3, lr: float = 0.05, **sections: Any) -> tw.Config:
    """A config that prints nothing, trains ``max_epochs`` epochs at learning rate ``lr`` and
    keeps every other default; ``sections`` override, e.g. ``quiet_config(train={"max_epochs":
    2})``. It pins ``run.device=cpu``: the tests built on it compare with CPU hand loops and
    CPU tensors (on a CUDA machine ``auto`` would move the model to ``cuda:0``); pass
    ``run={"device": "auto"}`` for a test that means any device."""
    tree: dict[str, Any] = {
        "run": {"quiet": True, "device": "cpu"},
        "train": {"max_epochs": max_epochs},
        "optim": {"lr": lr},
    }
    for key, value in sections.items():
        tree.setdefault(key, {}).update(value)
    return tw.build_config(tree)
