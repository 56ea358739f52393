"""Learning-rate schedules that are stepped on the right interval by construction.

Every built-in schedule is a pure function of the optimizer-step count: the learning rate of
update ``step`` (0-based) is ``base_lr * factor(step)``. The loop sets it after every optimizer
step that really happened, so a schedule cannot be stepped per batch when it means per epoch,
skipped steps (GradScaler) do not advance it, and it has no state to lose on resume. Epoch-based
schedules (step, multistep, exponential, restarts) take epochs and convert to steps.

ReduceLROnPlateau is the one schedule with state: it is fed the monitored validation metric.
A user's own ``torch.optim.lr_scheduler`` object is accepted with its interval declared.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol, runtime_checkable

import torch

from trainwell.config.sections import MonitorConfig, ScheduleConfig
from trainwell.errors import ConfigError

Factor = Callable[[int], float]


# --------------------------------------------------------------------------- pure factors


def warmup(step: int, warmup_steps: int) -> float:
    """Linear warmup: 1/W, 2/W, ..., 1 over the first W updates; 1 after."""
    return min(1.0, (step + 1) / warmup_steps) if warmup_steps > 0 else 1.0


def constant(step: int, *, warmup_steps: int = 0) -> float:
    return warmup(step, warmup_steps)


def warmup_cosine(
    step: int, *, total_steps: int, warmup_steps: int = 0, min_lr_ratio: float = 0.0
) -> float:
    """Linear warmup, then cosine decay from 1 to ``min_lr_ratio`` at ``total_steps``."""
    if step < warmup_steps:
        return warmup(step, warmup_steps)
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return min_lr_ratio + (1.0 - min_lr_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_linear(
    step: int, *, total_steps: int, warmup_steps: int = 0, min_lr_ratio: float = 0.0
) -> float:
    """Linear warmup, then linear decay from 1 to ``min_lr_ratio`` at ``total_steps``."""
    if step < warmup_steps:
        return warmup(step, warmup_steps)
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return 1.0 - (1.0 - min_lr_ratio) * progress


def one_cycle(
    step: int,
    *,
    total_steps: int,
    pct_start: float = 0.3,
    div_factor: float = 25.0,
    final_div_factor: float = 1e4,
) -> float:
    """One-cycle (Smith): cosine up from 1/div_factor to 1, then cosine down to a tiny floor."""
    start = 1.0 / div_factor
    end = start / final_div_factor
    peak_step = max(1, int(pct_start * total_steps))
    if step < peak_step:
        return _cosine_between(start, 1.0, step / peak_step)
    progress = min(1.0, (step - peak_step) / max(1, total_steps - peak_step))
    return _cosine_between(1.0, end, progress)


def _cosine_between(begin: float, end: float, progress: float) -> float:
    return end + (begin - end) * 0.5 * (1.0 + math.cos(math.pi * progress))


def step_decay(step: int, *, steps_per_epoch: int, step_size: int, gamma: float) -> float:
    """Multiply by ``gamma`` every ``step_size`` epochs."""
    return gamma ** ((step // steps_per_epoch) // step_size)


def multistep(
    step: int, *, steps_per_epoch: int, milestones: tuple[int, ...], gamma: float
) -> float:
    """Multiply by ``gamma`` at each epoch in ``milestones``."""
    epoch = step // steps_per_epoch
    return gamma ** sum(1 for m in milestones if epoch >= m)


def exponential(step: int, *, steps_per_epoch: int, gamma: float) -> float:
    """Multiply by ``gamma`` every epoch."""
    return gamma ** (step // steps_per_epoch)


def cosine_restarts(
    step: int, *, cycle_steps: int, cycle_mult: int = 1, min_lr_ratio: float = 0.0
) -> float:
    """Cosine decay that restarts at 1 after each cycle (SGDR); cycles grow by ``cycle_mult``."""
    length, start = cycle_steps, 0
    while step >= start + length:
        start += length
        length *= cycle_mult
    return _cosine_between(1.0, min_lr_ratio, (step - start) / length)


# --------------------------------------------------------------------------- schedule objects


class LRSchedule:
    """Sets each param group's LR to ``base_lr * factor(step)``; stepped by the loop for you.

    In a hand-written loop call ``schedule.after_step(step)`` after each optimizer step that
    happened (``step`` = updates done so far), or use ``torch.optim.lr_scheduler.LambdaLR``
    with the same factor function.
    """

    interval: Literal["step"] = "step"

    def __init__(self, optimizer: torch.optim.Optimizer, factor: Factor) -> None:
        self.optimizer = optimizer
        self.factor = factor
        for group in optimizer.param_groups:
            group.setdefault("base_lr", group["lr"])
        self.after_step(0)

    def after_step(self, step: int) -> None:
        self.steps_done = step
        scale = self.factor(step)
        for group in self.optimizer.param_groups:
            group["lr"] = group["base_lr"] * scale

    def after_epoch(self, epoch: int) -> None:
        """Nothing: epoch-based factors read the epoch from the step count."""

    def after_eval(self, metrics: Mapping[str, float]) -> None:
        """Nothing: only plateau schedules react to metrics."""

    @property
    def lr(self) -> float:
        return self.optimizer.param_groups[-1]["lr"]

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """A pure function of the step count has nothing to restore."""


class PlateauSchedule(LRSchedule):
    """Reduce the LR by ``factor`` after ``patience`` evaluations without improvement.

    The loop feeds it the monitored validation metric after every evaluation.
    """

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        *,
        monitor: str = "val_loss",
        mode: str = "min",
        patience: int = 2,
        factor: float = 0.5,
        threshold: float = 1e-4,
        warmup_steps: int = 0,
    ) -> None:
        self.monitor, self.mode = monitor, mode
        self.patience, self.reduce_by, self.threshold = patience, factor, threshold
        self.scale, self.best, self.num_bad = 1.0, None, 0
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, lambda step: warmup(step, self.warmup_steps) * self.scale)

    def after_eval(self, metrics: Mapping[str, float]) -> None:
        if self.monitor not in metrics:
            raise ConfigError(
                f"the plateau schedule monitors {self.monitor!r} but evaluation produced "
                f"{sorted(metrics)}; set monitor.metric to one of them"
            )
        value = float(metrics[self.monitor])
        if MonitorConfig(self.monitor, self.mode).improved(value, self.best, rel=self.threshold):
            self.best, self.num_bad = value, 0
            return
        self.num_bad += 1
        if self.num_bad > self.patience - 1:
            self.scale *= self.reduce_by
            self.num_bad = 0
            self.after_step(self.steps_done)  # the reduced LR, still under warmup if warmup is on

    def state_dict(self) -> dict[str, Any]:
        return {"scale": self.scale, "best": self.best, "num_bad": self.num_bad}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.scale, self.best, self.num_bad = state["scale"], state["best"], state["num_bad"]


class TorchSchedule:
    """A user's ``torch.optim.lr_scheduler`` object, stepped on the interval it declares.

    ``interval="step"`` steps after every optimizer step, ``"epoch"`` after every epoch;
    a ``ReduceLROnPlateau`` is stepped after each evaluation with the ``monitor`` metric.
    """

    def __init__(
        self,
        scheduler: Any,
        interval: Literal["step", "epoch"] = "epoch",
        monitor: str = "val_loss",
    ) -> None:
        if interval not in ("step", "epoch"):
            raise ConfigError(f"a scheduler's interval must be 'step' or 'epoch', got {interval!r}")
        self.scheduler = scheduler
        self.interval = interval
        self.monitor = monitor
        self.is_plateau = isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)

    def after_step(self, step: int) -> None:
        if self.interval == "step" and not self.is_plateau and step > 0:
            self.scheduler.step()

    def after_epoch(self, epoch: int) -> None:
        if self.interval == "epoch" and not self.is_plateau:
            self.scheduler.step()

    def after_eval(self, metrics: Mapping[str, float]) -> None:
        if not self.is_plateau:
            return
        if self.monitor not in metrics:
            raise ConfigError(
                f"the ReduceLROnPlateau scheduler monitors {self.monitor!r} but evaluation "
                f"produced {sorted(metrics)}; set monitor.metric to one of them"
            )
        self.scheduler.step(float(metrics[self.monitor]))

    @property
    def lr(self) -> float:
        return self.scheduler.optimizer.param_groups[-1]["lr"]

    def state_dict(self) -> dict[str, Any]:
        return self.scheduler.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.scheduler.load_state_dict(state)


@runtime_checkable
class Schedule(Protocol):
    """What the loop calls on a schedule, each at its moment; `LRSchedule`, `PlateauSchedule`
    and `TorchSchedule` implement it, and so can your own class.

    ``after_step(step)`` after each optimizer update that happened (``step`` = updates done),
    ``after_epoch(epoch)`` after each epoch, ``after_eval(metrics)`` after each evaluation; a
    schedule reacts to the moments its interval needs and ignores the others.
    """

    def after_step(self, step: int) -> None: ...

    def after_epoch(self, epoch: int) -> None: ...

    def after_eval(self, metrics: Mapping[str, float]) -> None: ...

    @property
    def lr(self) -> float: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


_PER_STEP = (torch.optim.lr_scheduler.OneCycleLR, torch.optim.lr_scheduler.CyclicLR)


def scheduler_horizon(scheduler: Any) -> int | None:
    """The count after which a torch scheduler's factor stops changing (None: no such count)."""
    S = torch.optim.lr_scheduler
    if isinstance(scheduler, S.OneCycleLR):
        return scheduler.total_steps
    if isinstance(scheduler, S.StepLR):
        return scheduler.step_size
    if isinstance(scheduler, S.MultiStepLR):
        return max(scheduler.milestones) if scheduler.milestones else None
    if isinstance(scheduler, S.CosineAnnealingLR):
        return scheduler.T_max
    if isinstance(scheduler, S.LinearLR | S.ConstantLR | S.PolynomialLR):
        return scheduler.total_iters
    if isinstance(scheduler, S.SequentialLR):
        last = scheduler._schedulers[-1]
        tail = scheduler_horizon(last)
        return scheduler._milestones[-1] + tail if tail is not None else None
    if isinstance(scheduler, S.ChainedScheduler):
        spans = [scheduler_horizon(s) for s in scheduler._schedulers]
        return None if None in spans else max(spans)  # type: ignore[type-var]
    return None


