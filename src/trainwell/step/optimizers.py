"""Optimizers by name, each in a slot with its schedule, its clipping, the parameters it clips and
the module it trains: what `TrainStep.update` steps, and what a checkpoint saves."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from trainwell.parts.clipping import Clipping
from trainwell.parts.schedule import Schedule


class ConstantLR:
    """The schedule of an optimizer that has none: the LR it was built with, unchanged."""

    def __init__(self, optimizer: torch.optim.Optimizer) -> None:
        self.optimizer = optimizer

    def after_step(self, step: int) -> None: ...

    def after_epoch(self, epoch: int) -> None: ...

    def after_eval(self, metrics: Mapping[str, float]) -> None: ...

    @property
    def lr(self) -> float:
        return self.optimizer.param_groups[-1]["lr"]

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


@dataclass
class OptimizerSlot:
    """One optimizer with what steps it: its schedule, its clipping, the parameters it clips,
    and the module it trains (what the runtime guards watch with it)."""

    optimizer: torch.optim.Optimizer
    schedule: Schedule
    clipping: Clipping
    parameters: list[torch.Tensor]
    module: nn.Module | None = None


class Optimizers(Mapping[str, OptimizerSlot]):
    """Optimizers by name, each with its schedule and clipping: one stateful container.

    Saved and restored with the run's state through `state_parts`: a single optimizer under
    the names ``optimizer`` and ``schedule``, several under ``optimizer.<name>`` and
    ``schedule.<name>``.
    """

    def __init__(self, slots: Mapping[str, OptimizerSlot]) -> None:
        if not slots:
            raise ValueError("Optimizers needs at least one optimizer")
        self.slots = dict(slots)

    @classmethod
    def single(
        cls,
        optimizer: torch.optim.Optimizer,
        schedule: Schedule | None = None,
        clipping: Clipping | None = None,
        *,
        module: nn.Module | None = None,
        parameters: list[torch.Tensor] | None = None,
    ) -> Optimizers:
        """One optimizer (named ``main``); no schedule keeps its LR, no clipping measures only."""
        entry = slot(optimizer, schedule, clipping, module=module, parameters=parameters)
        return cls({"main": entry})

    def __getitem__(self, name: str) -> OptimizerSlot:
        return self.slots[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.slots)

    def __len__(self) -> int:
        return len(self.slots)

    @property
    def main_name(self) -> str:
        """The first optimizer's name: the one whose LR and gradient norm the run logs."""
        return next(iter(self.slots))

    @property
    def main(self) -> OptimizerSlot:
        """The first optimizer: the one whose LR and gradient norm the run logs."""
        return self.slots[self.main_name]

    def after_epoch(self, epoch: int) -> None:
        for entry in self.slots.values():
            entry.schedule.after_epoch(epoch)

    def after_eval(self, metrics: Mapping[str, float]) -> None:
        for entry in self.slots.values():
            entry.schedule.after_eval(metrics)

    def state_parts(self) -> dict[str, Any]:
        """The stateful parts under the names the checkpoint keeps them by."""
        if len(self.slots) == 1:
            entry = self.main
            return {"optimizer": entry.optimizer, "schedule": entry.schedule}
        parts: dict[str, Any] = {}
        for name, entry in self.slots.items():
            parts[f"optimizer.{name}"] = entry.optimizer
            parts[f"schedule.{name}"] = entry.schedule
        return parts


def slot(
    optimizer: torch.optim.Optimizer,
    schedule: Schedule | None = None,
    clipping: Clipping | None = None,
    *,
    module: nn.Module | None = None,
    parameters: list[torch.Tensor] | None = None,
) -> OptimizerSlot:
    """An `OptimizerSlot` with defaults: constant LR, norm measured but not clipped, and the
    optimizer's parameters clipped (pass ``parameters`` in the model's order for the global
    norm a hand loop over ``model.parameters()`` computes, bit for bit)."""
    if parameters is None:
        parameters = [
            p for group in optimizer.param_groups for p in group["params"] if p.requires_grad
        ]
    return OptimizerSlot(
        optimizer,
        schedule if schedule is not None else ConstantLR(optimizer),
        clipping if clipping is not None else Clipping(max_norm=None),
        parameters,
        module,
    )
