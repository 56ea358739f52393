"""The reference loop: `fit()`, plus `evaluate()` and `predict()`.

`fit()` composes the parts (precision, accumulation, clipping, optimizer, schedule, loader,
checkpointer) in one function that reads top to bottom, in the order every training loop
needs: train mode -> zero_grad -> forward under autocast -> loss -> backward -> unscale + clip
-> step -> schedule -> validate under eval() + inference_mode() -> log -> checkpoint.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.accumulation import Accumulation
from trainwell.batch import (
    BOOKKEEPING_KEYS,
    batch_size_of,
    bookkeeping_keys,
    call_model,
    check_class_targets,
    check_elementwise_shapes,
    compute_loss,
    logits_of,
    split_batch,
)
from trainwell.checkpoint import Checkpointer, find_checkpoint, load_checkpoint, restore
from trainwell.clipping import Clipping
from trainwell.config import Config, build_config, save_config
from trainwell.data import make_loader, start_epoch
from trainwell.device import choose_device
from trainwell.errors import ConfigError, DataError
from trainwell.evaluation import Metrics, evaluate, evaluate_loader, model_device, predict
from trainwell.guards.fit import for_fit_step
from trainwell.metric import resolve_metrics
from trainwell.observe import (
    FitInfo,
    InputBoundDetector,
    MetricsLog,
    Observer,
    Progress,
    StepReport,
)
from trainwell.optim import build_optimizer
from trainwell.precision import Precision
from trainwell.preemption import Preemption
from trainwell.schedule import Schedule, TorchSchedule, build_schedule, infer_interval
from trainwell.state import Counters, RNGState, seed_everything
from trainwell.step import Optimizers, StepResult, TrainStep
from trainwell.strategy import SingleDevice
from trainwell.tracking import BestTracker, BestWeights, EarlyStopping
from trainwell.userframe import warn_at_user

#: ``step_fn(model, batch)`` returns the loss, or ``(loss, outputs)`` so metrics can be measured
StepFn = Callable[[nn.Module, Any], Any]
__all__ = ["FitResult", "evaluate", "fit", "model_device", "predict"]


@dataclass
class FitResult:
    """What a run did: per-epoch history, the best metric and where its checkpoint is."""

    history: list[dict[str, Any]]
    monitor: str
    best: float | None
    best_epoch: int | None
    best_step: int | None
    best_checkpoint: Path | None
    last_checkpoint: Path | None
    steps: int
    epochs: int
    wall_time_s: float
    stop_reason: str
    run_dir: Path | None
    final: dict[str, Any] = field(default_factory=dict)
    preempted: str | None = None  # the signal that stopped the run (SIGTERM, SIGINT), if any
    saves: list[Any] = field(default_factory=list)  # one SaveRecord per checkpoint written
    findings: list[Any] = field(default_factory=list)  # what the runtime guards found
    stopped_by_guard: str | None = None  # why a runtime guard stopped the run, if one did
    weights: str = "last"  # which weights the model holds now: "last" or "best (... epoch N)"

    @property
    def ok(self) -> bool:
        """False when a runtime guard stopped the run (the CLI then exits with code 3)."""
        return self.stopped_by_guard is None

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (written to ``summary.json`` in the run directory)."""
        return {
            "monitor": self.monitor,
            "best": self.best,
            "best_epoch": self.best_epoch,
            "best_step": self.best_step,
            "best_checkpoint": str(self.best_checkpoint) if self.best_checkpoint else None,
            "last_checkpoint": str(self.last_checkpoint) if self.last_checkpoint else None,
            "final": self.final,
            "steps": self.steps,
            "epochs": self.epochs,
            "wall_time_s": round(self.wall_time_s, 3),
            "stop_reason": self.stop_reason,
            "stopped_by_guard": self.stopped_by_guard,
            "preempted": self.preempted,
            "weights": self.weights,
            "checkpoint_saves": len(self.saves),
            "checkpoint_blocked_s_max": round(
                max((s.blocked_s for s in self.saves), default=0.0), 4
            ),
            "checkpoint_write_s_max": round(max((s.write_s for s in self.saves), default=0.0), 4),
            "guard_findings": [f.as_dict() for f in self.findings],
        }

    def describe(self) -> str:
        """A few lines a person can read at the end of a run."""
        lines = [
            f"done: {self.epochs} epochs, {self.steps} steps in {self.wall_time_s:.1f}s ({self.stop_reason})"
        ]
        if self.best is not None:
            lines.append(
                f"best {self.monitor} {self.best:.4g} at epoch {self.best_epoch} (step {self.best_step})"
            )
        elif self.monitor and self.history:
            lines.append(f"no best {self.monitor}: it was never a finite number")
        lines.append(f"weights left in the model: {self.weights}")
        if self.best_checkpoint:
            lines.append(f"best checkpoint: {self.best_checkpoint}")
        if self.stopped_by_guard:
            lines.append(f"FAILED: a runtime guard stopped the run: {self.stopped_by_guard}")
        if self.saves:
            newest = self.saves[-1]
            lines.append(
                f"saved step {newest.step} to {newest.path} (loop blocked {newest.blocked_s:.2f}s, "
                f"write {newest.write_s:.2f}s)"
            )
        if self.run_dir:
            lines.append(f"run directory: {self.run_dir}")
            if self.preempted and self.saves:
                lines.append(f"resume with: trainwell resume {self.run_dir}")
        return "\n".join(lines)


