"""The guards inside `fit()`: the same `Watch`, driven by the loop's observer moments.

The hooks do the watching; the observer adds what only the loop knows: a step skipped by
GradScaler (``report.stepped``), the steps per epoch (``FitInfo``), the interval a
``TorchSchedule`` declares, and the moments to read the device flags (after every sampled step,
i.e. every ``guards.every`` steps; at the end of a validation whose losses are not finite,
before a checkpoint; at the end). A non-finite stop is asked for through ``should_stop``.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from trainwell.config.guards import GuardsConfig
from trainwell.guards.finding import Finding
from trainwell.guards.grad_norm import GradNormGuard
from trainwell.guards.loss_trend import LossTrendGuard
from trainwell.guards.nonfinite import NonFiniteGuard
from trainwell.guards.scheduler import SchedulerGuard
from trainwell.guards.watcher import Watch
from trainwell.observe.base import FitInfo, Observer, StepReport


class FitGuards(Observer):
    """An observer running the guards for one `fit()` call; ``close()`` removes its hooks."""

    def __init__(
        self,
        watch: Watch,
        declared_interval: str | None = None,
        *,
        trend_losses: bool = True,
        log_every: int | None = None,
    ) -> None:
        self.watch = watch
        self.declared_interval = declared_interval
        # The loss trend follows the losses the loop reports (no hook on the loss): not for a
        # step with several optimizers, whose losses pull against each other. Its first value
        # comes from the first steps' losses on the device; after that, where the loop logs
        # at least once per guard cadence, from the mean loss of each log (host numbers the
        # loop has read anyway: no device work, nothing to read).
        trend = watch.guard(LossTrendGuard) if trend_losses else None
        self._trend = trend if isinstance(trend, LossTrendGuard) else None
        self._trend_from_logs = log_every is not None and log_every <= watch.config.every
        # The non-finite check names a NaN input batch from the batches the loop reports.
        nonfinite = watch.guard(NonFiniteGuard)
        self._nonfinite = nonfinite if isinstance(nonfinite, NonFiniteGuard) else None
        self._logged_step = 0
        # The cadence read waits for the loop's next log where it logs at least once per
        # cadence: the loop has just synced there, so the read adds no sync of its own.
        self._read_at_logs = log_every is not None and log_every <= watch.config.every
        self._read_due = False

    @property
    def findings(self) -> list[Finding]:
        return self.watch.findings

    def report_to(self, observers: list[Observer]) -> None:
        """Pass each finding, when it is made, to the other observers' ``on_finding``."""
        others = [o for o in observers if o is not self]

        def tell(finding: Finding) -> None:
            for observer in others:
                observer.on_finding(finding)

        self.watch.ctx.reporter.listeners.append(tell)

    def state_dict(self) -> dict[str, Any]:
        """What a resumed run should remember: per-layer gradient-norm history, findings seen."""
        norms = self.watch.guard(GradNormGuard)
        return {
            "grad_norm_ema": dict(norms.ema) if isinstance(norms, GradNormGuard) else {},
            "grad_norm_readings": dict(norms.readings) if isinstance(norms, GradNormGuard) else {},
            "reported": sorted(f"{code}\t{where}" for code, where in self.watch.ctx.reporter._seen),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        norms = self.watch.guard(GradNormGuard)
        if isinstance(norms, GradNormGuard):
            norms.ema.update(state.get("grad_norm_ema", {}))
            norms.readings.update(state.get("grad_norm_readings", {}))
        for key in state.get("reported", []):  # warned before the restart: not again
            code, _, where = key.partition("\t")
            self.watch.ctx.reporter._seen.add((code, where))

    def on_fit_start(self, info: FitInfo) -> None:
        self.watch.ctx.steps_per_epoch = info.steps_per_epoch
        self.watch.moved_to(info.start_step)  # resumed runs count on from the checkpoint
        scheduler = self.watch.guard(SchedulerGuard)
        if isinstance(scheduler, SchedulerGuard) and self.declared_interval is not None:
            scheduler.declared(self.declared_interval)

    def on_step_end(self, report: StepReport) -> None:
        watch = self.watch
        if not report.stepped:
            watch.skipped()
        else:  # where the step's batches were, for a finding about them (kept one read long)
            if self._nonfinite is not None:
                self._nonfinite.keep_batches(report.step - 1, report.window)
            if self._trend is not None:
                self._follow_loss(self._trend, report)
            places = watch.ctx.batch_places
            places[report.step - 1] = (report.epoch, report.batch_in_epoch)
            places.pop(report.step - 1 - 2 * watch.config.every, None)
        # The guards' cadence read: after each sampled step (its checks' values are queued):
        # at once after the first, then at the loop's next log when it logs at least once per
        # cadence (a GPU then syncs only where the loop reads its numbers anyway), else at
        # once; and at the end of validation (before a checkpoint is saved) and at the
        # end. Not at every log: a read costs host time even where the loop has just synced.
        if report.stepped and (watch.ctx.steps - 1) % watch.config.every == 0:
            self._read_due = True
        if self._read_due and (
            report.logged is not None or not self._read_at_logs or watch.ctx.steps == 1
        ):  # (the first step's checks: read at once, a broken loop is told at its start)
            self._read_due = False
            watch.read()
        self._ask_stop()

    def _follow_loss(self, trend: LossTrendGuard, report: StepReport) -> None:
        if trend.first is None or not self._trend_from_logs:
            trend.add(report.loss)
        elif report.logged is not None:
            trend.add_mean(report.logged["loss"], report.step - self._logged_step, report.step)
        if report.logged is not None:
            self._logged_step = report.step

    def on_eval_end(self, metrics: dict[str, float], *, step: int, epoch: int) -> None:
        # Before a checkpoint is saved, a non-finite stop must have been asked for. Weights
        # that went inf/NaN show in the epoch's losses, already on the host: read only then
        # (the cadence reads and the final read see everything else).
        if not _finite_losses(metrics):
            self._read_due = False
            self.watch.read()
        self._ask_stop()

    def on_fit_end(self, result: Any) -> None:
        self.close()

    def close(self) -> None:
        """Remove every hook (fit() calls this when it ends, even on error)."""
        self.watch.close()
        self._ask_stop()

    def _ask_stop(self) -> None:
        reason = self.watch.ctx.stop_reason
        if reason and not self.should_stop:
            self.should_stop, self.stop_reason = True, reason


def _finite_losses(metrics: dict[str, Any]) -> bool:
    """``metrics`` hold a loss and every number in them is finite."""
    numbers = [v for v in metrics.values() if isinstance(v, float | int)]
    has_loss = any("loss" in key and isinstance(v, float | int) for key, v in metrics.items())
    return has_loss and all(math.isfinite(v) for v in numbers)


class _Off(Observer):
    """The observer when guards are disabled: no hooks, nothing to close, no state."""

    findings: list[Finding] = []

    def report_to(self, observers: list[Observer]) -> None:
        pass

    def close(self) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass


def for_fit(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    loss_fn: Any,
    schedule: Any,
    precision: Any,
    accumulate_steps: int,
    config: GuardsConfig,
    trend_losses: bool = True,
    log_every: int | None = None,
) -> FitGuards | _Off:
    """The guards as an `Observer` for `fit()`; call its ``close()`` when the run ends.

    ``schedule`` is the loop's schedule (a ``TorchSchedule``'s scheduler and declared interval
    are checked; trainwell's own schedules are right by construction); ``precision`` is the
    loop's `Precision` (its GradScaler, for fp16).
    """
    if not config.enabled:
        return _Off()
    scheduler = getattr(schedule, "scheduler", None)  # TorchSchedule wraps a torch scheduler
    interval = getattr(schedule, "interval", None) if scheduler is not None else None
    watch = Watch(
        model,
        optimizer,
        loss_fn=loss_fn,
        scheduler=scheduler,
        scaler=getattr(precision, "scaler", None),
        accumulate_steps=accumulate_steps,
        config=config,
        in_fit=True,
    )
    return FitGuards(watch, interval, trend_losses=trend_losses, log_every=log_every)


class GuardsGroup(Observer):
    """The guards of a step with several optimizers: one `FitGuards` (one watch) per
    optimizer and the module it trains, driven together."""

    def __init__(self, parts: dict[str, FitGuards | _Off]) -> None:
        self.parts = parts

    @property
    def findings(self) -> list[Finding]:
        return [f for part in self.parts.values() for f in part.findings]

    @property
    def should_stop(self) -> bool:  # type: ignore[override]
        return any(part.should_stop for part in self.parts.values())

    @property
    def stop_reason(self) -> str:  # type: ignore[override]
        return next((p.stop_reason for p in self.parts.values() if p.should_stop), "")

    def report_to(self, observers: list[Observer]) -> None:
        others = [o for o in observers if o is not self]
        for part in self.parts.values():
            part.report_to(others)

    def state_dict(self) -> dict[str, Any]:
        return {name: part.state_dict() for name, part in self.parts.items()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for name, part in self.parts.items():
            part.load_state_dict(state.get(name, {}))

    def on_fit_start(self, info: FitInfo) -> None:
        for part in self.parts.values():
            part.on_fit_start(info)

    def on_step_end(self, report: StepReport) -> None:
        for part in self.parts.values():
            part.on_step_end(report)

    def on_eval_end(self, metrics: dict[str, float], *, step: int, epoch: int) -> None:
        for part in self.parts.values():
            part.on_eval_end(metrics, step=step, epoch=epoch)

    def on_fit_end(self, result: Any) -> None:
        self.close()

    def close(self) -> None:
        for part in self.parts.values():
            part.close()


def for_fit_step(
    model: nn.Module,
    optimizers: Any,
    *,
    loss_fn: Any,
    precision: Any,
    accumulate_steps: int,
    config: GuardsConfig,
    log_every: int | None = None,
) -> FitGuards | _Off | GuardsGroup:
    """The guards for a `TrainStep`'s optimizers (`trainwell.step.Optimizers`): one watch per
    optimizer, over the module it trains (its slot's ``module``, else the whole model).
    ``log_every``: the loop's logging interval (the loss trend reads the logged losses)."""
    slots = dict(optimizers.items())

    def guards_for(entry: Any, loss: Any, trend: bool) -> FitGuards | _Off:
        return for_fit(
            entry.module if entry.module is not None else model,
            entry.optimizer,
            loss_fn=loss,
            schedule=entry.schedule,
            precision=precision,
            accumulate_steps=accumulate_steps,
            config=config,
            trend_losses=trend,
            log_every=log_every,
        )

    if len(slots) == 1:
        return guards_for(next(iter(slots.values())), loss_fn, True)
    # A step with several optimizers computes its own losses: fit's loss_fn is not among them.
    return GuardsGroup({name: guards_for(entry, None, False) for name, entry in slots.items()})
