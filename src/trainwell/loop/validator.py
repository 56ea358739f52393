"""Validation inside `fit()`: `Validator` runs one pass over each validation set on every
``train.eval_every`` epochs and the last (or every ``train.eval_every_steps`` optimizer steps
and the end), the way the step validates (`TrainStep.val_step`, else the supervised forward
with the run's loss: a training ``step_fn`` never validates), under ``eval()`` +
``inference_mode()``, on every rank with rank 0's buffers, as ``val_*`` metrics.

``fit(val_data=...)`` takes one set (``val_loss``, ``val_<metric>``) or several by name, a
mapping ``{"clean": data, "noisy": data}`` (``val_clean_loss``, ``val_noisy_accuracy``...),
each evaluated whole, in order, at every validation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import Config
from trainwell.data.loader import start_epoch
from trainwell.errors import ConfigError, warn_at_user
from trainwell.loop.builders import build_loader
from trainwell.parts.metric import resolve_metrics
from trainwell.step.evaluation import evaluate_loader
from trainwell.step.supervised import SupervisedStep
from trainwell.step.train_step import TrainStep

_SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


class Validator:
    """One validation of the run over every set (see the module docstring); `due` and
    `due_after_step` say when."""

    def __init__(
        self,
        model: nn.Module,
        loaders: Mapping[str | None, Any],
        step: TrainStep,
        loss_fn: Callable[..., torch.Tensor] | None,
        metrics: Any,
        cfg: Config,
        model_loss: bool | None = None,
    ) -> None:
        self.model, self.step, self.loss_fn, self.model_loss = model, step, loss_fn, model_loss
        # name -> batches (None: the one unnamed set, logged as val_<metric>)
        self.sets = {name: FromEpochZero(loader) for name, loader in loaders.items()}
        # thresholded metrics read probabilities for BCELoss, logits otherwise
        self.metrics = resolve_metrics(metrics, loss_fn)
        self.eval_every, self.count_key = cfg.train.eval_every, cfg.train.weight_by
        self.every_steps = cfg.train.eval_every_steps

    @property
    def loader(self) -> Any:
        """The first set's batches (None without validation data)."""
        return next(iter(self.sets.values()), None)

    def due(self, epoch: int, last: bool) -> bool:
        """Whether the epoch ``epoch`` (1-based) ends with a validation: every
        ``train.eval_every`` epochs (never with ``train.eval_every_steps``), and the last;
        never without validation data."""
        if not self.sets:
            return False
        return last or (self.every_steps is None and epoch % self.eval_every == 0)

    def due_after_step(self, step: int, stepped: bool, length: Any) -> bool:
        """Whether optimizer step ``step`` (just taken) ends with a validation: every
        ``train.eval_every_steps`` (a step GradScaler skipped is not counted twice), but not
        the run's last step (``length``: `RunLength`), whose epoch end validates."""
        every = self.every_steps
        if not (self.sets and every and stepped) or step >= length.max_steps:
            return False
        return step % every == 0

    def names(self) -> list[str]:
        """Every value a validation gives (``val_loss``... or ``val_<set>_loss``...)."""
        return [f"{prefix(name)}{key}" for name in self.sets for key in ("loss", *self.metrics)]

    def __call__(self) -> dict[str, float]:
        """One pass over each set: ``{"val_loss": ..., "val_<metric>": ...}``, or with named
        sets ``{"val_<set>_loss": ..., "val_<set>_<metric>": ...}``."""
        strategy = self.step.strategy
        strategy.sync_buffers(self.model)  # every rank validates rank 0's model
        record: dict[str, float] = {}
        for name, batches in self.sets.items():
            values = evaluate_loader(
                self.model,
                batches,
                self.loss_fn,
                self.metrics,
                strategy.device,
                self.step.precision,
                step_fn=self.step.val_step,
                count_key=self.count_key,
                to_device=strategy.to_device,
                model_loss=self.model_loss,
            )
            record.update({f"{prefix(name)}{key}": value for key, value in values.items()})
        return record


def prefix(name: str | None) -> str:
    """The prefix of a validation set's values: ``val_`` for the one unnamed set,
    ``val_<name>_`` for a named one."""
    return "val_" if name is None else f"val_{name}_"


def validation_sets(val_data: Any) -> dict[str | None, Any]:
    """``fit(val_data=...)`` as ``{name: data}``: ``{}`` without it, ``{None: data}`` for one
    set, the mapping's sets in order for several (names checked: they become metric names)."""
    if val_data is None:
        return {}
    if not isinstance(val_data, Mapping):
        return {None: val_data}
    if not val_data:
        raise ConfigError(
            "fit(val_data={}) names no validation set; pass {'name': data, ...} or val_data=None"
        )
    for name in val_data:
        if not isinstance(name, str) or not _SET_NAME.fullmatch(name):
            raise ConfigError(
                f"fit(val_data=...) set name {name!r} must be a word of letters, digits, _ or - "
                "(it names the metrics: val_<name>_loss); e.g. val_data={'clean': data}"
            )
    return dict(val_data)


def build_validator(
    model: nn.Module,
    val_data: Any,
    cfg: Config,
    step: TrainStep,
    loss_fn: Callable[..., torch.Tensor] | None,
    metrics: Any,
    model_loss: bool | None = None,
    *,
    collate_fn: Any = None,
) -> Validator:
    """The run's validation of ``val_data`` (none without it; one set, or several by name):
    each set in a fixed order, whole on every rank (the same weights give every rank the same
    metrics, exactly)."""
    strategy = step.strategy
    loaders = {
        name: build_loader(data, cfg, strategy, train=False, collate_fn=collate_fn)
        for name, data in validation_sets(val_data).items()
    }
    trains_its_own_way = not isinstance(step.loss_step, SupervisedStep)  # step_fn, or a subclass
    no_loss_given = loss_fn is None or model_loss
    if loaders and step.val_step is None and no_loss_given and trains_its_own_way:
        warn_at_user(
            "validation runs the plain forward with fit's loss, not the training step_fn (or "
            "step), and no loss was given: the model's own loss is used, else "
            "CrossEntropyLoss. Pass loss=... for the validation loss, or val_step_fn=... to "
            "validate with a function of your own"
        )
    return Validator(model, loaders, step, loss_fn, metrics, cfg, model_loss)


class FromEpochZero:
    """The validation batches: every pass sees the same ones (epoch 0's order), so an exact
    resume reproduces them; re-iterable, for the second look at data that gave NaN."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def __iter__(self) -> Iterator[Any]:
        return start_epoch(self.loader, 0)
