"""How the loop reads a batch: ``(inputs, targets)`` tuples or dicts, moved to the device."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from trainwell.errors import DataError, ShapeError

TARGET_KEYS = ("labels", "targets", "target", "label", "y")
INPUT_KEYS = ("inputs", "input", "x")


def split_batch(batch: Any) -> tuple[Any, Any]:
    """Split a batch into (inputs, targets).

    Tuples/lists are ``(inputs, targets)`` (more than two elements: all but the last are
    inputs). Dicts hold targets under ``labels``/``targets``/``target``/``label``/``y`` and
    inputs under ``inputs``/``input``/``x``, or else the remaining keys are keyword inputs.
    """
    if isinstance(batch, list | tuple):
        if len(batch) == 2:
            return batch[0], batch[1]
        if len(batch) > 2:
            return tuple(batch[:-1]), batch[-1]
    if isinstance(batch, dict):
        target_key = next((k for k in TARGET_KEYS if k in batch), None)
        if target_key is not None:
            input_key = next((k for k in INPUT_KEYS if k in batch), None)
            if input_key is not None:
                return batch[input_key], batch[target_key]
            return {k: v for k, v in batch.items() if k != target_key}, batch[target_key]
    raise DataError(
        f"cannot unpack a batch of type {_describe(batch)}: the loop expects (inputs, targets) "
        f"tuples or dicts with one of the keys {', '.join(TARGET_KEYS)}; for other formats pass "
        "step_fn=lambda model, batch: loss"
    )


def call_model(model: nn.Module, inputs: Any) -> Any:
    """``model(inputs)``; tuples become positional arguments and dicts keyword arguments."""
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


def batch_size_of(batch: Any) -> int:
    """The number of samples in a batch: the length of its first tensor (no host sync)."""
    if isinstance(batch, torch.Tensor):
        return batch.shape[0] if batch.dim() else 1
    if isinstance(batch, dict):
        return batch_size_of(next(iter(batch.values()))) if batch else 0
    if isinstance(batch, list | tuple) and batch:
        return batch_size_of(batch[0])
    return 1


def logits_of(output: Any) -> torch.Tensor:
    """The prediction tensor of a model output (a tensor, or HF-style ``.logits``/dict)."""
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, dict) and "logits" in output:
        return output["logits"]
    if hasattr(output, "logits"):
        return output.logits
    if isinstance(output, tuple | list) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    raise DataError(
        f"cannot find the prediction tensor in a model output of type {_describe(output)}"
    )


def compute_loss(loss_fn: Any, output: Any, targets: Any) -> torch.Tensor:
    """``loss_fn(output, targets)``, turning shape and label errors into clear messages."""
    prediction = logits_of(output)
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
    """Once, before training: integer labels must lie in [0, num_classes).

    On CUDA an out-of-range label is a device-side assert that kills the process, so it is
    checked here on the first batch instead (one host sync per run).
    """
    if not _is_class_index_loss(loss_fn) or targets.is_floating_point() or prediction.dim() < 2:
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


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"dict with keys {sorted(map(str, value))}"
    if isinstance(value, list | tuple):
        return f"{type(value).__name__} of {len(value)} elements"
    return type(value).__name__
