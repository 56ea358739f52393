"""The step seam: one optimizer step over an accumulation window, as a part, in two halves.

`TrainStep` is what `fit()` calls once per window, and what a hand-written loop can call
alone::

    step = TrainStep(model, Optimizers.single(optimizer, schedule, Clipping(1.0)),
                     loss_step=lambda model, batch: criterion(model(batch[0]), batch[1]),
                     precision=Precision("bf16", device))
    for window in Accumulation(4).windows(loader):
        result = step(window, steps_done)      # zero_grad ... schedule, in that order
        steps_done += result.stepped

A call is the order every step needs: freezing (``train.freeze``) → zero_grad →
`forward_backward` (each micro-batch moved to the device and forwarded under autocast, its
loss weighted and backpropagated; gradients synchronised after the last one only) → `update`
of each optimizer slot (its gradients reduced over processes where the strategy's wrapper did
not already → unscale → clip by the global norm → drop an inf/NaN update when asked → step,
skipped by GradScaler on inf/NaN) → each schedule, only on a real step.

A step of your own overrides `forward_backward` alone and keeps every policy of `update`: a
GAN's step is its two losses, with ``self.update("discriminator")`` between them (see
`trainwell.recipes.gan`). It trains through ``self.trained``, what the strategy made of the
model (a DDP wrapper), or through submodules of ``self.model``: `update` then reduces their
gradients itself. A step also says how it validates: ``val_step`` (``(model, batch) -> loss``
or ``(loss, outputs)``), or None for the plain supervised forward under ``eval()`` +
``inference_mode()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import torch
from torch import nn

from trainwell.errors import ConfigError
from trainwell.parts.accumulation import MicroBatch
from trainwell.parts.outputs import loss_of
from trainwell.parts.precision import Precision
from trainwell.step.optimizers import Optimizers, OptimizerSlot
from trainwell.step.supervised import StepFn
from trainwell.strategy.base import Strategy
from trainwell.strategy.single import SingleDevice

#: ``loss_step(model, batch) -> loss`` (or ``(loss, outputs)``), for one micro-batch.
LossStep = StepFn
#: What a step does with an update whose gradients hold inf/NaN (see `TrainStep.update`)
SkipNonfinite = Literal["no", "device", "exact"]


class SlotUpdate(NamedTuple):
    """What `TrainStep.update` did for one optimizer slot (device tensors, no host sync)."""

    grad_norm: torch.Tensor  # the pre-clip global gradient norm
    lr: float  # the LR this update used (the schedule moves it after)
    stepped: bool  # False when GradScaler skipped the update (inf/NaN gradients)


@dataclass(frozen=True)
class StepResult:
    """What one step did, as device tensors (nothing here syncs with the host)."""

    loss: torch.Tensor  # the window's loss: its micro-batch losses, weighted as backpropagated
    grad_norm: torch.Tensor  # the pre-clip global gradient norm of the main optimizer
    lr: float  # the LR the main optimizer's update used (the schedule moves it after)
    stepped: bool  # False when GradScaler skipped an update (inf/NaN gradients)
    logs: Mapping[str, torch.Tensor] = field(default_factory=dict)  # more losses, e.g. d_loss


class TrainStep:
    """One optimizer step over an accumulation window (see the module docstring)."""

    def __init__(
        self,
        model: nn.Module,
        optimizers: Optimizers,
        *,
        loss_step: LossStep | None = None,
        val_step: StepFn | None = None,
        precision: Precision | None = None,
        strategy: Strategy | None = None,
    ) -> None:
        self.model = model  # the module that holds the state
        self.optimizers = optimizers
        self._main = optimizers.main_name  # whose LR and gradient norm the run logs
        self.loss_step = loss_step
        #: how the step validates: None is the plain supervised forward (`fit()`'s loss)
        self.val_step = val_step
        self.precision = precision or Precision("fp32", "cpu")
        self._own_precision = precision is not None  # fit() keeps a step's own precision
        self.strategy: Strategy = strategy or SingleDevice(self.precision.device)
        self._own_strategy = strategy
        #: what the forward calls: the strategy's wrapper of the model (DDP), set by `bind`
        self.trained: nn.Module = model
        #: drop an update whose gradients hold inf/NaN: "no", "device" (no host read) or "exact"
        self.skip_nonfinite: SkipNonfinite = "no"
        #: modules frozen for the first steps (``train.freeze``), applied before each step
        self.freezing: Any = None
        self._updates: dict[str, SlotUpdate] = {}
        self._stepped = True  # every slot's update of this step was taken
        self._wrapper_forwards = 0  # forwards through ``trained`` since the step began

    def bind(
        self,
        precision: Precision,
        strategy: Strategy,
        trained: nn.Module | None = None,
        *,
        skip_nonfinite: SkipNonfinite = "no",
    ) -> None:
        """Train with the run's strategy and ``trained`` (what ``strategy.prepare`` made of the
        model), the run's precision (unless the step was built with its own) and the run's
        policy for inf/NaN gradients (``guards.nonfinite=skip_step``)."""
        if self._own_strategy is not None and self._own_strategy is not strategy:
            raise ConfigError(
                f"this {type(self).__name__} was built with a strategy of its own; a run has "
                "one strategy: pass it to fit(strategy=...) and build the step without it"
            )
        self.strategy = strategy
        if not self._own_precision:
            self.precision = precision
        self.trained = trained if trained is not None else self.model
        if self.trained is not self.model:  # a wrapper: does a forward go through it?
            self.trained.register_forward_pre_hook(self._count_wrapper_forward)
        self.skip_nonfinite = skip_nonfinite

    def _count_wrapper_forward(self, module: nn.Module, args: Any) -> None:
        self._wrapper_forwards += 1

    # ------------------------------------------------------------------ what a step is made of

    def to_device(self, batch: Any) -> Any:
        """``batch`` on the run's device (non-blocking), as the strategy moves it."""
        return self.strategy.to_device(batch)

    def autocast(self) -> Any:
        """The run's autocast, for a forward and its loss (never around backward)."""
        return self.precision.autocast()

    def backward(self, loss: torch.Tensor, *, last: bool = True) -> None:
        """Backward of ``loss`` (scaled for fp16); ``last=False`` on the micro-batches before
        the last of a window skips the gradient synchronisation of several processes."""
        self.strategy.backward(loss, self.precision, self.trained, last=last)

    def forward_backward(self, window: Sequence[MicroBatch]) -> Any:
        """Forward and backward of each micro-batch of ``window``; returns the window's loss
        (detached), or ``(loss, {name: value})`` with more values to log. Override it for a
        step of your own; `update` may be called inside, for alternating updates."""
        assert self.loss_step is not None, "TrainStep needs loss_step (or forward_backward)"
        strategy, precision = self.strategy, self.precision  # the helpers' work, inlined
        window_loss: torch.Tensor | None = None
        for micro in window:
            batch = strategy.to_device(micro.batch)  # one micro-batch on the device at a time
            with precision.autocast():  # forward and loss in low precision, not backward
                loss = loss_of(self.loss_step(self.trained, batch))
            weighted = micro.weigh(loss)  # x 1/n, or x count/total, in the window
            strategy.backward(weighted, precision, self.trained, last=micro.is_last)
            # detached: keeps no graph alive; a window of one costs no device op here
            part = weighted.detach().float()
            window_loss = part if window_loss is None else window_loss + part
        if window_loss is None:
            return torch.zeros((), device=self.strategy.device)
        return window_loss

    def update(self, name: str | None = None) -> SlotUpdate:
        """Apply one optimizer slot's update (the main one without ``name``): its gradients
        reduced over processes where a wrapper did not → unscaled → clipped by their global
        norm → dropped when inf/NaN and ``skip_nonfinite`` asks → the optimizer's step."""
        name = name or self._main
        slot = self.optimizers.slots[name]
        if self.strategy.world_size > 1 and not self._wrapper_forwards:  # around the wrapper
            self.strategy.sync_gradients(slot.parameters)
        self.precision.unscale_(slot.optimizer)  # clip the true gradients, not fp16-scaled ones
        grad_norm = self.strategy.clip(slot.clipping, slot.parameters)
        self.drop_if_nonfinite(grad_norm, slot.parameters)  # guards.nonfinite=skip_step
        lr = slot.optimizer.param_groups[-1]["lr"]  # the LR this update uses
        # False when GradScaler skipped inf/NaN; the loss scale moves once, after every slot
        stepped = self.precision.step(slot.optimizer, update_scale=False)
        self._stepped = self._stepped and stepped
        update = self._updates[name] = SlotUpdate(grad_norm, lr, stepped)
        return update

    def __call__(self, window: Sequence[MicroBatch], steps_done: int) -> StepResult:
        """Run the window; ``steps_done`` counts the updates before it (the schedule's step)."""
        if self.freezing is not None:  # train.freeze: frozen modules get no gradient yet
            self.freezing.apply(steps_done)
        slots = self.optimizers.slots
        for slot in slots.values():
            slot.optimizer.zero_grad(set_to_none=True)  # gradients add up across backward()
        self._updates, self._wrapper_forwards, self._stepped = {}, 0, True
        done = self.forward_backward(window)
        loss, logs = done if isinstance(done, tuple) else (done, {})
        for name in slots:
            if name not in self._updates:  # not already updated by forward_backward
                self.update(name)
        self.precision.update_scale()
        stepped = self._stepped
        if stepped:  # the schedules advance only on real steps
            for slot in slots.values():
                slot.schedule.after_step(steps_done + 1)
        main = self._updates[self._main]
        if logs:
            logs = {k: v.detach() for k, v in logs.items()}
        return StepResult(loss, main.grad_norm, main.lr, stepped, logs)

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

    def slot(self, name: str | None = None) -> OptimizerSlot:
        """An optimizer slot by name (the main one without ``name``)."""
        return self.optimizers.slots[name or self._main]

    def state_parts(self) -> dict[str, Any]:
        """What a restart needs from the step: its optimizers and schedules, by name."""
        return self.optimizers.state_parts()