def infer_interval(
    scheduler: Any, *, steps_per_epoch: int, total_steps: int, epochs: int
) -> Literal["step", "epoch"]:
    """The interval a bare torch scheduler must be stepped on in this run, where it is certain.

    OneCycleLR and CyclicLR count optimizer steps; ReduceLROnPlateau follows evaluations; a
    scheduler whose horizon (T_max, total_iters, the last milestone, ...) equals this run's
    total optimizer steps counts steps, one equal to its epochs counts epochs. Anything else
    (StepLR, LambdaLR, ExponentialLR, ...) could count either: a `ConfigError` asks for
    ``TorchSchedule(scheduler, interval=...)`` rather than guessing.
    """
    if isinstance(scheduler, _PER_STEP):
        return "step"
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        return "epoch"  # TorchSchedule steps it after each evaluation with the metric
    if steps_per_epoch == 1:
        return "epoch"  # one step per epoch: both intervals are the same
    span = scheduler_horizon(scheduler)
    if span is not None and span == total_steps:
        return "step"
    if span is not None and span == epochs:
        return "epoch"
    written = f" (its horizon is {span})" if span is not None else ""
    raise ConfigError(
        f"cannot tell whether the {type(scheduler).__name__} scheduler counts optimizer steps "
        f"or epochs{written}: this run has {total_steps} steps in {epochs} epochs. Declare it: "
        "schedule=tw.TorchSchedule(scheduler, interval='step') or interval='epoch'"
    )


