"""Validation metrics, accumulated on the device and read once per evaluation."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import torch

MetricFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def accuracy(prediction: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Fraction of rows whose arg-max class equals the target index."""
    return (prediction.argmax(dim=-1) == targets).float().mean()


BUILTIN: dict[str, MetricFn] = {"accuracy": accuracy, "acc": accuracy}


def resolve_metrics(metrics: Mapping[str, MetricFn] | Iterable[str] | None) -> dict[str, MetricFn]:
    """Metrics by name: a dict of ``fn(prediction, targets) -> batch mean``, or built-in names."""
    if metrics is None:
        return {}
    if isinstance(metrics, Mapping):
        return dict(metrics)
    resolved = {}
    for name in metrics:
        if name not in BUILTIN:
            from trainwell.errors import ConfigError

            raise ConfigError(f"unknown metric {name!r}; built-in metrics: {', '.join(BUILTIN)}")
        resolved[name] = BUILTIN[name]
    return resolved


class MeanAccumulator:
    """Sample-weighted means of several batch-mean values, summed on the device."""

    def __init__(self) -> None:
        self.sums: dict[str, torch.Tensor] = {}
        self.count = 0

    def add(self, values: Mapping[str, torch.Tensor], n: int) -> None:
        for name, value in values.items():
            weighted = value.detach().float() * n
            self.sums[name] = self.sums[name] + weighted if name in self.sums else weighted
        self.count += n

    def compute(self) -> dict[str, Any]:
        """The means as Python floats: the one host sync of an evaluation."""
        if not self.sums:
            return {}
        stacked = torch.stack(list(self.sums.values())) / max(self.count, 1)
        return dict(zip(self.sums, stacked.tolist(), strict=True))
