"""What a batch holds: ``(inputs, targets)`` tuples or dicts (targets under ``labels``,
``targets``, ...; bookkeeping counts such as ``num_tokens`` never reach the model), its number
of samples, and its shapes described for error messages."""

from __future__ import annotations

from typing import Any

import torch

from trainwell.errors import DataError

TARGET_KEYS = ("labels", "targets", "target", "label", "y")


INPUT_KEYS = ("inputs", "input", "x")


#: Keys a collate adds for the loop's bookkeeping (counts for weighting), never model inputs.
#: ``train.weight_by`` names another; `bookkeeping_keys` adds it.
BOOKKEEPING_KEYS = frozenset({"num_tokens", "num_samples", "num_items_in_batch"})


#: The count a batch carries by default (`pad_collate`'s real tokens): a batch's mean loss is
#: weighted by it whenever it is there, with or without ``train.weight_by``.
COUNT_KEY = "num_tokens"


def count_in(batch: Any, key: str | None = None) -> Any:
    """The count a dict batch carries under ``key`` (default ``num_tokens``), else None."""
    key = key or COUNT_KEY
    if isinstance(batch, dict) and key in batch:
        return batch[key]
    return None


def bookkeeping_keys(weight_by: str | None = None) -> frozenset[str]:
    """The batch keys that are counts for the loop, not inputs of ``model.forward``."""
    return BOOKKEEPING_KEYS | {weight_by} if weight_by else BOOKKEEPING_KEYS


def split_batch(batch: Any, skip: frozenset[str] = BOOKKEEPING_KEYS) -> tuple[Any, Any]:
    """Split a batch into (inputs, targets).

    Tuples/lists are ``(inputs, targets)`` (more than two elements: all but the last are
    inputs). Dicts hold targets under ``labels``/``targets``/``target``/``label``/``y`` and
    inputs under ``inputs``/``input``/``x``, or else the remaining keys are keyword inputs,
    except the bookkeeping counts in ``skip`` (``num_tokens`` from `pad_collate`).
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
            inputs = {k: v for k, v in batch.items() if k != target_key and k not in skip}
            return inputs, batch[target_key]
    raise DataError(
        f"cannot unpack a batch of type {describe_value(batch)}: the loop expects (inputs, targets) "
        f"tuples or dicts with one of the keys {', '.join(TARGET_KEYS)}; for other formats pass "
        "step_fn=lambda model, batch: loss"
    )


def inputs_of(batch: Any, skip: frozenset[str] = BOOKKEEPING_KEYS) -> Any:
    """The model inputs of a batch that may hold no targets (what `predict` reads).

    A tensor is the inputs; a one-element tuple/list (``DataLoader(TensorDataset(X))``) is its
    element; a dict without a target key is its ``inputs``/``input``/``x`` entry, else its keys
    as keyword inputs (bookkeeping counts in ``skip`` left out); anything else is split as
    ``(inputs, targets)`` by `split_batch`.
    """
    if isinstance(batch, torch.Tensor):
        return batch
    if isinstance(batch, list | tuple) and len(batch) == 1:
        return batch[0]
    if isinstance(batch, dict) and not any(k in batch for k in TARGET_KEYS):
        input_key = next((k for k in INPUT_KEYS if k in batch), None)
        if input_key is not None:
            return batch[input_key]
        return {k: v for k, v in batch.items() if k not in skip}
    return split_batch(batch, skip)[0]


def describe_shapes(value: Any) -> str:
    """Shapes of a batch's tensors, e.g. ``(64, 10)`` or ``{'x': (64, 10), 'mask': (64,)}``."""
    if isinstance(value, torch.Tensor):
        return str(tuple(value.shape))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe_shapes(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "(" + ", ".join(describe_shapes(v) for v in value) + ")"
    return type(value).__name__


def batch_size_of(batch: Any) -> int:
    """The number of samples in a batch: the length of its first tensor (no host sync)."""
    if isinstance(batch, torch.Tensor):
        return batch.shape[0] if batch.dim() else 1
    if isinstance(batch, dict):
        return batch_size_of(next(iter(batch.values()))) if batch else 0
    if isinstance(batch, list | tuple) and batch:
        return batch_size_of(batch[0])
    return 1


def describe_value(value: Any) -> str:
    if isinstance(value, dict):
        return f"dict with keys {sorted(map(str, value))}"
    if isinstance(value, list | tuple):
        return f"{type(value).__name__} of {len(value)} elements"
    return type(value).__name__