def build_schedule(
    optimizer: torch.optim.Optimizer,
    config: ScheduleConfig | None = None,
    *,
    steps_per_epoch: int,
    total_steps: int,
    monitor: str = "val_loss",
    mode: str = "min",
) -> Schedule:
    """The schedule named in ``config``, with totals derived from the loop's step counts.

    ``steps_per_epoch`` counts optimizer steps (after accumulation); ``total_steps`` is
    ``max_steps`` or ``max_epochs * steps_per_epoch``.
    """
    c = config or ScheduleConfig()
    warm = c.warmup_steps or int(c.warmup_ratio * total_steps)
    spe = max(1, steps_per_epoch)
    factors: dict[str, Factor] = {
        "constant": lambda s: constant(s, warmup_steps=warm),
        "warmup_cosine": lambda s: warmup_cosine(
            s, total_steps=total_steps, warmup_steps=warm, min_lr_ratio=c.min_lr_ratio
        ),
        "warmup_linear": lambda s: warmup_linear(
            s, total_steps=total_steps, warmup_steps=warm, min_lr_ratio=c.min_lr_ratio
        ),
        "one_cycle": lambda s: one_cycle(s, total_steps=total_steps, pct_start=c.pct_start),
        "step": lambda s: step_decay(s, steps_per_epoch=spe, step_size=c.step_size, gamma=c.gamma),
        "multistep": lambda s: multistep(
            s, steps_per_epoch=spe, milestones=c.milestones, gamma=c.gamma
        ),
        "exponential": lambda s: exponential(s, steps_per_epoch=spe, gamma=c.gamma),
        "cosine_restarts": lambda s: cosine_restarts(
            s,
            cycle_steps=c.cycle_epochs * spe,
            cycle_mult=c.cycle_mult,
            min_lr_ratio=c.min_lr_ratio,
        ),
    }
    if c.name == "plateau":
        return PlateauSchedule(
            optimizer,
            monitor=monitor,
            mode=mode,
            patience=c.plateau_patience,
            factor=c.plateau_factor,
            threshold=c.plateau_threshold,
            warmup_steps=warm,
        )
    if c.name not in factors:
        raise ConfigError(
            f"schedule.name={c.name!r} is not one of {', '.join([*factors, 'plateau'])}"
        )
    return LRSchedule(optimizer, factors[c.name])
