"""An LR scheduler stepped on the wrong interval, or when the optimizer did not step.

The watch observes each ``step()`` of the given scheduler (`hooks.before_call`: a wrapper on its
class, dispatching to this instance only; nothing is set on the scheduler, so its
``state_dict()``, pickles and copies stay clean) and counts optimizer steps between scheduler
steps. A scheduler's *horizon* is the count its parameters are written in (StepLR
``step_size``, MultiStepLR's last milestone, CosineAnnealingLR ``T_max``, ExponentialLR: steps
to 1% of the start LR, LinearLR/PolynomialLR ``total_iters``, LambdaLR: the last probed count
where its factor still moves by more than 1% of its largest value). Horizons up to
``epoch_horizon_max`` are read as epochs, longer ones as optimizer steps; OneCycleLR and CyclicLR
always count steps.

trainwell's own schedule objects are understood too: a ``TorchSchedule`` is judged by the torch
scheduler it holds (its declared ``interval`` decides where the scheduler's own parameters do
not), and an ``LRSchedule`` (a factor of the optimizer-step count, applied by
``schedule.after_step(step)``) counts steps whenever its factor changes at all.

* epoch-counted scheduler stepped once per optimizer step, past a whole epoch or its horizon;
* step-counted scheduler stepped once every many optimizer steps (i.e. once per epoch);
* stepped with no optimizer step since its last step: before the first step, or after
  GradScaler skipped one (the LR advances for an update that did not happen).
"""

from __future__ import annotations

import math
from typing import Any

from torch.optim import lr_scheduler as S

from trainwell.guards.base import Guard
from trainwell.guards.hooks import CallHandle, before_call
from trainwell.parts.schedule import LRSchedule, TorchSchedule, scheduler_horizon

_PER_STEP = (S.OneCycleLR, S.CyclicLR)
_PER_EPOCH = (S.StepLR, S.MultiStepLR, S.CosineAnnealingLR, S.ExponentialLR)
_RARE_GAP = 10  # optimizer steps between scheduler steps that mean "once per epoch"
_PROBES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)


def horizon(scheduler: Any) -> int | None:
    """The count a scheduler's own parameters are written in (None: unknown): its horizon, or
    for ExponentialLR the steps to 1% of the LR, for LambdaLR where its factor settles."""
    if isinstance(scheduler, S.ExponentialLR):
        gamma = scheduler.gamma
        return math.ceil(math.log(0.01) / math.log(gamma)) if 0.0 < gamma < 1.0 else None
    if isinstance(scheduler, S.LambdaLR):
        return _lambda_horizon(scheduler)
    return scheduler_horizon(scheduler)


def interval_of(
    scheduler: Any, epoch_horizon_max: int, steps_per_epoch: int | None = None
) -> str | None:
    """ "step" or "epoch": the interval a scheduler's parameters are written for (None: unsure).

    Horizons beyond ``epoch_horizon_max`` count steps. Shorter ones count epochs only for the
    classic epoch schedulers (StepLR, MultiStepLR, CosineAnnealingLR, ExponentialLR), and, when
    the steps per epoch are known, only if the horizon is shorter than one epoch of steps.
    """
    if isinstance(scheduler, _PER_STEP):
        return "step"
    if isinstance(scheduler, S.ReduceLROnPlateau):
        return None
    span = horizon(scheduler)
    if span is None:
        return None
    if span > epoch_horizon_max:
        return "step"
    if not isinstance(scheduler, _PER_EPOCH):
        return None  # a short LambdaLR/LinearLR warmup may count either
    if steps_per_epoch and steps_per_epoch > 1 and span >= steps_per_epoch:
        return None  # e.g. T_max = total steps of a short run
    return "epoch"


def _step_method(scheduler: Any) -> str:
    """The method one call of which is one scheduler step.

    torch's own ``LRScheduler.step`` warns about misuse with ``stacklevel=2`` (e.g. "step()
    before optimizer.step()"): wrapping it would point those warnings at the wrapper. Its
    ``_update_lr`` runs once per ``step()``, after the warnings, so that is observed instead;
    a scheduler with a ``step`` of its own (SequentialLR, ChainedScheduler, a user's class) is
    observed at ``step``.
    """
    step = getattr(type(scheduler), "step", None)
    while getattr(step, "__trainwell_guard__", False):
        step = step.__wrapped__  # type: ignore[union-attr]
    if step is S.LRScheduler.step and callable(getattr(scheduler, "_update_lr", None)):
        return "_update_lr"
    return "step"


def _lambda_horizon(scheduler: S.LambdaLR) -> int | None:
    """The last probed count at which any group's factor still moves (None: unknown)."""
    return factor_horizon(scheduler.lr_lambdas)


def factor_horizon(factors: Any) -> int | None:
    """The last probed count at which any factor still moves by more than 1% of its largest
    value (None: it never does, or a factor fails). A decay that has reached ~0 no longer moves:
    ``0.98 ** epoch`` is spent after a few hundred epochs, however long its tail."""
    last = 0
    try:
        for fn in factors:
            values = [float(fn(0)), *(float(fn(count)) for count in _PROBES)]
            scale = max(abs(v) for v in values)
            if not math.isfinite(scale) or scale == 0.0:
                continue
            for count, previous, value in zip(_PROBES, values, values[1:], strict=False):
                if abs(value - previous) > 0.01 * scale:
                    last = max(last, count)
    except Exception:  # a user's lambda may not accept large counts
        return None
    return last or None


