"""Builders: turn the config (and what the user passed to `fit()`) into the loop's parts: the
strategy and what trains on it, the loaders (sharded by the strategy's rank), the default
`TrainStep` (optimizer, schedule, clipping, the supervised loss step) or the user's with the
run's policies, and the checkpointer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.config.guards import GuardsConfig
from trainwell.config.sections import Config
from trainwell.data.batch import bookkeeping_keys
from trainwell.data.loader import has_static_shapes, make_loader
from trainwell.data.streams import as_stream_if_unsized
from trainwell.errors import ConfigError, warn_at_user
from trainwell.loop.run_state import RunLength
from trainwell.parts.clipping import Clipping
from trainwell.parts.device import fast_kernels
from trainwell.parts.freezing import Freezing
from trainwell.parts.optim import build_optimizer
from trainwell.parts.schedule import Schedule, TorchSchedule, build_schedule, infer_interval
from trainwell.state.agreed import AgreedCheckpoints
from trainwell.state.checkpointer import Checkpointer, NoCheckpoints
from trainwell.step.optimizers import Optimizers
from trainwell.step.supervised import StepFn, SupervisedStep
from trainwell.step.train_step import SkipNonfinite, TrainStep
from trainwell.strategy.base import BaseStrategy, Strategy
from trainwell.strategy.registry import StrategyOptions, as_strategy, choose_strategy


def prepare_strategy(
    strategy: Any, model: nn.Module, cfg: Config, device: str | torch.device | None
) -> tuple[BaseStrategy, nn.Module]:
    """The run's one strategy (``strategy`` as given, else ``run.strategy`` by name) with
    ``model`` prepared on it; returns the strategy and what trains (the model, or its DDP
    wrapper). Under several processes rank r then reseeds with ``run.seed + r``: dropout
    differs across ranks."""
    if strategy is None:
        options = StrategyOptions(
            model=model,
            channels_last=cfg.train.channels_last,
            precision=cfg.train.precision,
            fsdp_blocks=cfg.run.fsdp_blocks,
            reshard_after_forward=cfg.run.fsdp_reshard_after_forward,
            sharded_checkpoints=cfg.checkpoint.sharded,
        )
        strategy = choose_strategy(cfg.run.strategy, device or cfg.run.device, options)
    strategy = as_strategy(strategy)
    trained = strategy.prepare(model)
    if strategy.world_size > 1:
        torch.manual_seed(cfg.run.seed + strategy.rank)
    return strategy, trained


def loss_on_device(loss: Any, strategy: BaseStrategy) -> Any:
    """``loss`` with its buffers (class weights) where the logits are."""
    if isinstance(loss, nn.Module):
        loss.to(strategy.device)
    return loss


def fast_kernels_for(
    cfg: Config, strategy: Strategy, train_loader: Any
) -> contextlib.AbstractContextManager[dict[str, Any]]:
    """`trainwell.parts.device.fast_kernels` as the config asks (``train.matmul_precision``,
    ``train.cudnn_benchmark``), static shapes when the training data are tensors."""
    return fast_kernels(
        strategy.device,
        deterministic=cfg.run.deterministic,
        matmul_precision=cfg.train.matmul_precision,
        cudnn_benchmark=cfg.train.cudnn_benchmark,
        static_shapes=has_static_shapes(train_loader),
    )


def build_loader(
    data: Any, cfg: Config, strategy: Strategy, *, train: bool, collate_fn: Any = None
) -> Any:
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
        collate_fn=collate_fn,
        device=strategy.device,
        device_fraction=d.device_fraction,
        rank=strategy.rank if train else 0,
        world_size=strategy.world_size if train else 1,
    )
    if train:  # data of unknown length: a stream, whose end fit() must see
        loader = as_stream_if_unsized(loader)
    reason = getattr(loader, "workers_reason", "")
    if train and reason and not cfg.run.quiet and strategy.is_main:
        print(f"data.num_workers=auto -> {loader.num_workers}: {reason}", file=sys.stderr)
    return loader


def build_train_step(
    train_step: TrainStep | None,
    model: nn.Module,
    cfg: Config,
    length: RunLength,
    *,
    loss_fn: Callable[..., torch.Tensor] | None,
    optimizer: torch.optim.Optimizer | None,
    schedule: Any,
    step_fn: StepFn | None,
    val_step_fn: StepFn | None,
    model_loss: bool | None = None,
    world_size: int = 1,
) -> TrainStep:
    """The run's step: ``train_step`` (a step of the user's, with the run's freezing) or the
    default supervised one; a config key the user's step cannot honour is named in a warning."""
    if train_step is None:
        step = default_train_step(
            model,
            cfg,
            length,
            loss_fn=loss_fn,
            optimizer=optimizer,
            schedule=schedule,
            step_fn=step_fn,
            val_step_fn=val_step_fn,
            model_loss=model_loss,
        )
    else:
        step = _users_step(train_step, cfg, optimizer, schedule, step_fn, val_step_fn)
        _check_own_call(step, world_size)
    if cfg.train.freeze:  # after the optimizers: they hold the frozen parameters too
        until = cfg.train.freeze_epochs * length.steps_per_epoch
        step.freezing = Freezing(model, cfg.train.freeze, until)
    return step


