"""The loss of a supervised batch, exact and explained: ``loss(prediction, targets)`` with
shape and label errors turned into messages, the checks of the first batch (class range,
element-wise shapes), and the count a batch's mean loss averages over (`loss_count`), so
means of batches add up to the exact mean over a dataset."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from trainwell.data.batch import batch_size_of, count_in
from trainwell.errors import DataError, ShapeError


class _ModelLoss:
    """How `loss_count` reads a model's own loss (``outputs.loss``): a mean over the targets
    that are not -100 (the HF convention), else over the samples."""

    ignore_index = -100
    reduction = "mean"
    weight = None


MODEL_LOSS = _ModelLoss()


def loss_count(
    loss_fn: Any, targets: Any, batch: Any, count_key: str | None = None
) -> torch.Tensor | int:
    """What a batch's mean loss averaged over, so means of batches add up exactly.

    The batch's own count when it has one (``count_key``, else ``num_tokens``: a padded
    batch's real tokens, so the mean is exact over tokens with or without ``weight_by``); for a loss
    with ``ignore_index`` (CrossEntropyLoss, NLLLoss) the targets that are not ignored
    (weighted by the class weights, as the loss's mean is); else the number of samples. A
    ``reduction="sum"`` loss is already a sum: its count is the number of samples too.
    Stays on the device (no host sync).
    """
    own = count_in(batch, count_key)
    if own is not None:
        return own
    ignore_index = getattr(loss_fn, "ignore_index", None)
    if loss_fn in (torch.nn.functional.cross_entropy, torch.nn.functional.nll_loss):
        ignore_index = -100
    if (
        ignore_index is not None
        and getattr(loss_fn, "reduction", "mean") == "mean"
        and isinstance(targets, torch.Tensor)
        and not targets.is_floating_point()
    ):
        counted = targets != ignore_index
        weight = getattr(loss_fn, "weight", None)
        if weight is not None:
            return (weight.to(targets.device)[targets.clamp(min=0)] * counted).sum()
        return counted.sum()
    if isinstance(targets, torch.Tensor) and targets.dim():
        return targets.shape[0]
    return batch_size_of(batch)


def compute_loss(loss_fn: Any, prediction: torch.Tensor, targets: Any) -> torch.Tensor:
    """``loss_fn(prediction, targets)``, turning shape and label errors into clear messages."""
    try:
        return loss_fn(prediction, targets)
    except (RuntimeError, ValueError, IndexError) as exc:
        raise _explain_loss_error(exc, prediction, targets, loss_fn) from None


def _explain_loss_error(exc: Exception, prediction: Any, targets: Any, loss_fn: Any) -> Exception:
    text = str(exc).splitlines()[0]
    if isinstance(prediction, torch.Tensor) and isinstance(targets, torch.Tensor):
        shapes = f"model output {tuple(prediction.shape)}, targets {tuple(targets.shape)}"
        if "out of bounds" in text and prediction.dim() >= 2:
            return DataError(
                f"labels must be class indices in [0, {prediction.shape[1]}) for a model with "
                f"{prediction.shape[1]} outputs ({text}); fix the labels or the model's output size"
            )
        return ShapeError(
            f"the loss {_name(loss_fn)} cannot take {shapes}: {text}. For classification with "
            "CrossEntropyLoss the output is (N, C) logits and the targets (N,) class indices"
        )
    return ShapeError(f"the loss {_name(loss_fn)} failed: {text}")


def check_class_targets(prediction: torch.Tensor, targets: torch.Tensor, loss_fn: Any) -> None:
    """Once, before training: integer labels must lie in [0, num_classes), over more than one
    class (a softmax over one class is 1: the loss is 0 whatever the model does).

    On CUDA an out-of-range label is a device-side assert that kills the process, so it is
    checked here on the first batch instead (one host sync per run).
    """
    if not _is_class_index_loss(loss_fn) or prediction.dim() < 2:
        return
    if prediction.shape[1] == 1:
        raise ShapeError(
            f"the loss {_name(loss_fn)} is over classes, but the model output "
            f"{tuple(prediction.shape)} has one: the loss is 0 whatever the model predicts. "
            "For regression pass loss=nn.MSELoss() (or another), for one binary output "
            "nn.BCEWithLogitsLoss()"
        )
    if targets.is_floating_point():
        return
    num_classes = prediction.shape[1]
    ignore = getattr(loss_fn, "ignore_index", -100)
    valid = targets[targets != ignore]
    if valid.numel() == 0:
        return
    low, high = int(valid.min()), int(valid.max())
    if low < 0 or high >= num_classes:
        bad = low if low < 0 else high
        raise DataError(
            f"labels must be class indices in [0, {num_classes}) for a model with {num_classes} "
            f"outputs, but the batch holds label {bad}; fix the labels or the model's output size"
        )


#: Losses that compare prediction and target element by element: their shapes must match,
#: or PyTorch broadcasts them (a silent, wrong loss, with only a UserWarning).
ELEMENTWISE_LOSSES: tuple[type, ...] = (
    nn.MSELoss,
    nn.L1Loss,
    nn.SmoothL1Loss,
    nn.HuberLoss,
    nn.BCELoss,
    nn.BCEWithLogitsLoss,
)


ELEMENTWISE_FUNCTIONS = {
    torch.nn.functional.mse_loss,
    torch.nn.functional.l1_loss,
    torch.nn.functional.smooth_l1_loss,
    torch.nn.functional.huber_loss,
    torch.nn.functional.binary_cross_entropy,
    torch.nn.functional.binary_cross_entropy_with_logits,
}


def check_elementwise_shapes(prediction: Any, targets: Any, loss_fn: Any) -> None:
    """Once, before training: element-wise losses need prediction and targets of one shape."""
    elementwise = isinstance(loss_fn, ELEMENTWISE_LOSSES) or loss_fn in ELEMENTWISE_FUNCTIONS
    if not (
        elementwise and isinstance(prediction, torch.Tensor) and isinstance(targets, torch.Tensor)
    ):
        return
    if prediction.shape != targets.shape:
        hint = ""
        if prediction.dim() == targets.dim() + 1 and prediction.shape[-1] == 1:
            hint = " (squeeze the model's last dimension, or give targets shape (N, 1))"
        raise ShapeError(
            f"the loss {_name(loss_fn)} compares element by element, but the model output is "
            f"{tuple(prediction.shape)} and the targets {tuple(targets.shape)}: PyTorch would "
            f"broadcast them into a wrong loss{hint}"
        )


def _is_class_index_loss(loss_fn: Any) -> bool:
    if isinstance(loss_fn, nn.CrossEntropyLoss | nn.NLLLoss):
        return True
    return loss_fn in (torch.nn.functional.cross_entropy, torch.nn.functional.nll_loss)


def _name(loss_fn: Any) -> str:
    return getattr(loss_fn, "__name__", type(loss_fn).__name__)
