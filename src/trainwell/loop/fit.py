"""The reference loop: `fit()`.

`fit()` reads top to bottom, in the order every training loop needs: train mode ->
zero_grad -> forward under autocast -> loss -> backward -> unscale + clip -> step -> schedule
-> validate under eval() + inference_mode() -> log -> checkpoint. Each pattern is one call to
a part: the step is `trainwell.step.TrainStep`, the process layout a strategy
(`trainwell.strategy`), and the parts are built from the config by
`trainwell.loop.assembly`.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import Config
from trainwell.config.tree import build_config
from trainwell.data.loader import start_epoch
from trainwell.loop.assembly import assemble
from trainwell.loop.result import FitResult
from trainwell.observe import logged
from trainwell.observe.base import Observer
from trainwell.step.evaluation import Metrics
from trainwell.step.supervised import StepFn
from trainwell.step.train_step import TrainStep
from trainwell.strategy.base import BaseStrategy

__all__ = ["FitResult", "fit"]


def fit(
    model: nn.Module,
    train_data: Any,
    val_data: Any = None,
    *,
    loss: Callable[..., torch.Tensor] | None = None,
    config: Config | Mapping[str, Any] | None = None,
    metrics: Metrics = None,
    optimizer: torch.optim.Optimizer | None = None,
    schedule: Any = None,
    step_fn: StepFn | None = None,
    val_step_fn: StepFn | None = None,
    train_step: TrainStep | None = None,
    observers: Iterable[Observer] = (),
    device: str | torch.device | None = None,
    strategy: BaseStrategy | None = None,
    collate_fn: Callable[[list[Any]], Any] | None = None,
) -> FitResult:
    """Train ``model`` on ``train_data``, validating on ``val_data``; returns a `FitResult`.

    Data: a Dataset, a DataLoader, or tensors/arrays ``(X, y)``; ``val_data`` may also be
    several sets by name, ``{"clean": data, "noisy": data}``, each validated and logged as
    ``val_<name>_<metric>`` (``monitor.metric`` defaults to the first set's loss). The loss is
    ``loss(model(inputs), targets)``; without ``loss`` the model's own (``outputs.loss``, with
    ``labels=`` when its forward takes them), else ``CrossEntropyLoss``. ``step_fn(model,
    batch)`` replaces the training loss, ``val_step_fn`` the validation one: a ``step_fn``
    (mixup...) never validates. ``optimizer`` and ``schedule`` are built from the config unless
    given; ``train_step`` (a `TrainStep` subclass: a GAN) brings its own. ``strategy``: a
    strategy object, or ``run.strategy`` by name. ``collate_fn`` makes a batch of a Dataset's
    samples (variable-length ones: `trainwell.data.pad_collate`); a DataLoader keeps its own.
    """
    cfg = config if isinstance(config, Config) else build_config(config)
    run = assemble(model, train_data, val_data, cfg, loss=loss, metrics=metrics,
                   optimizer=optimizer, schedule=schedule, step_fn=step_fn,
                   val_step_fn=val_step_fn, train_step=train_step, observers=observers,
                   device=device, strategy=strategy, collate_fn=collate_fn)  # fmt: skip
    step, counters, meter, length, saves = run.step, run.counters, run.meter, run.length, run.saves
    stop: str | None = None
    with run.running() as scope:  # signals, saves in flight, hooks and files closed on any exit
        run.start()  # resumed if asked; only now is anything written into the run directory
        _emit(run.observers, "on_fit_start", run.info())
        while not counters.finished(length):
            # ── train ────────────────────────────────────────────────────────
            model.train()  # Dropout on, BatchNorm on batch statistics (eval switched them off)
            batches = start_epoch(run.train_loader, counters.epoch, counters.batch_in_epoch)  # O(1)
            for window in run.accumulation.windows(meter.timed(batches, counters)):
                # zero_grad → forward under autocast → weighted backward → unscale → clip →
                # step → schedule on real steps: one part, `TrainStep`
                with meter.flops.counting(), logged.collecting() as values:  # tw.log(...)
                    result = step(window, counters.step)
                run.ema.after_step(result.stepped)  # train.ema_decay: follows real steps only
                # ── report: facts stay on the device; host sync every log_every steps ──
                report = meter.record(window, result, counters, values)
                _emit(run.observers, "on_step_end", report)
                stop = scope.stops.after_step()  # a signal, an observer, train.max_time
                evaluation = None  # train.eval_every_steps: before the step's save (resume)
                if run.validator.due_after_step(counters.step, result.stepped, length):
                    evaluation = {
                        "kind": "eval",
                        "epoch": counters.epoch + 1,
                        "step": counters.step,
                    }
                    stop = _validate(run, evaluation) or stop  # best, early stopping
                    _record_evaluation(run, evaluation)
                # checkpoint.every_steps, a new best of this step's evaluation, and at a stop
                saves.after_step(result.stepped, stop, evaluation)
                if stop or counters.step >= length.max_steps:
                    break
            if stop:
                break

            # ── validate: eval mode + inference_mode (no dropout, no graph) ──────
            record = counters.end_epoch(length, meter.epoch_values())  # "partial" if cut short
            evaluated = run.validator.due(record["epoch"], counters.finished(length))
            if evaluated:
                stop = _validate(run, record)  # best, early stopping
                _emit(run.observers, "on_eval_end", _frozen(record), step=counters.step,
                      epoch=record["epoch"])  # fmt: skip
            else:
                stop = run.monitor.judge(record, evaluated=False)
            if not record.get("partial"):
                step.optimizers.after_epoch(counters.epoch)
            record.update(lr=meter.last_lr, time_s=round(meter.elapsed(), 3))
            run.history.records.append(record)
            _emit(run.observers, "on_epoch_end", _frozen(record))
            stop = scope.stops.after_epoch(stop)

            # ── checkpoint (on its cadence, at a new best, and always at the end) ──
            saves.after_epoch(record, final=stop is not None or counters.finished(length))
            if stop:
                break
    return run.finish(stop, scope)


def _validate(run: Any, record: dict[str, Any]) -> str | None:
    """Validate into ``record`` (every set; the EMA's weights with ``train.ema_decay``), let a
    plateau schedule read it, and judge it: ``record["best"]``, and why to stop early, if so."""
    with run.ema.applied():  # train.ema_decay: the average is what is validated
        record.update(run.validator())
    run.step.optimizers.after_eval(record)  # only a plateau schedule reads the metric
    return run.monitor.judge(record, evaluated=True)


def _record_evaluation(run: Any, record: dict[str, Any]) -> None:
    """An evaluation between epoch ends joins the history and reaches the observers (the
    logs write it as ``kind: eval``, keyed by its step)."""
    record.update(lr=run.meter.last_lr, time_s=round(run.meter.elapsed(), 3))
    run.history.records.append(record)
    _emit(run.observers, "on_eval_end", _frozen(record), step=record["step"],
          epoch=record["epoch"])  # fmt: skip


def _emit(observers: Iterable[Observer], moment: str, *args: Any, **kwargs: Any) -> None:
    for observer in observers:
        getattr(observer, moment)(*args, **kwargs)


def _frozen(record: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only snapshot for observers: they watch the run's records, never steer it."""
    return types.MappingProxyType(dict(record))
