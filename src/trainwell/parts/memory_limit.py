"""Out of memory, said in one line: what was asked for, what is free, and what to lower."""

from __future__ import annotations

import os
import re
from typing import Any

import torch

_CPU_REQUEST = re.compile(r"tried to allocate (\d+) bytes", re.IGNORECASE)
_CUDA_REQUEST = re.compile(r"Tried to allocate ([\d.]+ [KMGT]?i?B)")
_CUDA_FREE = re.compile(r"of which ([\d.]+ [KMGT]?i?B) is free")


def out_of_memory(exc: BaseException, device: torch.device, batch_size: int) -> Any:
    """A `MemoryLimitError` of one line for an allocation failure (``torch.OutOfMemoryError``
    on a GPU, the CPU allocator's "can't allocate memory", Python's ``MemoryError``): what was
    asked for, what is free, and what to lower; None for any other error."""
    from trainwell.errors import MemoryLimitError

    text = str(exc)
    cuda = type(exc).__name__ == "OutOfMemoryError" or "CUDA out of memory" in text
    cpu = isinstance(exc, MemoryError) or "can't allocate memory" in text
    if not (cuda or cpu):
        return None
    asked = _CUDA_REQUEST.search(text) if cuda else _CPU_REQUEST.search(text)
    need = (asked.group(1) if cuda else _gib(int(asked.group(1)))) if asked else None
    free = _free_memory(text, device, cuda)
    where = f"{device.type.upper()} memory" if cuda else "RAM"
    what = f"an allocation of {need}" if need else "an allocation"
    return MemoryLimitError(
        f"out of {where}: {what} failed{f' with {free} free' if free else ''}; lower "
        f"data.batch_size (now {batch_size}) and keep the effective batch with "
        "train.accumulate_steps, or save memory with train.precision=bf16 or "
        "train.checkpoint_blocks"
    )


def _free_memory(text: str, device: torch.device, cuda: bool) -> str | None:
    if cuda:
        found = _CUDA_FREE.search(text)
        if found:
            return found.group(1)
        if torch.cuda.is_available() and device.type == "cuda":
            return _gib(torch.cuda.mem_get_info(device)[0])
        return None
    try:
        return _gib(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _gib(count: int) -> str:
    return f"{count / 2**30:.1f} GiB"
