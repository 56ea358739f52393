"""One `fit()` call's parts, assembled from the config: `assemble` builds a `Run`, whose
``running()`` block holds what must be closed whatever happens, whose ``start`` restores a
saved run and claims the run directory's files, and whose ``finish`` turns the loop's end into a
`FitResult`.

What the parts are and in which order the loop uses them is `trainwell.loop.fit`'s business;
here they are only built and connected: one strategy, the model on its device, the loaders,
the step (bound to the strategy, precision and policies), validation, EMA, the meter, the
checkpointer, the monitor, the guards and the observers, and the one dict of everything a
restart needs.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torch import nn

from trainwell.config.sections import Config
from trainwell.config.tree import config_yaml
from trainwell.data.loader import warn_if_inexact_resume
from trainwell.errors import ConfigError, warn_at_user
from trainwell.guards.finding import merge_findings
from trainwell.guards.fit import for_fit_step
from trainwell.loop.builders import (
    build_checkpointer,
    build_loader,
    build_train_step,
    fast_kernels_for,
    loss_on_device,
    nonfinite_skip,
    prepare_strategy,
)
from trainwell.loop.meter import Meter
from trainwell.loop.monitor import BestWeights, Monitor, check_monitor, default_monitor
from trainwell.loop.observers import default_observers, fit_info, stateful_observers
from trainwell.loop.result import FitResult
from trainwell.loop.resume import carry_best, elastic_resume, read_resume_state, resume_path
from trainwell.loop.run_state import Counters, History, RunLength
from trainwell.loop.saves import Saves
from trainwell.loop.stops import Stops, TimeLimit
from trainwell.loop.validator import Validator, build_validator, validation_sets
from trainwell.observe.base import FitInfo, Observer
from trainwell.parts.accumulation import Accumulation
from trainwell.parts.compile import CompiledForward, compiled_forward
from trainwell.parts.ema import EMA, NoEMA, build_ema
from trainwell.parts.flops import StepFlops
from trainwell.parts.memory import activation_checkpointing
from trainwell.parts.memory_limit import out_of_memory
from trainwell.parts.precision import Precision
from trainwell.state.checkpointer import restore
from trainwell.state.preemption import Preemption
from trainwell.state.rng import RNGState, seed_everything
from trainwell.state.rundir import RunDirectory
from trainwell.step.train_step import TrainStep
from trainwell.strategy.base import BaseStrategy
from trainwell.strategy.process import restart_count


@dataclass
class Scope:
    """What the ``running()`` block gives the loop, and what it leaves for the result."""

    stops: Stops
    preemption: Preemption
    compiled: CompiledForward | None
    kernels: dict[str, Any]
    findings: list[Any]  # every process's guard findings, filled when the block ends
    started: float = field(default_factory=time.perf_counter)


@dataclass
class Run:
    """Everything one `fit()` call is made of (see the module docstring)."""

    cfg: Config
    model: nn.Module
    strategy: BaseStrategy
    train_loader: Any
    accumulation: Accumulation
    length: RunLength
    step: TrainStep
    validator: Validator
    ema: EMA | NoEMA
    counters: Counters
    history: History
    meter: Meter
    checkpointer: Any
    monitor: Monitor
    guards: Any
    observers: list[Observer]
    state: dict[str, Any]  # everything a restart needs, under the names it is saved with
    saves: Saves
    directory: RunDirectory | None = None  # the run directory, claimed (main process only)

    @contextlib.contextmanager
    def running(self) -> Iterator[Scope]:
        """The run's block: signals become a flag, saves in flight finish, observers (guards'
        hooks, log files, progress bars) are closed and a process group fit() started ends,
        even when training fails; activation checkpointing, compile and fast kernels hold
        inside it only."""
        cfg, model = self.cfg, self.model
        with (
            self.directory or contextlib.nullcontext(),  # the lock: held to the very end
            _closing_strategy(self.strategy),
            # every rank's guard findings, each once: after the guards' last read
            _gathering_findings(self.strategy, self.guards) as findings,
            Preemption() as preemption,
            self.checkpointer,
            _closing_all(self.observers),
            activation_checkpointing(model, cfg.train.checkpoint_blocks),  # train.checkpoint_blocks
            compiled_forward(model, cfg.train.compile) as compiled,  # train.compile
            # TF32 matmuls, cuDNN autotuning: where safe, restored afterwards
            fast_kernels_for(cfg, self.strategy, self.train_loader) as kernels,
        ):
            if compiled is not None:
                self.observers.append(compiled)  # times the steady steps between logs
            stops = Stops(self.strategy, preemption, self.observers, TimeLimit(cfg.train.max_time))
            try:
                yield Scope(stops, preemption, compiled, kernels, findings)
            except (RuntimeError, MemoryError) as exc:  # out of memory: one line, what to lower
                limit = out_of_memory(exc, self.strategy.device, cfg.data.batch_size)
                if limit is None:
                    raise
                raise limit from None

    def start(self) -> None:
        """Restore the saved run ``checkpoint.resume`` names (or a torchrun restart finds);
        then the run has started: the run directory's old run goes (``run.overwrite``) and
        ``config.yaml`` is written. A run that fails before this point wrote nothing there."""
        resume = elastic_resume(self.cfg.checkpoint.resume, self.cfg.run.dir)
        if resume:
            path = resume_path(self.cfg, resume)
            restore(self.state, read_resume_state(self.cfg, self.strategy, path))
            carry_best(self.checkpointer, path, self.monitor.best.best_step)  # from another dir
            warn_if_inexact_resume(self.train_loader, self.counters.batch_in_epoch)
        if self.directory is not None:
            self.directory.start(config_yaml(self.cfg))

    def info(self) -> FitInfo:
        """What observers are told at the start."""
        precision = self.step.precision
        return fit_info(self.cfg, self.model, self.counters, self.length, self.strategy, precision)

    def finish(self, stop_reason: str | None, scope: Scope) -> FitResult:
        """The run's result; the model ends with one set of weights on every rank: the EMA's
        (``train.ema_decay``), rank 0's buffers, the best ones (``monitor.restore_best``)."""
        cfg, counters, best = self.cfg, self.counters, self.monitor.best
        checkpointer = self.checkpointer
        records = self.history.records
        result = FitResult(
            history=records,
            monitor=best.monitor,
            best=best.best,
            best_epoch=best.best_epoch,
            best_step=best.best_step,
            best_checkpoint=checkpointer.best_path,
            last_checkpoint=checkpointer.last_path,
            steps=counters.step,
            epochs=counters.epoch,
            wall_time_s=time.perf_counter() - scope.started,
            stop_reason=stop_reason or _limit_reached(cfg, counters, self.length),
            run_dir=Path(cfg.run.dir) if cfg.run.dir else None,
            final=dict(records[-1]) if records else {},
            saves=list(checkpointer.saves),
            preempted=scope.preemption.requested,
            findings=scope.findings,
            stopped_by_guard=self.guards.stop_reason if self.guards.should_stop else None,
            compile=scope.compiled.report if scope.compiled is not None else None,
            throughput=self.meter.run_rates(),
            kernels=scope.kernels,
            recipe=cfg.run.recipe,
            world_size=self.strategy.world_size,
        )
        self.ema.copy_to_model()  # train.ema_decay: the model ends with the average
        self.strategy.sync_buffers(self.model)  # one model on every rank
        result.weights = self.monitor.restore_best(checkpointer, counters.step)
        for observer in self.observers:
            observer.on_fit_end(result)
        return result


