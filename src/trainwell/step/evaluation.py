"""Evaluation and prediction: eval mode + inference_mode, exact metrics, the mode restored.

The default evaluation of a batch is the supervised forward of training
(`trainwell.step.supervised`): the same inputs, labels and loss, without the gradient; a
``step_fn`` replaces it only where it is passed for evaluation (`fit()`'s ``val_step_fn``). The
loss and every metric are accumulated over the whole pass (`trainwell.parts.metric`), so the
result does not depend on the batch size; the host reads them once, at the end.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from trainwell.data.batch import bookkeeping_keys, inputs_of
from trainwell.data.loader import make_loader
from trainwell.errors import ConfigError, DataError, warn_at_user
from trainwell.observe import logged
from trainwell.parts.device import choose_device, match_dtype, move_to
from trainwell.parts.losses import MODEL_LOSS, loss_count
from trainwell.parts.metric import LossSum, Metric, MetricFn, compute_all, resolve_metrics
from trainwell.parts.outputs import call_model, floating_dtype, logits_of, unpack_step_output
from trainwell.parts.precision import Precision
from trainwell.step.supervised import StepFn, SupervisedStep

Metrics = Mapping[str, Metric | MetricFn] | Iterable[str | Metric] | None


class NonFiniteDataWarning(UserWarning):
    """Evaluation data holds NaN or Inf: the loss and metrics computed on it are meaningless."""


def evaluate(
    model: nn.Module,
    data: Any,
    *,
    loss: Callable[..., torch.Tensor] | None = None,
    metrics: Metrics = None,
    step_fn: StepFn | None = None,
    device: str | torch.device | None = None,
    precision: str = "fp32",
    batch_size: int = 256,
    weight_by: str | None = None,
) -> dict[str, Any]:
    """Loss and metrics of ``model`` on ``data`` (in eval mode, building no graph).

    ``loss=None``: the model's own loss when it returns one (``outputs.loss``; a model that
    takes ``labels`` gets them), else ``CrossEntropyLoss``. The loss is the mean over samples (over real tokens when the batches carry a count named
    by ``weight_by`` or a ``num_tokens`` entry, or when the loss has an ``ignore_index``); metrics are `Metric`
    accumulators. Both are exact whatever ``batch_size``. With ``step_fn`` the step's loss is
    measured, and metrics need the step to return ``(loss, outputs)``. The model's
    train/eval mode is restored afterwards.
    """
    device = choose_device(device) if device is not None else model_device(model)
    model.to(device)
    loader = make_loader(data, batch_size=batch_size, shuffle=False, device=device)
    return evaluate_loader(
        model,
        loader,
        loss,
        resolve_metrics(metrics, loss),
        device,
        Precision(precision, device),
        step_fn=step_fn,
        count_key=weight_by,
    )


def evaluate_loader(
    model: nn.Module,
    loader: Iterable[Any],
    loss_fn: Callable[..., torch.Tensor] | None,
    metrics: Mapping[str, Metric],
    device: torch.device,
    precision: Precision,
    *,
    step_fn: StepFn | None = None,
    count_key: str | None = None,
    to_device: Callable[[Any], Any] | None = None,
    model_loss: bool | None = None,
) -> dict[str, Any]:
    """One pass over ``loader``: ``{"loss": ..., <metric>: ...}`` as Python numbers.

    ``to_device(batch)`` moves a batch (default: every tensor to ``device``, non-blocking);
    `fit()` passes its strategy's, which also applies ``train.channels_last``."""
    was_training = model.training
    model.eval()
    if isinstance(loss_fn, nn.Module):  # its buffers (class weights) where the logits are
        loss_fn.to(device)
    mean_loss = LossSum()
    for metric in metrics.values():
        metric.reset()
    supervised = SupervisedStep(loss_fn, bookkeeping_keys(count_key), model_loss=model_loss)
    to_device = to_device or functools.partial(move_to, device=device, non_blocking=True)
    try:
        # a step_fn's tw.log values belong to training steps: not collected here, not warned
        with torch.inference_mode(), precision.autocast(), logged.ignoring():
            for batch in loader:
                batch = to_device(batch)
                if step_fn is not None:
                    loss, outputs, targets = unpack_step_output(step_fn(model, batch), batch)
                    count = loss_count(None, targets, batch, count_key)
                else:
                    loss, outputs, targets, count = _supervised(
                        supervised, model, batch, count_key, bool(metrics)
                    )
                mean_loss.update(loss, count)
                if metrics and outputs is None:
                    raise ConfigError(
                        "metrics need the model's outputs, but step_fn returned only a loss; "
                        "return (loss, outputs) (or (loss, outputs, targets)) from step_fn"
                    )
                for metric in metrics.values():
                    metric.update(outputs, targets)
    finally:
        model.train(was_training)
    values = compute_all({"loss": mean_loss, **metrics})
    if not all(math.isfinite(v) for v in values.values() if isinstance(v, float)):
        _warn_if_nonfinite_data(loader, to_device)  # why: the data, or the model?
    return values


def _supervised(
    supervised: SupervisedStep, model: nn.Module, batch: Any, count_key: str | None, predict: bool
) -> tuple[torch.Tensor, Any, Any, Any]:
    """``(mean loss, prediction or None, targets, count)`` of one batch's supervised forward."""
    forward = supervised.forward(model, batch)
    loss_fn = MODEL_LOSS if forward.own_loss else supervised.loss_fn
    count = loss_count(loss_fn, forward.targets, batch, count_key)
    loss = forward.loss
    if getattr(loss_fn, "reduction", "mean") == "sum":
        loss = loss / count  # a sum over the batch: as a mean, weighted back
    prediction = logits_of(forward.output) if predict else None
    return loss, prediction, forward.targets, count


