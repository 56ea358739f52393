"""The step seam: one optimizer step over an accumulation window, as a part.

`TrainStep` is what `fit()` calls once per window, and what a hand-written loop can call
alone::

    step = TrainStep(model, Optimizers.single(optimizer, schedule, Clipping(1.0)),
                     loss_step=lambda model, batch: criterion(model(batch[0]), batch[1]),
                     precision=Precision("bf16", device))
    for i, window in enumerate(Accumulation(4).windows(loader)):
        result = step(window, steps_done)      # zero_grad ... schedule, in that order
        steps_done += result.stepped

Its body is the order every step needs: zero_grad → each micro-batch moved to the device and
forwarded under autocast → weighted backward (gradients synchronised after the last one only)
→ unscale → clip by the global norm → step (skipped by GradScaler on inf/NaN) → schedule, only
on a real step. Subclass it (override `__call__`) for steps with several optimizers — a GAN's
discriminator and generator — using `Optimizers` to hold them by name; see
`trainwell.recipes.gan`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from torch import nn

from trainwell.parts.accumulation import MicroBatch
from trainwell.parts.outputs import loss_of
from trainwell.parts.precision import Precision
from trainwell.step.optimizers import Optimizers
from trainwell.strategy.base import Strategy
from trainwell.strategy.single import SingleDevice

#: ``loss_step(model, batch) -> loss`` (or ``(loss, outputs)``), for one micro-batch.
LossStep = Callable[[nn.Module, Any], Any]


#: What a step does with an update whose gradients hold inf/NaN (see `TrainStep.drop_if_nonfinite`)
SkipNonfinite = Literal["no", "device", "exact"]


@dataclass
class StepResult:
    """What one step did, as device tensors (nothing here syncs with the host)."""

    loss: torch.Tensor  # the window's loss: its micro-batch losses, weighted as backpropagated
    grad_norm: torch.Tensor  # the pre-clip global gradient norm of the main optimizer
    lr: float  # the LR the main optimizer's update used (the schedule moves it after)
    stepped: bool  # False when GradScaler skipped the update (inf/NaN gradients)
    logs: dict[str, torch.Tensor] = field(default_factory=dict)  # more losses to log, e.g. d_loss


class TrainStep:
    """One optimizer step over an accumulation window (see the module docstring)."""

    def __init__(
        self,
        model: nn.Module,
        optimizers: Optimizers,
        *,
        loss_step: LossStep | None = None,
        precision: Precision | None = None,
        strategy: Strategy | None = None,
    ) -> None:
        self.model = model
        self.optimizers = optimizers
        self.loss_step = loss_step
        self.precision = precision or Precision("fp32", "cpu")
        self.strategy = strategy or SingleDevice(self.precision.device)
        self.bound = precision is not None  # fit() leaves a step's own precision alone
        #: drop an update whose gradients hold inf/NaN: "no", "device" (no host read) or "exact"
        self.skip_nonfinite: SkipNonfinite = "no"
        #: modules frozen for the first steps (``train.freeze``), applied before each step
        self.freezing: Any = None

    def bind(
        self, precision: Precision, strategy: Strategy, *, skip_nonfinite: SkipNonfinite = "no"
    ) -> None:
        """Use the run's precision and strategy (what `fit()` does for a step built without
        them, e.g. by a recipe that cannot know the device), and the run's policy for
        inf/NaN gradients (``guards.nonfinite=skip_step``)."""
        if not self.bound:
            self.precision, self.strategy, self.bound = precision, strategy, True
        self.skip_nonfinite = skip_nonfinite

    def drop_if_nonfinite(self, grad_norm: torch.Tensor, parameters: list[torch.Tensor]) -> None:
        """With ``skip_nonfinite`` set, an update whose gradient norm is inf/NaN changes no
        weight: "device" zeroes the gradients where the flag is set, without a host read
        (momentum and Adam's moments still decay that step); "exact" reads the flag (one sync
        per step) and drops the gradients, which optimizers then skip entirely. fp16 needs
        neither: GradScaler skips such steps itself."""
        if self.skip_nonfinite == "no" or self.precision.mode == "fp16":
            return
        bad = ~torch.isfinite(grad_norm)
        if self.skip_nonfinite == "exact":
            if bool(bad):  # the one host read per step this option pays for
                for p in parameters:
                    p.grad = None
            return
        for p in parameters:
            if p.grad is not None:
                p.grad.masked_fill_(bad, 0.0)

    def __call__(self, window: Sequence[MicroBatch], steps_done: int) -> StepResult:
        """Run the window; ``steps_done`` counts the updates before it (the schedule's step)."""
        entry = self.optimizers.main
        optimizer, precision, strategy = entry.optimizer, self.precision, self.strategy
        if self.freezing is not None:  # train.freeze: frozen modules get no gradient yet
            self.freezing.apply(steps_done)
        optimizer.zero_grad(set_to_none=True)  # gradients add up across backward() calls
        window_loss: torch.Tensor | None = None
        assert self.loss_step is not None, "TrainStep needs loss_step (or override __call__)"
        for micro in window:
            batch = strategy.to_device(micro.batch)  # one micro-batch on the device at a time
            with precision.autocast():  # forward and loss in low precision, not backward
                loss = loss_of(self.loss_step(self.model, batch))
            weighted = micro.weigh(loss)  # x 1/n, or x count/total, in the window
            strategy.backward(weighted, precision, self.model, last=micro.is_last)
            # detached: keeps no graph alive; a window of one costs no device op here
            part = weighted.detach().float()
            window_loss = part if window_loss is None else window_loss + part
        if window_loss is None:
            window_loss = torch.zeros((), device=strategy.device)
        precision.unscale_(optimizer)  # clip the true gradients, not fp16-scaled ones
        grad_norm = strategy.clip(entry.clipping, entry.parameters)
        self.drop_if_nonfinite(grad_norm, entry.parameters)  # guards.nonfinite=skip_step
        lr = optimizer.param_groups[-1]["lr"]  # the LR this update uses
        stepped = precision.step(optimizer)  # False when GradScaler skipped inf/NaN
        if stepped:
            entry.schedule.after_step(steps_done + 1)  # advances only on real steps
        return StepResult(window_loss, grad_norm, lr, stepped)

    def state_parts(self) -> dict[str, Any]:
        """What a restart needs from the step: its optimizers and schedules, by name."""
        return self.optimizers.state_parts()
