"""How the loop reads a batch: ``(inputs, targets)`` tuples or dicts, moved to the device."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from trainwell.data.batch import batch_size_of, describe_shapes, describe_value, split_batch
from trainwell.errors import DataError, ShapeError


def call_model(model: nn.Module, inputs: Any) -> Any:
    """``model(inputs)``; tuples become positional arguments and dicts keyword arguments.

    A batch the model cannot take (e.g. 10 features into a layer built for 8) is a
    `ShapeError` naming the batch's shape and the layer that refused it.
    """
    try:
        return _forward(model, inputs)
    except RuntimeError as exc:
        if not _is_shape_error(exc):
            raise
        raise ShapeError(_explain_model_error(model, inputs, exc)) from None


def _forward(model: nn.Module, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


_SHAPE_ERROR_WORDS = (
    "cannot be multiplied",
    "size mismatch",
    "must match the size",
    "expected input",
    "to have",  # "expected ... to have 3 channels, but got 1 channels instead"
    "input.size(-1) must be equal",
    "normalized_shape",
    "shape '[",
)


def _is_shape_error(exc: RuntimeError) -> bool:
    text = str(exc).lower()
    return any(word in text for word in _SHAPE_ERROR_WORDS)


def _explain_model_error(model: nn.Module, inputs: Any, exc: RuntimeError) -> str:
    """One line: the batch's shapes, the innermost layer that was running, torch's reason."""
    layer = _failing_layer(model, inputs)
    where = f"layer {layer[0]!r} ({layer[1]})" if layer else f"model {type(model).__name__}"
    reason = str(exc).strip().splitlines()[0]
    return (
        f"the model cannot take this batch: inputs {describe_shapes(inputs)} reached {where}, "
        f"which refused them: {reason}. Make the data's shape match the model (features, "
        "channels, sequence layout) or change that layer's size"
    )


def _failing_layer(model: nn.Module, inputs: Any) -> tuple[str, str] | None:
    """Re-run the forward (eval mode, no grad) to find the innermost module that raised.

    Runs only after a failure, so a healthy step pays nothing for it.
    """
    names = {module: name for name, module in model.named_modules()}
    running: list[nn.Module] = []
    failed: list[nn.Module] = []

    def enter(module: nn.Module, args: Any) -> None:
        running.append(module)

    def leave(module: nn.Module, args: Any, output: Any) -> None:
        running.pop()

    handles = [m.register_forward_pre_hook(enter) for m in names]
    handles += [m.register_forward_hook(leave) for m in names]
    was_training = model.training
    try:
        model.eval()  # no BatchNorm statistics updated, no dropout randomness drawn
        with torch.no_grad():
            _forward(model, inputs)
    except RuntimeError:
        failed = list(running)
    finally:
        model.train(was_training)
        for handle in handles:
            handle.remove()
    if not failed:
        return None
    module = failed[-1]
    return names.get(module) or type(module).__name__, _short(module)


def _short(module: nn.Module) -> str:
    text = repr(module) if not list(module.children()) else type(module).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def unpack_step_output(result: Any, batch: Any) -> tuple[torch.Tensor, Any, Any]:
    """``(loss, outputs, targets)`` from what a ``step_fn`` returned.

    A step may return the loss alone, ``(loss, outputs)`` (targets are then read from the
    batch), ``(loss, outputs, targets)``, or a dict with ``loss`` and optionally
    ``outputs``/``logits`` and ``targets``. ``outputs`` is None when the step gave none.
    """
    if isinstance(result, torch.Tensor):
        return result, None, None
    if isinstance(result, dict) and "loss" in result:
        outputs = result.get("outputs", result.get("logits"))
        targets = result.get("targets")
    elif isinstance(result, list | tuple) and result and isinstance(result[0], torch.Tensor):
        outputs = result[1] if len(result) > 1 else None
        targets = result[2] if len(result) > 2 else None
        result = {"loss": result[0]}
    else:
        raise DataError(
            f"step_fn returned {describe_value(result)}; it must return the loss tensor, "
            "(loss, outputs), (loss, outputs, targets) or a dict with 'loss'"
        )
    if outputs is not None and targets is None:
        targets = split_batch(batch)[1]
    return result["loss"], logits_of(outputs) if outputs is not None else None, targets


def loss_of(result: Any) -> torch.Tensor:
    """The loss tensor of what a step returned (see `unpack_step_output`)."""
    if isinstance(result, torch.Tensor):
        return result
    if isinstance(result, dict) and "loss" in result:
        return result["loss"]
    if isinstance(result, list | tuple) and result and isinstance(result[0], torch.Tensor):
        return result[0]
    raise DataError(
        f"step_fn returned {describe_value(result)}; it must return the loss tensor, "
        "(loss, outputs), (loss, outputs, targets) or a dict with 'loss'"
    )


def loss_count(
    loss_fn: Any, targets: Any, batch: Any, count_key: str | None = None
) -> torch.Tensor | int:
    """What a batch's mean loss averaged over, so means of batches add up exactly.

    The batch's own count (``count_key``, e.g. ``num_tokens``) when it has one; for a loss
    with ``ignore_index`` (CrossEntropyLoss, NLLLoss) the targets that are not ignored
    (weighted by the class weights, as the loss's mean is); else the number of samples. A
    ``reduction="sum"`` loss is already a sum: its count is the number of samples too.
    Stays on the device (no host sync).
    """
    if count_key and isinstance(batch, dict) and count_key in batch:
        return batch[count_key]
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
        f"cannot find the prediction tensor in a model output of type {describe_value(output)}"
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
