"""The monitored metric and every decision it makes, in one place: `Monitor`.

``monitor.metric`` in ``monitor.mode`` (`MonitorConfig.improved`, the one definition of
"better") decides the best value and when it happened (`BestTracker`), early stopping
(`EarlyStopping`, ``early_stop.*``), the best weights the model holds at the end
(`BestWeights`, ``monitor.restore_best``), and whether an epoch's checkpoint must be saved as
the best. The parts are usable alone in a loop of your own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import torch

from trainwell.config.sections import Config, MonitorConfig
from trainwell.errors import CheckpointError, ConfigError, warn_at_user
from trainwell.state.checkpoint import load_checkpoint, verify
from trainwell.state.checkpointer import restore
from trainwell.state.weights import unwrap_model


def default_monitor(cfg: Config, set_names: list[str | None]) -> Config:
    """``cfg`` with ``monitor.metric=val_loss`` read as the first validation set's loss
    (``val_<first>_loss``) when ``fit(val_data=...)`` names several sets."""
    if cfg.monitor.metric != "val_loss" or not set_names or set_names[0] is None:
        return cfg
    metric = f"val_{set_names[0]}_loss"
    return cfg.replace(monitor=dataclasses.replace(cfg.monitor, metric=metric))


def check_monitor(monitor: MonitorConfig, val_names: list[str]) -> None:
    """A `ConfigError` listing the validation values when ``monitor.metric`` names a ``val_``
    value that no validation set gives (``val_names``: what one validation gives)."""
    metric = monitor.metric
    if val_names and metric.startswith("val_") and metric not in val_names:
        raise ConfigError(
            f"monitor.metric={metric!r} is not a validation value; the validation sets give "
            f"{', '.join(val_names)}: set monitor.metric to one of them"
        )


def _check_metric(metrics: Mapping[str, float], monitor: str) -> float:
    return MonitorConfig(monitor).value_of(metrics)


class Monitor:
    """Best tracking, early stopping and the best weights of one run (the module docstring).

    Its state (``best``, ``early_stopping``) is saved with the run's; `judge` is called once
    per epoch, after validation.
    """

    def __init__(self, cfg: Config, best_weights: BestWeights) -> None:
        m, e = cfg.monitor, cfg.early_stop
        self.best = BestTracker(m.metric, m.mode)
        self.early_stopping = EarlyStopping(m.metric, m.mode, e.patience, e.min_delta)
        self.best_weights = best_weights

    def judge(self, record: dict[str, Any], *, evaluated: bool) -> str | None:
        """Mark ``record["best"]`` (the epoch's record, with its validation metrics; a new best's
        weights are kept) and return why to stop early, if it is time to."""
        record["best"] = False
        if not (evaluated or self.best.monitor in record):  # raises if the metric is missing
            return None
        step, epoch = record["step"], record["epoch"]
        record["best"] = self.best.update(record, step=step, epoch=epoch)
        if record["best"]:
            self.best_weights.capture()
        if self.early_stopping.update(record, step=step, epoch=epoch):
            return f"stopped early: {self.early_stopping.reason}"
        return None

    def best_save_due(self, record: Mapping[str, Any]) -> bool:
        """The best checkpoint must hold ``record``'s weights (a new best, kept on disk)."""
        return self.best_weights.save_due(record)

    def state_parts(self) -> dict[str, Any]:
        """What a restart needs, under the names the checkpoint keeps them by."""
        return {"best": self.best, "early_stopping": self.early_stopping}

    def restore_best(self, checkpointer: Any, last_step: int) -> str:
        """Put the best weights back (``monitor.restore_best``); returns which the model holds."""
        return self.best_weights.restore(self.best, checkpointer, last_step)


class BestTracker:
    """Remembers the best value of one metric and when it happened."""

    def __init__(self, monitor: str = "val_loss", mode: str = "min") -> None:
        self.spec = MonitorConfig(monitor, mode)  # the one definition of "better"
        self.monitor, self.mode = monitor, mode
        self.best: float | None = None
        self.best_step: int | None = None
        self.best_epoch: int | None = None

    def is_better(self, value: float, min_delta: float = 0.0) -> bool:
        return self.spec.improved(value, self.best, min_delta=min_delta)

    def update(
        self, metrics: Mapping[str, float], *, step: int, epoch: int, min_delta: float = 0.0
    ) -> bool:
        """Record ``metrics``; True if the monitored value is a new best (by > ``min_delta``)."""
        value = _check_metric(metrics, self.monitor)
        if not self.is_better(value, min_delta):
            return False
        self.best, self.best_step, self.best_epoch = value, step, epoch
        return True

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "best_step": self.best_step, "best_epoch": self.best_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best, self.best_step, self.best_epoch = (
            state["best"],
            state["best_step"],
            state["best_epoch"],
        )


