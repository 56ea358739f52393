"""Builders: turn the config (and what the user passed to `fit()`) into the loop's parts.

`fit()` reads top to bottom because everything it composes is built here: the loaders (sharded
by the strategy's rank), the run's length, the default `TrainStep` (optimizer, schedule,
clipping, the supervised loss step), the checkpointer, the validator, the default observers,
and the state a resumed run starts from.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.config.guards import GuardsConfig
from trainwell.config.sections import Config
from trainwell.config.tree import save_config
from trainwell.data.batch import bookkeeping_keys
from trainwell.data.loader import has_static_shapes, make_loader, start_epoch
from trainwell.errors import ConfigError
from trainwell.loop.run_state import Counters, RunLength
from trainwell.observe.base import FitInfo, Observer
from trainwell.observe.input_bound import InputBoundDetector
from trainwell.observe.log import MetricsLog
from trainwell.observe.progress import Progress
from trainwell.observe.table import CSVLog
from trainwell.observe.tensorboard import TensorBoardLog, tensorboard_available
from trainwell.parts.clipping import Clipping
from trainwell.parts.device import fast_kernels
from trainwell.parts.evaluation import evaluate_loader
from trainwell.parts.freezing import Freezing
from trainwell.parts.metric import resolve_metrics
from trainwell.parts.optim import build_optimizer
from trainwell.parts.precision import Precision
from trainwell.parts.schedule import Schedule, TorchSchedule, build_schedule, infer_interval
from trainwell.state.checkpointer import Checkpointer, NoCheckpoints
from trainwell.step.optimizers import Optimizers
from trainwell.step.supervised import StepFn, SupervisedStep
from trainwell.step.train_step import SkipNonfinite, TrainStep
from trainwell.strategy.base import Strategy
from trainwell.strategy.registry import choose_strategy


def build_strategy(
    model: nn.Module, cfg: Config, device: str | torch.device | None
) -> tuple[Strategy, nn.Module]:
    """``run.strategy`` (`trainwell.distributed.choose_strategy`) with ``model`` prepared on
    it; returns the strategy and what trains (the model, or its DDP wrapper). Under several
    processes rank r then reseeds with ``run.seed + r``: dropout differs across ranks."""
    strategy = choose_strategy(
        cfg.run.strategy,
        device or cfg.run.device,
        channels_last=cfg.train.channels_last,
        model=model,
        precision=cfg.train.precision,
        fsdp_blocks=cfg.run.fsdp_blocks,
        reshard_after_forward=cfg.run.fsdp_reshard_after_forward,
        sharded_checkpoints=cfg.checkpoint.sharded,
    )
    trainee = strategy.prepare(model)
    if strategy.world_size > 1:
        torch.manual_seed(cfg.run.seed + strategy.rank)
    return strategy, trainee


def fast_kernels_for(
    cfg: Config, strategy: Strategy, train_loader: Any
) -> contextlib.AbstractContextManager[dict[str, Any]]:
    """`trainwell.device.fast_kernels` as the config asks (``train.matmul_precision``,
    ``train.cudnn_benchmark``), static shapes when the training data are tensors."""
    return fast_kernels(
        strategy.device,
        deterministic=cfg.run.deterministic,
        matmul_precision=cfg.train.matmul_precision,
        cudnn_benchmark=cfg.train.cudnn_benchmark,
        static_shapes=has_static_shapes(train_loader),
    )


def build_loader(data: Any, cfg: Config, strategy: Strategy, *, train: bool) -> Any:
    """A loader for ``data`` (tensors, a Dataset or a DataLoader): the training one shuffled by
    (seed, epoch) and sharded by the strategy's rank, the validation one in a fixed order and
    whole on every rank (the same weights give every rank the same metrics, exactly)."""
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
        device=strategy.device,
        device_fraction=d.device_fraction,
        rank=strategy.rank if train else 0,
        world_size=strategy.world_size if train else 1,
    )
    reason = getattr(loader, "workers_reason", "")
    if train and reason and not cfg.run.quiet and strategy.is_main:
        print(f"data.num_workers=auto -> {loader.num_workers}: {reason}", file=sys.stderr)
    return loader


def default_train_step(
    model: nn.Module,
    cfg: Config,
    length: RunLength,
    *,
    loss_fn: Callable[..., torch.Tensor],
    optimizer: torch.optim.Optimizer | None,
    schedule: Any,
    step_fn: StepFn | None,
    forward_model: nn.Module | None = None,
) -> TrainStep:
    """The supervised step: one optimizer (built from ``optim`` unless given), its schedule
    (from ``schedule`` unless given), clipping from ``train.clip_*``, and ``loss(model(x), y)``
    (or ``step_fn``). ``forward_model`` is what runs the forward (a DDP wrapper of ``model``)."""
    optimizer = optimizer or build_optimizer(model, cfg.optim)
    step = TrainStep(
        forward_model or model,
        Optimizers.single(
            optimizer,
            as_schedule(schedule, optimizer, cfg, length.steps_per_epoch, length.max_steps),
            Clipping(cfg.train.clip_norm, cfg.train.clip_value),
            parameters=[p for p in model.parameters() if p.requires_grad],
        ),
        loss_step=step_fn or SupervisedStep(loss_fn, bookkeeping_keys(cfg.train.weight_by)),
    )
    if cfg.train.freeze:  # built after the optimizer: it holds the frozen parameters too
        until = cfg.train.freeze_epochs * length.steps_per_epoch
        step.freezing = Freezing(model, cfg.train.freeze, until)
    return step


def as_schedule(
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


def build_checkpointer(cfg: Config, strategy: Strategy) -> Checkpointer | NoCheckpoints:
    """The run's checkpointer: rank 0 writes (the others hold the same state). Where saving
    gathers state from every rank (FSDP), every rank saves with it (`AgreedCheckpoints`)."""
    collective = getattr(strategy, "collective_state", False)
    if cfg.run.dir is None or not (strategy.is_main or collective):
        return NoCheckpoints()
    if collective:
        from trainwell.state.agreed import AgreedCheckpoints

        writer = _checkpointer(cfg) if strategy.is_main else NoCheckpoints()
        c = cfg.checkpoint
        return AgreedCheckpoints(
            strategy, writer, c.every_steps, c.keep_best, async_save=c.async_save
        )
    return _checkpointer(cfg)


def _checkpointer(cfg: Config) -> Checkpointer:
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
        min_interval_s=c.min_interval_s,
    )


def nonfinite_skip(guards: GuardsConfig) -> SkipNonfinite:
    """How the step drops an update whose gradients hold inf/NaN: only with
    ``guards.nonfinite=skip_step`` ("exact" with ``guards.skip_exact``)."""
    if not (guards.enabled and guards.nonfinite_check and guards.nonfinite == "skip_step"):
        return "no"
    return "exact" if guards.skip_exact else "device"


def default_observers(cfg: Config, strategy: Strategy) -> list[Observer]:
    """The progress bar and the run directory's logs (``metrics.jsonl``, ``metrics.csv``,
    TensorBoard: on the main process only), and the input-bound detector."""
    observers: list[Observer] = []
    if not cfg.run.quiet and strategy.is_main:
        observers.append(Progress(bar=cfg.run.progress))
    if cfg.run.dir is not None and strategy.is_main:
        observers.append(MetricsLog(cfg.run.dir))
        if cfg.log.csv:
            observers.append(CSVLog(cfg.run.dir))
        if cfg.log.tensorboard is True or (
            cfg.log.tensorboard == "auto" and tensorboard_available()
        ):
            observers.append(TensorBoardLog(cfg.run.dir))
        if cfg.log.mlflow:
            from trainwell.observe.mlflow_log import MLflowLog  # mlflow only when asked

            observers.append(MLflowLog(cfg.run.dir, cfg.log.mlflow_uri, cfg.log.mlflow_experiment))
        if cfg.log.wandb:
            from trainwell.observe.wandb_log import WandbLog  # wandb only when asked

            observers.append(WandbLog(cfg.run.dir, cfg.log.wandb_project, cfg.log.wandb_mode))
        if cfg.log.plots:
            from trainwell.observe.plots import PlotsAtEnd

            observers.append(PlotsAtEnd(cfg.run.dir))
    if cfg.data.input_bound_threshold is not None:
        observers.append(InputBoundDetector(cfg.data.input_bound_threshold))
    if cfg.profile.enabled and strategy.is_main:
        observers.append(_profiler(cfg))
    return observers


def _profiler(cfg: Config) -> Observer:
    """The profiler window (``profile.*``): its trace and table in RUN/profile (or ./profile)."""
    from trainwell.observe.profiler import Profiler, ProfileWindow

    p = cfg.profile
    out_dir = Path(cfg.run.dir) / "profile" if cfg.run.dir is not None else Path("profile")
    return Profiler(out_dir, ProfileWindow(wait=p.wait, warmup=p.warmup, active=p.active))


def stateful_observers(observers: list[Any]) -> dict[str, Any]:
    """Your observers that keep state (``state_dict``/``load_state_dict``), under the names the
    checkpoint keeps them by: ``observer.<class name>``, ``.2``, ``.3``... for more of a class."""
    named: dict[str, Any] = {}
    for observer in observers:
        if not (hasattr(observer, "state_dict") and hasattr(observer, "load_state_dict")):
            continue
        name = base = f"observer.{type(observer).__name__}"
        count = 1
        while name in named:
            count += 1
            name = f"{base}.{count}"
        named[name] = observer
    return named


def build_validator(
    model: nn.Module,
    val_data: Any,
    cfg: Config,
    strategy: Strategy,
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
    loader = FromEpochZero(build_loader(val_data, cfg, strategy, train=False))
    metric_objects = resolve_metrics(metrics)

    def validate() -> dict[str, float]:
        values = evaluate_loader(
            model,
            loader,
            loss_fn,
            metric_objects,
            strategy.device,
            precision,
            step_fn=step_fn,
            count_key=cfg.train.weight_by,
            to_device=strategy.to_device,
        )
        return _prefixed("val_", values)

    return validate


class FromEpochZero:
    """The validation batches: every pass sees the same ones (epoch 0's order), so an exact
    resume reproduces them; re-iterable, for the second look at data that gave NaN."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def __iter__(self) -> Iterator[Any]:
        return start_epoch(self.loader, 0)


def _prefixed(prefix: str, values: Mapping[str, Any]) -> dict[str, Any]:
    return {f"{prefix}{k}": v for k, v in values.items()}


def fit_info(
    cfg: Config,
    model: nn.Module,
    counters: Counters,
    length: RunLength,
    strategy: Strategy,
    precision: Precision,
) -> FitInfo:
    """What observers are told at the start of a run."""
    return FitInfo(
        max_epochs=length.max_epochs,
        steps_per_epoch=length.steps_per_epoch,
        total_steps=length.max_steps,
        start_epoch=counters.epoch,
        start_step=counters.step,
        device=str(strategy.device),
        precision=precision.mode,
        num_parameters=sum(p.numel() for p in model.parameters() if p.requires_grad),
        run_dir=cfg.run.dir,
        config=cfg.to_dict(),
        model_name=type(model).__name__,
        modules=_module_counts(model),
        total_parameters=_count(model),
        size_mb=sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
        / 2**20,
        strategy=type(strategy).__name__.lower().replace("singledevice", "single"),
    )


def _module_counts(model: nn.Module) -> list[tuple[str, int, int]]:
    """(name, parameters, trainable) of each top-level module that holds parameters of its
    own; a parameter shared with an earlier module (tied weights) is counted there only."""
    seen: set[int] = set()
    rows = []
    for name, child in model.named_children():
        own = [p for p in child.parameters() if id(p) not in seen]
        seen.update(id(p) for p in own)
        if own:
            total = sum(p.numel() for p in own)
            rows.append((name, total, sum(p.numel() for p in own if p.requires_grad)))
    return rows


def _count(module: nn.Module, *, trainable: bool = False) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad or not trainable)


def vars_of(section: Any) -> dict[str, Any]:
    """A config section's fields as keyword arguments."""
    return {f.name: getattr(section, f.name) for f in dataclasses.fields(section)}
