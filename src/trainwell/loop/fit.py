"""The reference loop: `fit()`.

`fit()` composes the parts (precision, accumulation, clipping, optimizer, schedule, loader,
checkpointer) in one function that reads top to bottom, in the order every training loop
needs: train mode -> zero_grad -> forward under autocast -> loss -> backward -> unscale + clip
-> step -> schedule -> validate under eval() + inference_mode() -> log -> checkpoint. The step
itself is a part (`trainwell.step.TrainStep`), the process layout another
(`trainwell.strategy`); the config becomes parts in `trainwell.builders`.
"""

from __future__ import annotations

import contextlib
import functools
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import Config
from trainwell.config.tree import build_config
from trainwell.data.loader import start_epoch, warn_if_inexact_resume
from trainwell.guards.fit import for_fit_step
from trainwell.loop.assembly import (
    build_checkpointer,
    build_loader,
    build_strategy,
    build_validator,
    default_observers,
    default_train_step,
    fast_kernels_for,
    fit_info,
    nonfinite_skip,
    stateful_observers,
    vars_of,
)
from trainwell.loop.meter import Meter
from trainwell.loop.monitor import BestTracker, BestWeights, EarlyStopping
from trainwell.loop.result import FitResult
from trainwell.loop.resume import elastic_resume, load_resume_state
from trainwell.loop.run_state import Counters, History, RunLength
from trainwell.observe import logged
from trainwell.observe.base import Observer
from trainwell.parts.accumulation import Accumulation
from trainwell.parts.compile import compiled_forward
from trainwell.parts.ema import EMA, build_ema
from trainwell.parts.evaluation import Metrics, evaluate, model_device, predict
from trainwell.parts.flops import StepFlops
from trainwell.parts.memory import activation_checkpointing
from trainwell.parts.precision import Precision
from trainwell.state.checkpointer import Checkpointer, NoCheckpoints, restore
from trainwell.state.preemption import Preemption
from trainwell.state.rng import RNGState, seed_everything
from trainwell.step.supervised import StepFn
from trainwell.step.train_step import TrainStep
from trainwell.strategy.base import Strategy