def _warn_if_nonfinite_data(loader: Iterable[Any], to_device: Callable[[Any], Any]) -> None:
    """A second pass, only when a result is NaN/Inf: warn when the data itself holds NaN/Inf.
    (A healthy evaluation pays nothing; a one-shot iterator cannot be read twice.)"""
    if iter(loader) is loader:
        return
    bad_data = _NonFiniteData()
    for index, batch in enumerate(loader):
        bad_data.check(to_device(batch), index)
    bad_data.warn()


class _NonFiniteData:
    """Notes, on the device, the first batch whose floating tensors hold NaN/Inf."""

    def __init__(self) -> None:
        self.first_bad: dict[str, torch.Tensor] = {}

    def check(self, batch: Any, index: int) -> None:
        for name, tensor in _floating_leaves(batch):
            bad = ~torch.isfinite(tensor).all()
            here = torch.where(bad, index, torch.iinfo(torch.int64).max)
            seen = self.first_bad.get(name)
            self.first_bad[name] = here if seen is None else torch.minimum(seen, here)

    def warn(self) -> None:
        """Warn once per evaluation when some batch held NaN/Inf (one small host read)."""
        if not self.first_bad:
            return
        firsts = torch.stack(list(self.first_bad.values())).tolist()
        none = torch.iinfo(torch.int64).max
        bad = {name: at for name, at in zip(self.first_bad, firsts, strict=True) if at != none}
        if bad:
            where = ", ".join(f"{name} (first in batch {at})" for name, at in bad.items())
            warn_at_user(
                f"the validation data holds NaN/Inf in {where}: the loss and metrics computed on "
                "it are NaN or meaningless, and no checkpoint can be best by them; clean the data "
                "(drop or impute those rows)",
                NonFiniteDataWarning,
            )


def _floating_leaves(batch: Any, prefix: str = "") -> list[tuple[str, torch.Tensor]]:
    if isinstance(batch, torch.Tensor):
        return [(prefix or "input", batch)] if batch.is_floating_point() else []
    if isinstance(batch, dict):
        return [leaf for k, v in batch.items() for leaf in _floating_leaves(v, str(k))]
    if isinstance(batch, list | tuple):
        names = ("inputs", "targets") if len(batch) == 2 else [f"[{i}]" for i in range(len(batch))]
        return [leaf for n, v in zip(names, batch, strict=True) for leaf in _floating_leaves(v, n)]
    return []


def predict(
    model: nn.Module,
    data: Any,
    *,
    device: str | torch.device | None = None,
    precision: str = "fp32",
    batch_size: int = 256,
) -> torch.Tensor:
    """Model outputs for every sample of ``data``, concatenated on the CPU, in data order: one
    prediction per input.

    ``data`` may hold inputs only or inputs and targets: a tensor or array of inputs, a list of
    input tensors (one sample each, stacked), a dict of equal-length input tensors (keyword
    inputs), a Dataset, or a loader of batches; a batch is a tensor, a one-element tuple
    (``TensorDataset(X)``), a dict with or without labels, or ``(inputs, targets)``.
    """
    device = choose_device(device) if device is not None else model_device(model)
    model.to(device)
    data = _prediction_data(data)
    loader = make_loader(data, batch_size=batch_size, shuffle=False, device=device)
    policy = Precision(precision, device)
    dtype = floating_dtype(model)
    outputs = []
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode(), policy.autocast():
            for batch in loader:
                inputs = inputs_of(match_dtype(move_to(batch, device, non_blocking=True), dtype))
                outputs.append(logits_of(call_model(model, inputs)).float().cpu())
    finally:
        model.train(was_training)
    return torch.cat(outputs) if outputs else torch.empty(0)


def _prediction_data(data: Any) -> Any:
    """``data`` as something `make_loader` batches by sample: a list of same-shaped input
    tensors becomes one stacked tensor (not a tuple of columns), a dict of tensors a dataset
    of keyword-input rows."""
    if (
        isinstance(data, list)
        and data
        and all(isinstance(x, torch.Tensor | np.ndarray) for x in data)
    ):
        shapes = {tuple(x.shape) for x in data}
        if len(shapes) == 1:
            return torch.stack([torch.as_tensor(x) for x in data])
    if (
        isinstance(data, Mapping)
        and data
        and all(isinstance(x, torch.Tensor | np.ndarray) for x in data.values())
    ):
        return _DictRows({k: torch.as_tensor(v) for k, v in data.items()})
    return data


class _DictRows(torch.utils.data.Dataset):
    """Row ``i`` of every tensor of a dict, as a dict: keyword inputs, sample by sample."""

    def __init__(self, columns: dict[str, torch.Tensor]) -> None:
        lengths = {len(v) for v in columns.values()}
        if len(lengths) != 1:
            sizes = ", ".join(f"{k}: {len(v)}" for k, v in columns.items())
            raise DataError(f"the dict of inputs holds tensors of different lengths ({sizes})")
        self.columns, self.length = columns, lengths.pop()

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {k: v[index] for k, v in self.columns.items()}

    def get_batch(self, indices: list[int]) -> dict[str, torch.Tensor]:
        """A whole batch in one gather per tensor (the loader reads it so)."""
        index = torch.as_tensor(indices, dtype=torch.long)
        return {k: v[index] for k, v in self.columns.items()}


def model_device(model: nn.Module) -> torch.device:
    """The device of the model's first parameter (CPU for a model without parameters)."""
    param = next(model.parameters(), None)
    return param.device if param is not None else torch.device("cpu")