def assemble(
    model: nn.Module,
    train_data: Any,
    val_data: Any,
    cfg: Config,
    *,
    loss: Any,
    metrics: Any,
    optimizer: Any,
    schedule: Any,
    step_fn: Any,
    val_step_fn: Any,
    train_step: TrainStep | None,
    observers: Iterable[Observer],
    device: Any,
    strategy: Any,
    collate_fn: Any = None,
) -> Run:
    """Build every part of a `fit()` call from the config and `fit()`'s arguments."""
    seed_everything(cfg.run.seed, cfg.run.deterministic)
    # several validation sets: monitor.metric=val_loss means the first set's loss
    cfg = default_monitor(cfg, list(validation_sets(val_data)))
    # one strategy, built once; the model on its device before any optimizer holds it
    strategy, trained = prepare_strategy(strategy, model, cfg, device)
    directory = claim_run_dir(cfg, strategy)  # refused or locked before anything is built
    with contextlib.ExitStack() as on_failure:  # a run that fails to assemble lets go of it
        if directory is not None:
            on_failure.callback(directory.release)
        model_loss = loss is None  # no loss of the user's: the model's own may serve (HF), else CE
        loss_fn = loss_on_device(loss if loss is not None else nn.CrossEntropyLoss(), strategy)
        train_loader = build_loader(train_data, cfg, strategy, train=True, collate_fn=collate_fn)
        accumulation = Accumulation(
            cfg.train.accumulate_steps, cfg.train.weight_by, mean_over_ranks=strategy.mean
        )
        length = RunLength.of(cfg, train_loader, accumulation)
        step = build_train_step(
            train_step,
            model,
            cfg,
            length,
            loss_fn=loss_fn,
            optimizer=optimizer,
            schedule=schedule,
            step_fn=step_fn,
            val_step_fn=val_step_fn,
            model_loss=model_loss,
            world_size=strategy.world_size,
        )
        precision = Precision(cfg.train.precision, strategy.device)
        step.bind(precision, strategy, trained, skip_nonfinite=nonfinite_skip(cfg.guards))
        validator = build_validator(
            model, val_data, cfg, step, loss_fn, metrics, model_loss, collate_fn=collate_fn
        )
        check_monitor(cfg.monitor, validator.names())  # a val_ name no set gives: said now
        ema = build_ema(cfg.train.ema_decay, model, strategy)
        counters, history = Counters(), History()
        flops = StepFlops(strategy.device, step.precision.dtype)  # counted once, on one step (MFU)
        meter = Meter(
            strategy.device, flops, world=strategy, log_every=cfg.run.log_every, precision=precision
        )
        checkpointer = build_checkpointer(cfg, strategy)
        best_weights = BestWeights(
            model,
            checkpointer,
            enabled=cfg.monitor.restore_best,
            local_copies=strategy.collective_state,
            ema=ema if isinstance(ema, EMA) else None,
        )
        monitor = Monitor(cfg, best_weights)
        guards = for_fit_step(
            model,
            step.optimizers,
            loss_fn=loss_fn,
            precision=step.precision,
            accumulate_steps=cfg.train.accumulate_steps,
            config=cfg.guards,
            log_every=cfg.run.log_every,
        )
        yours = list(observers)
        everyone = [*default_observers(cfg, strategy), guards, *yours]
        if directory is not None:  # the first step commits the run directory (overwrite)
            everyone.append(_FirstStepCommits(directory))
        guards.report_to(everyone)  # findings reach the metrics log (and yours) as they happen
        state = {
            "model": model,
            **step.state_parts(),  # optimizers and schedules, by name
            "precision": step.precision,
            "counters": counters,
            "rng": RNGState(),
            **monitor.state_parts(),  # best, early stopping
            "history": history,
            "meter": meter,
            "guards": guards,
            "ema": ema if isinstance(ema, EMA) else None,
            **stateful_observers(yours),  # yours that have a state_dict
        }
        state = strategy.checkpoint_parts(state, model)  # sharded (FSDP): gathered full states
        manifest = {
            "config": cfg.to_dict(),
            "config_hash": cfg.fingerprint(),
            "world_size": strategy.world_size,
        }
        saves = Saves(checkpointer, state, counters, monitor, **manifest)
        run = Run(
            cfg,
            model,
            strategy,
            train_loader,
            accumulation,
            length,
            step,
            validator,
            ema,
            counters,
            history,
            meter,
            checkpointer,
            monitor,
            guards,
            everyone,
            state,
            saves,
            directory,
        )
        on_failure.pop_all()
    return run


