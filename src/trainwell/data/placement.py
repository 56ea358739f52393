"""Where batches live: in-memory data moved to the GPU once, or pinned host batches.

Data that fits on the GPU is copied there once, so every batch is a gather on the device and
nothing crosses PCIe per step. Data that does not fit is gathered into page-locked (pinned)
host memory, which lets the loop's ``.to(device, non_blocking=True)`` overlap the copy with
compute (a copy from pageable memory is staged and synchronous).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

#: Default share of the GPU's free memory in-memory data may take (the rest is for the model,
#: its activations and the optimizer state).
DEVICE_FRACTION = 0.25

#: torch dtypes numpy holds too (the others, e.g. bfloat16 and float8, are gathered by torch).
_IN_NUMPY = {
    torch.float16,
    torch.float32,
    torch.float64,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
    torch.complex64,
    torch.complex128,
}

MemGetInfo = Callable[[torch.device], tuple[int, int]]


def nbytes_of(tensors: Sequence[torch.Tensor]) -> int:
    """Bytes held by ``tensors``."""
    return sum(t.numel() * t.element_size() for t in tensors)


def fits_on_device(
    nbytes: int,
    device: torch.device | str | None,
    max_fraction: float = DEVICE_FRACTION,
    *,
    mem_get_info: MemGetInfo | None = None,
) -> tuple[bool, str]:
    """Whether ``nbytes`` of data should move to ``device`` once, and why (one line).

    Only CUDA devices qualify (on the CPU the data is already where the model is); the data
    must fit in ``max_fraction`` of the device's free memory. ``mem_get_info`` defaults to
    ``torch.cuda.mem_get_info`` (injectable for tests).
    """
    if device is None:
        return False, "no device given: batches stay on the host"
    device = torch.device(device)
    if device.type != "cuda":
        return False, f"training on {device.type}: the data is already in the memory it reads from"
    if max_fraction <= 0:
        return False, "placing data on the GPU is switched off (fraction 0)"
    free, _total = (mem_get_info or _cuda_mem_get_info)(device)
    budget = max_fraction * free
    mb = nbytes / 2**20
    if nbytes <= budget:
        return True, (
            f"data ({mb:,.0f} MB) fits in {max_fraction:.0%} of the GPU's free "
            f"{free / 2**20:,.0f} MB: moved there once, batches are gathered on the GPU"
        )
    return False, (
        f"data ({mb:,.0f} MB) exceeds {max_fraction:.0%} of the GPU's free {free / 2**20:,.0f} MB: "
        "batches are gathered into pinned host memory and copied asynchronously"
    )


def place_tensors(
    tensors: Sequence[torch.Tensor],
    device: torch.device | str | None,
    max_fraction: float = DEVICE_FRACTION,
    *,
    mem_get_info: MemGetInfo | None = None,
) -> tuple[tuple[torch.Tensor, ...], str]:
    """``tensors`` moved to ``device`` if they fit there (see `fits_on_device`), and the reason."""
    tensors = tuple(tensors)
    if device is not None and all(t.device == torch.device(device) for t in tensors):
        return tensors, f"data is already on {device}"
    fits, reason = fits_on_device(
        nbytes_of(tensors), device, max_fraction, mem_get_info=mem_get_info
    )
    if not fits:
        return tensors, reason
    return tuple(t.to(device) for t in tensors), reason


def wants_pinned_batches(device: torch.device | str | None, pin_memory: bool | None) -> bool:
    """``pin_memory`` if given, else on exactly when training on CUDA (pinning is free of use elsewhere)."""
    if pin_memory is not None:
        return pin_memory and torch.cuda.is_available()
    return device is not None and torch.device(device).type == "cuda"


def host_array(tensor: torch.Tensor) -> np.ndarray | None:
    """A numpy view of a CPU tensor (shared memory), or None where numpy cannot hold it.

    `gather` uses it because numpy's single-threaded ``take`` is both faster than torch's
    advanced indexing for row gathers and immune to a stall that torch's parallel gather hits
    when other processes keep the cores busy (measured on a shared 2-core machine: 7 ms per
    batch instead of 0.06 ms; see docs/data.md).
    """
    if tensor.device.type != "cpu" or tensor.dtype not in _IN_NUMPY or tensor.is_conj():
        return None
    try:
        return tensor.detach().numpy()
    except (RuntimeError, TypeError):  # e.g. quantized or sparse tensors
        return None


def gather(
    tensor: torch.Tensor,
    index: torch.Tensor,
    pinned: bool = False,
    *,
    array: np.ndarray | None = None,
    array_index: np.ndarray | None = None,
) -> torch.Tensor:
    """Rows ``index`` of ``tensor`` as a new tensor (in pinned memory if ``pinned``).

    With ``array`` (``host_array(tensor)``) and ``array_index`` (``index`` as numpy) the rows
    are gathered by ``np.take``; otherwise by ``torch.index_select`` (GPU tensors, and dtypes
    numpy lacks). Writing straight into a fresh pinned buffer saves the extra copy of
    ``tensor[index].pin_memory()``; PyTorch's caching host allocator reuses the buffers and
    knows when an async copy still reads one, so reuse is safe without our own events.
    """
    out = None
    if pinned:
        out = torch.empty((len(index), *tensor.shape[1:]), dtype=tensor.dtype, pin_memory=True)
    if array is not None and array_index is not None:
        if out is None:
            return torch.from_numpy(np.take(array, array_index, axis=0))
        np.take(array, array_index, axis=0, out=out.numpy())
        return out
    if out is None:
        return torch.index_select(tensor, 0, index)
    return torch.index_select(tensor, 0, index, out=out)


def pin_batch(batch: Any) -> Any:
    """Every CPU tensor of a (nested) batch in pinned memory; other values unchanged."""
    if isinstance(batch, torch.Tensor):
        return batch.pin_memory() if batch.device.type == "cpu" else batch
    if isinstance(batch, dict):
        return {k: pin_batch(v) for k, v in batch.items()}
    if isinstance(batch, list | tuple):
        pinned = [pin_batch(v) for v in batch]
        return type(batch)(*pinned) if hasattr(batch, "_fields") else type(batch)(pinned)
    return batch


def _cuda_mem_get_info(device: torch.device) -> tuple[int, int]:
    return torch.cuda.mem_get_info(device)