def default_train_step(
    model: nn.Module,
    cfg: Config,
    length: RunLength,
    *,
    loss_fn: Callable[..., torch.Tensor] | None,
    optimizer: torch.optim.Optimizer | None,
    schedule: Any,
    step_fn: StepFn | None,
    val_step_fn: StepFn | None = None,
    model_loss: bool | None = None,
) -> TrainStep:
    """The supervised step: one optimizer (built from ``optim`` unless given), its schedule
    (from ``schedule`` unless given), clipping from ``train.clip_*``, and ``loss(model(x), y)``
    (or ``step_fn``); it validates with ``val_step_fn``, or the plain supervised forward."""
    optimizer = optimizer or build_optimizer(model, cfg.optim)
    return TrainStep(
        model,
        Optimizers.single(
            optimizer,
            as_schedule(schedule, optimizer, cfg, length.steps_per_epoch, length.max_steps),
            Clipping(cfg.train.clip_norm, cfg.train.clip_value),
            parameters=[p for p in model.parameters() if p.requires_grad],
        ),
        loss_step=step_fn
        or SupervisedStep(loss_fn, bookkeeping_keys(cfg.train.weight_by), model_loss=model_loss),
        val_step=val_step_fn,
    )


def _users_step(
    step: TrainStep,
    cfg: Config,
    optimizer: Any,
    schedule: Any,
    step_fn: Any,
    val_step_fn: Any,
) -> TrainStep:
    """``step`` as the run's: what fit() was also given must not be silently dropped."""
    given = {"optimizer": optimizer, "schedule": schedule, "step_fn": step_fn}
    clash = [name for name, value in given.items() if value is not None]
    if clash:
        raise ConfigError(
            f"fit(train_step=...) brings its own optimizers, schedules and loss: "
            f"{', '.join(clash)} would be ignored; build them into the step (or drop train_step)"
        )
    if val_step_fn is not None:
        if step.val_step is not None:
            raise ConfigError(
                "fit(val_step_fn=...) and the train_step's own val_step both say how to "
                "validate; keep one"
            )
        step.val_step = val_step_fn
    unhonoured = _keys_a_step_cannot_honour(cfg)
    if unhonoured:
        warn_at_user(
            f"{type(step).__name__} brings its own optimizers, schedules and clipping: "
            f"{', '.join(unhonoured)} {'is' if len(unhonoured) == 1 else 'are'} not applied "
            "(set them in the step; the run's precision, accumulation, freezing and "
            "guards.nonfinite still apply)"
        )
    return step


def _check_own_call(step: TrainStep, world_size: int) -> None:
    """A step that replaces `TrainStep.__call__` skips its policies: refused where that gives a
    silent wrong result (gradients never averaged over processes), named otherwise."""
    if type(step).__call__ is TrainStep.__call__:
        return
    why = (
        f"{type(step).__name__} overrides TrainStep.__call__, so train.freeze, "
        "guards.nonfinite=skip_step and the gradient averaging of several processes (all "
        "TrainStep.__call__'s) do not reach it; override forward_backward instead (and call "
        "self.update(name) inside it for alternating updates)"
    )
    if world_size > 1:
        raise ConfigError(why)
    warn_at_user(why)


def _keys_a_step_cannot_honour(cfg: Config) -> list[str]:
    """The keys of ``optim``, ``schedule`` and ``train.clip_*`` the config sets (different
    from the defaults): only the default step reads them."""
    defaults = Config()
    keys = []
    for section in ("optim", "schedule"):
        ours, theirs = getattr(cfg, section), getattr(defaults, section)
        for f in dataclasses.fields(ours):
            if getattr(ours, f.name) != getattr(theirs, f.name):
                keys.append(f"{section}.{f.name}={getattr(ours, f.name)!r}")
    for name in ("clip_norm", "clip_value"):
        value = getattr(cfg.train, name)
        if value != getattr(defaults.train, name):
            keys.append(f"train.{name}={value!r}")
    return keys


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
        f"object, or an object with the trainwell.parts.schedule.Schedule methods (after_step, "
        f"after_epoch, after_eval, lr, state_dict, load_state_dict); got {type(schedule).__name__}"
    )


def build_checkpointer(cfg: Config, strategy: Strategy) -> Checkpointer | NoCheckpoints:
    """The run's checkpointer: rank 0 writes (the others hold the same state). Where saving
    gathers state from every rank (FSDP), every rank saves with it (`AgreedCheckpoints`)."""
    collective = getattr(strategy, "collective_state", False)
    if cfg.run.dir is None or not (strategy.is_main or collective):
        return NoCheckpoints()
    if collective:
        writer = _checkpointer(cfg) if strategy.is_main else NoCheckpoints()
        c = cfg.checkpoint
        return AgreedCheckpoints(
            strategy, writer, c.every_steps, c.keep_best, async_save=c.async_save
        )
    return _checkpointer(cfg)


def _checkpointer(cfg: Config) -> Checkpointer:
    run_dir = Path(cfg.run.dir)  # claimed by the run (config.yaml is written when it starts)
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


def vars_of(section: Any) -> dict[str, Any]:
    """A config section's fields as keyword arguments."""
    return {f.name: getattr(section, f.name) for f in dataclasses.fields(section)}
