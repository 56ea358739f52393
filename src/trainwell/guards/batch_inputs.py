"""The inputs of a step's forwards, kept for the non-finite guard: which input batch held
inf/NaN when a step's gradients went non-finite (`trainwell.guards.nonfinite`).

Each graph-building forward keeps, per floating input tensor, the tensor itself when small (by
reference, with its version counter: no device op) or else its float32 sum on the device (NaN
and inf propagate into a sum; one small kernel); looked at only when the gradients went bad.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

MAX_INPUTS = 8  # floating input tensors flagged per forward
FIRST_INPUT = ["input 0"]  # the name of a forward's one positional tensor (shared, never changed)
KEEP = 16_384  # inputs up to this many elements are kept by reference until the read


@dataclass(slots=True)
class InputCheck:
    """One graph-building forward's inputs: names and shapes on the host; each input itself
    when small (by reference: no device op), else its float32 sum on the device."""

    step: int  # optimizer steps done when the forward ran
    index: int  # forwards since that step began (micro-batch index under accumulation)
    names: list[str]
    shapes: list[tuple[int, ...]]
    dtypes: list[torch.dtype]
    values: list[torch.Tensor]  # the input (small), or its sum: NaN/inf propagate into it
    versions: list[int | None]  # the kept input's version counter then (None: a sum)


def keep_input(tensor: torch.Tensor) -> tuple[torch.Tensor, int | None]:
    """A small input by reference (its version tells a later in-place change), a large one as
    its sum (one small kernel)."""
    if tensor.requires_grad:
        tensor = tensor.detach()  # no graph kept alive
    if tensor.numel() <= KEEP:
        return tensor, tensor._version
    return tensor.sum(dtype=torch.float32), None


def step_of(entry: InputCheck | tuple[int, torch.Tensor, int]) -> int:
    """The optimizer step a kept forward's inputs belong to."""
    return entry.step if isinstance(entry, InputCheck) else entry[0]


def checks_of(step: int, inputs: deque) -> list[InputCheck]:
    """The floating inputs of each forward of ``step``, in order (``index``: its place)."""
    checks = []
    for index, entry in enumerate(e for e in inputs if step_of(e) == step):
        if isinstance(entry, InputCheck):
            entry.index = index
            checks.append(entry)
        elif is_floating(tensor := entry[1]):
            shape, dtype = tuple(tensor.shape), tensor.dtype
            checks.append(
                InputCheck(step, index, FIRST_INPUT, [shape], [dtype], [tensor], [entry[2]])
            )
    return checks


def kept_sum(value: torch.Tensor, version: int | None) -> torch.Tensor:
    """The float32 sum of a kept input (0 when it was changed in place since: a reused buffer
    no longer tells), or the sum already taken."""
    if version is None:
        return value
    return value.sum(dtype=torch.float32) if value._version == version else torch.zeros(())


def floating_inputs(args: tuple, kwargs: Mapping[str, Any]) -> Iterator[tuple[str, torch.Tensor]]:
    """(name, tensor) of the floating tensors a forward got: ``input 0``, ``input 'image'``."""
    single = len(args) == 1 and not kwargs
    items = [(f"input {i}", a, single and isinstance(a, Mapping)) for i, a in enumerate(args)]
    items += [(f"input {k!r}", v, False) for k, v in kwargs.items()]
    return first_floating(items)


def input_check(step: int, found: list[tuple[str, torch.Tensor]]) -> InputCheck:
    """A forward's or a batch's named floating tensors, kept for the read."""
    kept = [keep_input(t) for _, t in found]
    return InputCheck(
        step,
        0,  # set when looked at
        [name for name, _ in found],
        [tuple(t.shape) for _, t in found],
        [t.dtype for _, t in found],
        [value for value, _ in kept],
        [version for _, version in kept],
    )


def floating_batch(batch: Any) -> Iterator[tuple[str, torch.Tensor]]:
    """(name, tensor) of a batch's floating tensors: ``input 0`` (a tensor, or the first of a
    tuple), ``batch[1]``, ``input 'image'`` (a dict's)."""
    if isinstance(batch, Mapping):
        items = [(f"input {key!r}", value, False) for key, value in batch.items()]
    elif isinstance(batch, list | tuple):
        items = [("input 0" if j == 0 else f"batch[{j}]", v, False) for j, v in enumerate(batch)]
    else:
        items = [("input 0", batch, False)]
    return first_floating(items)


def first_floating(items: list[tuple[str, Any, bool]]) -> Iterator[tuple[str, torch.Tensor]]:
    """The first `MAX_INPUTS` floating tensors in (name, value, bare) items, named."""
    found = 0
    for name, value, bare in items:
        for sub, tensor in tensors_named(value, name, bare):
            if found == MAX_INPUTS:
                return
            if is_floating(tensor):
                found += 1
                yield sub, tensor


def is_floating(tensor: torch.Tensor) -> bool:
    """A non-empty floating-point tensor (one that can hold inf/NaN)."""
    return tensor.is_floating_point() and tensor.numel() > 0


def tensors_named(value: Any, name: str, bare: bool, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(name, value) of the tensors in ``value``, two containers deep."""
    if isinstance(value, torch.Tensor):
        yield name, value
    elif depth < 2 and isinstance(value, Mapping):
        for key, item in value.items():
            sub = f"input {key!r}" if bare else f"{name}[{key!r}]"
            yield from tensors_named(item, sub, False, depth + 1)
    elif depth < 2 and isinstance(value, list | tuple):
        for j, item in enumerate(value):
            yield from tensors_named(item, f"{name}[{j}]", False, depth + 1)


def shape_text(shape: tuple[int, ...]) -> str:
    """``(16, 4)``, ``(16,)``: a shape as a message shows it."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
