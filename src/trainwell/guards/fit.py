"""The guards inside `fit()`: the same `Watch`, driven by the loop's observer moments.

The hooks do the watching; the observer adds what only the loop knows: a step skipped by
GradScaler (``report.stepped``), the steps per epoch (``FitInfo``), the interval a
``TorchSchedule`` declares, and the moment to read the device flags (every ``guards.every``
steps, and whenever the loop has just synced to log). A non-finite stop is asked for through
``should_stop``.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from trainwell.guards.config import GuardsConfig
from trainwell.guards.finding import Finding
from trainwell.guards.grad_norm import GradNormGuard
from trainwell.guards.scheduler import SchedulerGuard
from trainwell.guards.watcher import Watch
from trainwell.observe import FitInfo, Observer, StepReport


class FitGuards(Observer):
    """An observer running the guards for one `fit()` call; ``close()`` removes its hooks."""

    def __init__(self, watch: Watch, declared_interval: str | None = None) -> None:
        self.watch = watch
        self.declared_interval = declared_interval

    @property
    def findings(self) -> list[Finding]:
        return self.watch.findings

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
        self.watch.ctx.steps = info.start_step  # resumed runs count on from the checkpoint
        scheduler = self.watch.guard(SchedulerGuard)
        if isinstance(scheduler, SchedulerGuard) and self.declared_interval is not None:
            scheduler.declared(self.declared_interval)

    def on_step_end(self, report: StepReport) -> None:
        watch = self.watch
        if not report.stepped:
            watch.skipped()
        else:  # where the step's batches were, for a finding about them (kept one read long)
            places = watch.ctx.batch_places
            places[report.step - 1] = (report.epoch, report.batch_in_epoch)
            places.pop(report.step - 1 - 2 * watch.config.every, None)
        if (report.stepped and watch.ctx.due) or report.logged is not None:
            watch.read()
        self._ask_stop()

    def on_eval_end(self, metrics: dict[str, float], *, step: int, epoch: int) -> None:
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


class _Off(Observer):
    """The observer when guards are disabled: no hooks, nothing to close, no state."""

    findings: list[Finding] = []

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
    clipping: Any = None,
) -> Observer:
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
    if clipping is not None:  # reuse the per-parameter norms fit's clipping computed
        watch.ctx.norm_source = lambda: clipping.last_norms
    return FitGuards(watch, interval)