class EarlyStopping:
    """Asks the loop to stop after ``patience`` evaluations without an improvement > min_delta.

    ``patience=None`` only watches (it never asks to stop).
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        mode: str = "min",
        patience: int | None = 5,
        min_delta: float = 0.0,
    ) -> None:
        self.tracker = BestTracker(monitor, mode)
        self.patience, self.min_delta = patience, min_delta
        self.num_bad = 0
        self.should_stop = False

    def update(self, metrics: Mapping[str, float], *, step: int = 0, epoch: int = 0) -> bool:
        """Record ``metrics``; True when training should stop."""
        if self.tracker.update(metrics, step=step, epoch=epoch, min_delta=self.min_delta):
            self.num_bad = 0
        else:
            self.num_bad += 1
        self.should_stop = self.patience is not None and self.num_bad >= self.patience
        return self.should_stop

    @property
    def reason(self) -> str:
        t = self.tracker
        best = (
            "none: every value was NaN"
            if t.best is None
            else f"{t.best:.6g} at epoch {t.best_epoch}, step {t.best_step}"
        )
        return f"{t.monitor} has not improved for {self.num_bad} evaluations (best {best})"

    def state_dict(self) -> dict[str, Any]:
        return {"tracker": self.tracker.state_dict(), "num_bad": self.num_bad}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.tracker.load_state_dict(state["tracker"])
        self.num_bad = state["num_bad"]
        self.should_stop = self.patience is not None and self.num_bad >= self.patience


class BestWeights:
    """Puts the best evaluation's weights back into the model after `fit()` (``monitor.restore_best``).

    With a run directory that keeps a best checkpoint (``checkpoint.keep_best >= 1``), every
    new best is saved there and read back (verified) at the end; otherwise a CPU copy of the
    weights is taken at each new best. With an `EMA` (``train.ema_decay``) the weights are
    the average's: what validation measured.
    """

    def __init__(
        self,
        model: Any,
        checkpointer: Any,
        *,
        enabled: bool = True,
        local_copies: bool = False,
        ema: Any = None,
    ) -> None:
        self.model, self.enabled = model, enabled
        self.ema = ema  # train.ema_decay: the best weights are the average's
        self.keeps_best = getattr(checkpointer, "keep_best", 0) >= 1
        # Several ranks (DDP, FSDP): each copies its own weights (its shard under FSDP), as
        # reading the best checkpoint back would take every rank (a collective) at the end.
        self.copies = not self.keeps_best or local_copies
        self.copy: dict[str, Any] | None = None

    def save_due(self, record: Mapping[str, Any]) -> bool:
        """True when ``record`` is a new best that the best checkpoint must hold."""
        return self.keeps_best and bool(record.get("best"))

    def capture(self) -> None:
        """Called at each new best: copy the weights unless the best checkpoint will hold them."""
        if self.enabled and self.copies:
            weights = self.ema.weights() if self.ema else _unwrap(self.model).state_dict()
            self.copy = {k: _local(v).detach().to("cpu", copy=True) for k, v in weights.items()}

    def restore(self, best: BestTracker, checkpointer: Any, last_step: int) -> str:
        """Load the best weights into the model; returns which weights it holds now."""
        held = self._restore(best, checkpointer, last_step)
        return f"the EMA's {held}" if self.ema else held

    def _restore(self, best: BestTracker, checkpointer: Any, last_step: int) -> str:
        if not self.enabled or best.best_step is None:
            return "last"
        described = f"best ({best.monitor} {best.best:.4g} at epoch {best.best_epoch})"
        if best.best_step == last_step:
            return described  # the last weights are the best ones
        if self.copies:
            if self.copy is None:
                return _kept_last(f"the best weights (epoch {best.best_epoch}) were not kept")
            _copy_into(_unwrap(self.model), self.copy)
            return described
        return self._restore_from_disk(best, checkpointer, described)

    def _restore_from_disk(self, best: BestTracker, checkpointer: Any, described: str) -> str:
        checkpointer.wait()  # an async save of the best may still be in flight
        path = checkpointer.best_path
        try:
            if path is None:
                raise CheckpointError(f"there is no best checkpoint in {checkpointer.directory}")
            manifest = verify(path)
            if manifest.get("step") != best.best_step:
                raise CheckpointError(
                    f"{path} holds step {manifest.get('step')}, not the best step {best.best_step}"
                )
            state = load_checkpoint(path)["state"]
            weights = state["ema"]["weights"] if self.ema else state["model"]
            restore({"model": self.model}, {"model": weights})
        except CheckpointError as exc:
            return _kept_last(str(exc))
        return f"{described[:-1]}, read back from {path.name})"


def _kept_last(why: str) -> str:
    warn_at_user(f"monitor.restore_best: {why}; the model keeps the last weights")
    return "last"


def _local(tensor: Any) -> Any:
    """This rank's shard of a sharded (DTensor) tensor; the tensor itself otherwise."""
    return tensor.to_local() if hasattr(tensor, "to_local") else tensor


def _copy_into(model: Any, copy: Mapping[str, Any]) -> None:
    """Put ``copy`` (per-rank shards or whole tensors) back into ``model``'s state in place."""
    with torch.no_grad():
        for name, tensor in model.state_dict(keep_vars=True).items():
            _local(tensor).copy_(copy[name])


def _unwrap(model: Any) -> Any:
    return unwrap_model(model)
