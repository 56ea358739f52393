"""One reading of what a model returns, shared by the loss, metrics, guards and `predict`.

A model may return:

* a tensor: the prediction;
* a tuple or list: its first tensor is the prediction;
* a dict, or an HF-style ``ModelOutput``: ``logits`` is the prediction, ``loss`` the model's
  own loss when it computed one;
* a dataclass, or any object with ``logits``/``loss`` attributes: the same by attribute (a
  dataclass without ``logits`` gives its first tensor field).

`logits_of` finds the prediction, `model_loss_of` the model's own loss, `tensors_in` every
tensor (what the runtime guards hook). `call_model` calls a model on a batch's inputs, with
``labels=`` when its ``forward`` takes them (the HF habit); `loss_of` and
`unpack_step_output` read what a ``step_fn`` returns.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Iterator, Mapping
from typing import Any

import torch
from torch import nn

from trainwell.data.batch import describe_shapes, describe_value, split_batch
from trainwell.errors import DataError, ShapeError

#: the names under which a model output holds its prediction and its own loss
PREDICTION, LOSS = "logits", "loss"


def logits_of(output: Any) -> torch.Tensor:
    """The prediction tensor of a model output (see the module docstring)."""
    if isinstance(output, torch.Tensor):
        return output
    found = _named(output, PREDICTION)
    if found is not None:
        return found
    if isinstance(output, tuple | list) or _is_dataclass_instance(output):
        first = next(_direct_tensors(output), None)
        if first is not None:
            return first
    raise DataError(
        f"cannot find the prediction tensor in a model output of type {describe_value(output)}: "
        f"return the prediction as a tensor, as the first element of a tuple, or under the "
        f"name {PREDICTION!r} (a dict key, a dataclass field or an attribute)"
    )


def model_loss_of(output: Any) -> torch.Tensor | None:
    """The loss a model computed itself (``output.loss`` / ``output["loss"]``), or None."""
    if isinstance(output, torch.Tensor | tuple | list):
        return None
    return _named(output, LOSS)


def tensors_in(output: Any, depth: int = 3) -> Iterator[torch.Tensor]:
    """Every tensor in a model output, in order, nested up to ``depth`` containers deep."""
    if isinstance(output, torch.Tensor):
        yield output
        return
    if depth == 0:
        return
    for value in _children(output):
        yield from tensors_in(value, depth - 1)


def _named(output: Any, name: str) -> torch.Tensor | None:
    """``output[name]`` or ``output.name`` when it is a tensor (HF outputs hold None there
    when the model did not compute it)."""
    value = output.get(name) if isinstance(output, Mapping) else getattr(output, name, None)
    return value if isinstance(value, torch.Tensor) else None


def _children(output: Any) -> list[Any]:
    if isinstance(output, Mapping):
        return list(output.values())
    if isinstance(output, tuple | list):
        return list(output)
    if _is_dataclass_instance(output):
        return [getattr(output, f.name) for f in dataclasses.fields(output)]
    return [v for v in (_named(output, PREDICTION), _named(output, LOSS)) if v is not None]


def _direct_tensors(output: Any) -> Iterator[torch.Tensor]:
    return (v for v in _children(output) if isinstance(v, torch.Tensor))


def _is_dataclass_instance(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def accepts_labels(model: nn.Module) -> bool:
    """Whether ``model.forward`` takes a ``labels`` argument (HF models compute their own
    loss from it); the model inside a DDP or ``torch.compile`` wrapper is asked."""
    inner = getattr(model, "module", None) or getattr(model, "_orig_mod", None) or model
    return _forward_takes_labels(type(inner))


@functools.lru_cache(maxsize=256)
def _forward_takes_labels(cls: type) -> bool:
    try:
        parameters = inspect.signature(cls.forward).parameters
    except (TypeError, ValueError):
        return False
    return "labels" in parameters


def call_model(model: nn.Module, inputs: Any, *, labels: Any = None) -> Any:
    """``model(inputs)``; tuples become positional arguments and dicts keyword arguments, and
    ``labels`` (when given) the keyword argument ``labels``.

    A batch the model cannot take (e.g. 10 features into a layer built for 8) is a
    `ShapeError` naming the batch's shape and the layer that refused it. A batch of the wrong
    dtype (integer features into a float layer) is a `DataError` naming the dtypes and the
    fix.
    """
    try:
        return _forward(model, inputs, labels)
    except ValueError as exc:
        if "Expected more than 1 value per channel" not in str(exc):
            raise
        raise ShapeError(
            f"a training batch of 1 sample (inputs {describe_shapes(inputs)}) reached BatchNorm, "
            "which needs at least 2 samples per batch in training mode; set data.drop_last=true "
            "(or DataLoader(drop_last=True)) so a last batch of 1 is dropped, pick a "
            "data.batch_size that leaves no batch of 1, or use GroupNorm/LayerNorm"
        ) from None
    except RuntimeError as exc:
        if _is_dtype_error(exc):
            raise DataError(_explain_dtype_error(model, inputs, exc)) from None
        if not _is_shape_error(exc):
            raise
        raise ShapeError(_explain_model_error(model, inputs, exc)) from None


_DTYPE_ERROR_WORDS = (
    "must have the same dtype",  # mat1 and mat2 must have the same dtype, but got Long and Float
    "and bias type",  # Input type (long int) and bias type (float) should be the same
    "expected scalar type",
    "found dtype",
    "expected both inputs to have same dtype",
)


def _is_dtype_error(exc: RuntimeError) -> bool:
    text = str(exc).lower()
    if "cuda" in text or "device" in text:  # a tensor on the wrong device, not a wrong dtype
        return False
    return any(word in text for word in _DTYPE_ERROR_WORDS)


def _explain_dtype_error(model: nn.Module, inputs: Any, exc: RuntimeError) -> str:
    """One line: the inputs' dtypes, the model's, torch's reason, and the fix."""
    weights = floating_dtype(model)
    given = sorted({str(t.dtype).removeprefix("torch.") for t in _tensors(inputs)})
    reason = str(exc).strip().splitlines()[0]
    want = str(weights).removeprefix("torch.") if weights else "float"
    return (
        f"the model's weights are {want} but the inputs are {', '.join(given) or 'not tensors'} "
        f"({reason}): convert the features to floats before training (X.float(), or "
        f"X.astype('float32') for numpy); integer inputs are only for embeddings (token ids)"
    )


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _tensors(item)


def floating_dtype(model: nn.Module) -> torch.dtype | None:
    """The dtype of the model's first floating parameter (None when it has none)."""
    for param in model.parameters():
        if param.is_floating_point():
            return param.dtype
    return None


def _forward(model: nn.Module, inputs: Any, labels: Any = None) -> Any:
    if labels is not None:
        return _forward_with_labels(model, inputs, labels)
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


def _forward_with_labels(model: nn.Module, inputs: Any, labels: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs, labels=labels)
    if isinstance(inputs, tuple):
        return model(*inputs, labels=labels)
    return model(inputs, labels=labels)


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


# --------------------------------------------------------------------------- step outputs


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
    if isinstance(result, list | tuple) and result and isinstance(result[0], torch.Tensor):
        return result[0]
    own = model_loss_of(result)  # a dict, a dataclass or an HF-style output with its loss
    if own is not None:
        return own
    raise DataError(
        f"step_fn returned {describe_value(result)}; it must return the loss tensor, "
        "(loss, outputs), (loss, outputs, targets) or a dict with 'loss'"
    )
