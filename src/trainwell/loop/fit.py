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
) -> FitResult:
    """Train ``model`` on ``train_data``, validating on ``val_data``; returns a `FitResult`.

    Data: a Dataset, a DataLoader, or tensors/arrays ``(X, y)``. The loss is
    ``loss(model(inputs), targets)``; without ``loss`` the model's own (``outputs.loss``, with
    ``labels=`` when its forward takes them), else ``CrossEntropyLoss``. ``step_fn(model,
    batch)`` replaces the training loss, ``val_step_fn`` the validation one: a ``step_fn``
    (mixup...) never validates. ``optimizer`` and ``schedule`` are built from the config unless
    given; ``train_step`` (a `TrainStep` subclass: a GAN) brings its own. ``strategy``: a
    strategy object, or ``run.strategy`` by name.
    """
    cfg = config if isinstance(config, Config) else build_config(config)
    run = assemble(model, train_data, val_data, cfg, loss=loss, metrics=metrics,
                   optimizer=optimizer, schedule=schedule, step_fn=step_fn,
                   val_step_fn=val_step_fn, train_step=train_step, observers=observers,
                   device=device, strategy=strategy)  # fmt: skip
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
                stop = scope.stops.after_step()  # a signal or an observer: every rank stops
                saves.after_step(result.stepped, stop)  # checkpoint.every_steps, and at a stop
                if stop or counters.step >= length.max_steps:
                    break
            if stop:
                break

            # ── validate: eval mode + inference_mode (no dropout, no graph) ──────
            record = counters.end_epoch(length, meter.epoch_values())  # "partial" if cut short
            evaluated = run.validator.due(record["epoch"], counters.finished(length))
            if evaluated:
                with run.ema.applied():  # train.ema_decay: the average is what is validated
                    record.update(run.validator())
                _emit(run.observers, "on_eval_end", _frozen(record), step=counters.step,
                      epoch=record["epoch"])  # fmt: skip
                step.optimizers.after_eval(record)  # only a plateau schedule reads the metric
            stop = run.monitor.judge(record, evaluated=evaluated)  # best, early stopping
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


def _emit(observers: Iterable[Observer], moment: str, *args: Any, **kwargs: Any) -> None:
    for observer in observers:
        getattr(observer, moment)(*args, **kwargs)


def _frozen(record: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only snapshot for observers: they watch the run's records, never steer it."""
    return types.MappingProxyType(dict(record))