class SchedulerGuard(Guard):
    switch = "lr_schedule"

    def attach(self) -> None:
        scheduler = self.ctx.scheduler
        self.wrapped: CallHandle | None = None
        self.interval = None
        self.horizon: int | None = None
        self.last_step_count = 0  # ctx.steps at the scheduler's last step
        self.lockstep = 0  # consecutive scheduler steps exactly one optimizer step apart
        self.calls = 0
        # trainwell's wrappers: the interval a TorchSchedule declares; an LRSchedule's steps
        self.declared_interval = None
        if isinstance(scheduler, TorchSchedule):
            self.declared_interval = scheduler.interval
            scheduler = scheduler.scheduler
        self.scheduler = scheduler  # the object whose steps are observed
        self.own = isinstance(scheduler, LRSchedule)
        if scheduler is None or isinstance(scheduler, S.ReduceLROnPlateau):
            return
        ctx = self.ctx
        if self.own:
            # A factor of the optimizer-step count, applied by ``after_step(step)``: meant for
            # every optimizer step whenever it changes at all. Applying the same count again
            # (a plateau schedule after an evaluation) is no step of its own.
            self.horizon = factor_horizon([scheduler.factor])
            self.interval = "step" if self.horizon is not None else None
            self.wrapped = before_call(scheduler, "after_step", self.before_scheduler_step)
            return
        self.interval = interval_of(scheduler, ctx.config.epoch_horizon_max)
        if self.interval is None and self.declared_interval is not None:
            self.interval = self.declared_interval  # its own parameters do not say: trust it
        self.horizon = horizon(scheduler)
        self.wrapped = before_call(scheduler, _step_method(scheduler), self.before_scheduler_step)
        if self.declared_interval is not None and ctx.steps_per_epoch and not ctx.in_fit:
            self.declared(self.declared_interval)

    def close(self) -> None:
        if self.wrapped is not None:
            self.wrapped.remove()
            self.wrapped = None

    def declared(self, interval: str) -> None:
        """fit(): the interval a TorchSchedule was declared with; report a mismatch now."""
        if self.wrapped is None:
            return
        ctx = self.ctx
        meant = interval_of(self.scheduler, ctx.config.epoch_horizon_max, ctx.steps_per_epoch)
        if meant is not None and interval != meant:
            self._report_interval(meant, declared=interval)

    def before_scheduler_step(self) -> None:
        ctx = self.ctx
        gap = ctx.steps - self.last_step_count
        self.calls += 1
        if gap == 0 and self.own:
            return  # an LRSchedule applied again for the same step count: nothing advances
        if gap == 0:
            self._report_without_step()
        self.lockstep = self.lockstep + 1 if gap == 1 else 0
        self.last_step_count = ctx.steps
        if self.interval == "epoch" and self.horizon is not None:
            # Stepped once per batch beyond its whole horizon: the schedule is spent (StepLR
            # decays again and again, cosine climbs back up) long before training ends.
            if self.lockstep > self.horizon:
                self._report_interval("epoch", declared="step")
        elif self.interval == "step":
            rare = min(_RARE_GAP, ctx.steps_per_epoch or _RARE_GAP)
            if gap >= max(rare, 2):
                self._report_interval("step", declared="epoch", gap=gap)

    def _report_without_step(self) -> None:
        ctx = self.ctx
        name = type(self.scheduler).__name__
        if ctx.steps == 0:
            message = f"{name}.step() was called before the optimizer's first step"
            why = "the first value of the schedule is skipped (e.g. warmup starts one step late)"
        elif ctx.last_window_skipped:
            message = f"{name}.step() was called after GradScaler skipped the optimizer step"
            why = "the LR advances for an update that did not happen; the schedule runs ahead"
        else:
            message = f"{name}.step() was called twice without an optimizer step in between"
            why = "the schedule advances faster than training; the LR decays too early"
        ctx.report(
            "scheduler-without-step",
            name="scheduler stepped without an optimizer step",
            message=message,
            where=name,
            why=why,
            fix=(
                "call scheduler.step() right after optimizer.step(), and only when it stepped "
                "(with GradScaler: compare scaler.get_scale() before/after update(), or use "
                "trainwell.Precision.step(), which returns False on a skipped step)"
            ),
            switch=self.switch,
        )

    def _report_interval(self, meant: str, *, declared: str, gap: int | None = None) -> None:
        ctx = self.ctx
        name = type(self.scheduler).__name__
        span = f" (horizon {self.horizon})" if self.horizon is not None else ""
        if meant == "epoch":
            message = f"{name}{span} counts epochs but is stepped once per optimizer step"
            why = (
                f"the LR runs through its whole schedule in {self.horizon} batches instead of "
                "epochs: it collapses (or restarts) early in training"
            )
            fix = (
                "call scheduler.step() once per epoch, after the batch loop; or, to step per "
                "batch, write its parameters in optimizer steps (e.g. T_max=epochs*len(loader))"
            )
            code = "scheduler-per-batch"
        else:
            every = f" (every {gap} optimizer steps)" if gap else ""
            message = f"{name}{span} counts optimizer steps but is stepped once per epoch{every}"
            why = "the LR barely moves: warmup never finishes, the one-cycle never peaks"
            fix = "call scheduler.step() after every optimizer.step(), inside the batch loop"
            code = "scheduler-per-epoch"
        if ctx.in_fit:
            fix = f"pass it to fit() as TorchSchedule(scheduler, interval={meant!r})"
        elif self.own:
            fix = (
                "call schedule.after_step(step) after every optimizer.step() that happened, "
                "with step = the optimizer steps done so far"
            )
        elif self.declared_interval is not None:
            fix = (
                f"declare it as TorchSchedule(scheduler, interval={meant!r}) and call its "
                "after_step(step) after every optimizer step and after_epoch(epoch) after "
                "every epoch"
            )
        ctx.report(
            code,
            name=f"scheduler stepped per {declared} but written per {meant}",
            message=message,
            where=name,
            why=why,
            fix=fix,
            switch=self.switch,
        )
