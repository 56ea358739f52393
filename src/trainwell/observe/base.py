"""The facts the loop hands to observers, and the observer base class."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class FitInfo:
    """What a run is about to do."""

    max_epochs: int
    steps_per_epoch: int
    total_steps: int
    start_epoch: int
    start_step: int
    device: str
    precision: str
    num_parameters: int
    run_dir: str | None
    config: dict[str, Any] = field(default_factory=dict)
    model_name: str = ""
    # (top-level module, parameters, trainable parameters), in the model's order
    modules: list[tuple[str, int, int]] = field(default_factory=list)
    total_parameters: int = 0  # trainable or not (num_parameters: trainable only)
    size_mb: float = 0.0  # parameters and buffers in memory
    strategy: str = "single"


@dataclass(frozen=True)
class StepReport:
    """One optimizer step's facts, read-only. Tensors stay on the device.

    ``logged`` holds Python floats (loss averaged since the last log, grad norm, lr,
    samples/s, data-wait fraction) on the ``log_every`` cadence only: that is the loop's one
    host sync, shared by every observer. It is ``None`` on other steps.
    """

    step: int
    epoch: int  # 1-based number of the epoch being trained
    batch_in_epoch: int
    loss: torch.Tensor
    grad_norm: torch.Tensor | None
    lr: float
    stepped: bool
    samples: int
    data_wait_s: float
    scale: torch.Tensor | None = None
    logged: dict[str, float] | None = None
    # the step's micro-batches (`MicroBatch`: ``.batch`` as the loader yielded it, before it
    # was moved to the device)
    window: tuple[Any, ...] = ()


class Observer:
    """Base class: override the moments you need. Set ``should_stop`` to ask the loop to stop."""

    should_stop: bool = False
    stop_reason: str = ""

    def on_fit_start(self, info: FitInfo) -> None: ...

    def on_step_end(self, report: StepReport) -> None: ...

    def on_eval_end(self, metrics: dict[str, float], *, step: int, epoch: int) -> None: ...

    def on_epoch_end(self, record: dict[str, Any]) -> None: ...

    def on_fit_end(self, result: Any) -> None: ...

    def on_finding(self, finding: Any) -> None:
        """A runtime guard found a bug (a `trainwell.guards.Finding`), when it was found."""

    def close(self) -> None:
        """Release files, bars and hooks; called when fit() ends, normally or by an error."""