def claim_run_dir(cfg: Config, strategy: BaseStrategy) -> RunDirectory | None:
    """The run directory, locked for this run (`trainwell.state.rundir`): on the main process
    only, and refused when it holds a run this one neither continues (``checkpoint.resume``
    auto or one of its checkpoints; a torchrun restart) nor overwrites (``run.overwrite``)."""
    if cfg.run.dir is None or not strategy.is_main:
        return None
    resume = elastic_resume(cfg.checkpoint.resume, cfg.run.dir)
    continuing = _continues(resume, cfg.run.dir)
    restarted = restart_count() > 0  # the same run, started again by torchrun
    if continuing and cfg.run.overwrite and not restarted:
        raise ConfigError(
            f"run.overwrite=true deletes the run that checkpoint.resume={resume} continues in "
            f"{cfg.run.dir}; drop one of them (--overwrite or --resume)"
        )
    directory = RunDirectory(
        cfg.run.dir,
        continuing=continuing or restarted,
        overwrite=cfg.run.overwrite and not continuing,
    )
    return directory.claim()


def _continues(resume: str | None, run_dir: str) -> bool:
    """Whether resuming from ``resume`` continues the run in ``run_dir`` (not another's)."""
    if resume is None:
        return False
    if resume == "auto":
        return True
    inside = Path(run_dir).resolve()
    path = Path(resume).resolve()
    return path == inside or inside in path.parents


