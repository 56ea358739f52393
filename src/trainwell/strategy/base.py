"""The strategy seam: the small `Strategy` protocol `fit()` and `TrainStep` require of a process
layout, and `BaseStrategy`, which gives every other verb a one-process default."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import torch
from torch import nn


@runtime_checkable
class Strategy(Protocol):
    """What `fit()` and `TrainStep` need from the process layout (see the module docstring)."""

    device: torch.device
    rank: int
    world_size: int
    collective_state: bool

    @property
    def is_main(self) -> bool: ...

    def prepare(self, model: nn.Module) -> nn.Module: ...

    def to_device(self, batch: Any) -> Any: ...

    def backward(
        self, loss: torch.Tensor, precision: Any, model: nn.Module, last: bool
    ) -> None: ...

    def clip(self, clipping: Any, parameters: list[torch.Tensor]) -> torch.Tensor: ...

    def reduce(
        self, total: torch.Tensor, count: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]: ...

    def mean(self, values: torch.Tensor) -> torch.Tensor: ...

    def union(self, names: list[str]) -> list[str]: ...

    def agree(self, flag: bool) -> bool: ...

    def model_state(self, model: nn.Module) -> dict[str, Any]: ...

    def load_model_state(self, model: nn.Module, state: dict[str, Any]) -> None: ...

    def optimizer_state(
        self, model: nn.Module, optimizer: torch.optim.Optimizer
    ) -> dict[str, Any]: ...

    def load_optimizer_state(
        self, model: nn.Module, optimizer: torch.optim.Optimizer, state: dict[str, Any]
    ) -> None: ...

    def checkpoint_parts(self, parts: dict[str, Any], model: nn.Module) -> dict[str, Any]: ...

    def gather_findings(self, findings: list[Any]) -> list[Any]: ...