__all__ = ["FitResult", "evaluate", "fit", "model_device", "predict"]


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
    train_step: TrainStep | None = None,
    observers: Iterable[Observer] = (),
    device: str | torch.device | None = None,
) -> FitResult:
    """Train ``model`` on ``train_data``, validating on ``val_data``; returns a `FitResult`.

    Data: a Dataset, a DataLoader, or tensors/arrays ``(X, y)``. The loss is
    ``loss(model(inputs), targets)`` (default ``CrossEntropyLoss``), or ``step_fn(model, batch)``.
    ``optimizer`` and ``schedule`` are built from the config unless given (a torch scheduler is
    stepped on the interval it certainly means; an ambiguous one is refused until wrapped as
    ``TorchSchedule(s, interval=...)``). ``train_step`` (a `TrainStep` or subclass: several
    optimizers, a GAN) replaces the default step and brings its own optimizers and schedules.
    """
    cfg = config if isinstance(config, Config) else build_config(config)
    seed_everything(cfg.run.seed, cfg.run.deterministic)
    # one process, or DDP under torchrun; before the optimizer exists (it must hold the moved
    # parameters). What trains may be a wrapper (DDP); the model keeps the state.
    strategy, trainee = build_strategy(model, cfg, device)
    loss_fn = loss or nn.CrossEntropyLoss()
    if isinstance(loss_fn, nn.Module):  # its buffers (class weights) go where the logits are
        loss_fn.to(strategy.device)
    train_loader = build_loader(train_data, cfg, strategy, train=True)
    accumulation = Accumulation(
        cfg.train.accumulate_steps, cfg.train.weight_by, mean_over_ranks=strategy.mean
    )
    length = RunLength.of(cfg, train_loader, accumulation)
    train_step = train_step or default_train_step(
        model,
        cfg,
        length,
        loss_fn=loss_fn,
        optimizer=optimizer,
        schedule=schedule,
        step_fn=step_fn,
        forward_model=trainee,
    )
    skip = nonfinite_skip(cfg.guards)  # guards.nonfinite=skip_step: the step drops inf/NaN updates
    train_step.bind(Precision(cfg.train.precision, strategy.device), strategy, skip_nonfinite=skip)
    precision, strategy = train_step.precision, train_step.strategy  # a step may bring its own
    optimizers = train_step.optimizers
    validate = build_validator(model, val_data, cfg, strategy, precision, loss_fn, step_fn, metrics)
    ema = build_ema(cfg.train.ema_decay, model, strategy)  # train.ema_decay: what validates
    best = BestTracker(cfg.monitor.metric, cfg.monitor.mode)
    early_stopping = EarlyStopping(cfg.monitor.metric, cfg.monitor.mode, **vars_of(cfg.early_stop))
    step_flops = StepFlops(strategy.device, precision.dtype)  # counted once, on one step (MFU)
    meter = Meter(strategy.device, step_flops, world=strategy)
    counters, history = Counters(), History()
    checkpointer = build_checkpointer(cfg, strategy)
    best_weights = BestWeights(
        model,
        checkpointer,
        enabled=cfg.monitor.restore_best,
        local_copies=strategy.collective_state,
        ema=ema if isinstance(ema, EMA) else None,
    )
    guards = for_fit_step(
        model,
        optimizers,
        loss_fn=loss_fn,
        precision=precision,
        accumulate_steps=cfg.train.accumulate_steps,
        config=cfg.guards,
        log_every=cfg.run.log_every,
    )
    yours = list(observers)
    observers = [*default_observers(cfg, strategy), guards, *yours]
    guards.report_to(observers)  # findings reach the metrics log (and yours) as they happen
    # Everything that must survive a restart, under the names it is saved with.
    state = {
        "model": model,
        **train_step.state_parts(),  # optimizers and schedules, by name
        "precision": precision,
        "counters": counters,
        "rng": RNGState(),
        "best": best,
        "early_stopping": early_stopping,
        "history": history,
        "meter": meter,
        "guards": guards,
        "ema": ema if isinstance(ema, EMA) else None,
        **stateful_observers(yours),  # yours that have a state_dict
    }
    state = strategy.checkpoint_parts(state, model)  # sharded (FSDP): gathered full states
    # Signals become a flag; saves in flight finish; observers (guards' hooks, log files,
    # progress bars) are closed, even when training fails.
    with (
        _closing_strategy(strategy),  # a process group fit() started ends with it
        # every rank's guard findings, each once: after the guards' last read, before the end
        _gathering_findings(strategy, guards) as findings,
        Preemption() as preemption,
        checkpointer,
        _closing_all(observers),
        activation_checkpointing(model, cfg.train.checkpoint_blocks),  # train.checkpoint_blocks
        compiled_forward(model, cfg.train.compile) as compiled,  # train.compile
        # TF32 matmuls, cuDNN autotuning: where safe, restored afterwards
        fast_kernels_for(cfg, strategy, train_loader) as kernels,
    ):
        if compiled is not None:
            observers.append(compiled)  # times the steady steps between logs
        resume = elastic_resume(cfg.checkpoint.resume, cfg.run.dir)  # restarted: "auto"
        if resume:
            restore(state, load_resume_state(cfg, strategy, resume))
            warn_if_inexact_resume(train_loader, counters.batch_in_epoch)
        manifest = {
            "config": cfg.to_dict(),
            "config_hash": cfg.fingerprint(),
            "world_size": strategy.world_size,
        }
        save = functools.partial(checkpointer.save, state, counters, **manifest)
        started, stop_reason = time.perf_counter(), None
        info = fit_info(cfg, model, counters, length, strategy, precision)
        _emit(observers, "on_fit_start", info)
        while counters.epoch < length.max_epochs and counters.step < length.max_steps:
            if counters.batch_in_epoch == 0:
                meter.start_epoch()

            # ── train ────────────────────────────────────────────────────────
            model.train()  # Dropout on, BatchNorm on batch statistics (eval switched them off)
            batches = start_epoch(train_loader, counters.epoch, counters.batch_in_epoch)  # O(1)
            for window in accumulation.windows(meter.timed(batches)):
                # zero_grad → forward under autocast → weighted backward → unscale → clip →
                # step → schedule on real steps: one part, `TrainStep` (step.py)
                with step_flops.counting(), logged.collecting() as values:  # tw.log(...)
                    result = train_step(window, counters.step)
                logged.merge_into(result.logs, values)
                counters.advance(window, result.stepped)  # stepped: False if GradScaler skipped
                ema.after_step(result.stepped)  # train.ema_decay: the average follows real steps

                # ── report: facts stay on the device; host sync every log_every steps ──
                report = meter.report(window, result, counters, precision)
                if result.stepped and counters.step % cfg.run.log_every == 0:
                    report.logged = meter.read_interval(result.grad_norm, report.lr)
                _emit(observers, "on_step_end", report)
                stop_reason = _agreed(strategy, _interruption(preemption, observers))
                # a step GradScaler skipped is not saved again under the same step number
                if (result.stepped and checkpointer.due_after_step(counters.step)) or stop_reason:
                    save()
                if stop_reason or counters.step >= length.max_steps:
                    break
            if stop_reason:
                break

            # ── validate: eval mode + inference_mode (no dropout, no graph) ──────
            record = counters.end_epoch(length, meter.epoch_values())  # "partial" if cut short
            epoch, last = record["epoch"], counters.finished(length)
            evaluated = validate is not None and (epoch % cfg.train.eval_every == 0 or last)
            if evaluated:
                with ema.applied():  # train.ema_decay: the average is what is validated
                    record.update(validate())
                _emit(observers, "on_eval_end", _frozen(record), step=counters.step, epoch=epoch)
                optimizers.after_eval(record)  # only a plateau schedule reads the metric
            record["best"] = False
            if evaluated or cfg.monitor.metric in record:  # raises if the metric is missing
                record["best"] = best.update(record, step=counters.step, epoch=epoch)
                if record["best"]:
                    best_weights.capture()
                if early_stopping.update(record, step=counters.step, epoch=epoch):
                    stop_reason = f"stopped early: {early_stopping.reason}"
            if not record.get("partial"):
                optimizers.after_epoch(counters.epoch)
            record.update(lr=meter.last_lr, time_s=round(meter.elapsed(), 3))
            history.records.append(record)
            _emit(observers, "on_epoch_end", _frozen(record))
            stop_reason = _agreed(strategy, stop_reason or _interruption(preemption, observers))

            # ── checkpoint (on its cadence, at a new best, and always at the end) ──
            final, new_best = last or stop_reason is not None, best_weights.save_due(record)
            if checkpointer.due_after_epoch(counters.epoch, final, best=new_best):
                save(metrics=record)
            elif new_best:  # within checkpoint.min_interval_s: copied now, written next save
                checkpointer.hold(state, counters, metrics=record, **manifest)
            if stop_reason:
                break

    stop_reason = stop_reason or _limit_reached(cfg, counters)
    wall_time_s = time.perf_counter() - started
    result = _fit_result(history, best, checkpointer, counters, wall_time_s, stop_reason, cfg)
    result.preempted, result.findings = preemption.requested, findings
    result.stopped_by_guard = guards.stop_reason if guards.should_stop else None
    ema.copy_to_model()  # train.ema_decay: the model ends with the average (the best, below)
    result.weights = best_weights.restore(best, checkpointer, counters.step)
    result.compile = compiled.report if compiled is not None else None
    result.throughput = meter.run_rates()
    result.kernels = kernels
    _emit(observers, "on_fit_end", result)
    return result