class _FirstStepCommits(Observer):
    """The run made its first step: its directory is committed (`RunDirectory.commit`), so a
    later failure no longer puts the run it replaced back."""

    def __init__(self, directory: RunDirectory) -> None:
        self.directory = directory

    def on_step_end(self, report: Any) -> None:
        if not self.directory.committed:
            self.directory.commit()


def _limit_reached(cfg: Config, counters: Counters, length: RunLength) -> str:
    if cfg.train.max_steps and counters.step >= cfg.train.max_steps:
        return f"reached train.max_steps={cfg.train.max_steps}"
    if length.stream_exhausted and counters.epoch < length.max_epochs:
        reason = (
            f"the training stream ended after {counters.step} steps, before "
            f"train.max_steps={length.max_steps}"
        )
        warn_at_user(
            f"{reason}: the schedule was sized for {length.max_steps} steps, so the learning "
            "rate never finished its decay; set train.max_steps to the stream's length (in "
            "optimizer steps), or make the data a re-readable IterableDataset for several passes"
        )
        return reason
    return f"reached train.max_epochs={cfg.train.max_epochs}"


@contextlib.contextmanager
def _gathering_findings(strategy: BaseStrategy, guards: Any) -> Iterator[list[Any]]:
    """A list that holds, once the block ends normally, every process's guard findings,
    each once (the same bug seen by several ranks is one finding naming them all)."""
    findings: list[Any] = []
    yield findings
    if strategy.world_size == 1:
        findings.extend(guards.findings)
    else:
        findings.extend(merge_findings(strategy.gather(list(guards.findings))))


@contextlib.contextmanager
def _closing_strategy(strategy: BaseStrategy) -> Iterator[None]:
    try:
        yield
    except BaseException:
        strategy.close(clean=False)
        raise
    strategy.close(clean=True)


@contextlib.contextmanager
def _closing_all(observers: list[Observer]) -> Iterator[None]:
    try:
        yield
    finally:
        for observer in observers:
            close = getattr(observer, "close", None)  # duck-typed observers may have none
            if close is not None:
                close()