class History:
    """Per-epoch records; part of the checkpoint so a resumed run keeps its whole history."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def state_dict(self) -> dict[str, Any]:
        return {"records": self.records}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.records = list(state["records"])


class SupervisedStep:
    """The default step: ``loss_fn(model(inputs), targets)``, labels checked on the first batch."""

    def __init__(
        self, loss_fn: Callable[..., torch.Tensor], skip: frozenset[str] = BOOKKEEPING_KEYS
    ) -> None:
        self.loss_fn = loss_fn
        self.skip = skip  # batch keys that are counts for the loop, not model inputs
        self.checked = False

    def __call__(self, model: nn.Module, batch: Any) -> torch.Tensor:
        inputs, targets = split_batch(batch, self.skip)
        output = call_model(model, inputs)
        if not self.checked:
            if isinstance(targets, torch.Tensor):
                check_class_targets(logits_of(output), targets, self.loss_fn)
                check_elementwise_shapes(logits_of(output), targets, self.loss_fn)
            self.checked = True
        return compute_loss(self.loss_fn, output, targets)


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

    ``train_data``/``val_data``: a Dataset, a DataLoader, or tensors/arrays ``(X, y)``.
    ``loss``: ``loss(model(inputs), targets)`` (default ``CrossEntropyLoss``), or pass
    ``step_fn(model, batch) -> loss`` for models whose loss is computed differently.
    ``optimizer``: built by `build_optimizer` from ``config.optim`` unless given (build it
    after moving the model to its device). ``schedule``: built from ``config.schedule``
    unless given as a `LRSchedule`, a `TorchSchedule`, or a ``torch.optim.lr_scheduler``
    object, stepped on the interval it is certain to mean (OneCycleLR/CyclicLR per step,
    ReduceLROnPlateau per evaluation, a horizon equal to the run's steps or epochs); any
    other is refused until wrapped as ``TorchSchedule(scheduler, interval=...)``.
    ``train_step``: a `TrainStep` (or subclass: several optimizers, a GAN) that replaces the
    default step; it brings its own optimizers, schedules and clipping, and ``loss``,
    ``optimizer``, ``schedule`` and ``step_fn`` are then not used for training.
    """
    cfg = config if isinstance(config, Config) else build_config(config)
    seed_everything(cfg.run.seed, cfg.run.deterministic)
    device = choose_device(device or cfg.run.device)
    strategy = SingleDevice(device)
    strategy.prepare(model)  # before the optimizer exists: it must hold the moved parameters
    precision = Precision(cfg.train.precision, device)
    if train_step is not None:
        train_step.bind(precision, strategy)
        precision, strategy = train_step.precision, train_step.strategy
    loss_fn = loss or nn.CrossEntropyLoss()
    train_loader = _loader(train_data, cfg, device, train=True)
    validate = _validator(model, val_data, cfg, device, precision, loss_fn, step_fn, metrics)
    accumulation = Accumulation(cfg.train.accumulate_steps, cfg.train.weight_by)
    batches_per_epoch = _num_batches(train_loader)
    steps_per_epoch = accumulation.steps_per_epoch(batches_per_epoch)
    max_epochs = cfg.train.max_epochs
    # Whichever limit comes first is the run's length, and so the schedule's.
    max_steps = min(cfg.train.max_steps or math.inf, max_epochs * steps_per_epoch)
    if train_step is None:
        optimizer = optimizer or build_optimizer(model, cfg.optim)
        train_step = TrainStep(
            model,
            Optimizers.single(
                optimizer,
                _as_schedule(schedule, optimizer, cfg, steps_per_epoch, max_steps),
                Clipping(cfg.train.clip_norm, cfg.train.clip_value),
                parameters=[p for p in model.parameters() if p.requires_grad],
            ),
            loss_step=step_fn or SupervisedStep(loss_fn, bookkeeping_keys(cfg.train.weight_by)),
            precision=precision,
            strategy=strategy,
        )
    optimizers = train_step.optimizers
    best = BestTracker(cfg.monitor.metric, cfg.monitor.mode)
    early_stopping = EarlyStopping(cfg.monitor.metric, cfg.monitor.mode, **vars_of(cfg.early_stop))
    counters, history, meter = Counters(), History(), _Meter(device)
    checkpointer = _checkpointer(cfg)
    best_weights = BestWeights(model, checkpointer, enabled=cfg.monitor.restore_best)
    guards = for_fit_step(
        model,
        optimizers,
        loss_fn=loss_fn,
        precision=precision,
        accumulate_steps=cfg.train.accumulate_steps,
        config=cfg.guards,
    )
    observers = [*_default_observers(cfg), guards, *observers]
    guards.report_to(observers)  # findings reach the metrics log (and yours) as they happen
    # Signals become a flag; saves in flight finish; observers (guards' hooks, log files,
    # progress bars) are closed, even when training fails.
    with Preemption() as preemption, checkpointer, _closing_all(observers):
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
        }
        if cfg.checkpoint.resume:
            restore(state, _load_resume_state(cfg, device))
        started, stop_reason = time.perf_counter(), None
        manifest = {"config": cfg.to_dict(), "config_hash": cfg.fingerprint()}
        info = _fit_info(cfg, model, counters, steps_per_epoch, max_steps, device, precision)
        _emit(observers, "on_fit_start", info)
        while counters.epoch < max_epochs and counters.step < max_steps and stop_reason is None:
            if counters.batch_in_epoch == 0:
                meter.start_epoch()

            # ── train ────────────────────────────────────────────────────────
            model.train()  # Dropout on, BatchNorm on batch statistics (eval switched them off)
            batches = start_epoch(
                train_loader, counters.epoch, counters.batch_in_epoch
            )  # O(1) resume
            whole = True  # the epoch ran to the end of its batches
            for window in accumulation.windows(meter.timed(batches)):
                # zero_grad → forward under autocast → weighted backward → unscale → clip →
                # step → schedule on real steps: one part, `TrainStep` (step.py)
                result = train_step(window, counters.step)
                stepped = result.stepped  # False when GradScaler skipped inf/NaN
                counters.advance(window, stepped)

                # ── report: facts stay on the device; host sync every log_every steps ──
                report = meter.report(window, result, counters, precision)
                if stepped and counters.step % cfg.run.log_every == 0:
                    report.logged = meter.read_interval(result.grad_norm, report.lr)
                _emit(observers, "on_step_end", report)
                stop_reason = _interruption(preemption, observers)  # a signal, or a guard asking
                # a step GradScaler skipped is not saved again under the same step number
                if (stepped and checkpointer.due_after_step(counters.step)) or stop_reason:
                    checkpointer.save(state, counters, **manifest)
                if stop_reason or counters.step >= max_steps:
                    whole = counters.batch_in_epoch >= batches_per_epoch  # max_steps mid-epoch?
                    break
            if stop_reason:
                break

            # ── validate: eval mode + inference_mode (no dropout, no graph) ──────
            if whole:
                counters.epoch, counters.batch_in_epoch = counters.epoch + 1, 0
            epoch = counters.epoch if whole else counters.epoch + 1  # 1-based, as users count
            record = {"epoch": epoch, "step": counters.step, **meter.epoch_values()}
            if not whole:
                record["partial"] = True  # resuming continues this epoch where it stopped
            last = counters.epoch >= max_epochs or counters.step >= max_steps
            evaluated = validate is not None and (epoch % cfg.train.eval_every == 0 or last)
            if evaluated:
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
            if whole:
                optimizers.after_epoch(counters.epoch)
            record.update(lr=meter.last_lr, time_s=round(meter.elapsed(), 3))
            history.records.append(record)
            _emit(observers, "on_epoch_end", _frozen(record))
            stop_reason = stop_reason or _interruption(preemption, observers)

            # ── checkpoint (on its cadence, at a new best, and always at the end) ──
            final = last or stop_reason is not None
            if checkpointer.due_after_epoch(counters.epoch, final) or best_weights.save_due(record):
                checkpointer.save(state, counters, metrics=record, **manifest)

    stop_reason = stop_reason or _limit_reached(cfg, counters)
    result = _fit_result(
        history, best, checkpointer, counters, time.perf_counter() - started, stop_reason, cfg
    )
    result.preempted, result.findings = preemption.requested, list(guards.findings)
    result.stopped_by_guard = guards.stop_reason if guards.should_stop else None
    result.weights = best_weights.restore(best, checkpointer, counters.step)
    _emit(observers, "on_fit_end", result)
    return result