def _interruption(preemption: Preemption, observers: Iterable[Observer]) -> str | None:
    """Why the run must stop now: a signal arrived, or an observer (e.g. a guard) asked."""
    if preemption.requested:
        return f"preempted by {preemption.requested}"
    stopper = next((o for o in observers if o.should_stop), None)
    if stopper is not None:
        return f"stopped by {type(stopper).__name__}: {stopper.stop_reason}"
    return None


def _agreed(strategy: Strategy, reason: str | None) -> str | None:
    """A stop every process takes together: one process's reason stops them all, at the same
    step (no process is left waiting in a collective the others have left)."""
    if strategy.agree(reason is not None):
        return reason or "stopped by another process"
    return None


def _limit_reached(cfg: Config, counters: Counters) -> str:
    if cfg.train.max_steps and counters.step >= cfg.train.max_steps:
        return f"reached train.max_steps={cfg.train.max_steps}"
    return f"reached train.max_epochs={cfg.train.max_epochs}"


def _fit_result(
    history: History,
    best: BestTracker,
    checkpointer: Checkpointer | NoCheckpoints,
    counters: Counters,
    wall_time_s: float,
    stop_reason: str,
    cfg: Config,
) -> FitResult:
    return FitResult(
        history=history.records,
        monitor=best.monitor,
        best=best.best,
        best_epoch=best.best_epoch,
        best_step=best.best_step,
        best_checkpoint=checkpointer.best_path,
        last_checkpoint=checkpointer.last_path,
        steps=counters.step,
        epochs=counters.epoch,
        wall_time_s=wall_time_s,
        stop_reason=stop_reason,
        run_dir=Path(cfg.run.dir) if cfg.run.dir else None,
        final=dict(history.records[-1]) if history.records else {},
        saves=list(checkpointer.saves),
    )


@contextlib.contextmanager
def _gathering_findings(strategy: Strategy, guards: Any) -> Iterator[list[Any]]:
    """A list that holds, once the block ends normally, every process's guard findings,
    each once (`Strategy.gather_findings`: a collective under several processes)."""
    findings: list[Any] = []
    yield findings
    findings.extend(strategy.gather_findings(guards.findings))


@contextlib.contextmanager
def _closing_strategy(strategy: Strategy) -> Iterator[None]:
    close = getattr(strategy, "close", None)
    try:
        yield
    except BaseException:
        if close is not None:
            close(clean=False)
        raise
    if close is not None:
        close(clean=True)


@contextlib.contextmanager
def _closing_all(observers: list[Observer]) -> Iterator[None]:
    try:
        yield
    finally:
        for observer in observers:
            close = getattr(observer, "close", None)  # duck-typed observers may have none
            if close is not None:
                close()


def _emit(observers: Iterable[Observer], moment: str, *args: Any, **kwargs: Any) -> None:
    for observer in observers:
        getattr(observer, moment)(*args, **kwargs)


def _frozen(record: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only snapshot for observers: they watch the run's records, never steer it."""
    return types.MappingProxyType(dict(record))
