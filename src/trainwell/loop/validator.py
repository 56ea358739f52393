"""Validation inside `fit()`: `Validator` runs one pass on every ``train.eval_every`` epochs and
the last, the way the step validates (`TrainStep.val_step`, else the supervised forward with
the run's loss: a training ``step_fn`` never validates), under ``eval()`` +
``inference_mode()``, on every rank with rank 0's buffers, as ``val_*`` metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import Config
from trainwell.data.loader import start_epoch
from trainwell.errors import warn_at_user
from trainwell.loop.builders import build_loader
from trainwell.parts.metric import resolve_metrics
from trainwell.step.evaluation import evaluate_loader
from trainwell.step.supervised import SupervisedStep
from trainwell.step.train_step import TrainStep


class Validator:
    """One validation pass of the run (see the module docstring); `due` says when."""

    def __init__(
        self,
        model: nn.Module,
        loader: Any,
        step: TrainStep,
        loss_fn: Callable[..., torch.Tensor] | None,
        metrics: Any,
        cfg: Config,
        model_loss: bool | None = None,
    ) -> None:
        self.model, self.step, self.loss_fn, self.model_loss = model, step, loss_fn, model_loss
        self.loader = FromEpochZero(loader) if loader is not None else None
        self.metrics = resolve_metrics(metrics)
        self.eval_every, self.count_key = cfg.train.eval_every, cfg.train.weight_by

    def due(self, epoch: int, last: bool) -> bool:
        """Whether the epoch ``epoch`` (1-based) ends with a validation: every
        ``train.eval_every`` epochs, and the last; never without validation data."""
        return self.loader is not None and (epoch % self.eval_every == 0 or last)

    def __call__(self) -> dict[str, float]:
        """One pass over the validation data: ``{"val_loss": ..., "val_<metric>": ...}``."""
        strategy = self.step.strategy
        strategy.sync_buffers(self.model)  # every rank validates rank 0's model
        values = evaluate_loader(
            self.model,
            self.loader,
            self.loss_fn,
            self.metrics,
            strategy.device,
            self.step.precision,
            step_fn=self.step.val_step,
            count_key=self.count_key,
            to_device=strategy.to_device,
            model_loss=self.model_loss,
        )
        return {f"val_{name}": value for name, value in values.items()}


def build_validator(
    model: nn.Module,
    val_data: Any,
    cfg: Config,
    step: TrainStep,
    loss_fn: Callable[..., torch.Tensor] | None,
    metrics: Any,
    model_loss: bool | None = None,
) -> Validator:
    """The run's validation of ``val_data`` (none without it): a fixed order, whole on every
    rank (the same weights give every rank the same metrics, exactly)."""
    strategy = step.strategy
    loader = None if val_data is None else build_loader(val_data, cfg, strategy, train=False)
    trains_its_own_way = not isinstance(step.loss_step, SupervisedStep)  # step_fn, or a subclass
    no_loss_given = loss_fn is None or model_loss
    if loader is not None and step.val_step is None and no_loss_given and trains_its_own_way:
        warn_at_user(
            "validation runs the plain forward with fit's loss, not the training step_fn (or "
            "step), and no loss was given: the model's own loss is used, else "
            "CrossEntropyLoss. Pass loss=... for the validation loss, or val_step_fn=... to "
            "validate with a function of your own"
        )
    return Validator(model, loader, step, loss_fn, metrics, cfg, model_loss)


class FromEpochZero:
    """The validation batches: every pass sees the same ones (epoch 0's order), so an exact
    resume reproduces them; re-iterable, for the second look at data that gave NaN."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def __iter__(self) -> Iterator[Any]:
        return start_epoch(self.loader, 0)
