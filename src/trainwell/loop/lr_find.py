"""The LR finder: ``tw.lr_find(model, data, ...)`` and ``trainwell lr-find``.

An exponential sweep of the learning rate, from ``min_lr`` to ``max_lr`` over ``num_steps``
optimizer steps, run by the same `TrainStep` as ``fit()``: precision, accumulation, clipping
and the optimizer's parameter groups as configured (the groups keep their ratios, e.g. no
decay on norms, layer-wise decay). The loss of each step is smoothed (an exponential moving
average with bias correction) and the sweep stops early when the smoothed loss exceeds
``diverge`` times its lowest value.

**Suggestion**, with its rule stated: the LR where the smoothed loss falls fastest against
log(LR) (the steepest negative slope, over the part of the sweep before its minimum), which
is the usual pick for a fresh run's peak LR; ``min_loss_lr / 10`` is given too.

Nothing of the sweep stays: the model's state (weights and buffers), the optimizer passed in
(if any) and every RNG stream are put back bit-for-bit afterwards, so a ``fit()`` after it
is the same as one without it. A plot (``lr_find.png``, matplotlib) is written on request.
One process only.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import Config
from trainwell.config.tree import build_config
from trainwell.data.loader import start_epoch
from trainwell.errors import ConfigError
from trainwell.loop.builders import build_loader, default_train_step, prepare_strategy
from trainwell.loop.run_state import RunLength
from trainwell.observe.plots import _pyplot, save_figure
from trainwell.parts.accumulation import Accumulation
from trainwell.parts.optim import build_optimizer
from trainwell.parts.precision import Precision
from trainwell.state.rng import RNGState, seed_everything
from trainwell.step.train_step import TrainStep

RULE = "steepest descent of the smoothed loss against log(LR), before its minimum"


@dataclass
class LRFindResult:
    """The sweep: LRs, raw and smoothed losses, the suggestion and the rule that chose it."""

    lrs: list[float]
    losses: list[float]
    smoothed: list[float]
    suggestion: float | None
    min_loss_lr: float | None
    rule: str = RULE
    stopped_early: bool = False
    plot: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        if self.suggestion is None:
            return "lr-find: no suggestion (the loss never fell: widen min_lr..max_lr)"
        stop = ", stopped when the loss diverged" if self.stopped_early else ""
        return (
            f"suggested lr {self.suggestion:.3g} ({self.rule}); min_loss_lr/10 "
            f"{self.min_loss_lr / 10:.3g}; {len(self.lrs)} steps{stop}"
        )


class _Sweep:
    """An exponential LR sweep as a schedule: the LR of step t (0-based) is
    ``min_lr * (max_lr / min_lr) ** (t / (num_steps - 1))``, for every group in its ratio."""

    def __init__(self, optimizer: torch.optim.Optimizer, min_lr: float, max_lr: float, n: int):
        self.optimizer, self.min_lr, self.max_lr, self.n = optimizer, min_lr, max_lr, n
        top = max(g["lr"] for g in optimizer.param_groups)
        self.ratios = [g["lr"] / top for g in optimizer.param_groups]
        self.set(0)

    def lr_at(self, t: int) -> float:
        return self.min_lr * (self.max_lr / self.min_lr) ** (t / max(self.n - 1, 1))

    def set(self, t: int) -> None:
        for group, ratio in zip(self.optimizer.param_groups, self.ratios, strict=True):
            group["lr"] = self.lr_at(t) * ratio

    def after_step(self, step: int) -> None:
        self.set(step)

    def after_epoch(self, epoch: int) -> None: ...

    def after_eval(self, metrics: Any) -> None: ...

    @property
    def lr(self) -> float:
        return max(g["lr"] for g in self.optimizer.param_groups)

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


def lr_find(
    model: nn.Module,
    train_data: Any,
    *,
    loss: Callable[..., torch.Tensor] | None = None,
    config: Config | dict[str, Any] | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    step_fn: Any = None,
    train_step: TrainStep | None = None,
    min_lr: float = 1e-7,
    max_lr: float = 10.0,
    num_steps: int = 100,
    smoothing: float = 0.9,
    diverge: float = 4.0,
    plot: str | Path | None = None,
    device: str | torch.device | None = None,
) -> LRFindResult:
    """Sweep the LR on ``model`` and ``train_data`` and suggest one (see the module docs).

    ``train_step`` (a `TrainStep` of your own, a GAN's): the sweep runs that step, every one
    of its optimizers at the swept LR together (each keeping its groups' ratios), on the loss
    the step returns; its optimizers and schedules are put back afterwards."""
    if not 0 < min_lr < max_lr:
        raise ConfigError(f"lr_find needs 0 < min_lr < max_lr, got {min_lr} and {max_lr}")
    if num_steps < 10:
        raise ConfigError(f"lr_find needs num_steps >= 10 to see a trend, got {num_steps}")
    cfg = config if isinstance(config, Config) else build_config(config)
    rng = RNGState().state_dict()  # every stream, put back at the end
    saved_model = {k: v.detach().clone() for k, v in model.state_dict().items()}
    saved_optimizer = copy.deepcopy(optimizer.state_dict()) if optimizer is not None else None
    saved_slots = _slots_of(train_step)
    was_training = model.training
    try:
        seed_everything(cfg.run.seed, cfg.run.deterministic)
        result = _sweep(model, train_data, cfg, loss, optimizer, (step_fn, train_step), device,
                        (min_lr, max_lr, num_steps, smoothing, diverge))  # fmt: skip
    finally:
        with torch.no_grad():
            for name, value in model.state_dict().items():
                value.copy_(saved_model[name])
        if optimizer is not None:
            optimizer.load_state_dict(saved_optimizer)
        _put_back_slots(train_step, saved_slots)
        model.train(was_training)
        RNGState().load_state_dict(rng)
    if plot is not None:
        result.plot = plot_sweep(result, Path(plot))
    return result


def _slots_of(train_step: TrainStep | None) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Each optimizer slot's schedule and optimizer state, to put back after the sweep."""
    if train_step is None:
        return {}
    return {
        name: (slot.schedule, copy.deepcopy(slot.optimizer.state_dict()))
        for name, slot in train_step.optimizers.slots.items()
    }


def _put_back_slots(train_step: TrainStep | None, saved: dict[str, Any]) -> None:
    for name, (schedule, state) in saved.items():
        slot = train_step.optimizers.slots[name]
        slot.schedule = schedule
        slot.optimizer.load_state_dict(state)


def _sweep(model, train_data, cfg, loss, optimizer, steps, device, sweep) -> LRFindResult:
    min_lr, max_lr, num_steps, smoothing, diverge = sweep
    step_fn, train_step = steps
    strategy, trained = prepare_strategy(None, model, cfg, device)
    if strategy.world_size > 1:
        raise ConfigError("lr_find runs in one process; run it before launching torchrun")
    loader = build_loader(train_data, cfg, strategy, train=True)
    accumulation = Accumulation(cfg.train.accumulate_steps, cfg.train.weight_by)
    length = RunLength.of(cfg, loader, accumulation)
    if train_step is not None:  # every optimizer of the step swept together
        step = train_step
        sweeps = [_Sweep(slot.optimizer, min_lr, max_lr, num_steps)
                  for slot in step.optimizers.slots.values()]  # fmt: skip
        for slot, swept in zip(step.optimizers.slots.values(), sweeps, strict=True):
            slot.schedule = swept
        schedule = sweeps[0]
    else:
        optimizer = optimizer or _fresh_optimizer(model, cfg)
        schedule = _Sweep(optimizer, min_lr, max_lr, num_steps)
        step = default_train_step(model, cfg, length, loss_fn=loss, optimizer=optimizer,
                                  schedule=schedule, step_fn=step_fn)  # fmt: skip
    step.bind(Precision(cfg.train.precision, strategy.device), strategy, trained)
    model.train()
    lrs: list[float] = []
    losses: list[float] = []
    smoothed: list[float] = []
    average, best, epoch, stopped = 0.0, math.inf, 0, False
    while len(lrs) < num_steps and not stopped:
        for window in accumulation.windows(start_epoch(loader, epoch)):
            lr = schedule.lr
            result = step(window, len(lrs))
            value = float(result.loss)  # a diagnostic sweep: one read per step is the point
            if not result.stepped:  # fp16: GradScaler skipped it; the scale is still settling
                continue
            lrs.append(lr)
            losses.append(value)
            average = smoothing * average + (1 - smoothing) * value
            smoothed.append(average / (1 - smoothing ** len(lrs)))
            best = min(best, smoothed[-1])
            if not math.isfinite(value) or smoothed[-1] > diverge * best:
                stopped = True
                break
            if len(lrs) >= num_steps:
                break
        epoch += 1
    suggestion, min_loss_lr = suggest(lrs, smoothed)
    return LRFindResult(lrs, losses, smoothed, suggestion, min_loss_lr, stopped_early=stopped)


def _fresh_optimizer(model: nn.Module, cfg: Config) -> torch.optim.Optimizer:
    return build_optimizer(model, cfg.optim)


def suggest(lrs: list[float], smoothed: list[float]) -> tuple[float | None, float | None]:
    """(steepest-descent LR, min-loss LR) of a sweep; None when the loss never fell."""
    finite = [i for i, v in enumerate(smoothed) if math.isfinite(v)]
    if len(finite) < 3:
        return None, None
    lowest = min(finite, key=lambda i: smoothed[i])
    before = [i for i in finite if i <= lowest]
    if len(before) < 3 or smoothed[lowest] >= smoothed[before[0]]:
        return None, lrs[lowest]
    logs = [math.log(lrs[i]) for i in before]
    slopes = [
        (smoothed[before[k + 1]] - smoothed[before[k - 1]]) / (logs[k + 1] - logs[k - 1])
        for k in range(1, len(before) - 1)
    ]
    steepest = min(range(len(slopes)), key=lambda k: slopes[k])
    return lrs[before[steepest + 1]], lrs[lowest]


def plot_sweep(result: LRFindResult, path: Path) -> Path:
    """The sweep's raw and smoothed losses against the LR (log scale), the suggestion marked."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.plot(result.lrs, result.losses, color="C0", alpha=0.3, label="loss")
    ax.plot(result.lrs, result.smoothed, color="C0", label="smoothed loss")
    if result.suggestion is not None:
        ax.axvline(result.suggestion, color="C3", ls="--",
                   label=f"suggested {result.suggestion:.2g} (steepest descent)")  # fmt: skip
    ax.set(xscale="log", xlabel="learning rate", ylabel="loss", title="LR finder")
    finite = [v for v in result.smoothed if math.isfinite(v)]
    raw = [v for v in result.losses if math.isfinite(v)]
    if finite:  # the divergence at the end would flatten everything else
        ax.set_ylim(min(finite + raw) * 0.9, finite[0] * 1.5)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        return save_figure(fig, path)  # atomic; a full disk is WriteFailedError (exit 4)
    finally:
        plt.close(fig)