# --------------------------------------------------------------------------- helpers


class _Meter:
    """One epoch's bookkeeping: data-wait time, loss sums on the device, throughput.

    Nothing here syncs with the host except `read_interval` (every ``log_every`` steps) and
    `epoch_values` (once per epoch). A step's extra losses (``StepResult.logs``, e.g. a
    GAN's ``d_loss``/``g_loss``) are summed and logged beside the loss.
    """

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.interval_loss = torch.zeros((), device=device)
        self.interval_logs: dict[str, torch.Tensor] = {}
        self.interval_windows = self.interval_samples = 0
        # Log intervals span epoch boundaries: their clock and data-wait total never reset.
        self.interval_started = time.perf_counter()
        self.wait_s = self.last_wait_s = self.interval_wait_s = 0.0
        self.last_lr = float("nan")
        self.start_epoch()

    def start_epoch(self) -> None:
        self.started = time.perf_counter()
        self.loss_sum = torch.zeros((), device=self.device)
        self.log_sums: dict[str, torch.Tensor] = {}
        self.windows = 0

    def state_dict(self) -> dict[str, Any]:
        """The partial sums of an epoch cut short, so a resumed run logs the same losses."""
        return {
            "loss_sum": self.loss_sum,
            "log_sums": self.log_sums,
            "interval_logs": getattr(self, "interval_logs", {}),
            "windows": self.windows,
            "interval_loss": self.interval_loss,
            "interval_windows": self.interval_windows,
            "interval_samples": self.interval_samples,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.loss_sum = state["loss_sum"].to(self.device)
        self.log_sums = {k: v.to(self.device) for k, v in state.get("log_sums", {}).items()}
        self.interval_logs = {
            k: v.to(self.device) for k, v in state.get("interval_logs", {}).items()
        }
        self.interval_loss = state["interval_loss"].to(self.device)
        self.windows = state["windows"]
        self.interval_windows = state["interval_windows"]
        # Throughput is measured afresh: the clock of the run that saved this is gone.
        self.interval_samples, self.interval_started = 0, time.perf_counter()

    def timed(self, loader: Iterable[Any]) -> Iterator[Any]:
        """Batches of ``loader``, timing how long each took to arrive (the step moves each to
        the device right before its forward: a window is never buffered there)."""
        iterator = iter(loader)
        while True:
            begin = time.perf_counter()
            try:
                batch = next(iterator)
            except StopIteration:
                return
            self.last_wait_s = time.perf_counter() - begin
            self.wait_s += self.last_wait_s
            yield batch

    def report(
        self, window: list[Any], result: StepResult, counters: Counters, precision: Precision
    ) -> StepReport:
        """Add one step's facts to the sums (on the device) and describe it to observers."""
        samples = sum(batch_size_of(m.batch) for m in window)
        loss, grad_norm, lr = result.loss, result.grad_norm, result.lr
        self.loss_sum += loss
        self.interval_loss += loss
        for name, value in result.logs.items():
            value = value.detach().float()
            self.log_sums[name] = self.log_sums.get(name, 0) + value
            self.interval_logs[name] = self.interval_logs.get(name, 0) + value
        self.windows += 1
        self.interval_windows += 1
        self.interval_samples += samples
        self.last_lr = lr
        return StepReport(
            step=counters.step,
            epoch=counters.epoch + 1,  # 1-based, as in the epoch records
            batch_in_epoch=counters.batch_in_epoch,
            loss=loss,
            grad_norm=grad_norm,
            lr=lr,
            stepped=precision.last_step_taken,
            samples=samples,
            data_wait_s=self.last_wait_s,
            scale=precision.scale,
        )

    def read_interval(self, grad_norm: torch.Tensor, lr: float) -> dict[str, float]:
        """Floats since the last log: the loop's one host sync per ``log_every`` steps."""
        now = time.perf_counter()
        elapsed = max(now - self.interval_started, 1e-9)
        windows = self.interval_windows
        extra = [v / windows for v in self.interval_logs.values()]
        values = torch.stack(
            [self.interval_loss / windows, grad_norm.float().to(self.device), *extra]
        )
        loss, norm, *extra_values = values.tolist()
        logged = {
            "loss": loss,
            **dict(zip(self.interval_logs, extra_values, strict=True)),
            "grad_norm": norm,
            "lr": lr,
            "samples_per_s": self.interval_samples / elapsed,
            "data_wait": (self.wait_s - self.interval_wait_s) / elapsed,
        }
        self.interval_loss = torch.zeros((), device=self.device)
        self.interval_logs = {}
        self.interval_windows = self.interval_samples = 0
        self.interval_started, self.interval_wait_s = now, self.wait_s
        return logged

    def epoch_values(self) -> dict[str, float]:
        """``train_loss`` (and ``train_<name>`` of each step log) of the epoch: one host read."""
        sums = {"loss": self.loss_sum, **self.log_sums}
        windows = max(self.windows, 1)
        means = torch.stack([v / windows for v in sums.values()]).tolist()
        return {f"train_{name}": value for name, value in zip(sums, means, strict=True)}

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def _prefixed(prefix: str, values: Mapping[str, Any]) -> dict[str, Any]:
    return {f"{prefix}{k}": v for k, v in values.items()}


def _load_resume_state(cfg: Config, device: torch.device) -> dict[str, Any]:
    path = find_checkpoint(cfg.checkpoint.resume, cfg.run.dir)
    payload = load_checkpoint(path, map_location=device)
    changed = _changed_keys(payload["manifest"].get("config", {}), cfg.to_dict())
    if changed:
        warn_at_user(
            f"resuming {path} with a different config ({', '.join(changed)}); the run will not "
            "match one that never stopped",
        )
    return payload["state"]


#: Keys that change how a run is shown or stored, not what it computes (as do checkpoint.*).
_PRESENTATION_KEYS = {
    "run.dir",
    "run.quiet",
    "run.progress",
    "run.log_every",
    # per-batch seeds make the batches the same whatever the loader's machinery
    "data.num_workers",
    "data.pin_memory",
    "data.persistent_workers",
    "data.prefetch_factor",
    "data.device_fraction",
    "data.input_bound_threshold",
}


def _changed_keys(saved: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    changed = []
    for section, values in current.items():
        if not isinstance(values, Mapping):
            continue
        for key, value in values.items():
            name = f"{section}.{key}"
            old = (
                saved.get(section, {}).get(key, value)
                if isinstance(saved.get(section), Mapping)
                else value
            )
            if name not in _PRESENTATION_KEYS and section != "checkpoint" and old != value:
                changed.append(f"{name}: {old!r} -> {value!r}")
    return changed


def _interruption(preemption: Preemption, observers: Iterable[Observer]) -> str | None:
    """Why the run must stop now: a signal arrived, or an observer (e.g. a guard) asked."""
    if preemption.requested:
        return f"preempted by {preemption.requested}"
    stopper = next((o for o in observers if o.should_stop), None)
    if stopper is not None:
        return f"stopped by {type(stopper).__name__}: {stopper.stop_reason}"
    return None


def _limit_reached(cfg: Config, counters: Counters) -> str:
    if cfg.train.max_steps and counters.step >= cfg.train.max_steps:
        return f"reached train.max_steps={cfg.train.max_steps}"
    return f"reached train.max_epochs={cfg.train.max_epochs}"


def vars_of(section: Any) -> dict[str, Any]:
    """A config section's fields as keyword arguments."""
    return {f.name: getattr(section, f.name) for f in dataclasses.fields(section)}


def _validator(
    model: nn.Module,
    val_data: Any,
    cfg: Config,
    device: torch.device,
    precision: Precision,
    loss_fn: Callable[..., torch.Tensor],
    step_fn: StepFn | None,
    metrics: Any,
) -> Callable[[], dict[str, float]] | None:
    """A function that runs one validation pass and returns ``val_*`` metrics (None: no data).

    With ``step_fn`` the step's own loss is measured; metrics need it to return
    ``(loss, outputs)``.
    """
    if val_data is None:
        return None
    loader = _loader(val_data, cfg, device, train=False)
    metric_objects = resolve_metrics(metrics)

    def validate() -> dict[str, float]:
        # Every validation sees the same batches (epoch 0): an exact resume reproduces it.
        values = evaluate_loader(
            model,
            start_epoch(loader, 0),
            loss_fn,
            metric_objects,
            device,
            precision,
            step_fn=step_fn,
            count_key=cfg.train.weight_by,
        )
        return _prefixed("val_", values)

    return validate


def _fit_info(
    cfg: Config,
    model: nn.Module,
    counters: Counters,
    steps_per_epoch: int,
    max_steps: int,
    device: torch.device,
    precision: Precision,
) -> FitInfo:
    return FitInfo(
        max_epochs=cfg.train.max_epochs,
        steps_per_epoch=steps_per_epoch,
        total_steps=max_steps,
        start_epoch=counters.epoch,
        start_step=counters.step,
        device=str(device),
        precision=precision.mode,
        num_parameters=sum(p.numel() for p in model.parameters() if p.requires_grad),
        run_dir=cfg.run.dir,
        config=cfg.to_dict(),
    )


def _fit_result(
    history: History,
    best: BestTracker,
    checkpointer: Checkpointer | _NoCheckpoints,
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


def _loader(data: Any, cfg: Config, device: torch.device, *, train: bool) -> Any:
    d = cfg.data
    loader = make_loader(
        data,
        batch_size=d.batch_size if train else (d.eval_batch_size or 4 * d.batch_size),
        shuffle=d.shuffle and train,
        drop_last=d.drop_last and train,
        num_workers=d.num_workers,
        pin_memory=d.pin_memory,
        persistent_workers=d.persistent_workers,
        prefetch_factor=d.prefetch_factor,
        seed=cfg.run.seed,
        device=device,
        device_fraction=d.device_fraction,
    )
    reason = getattr(loader, "workers_reason", "")
    if train and reason and not cfg.run.quiet:
        print(f"data.num_workers=auto -> {loader.num_workers}: {reason}", file=sys.stderr)
    return loader


def _num_batches(loader: Any) -> int:
    try:
        count = len(loader)
    except TypeError:
        raise DataError(
            "the training data has no length, so epochs and the schedule's total steps are "
            "unknown; pass a sized Dataset/DataLoader (or tensors)"
        ) from None
    if count == 0:
        raise DataError(
            "the training data yields no batches (empty dataset, or drop_last with fewer samples than data.batch_size)"
        )
    return count


def _as_schedule(
    schedule: Any,
    optimizer: torch.optim.Optimizer,
    cfg: Config,
    steps_per_epoch: int,
    total_steps: int,
) -> Any:
    if schedule is None:
        return build_schedule(
            optimizer,
            cfg.schedule,
            steps_per_epoch=steps_per_epoch,
            total_steps=total_steps,
            monitor=cfg.monitor.metric,
            mode=cfg.monitor.mode,
        )
    if isinstance(
        schedule, torch.optim.lr_scheduler.LRScheduler | torch.optim.lr_scheduler.ReduceLROnPlateau
    ):
        epochs = math.ceil(total_steps / steps_per_epoch)
        interval = infer_interval(
            schedule, steps_per_epoch=steps_per_epoch, total_steps=total_steps, epochs=epochs
        )
        return TorchSchedule(schedule, interval=interval, monitor=cfg.monitor.metric)
    if isinstance(schedule, Schedule):  # trainwell's, or your own class with the same moments
        return schedule
    raise ConfigError(
        f"schedule must be a trainwell LRSchedule/TorchSchedule, a torch.optim.lr_scheduler "
        f"object, or an object with the trainwell.schedule.Schedule methods (after_step, "
        f"after_epoch, after_eval, lr, state_dict, load_state_dict); got {type(schedule).__name__}"
    )


def _checkpointer(cfg: Config) -> Checkpointer | _NoCheckpoints:
    if cfg.run.dir is None:
        return _NoCheckpoints()
    run_dir = Path(cfg.run.dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir / "config.yaml")
    c = cfg.checkpoint
    return Checkpointer(
        run_dir / "checkpoints",
        every_steps=c.every_steps,
        every_epochs=c.every_epochs,
        keep_last=c.keep_last,
        keep_best=c.keep_best,
        monitor=cfg.monitor.metric,
        mode=cfg.monitor.mode,
        async_save=c.async_save,
        grace_period_s=c.grace_period_s,
    )


class _NoCheckpoints:
    """Stands in for the checkpointer when a run has no directory: saves nothing."""

    last_path = best_path = None

    @property
    def saves(self) -> list[Any]:
        return []

    def due_after_step(self, step: int) -> bool:
        return False

    def due_after_epoch(self, epoch: int, last: bool) -> bool:
        return False

    def save(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __enter__(self) -> _NoCheckpoints:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _default_observers(cfg: Config) -> list[Observer]:
    observers: list[Observer] = []
    if not cfg.run.quiet:
        observers.append(Progress(bar=cfg.run.progress))
    if cfg.run.dir is not None:
        observers.append(MetricsLog(cfg.run.dir))
    if cfg.data.input_bound_threshold is not None:
        observers.append(InputBoundDetector(cfg.data.input_bound_threshold))
    return observers


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
