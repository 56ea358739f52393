"""Device choice: cuda > mps > cpu unless the user names one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from trainwell.errors import ConfigError, warn_at_user


def choose_device(preference: str | torch.device | None = "auto") -> torch.device:
    """The device to train on: the best available for ``"auto"``, else the one named.

    A named device that is not available raises `ConfigError` instead of failing later.
    """
    if isinstance(preference, torch.device):
        return preference
    if preference in (None, "auto"):
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        device = torch.device(preference)
    except RuntimeError:
        raise ConfigError(
            f"run.device={preference!r} is not a device; use auto, cpu, cuda, cuda:N or mps"
        ) from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            "run.device=cuda but CUDA is not available here; use run.device=auto or cpu"
        )
    if (
        device.type == "cuda"
        and device.index is not None
        and device.index >= torch.cuda.device_count()
    ):
        raise ConfigError(
            f"run.device={preference} but only {torch.cuda.device_count()} CUDA device(s) exist"
        )
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(
            "run.device=mps but MPS is not available here; use run.device=auto or cpu"
        )
    return device


def move_to(batch, device: torch.device, non_blocking: bool = False):
    """Move every tensor of a (nested) batch to ``device``; other values pass through."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return {k: move_to(v, device, non_blocking) for k, v in batch.items()}
    if isinstance(batch, list | tuple):
        moved = [move_to(v, device, non_blocking) for v in batch]
        return type(batch)(moved) if not hasattr(batch, "_fields") else type(batch)(*moved)
    return batch


class InputDtypeWarning(UserWarning):
    """Floating data of another dtype than the model's (float64 from NumPy) was cast to it."""


_NOTED: set[tuple[torch.dtype, torch.dtype]] = set()  # (data, model) dtypes already noted


def match_dtype(batch: Any, dtype: torch.dtype | None) -> Any:
    """Every floating tensor of a (nested) batch in the model's floating ``dtype``.

    NumPy and scikit-learn give float64, which a float32 layer refuses (``mat1 and mat2 must
    have the same dtype``): such data is cast, and the cast is noted once per pair of dtypes.
    Integer tensors (class indices, token ids, counts) are left alone.
    """
    if dtype is None:
        return batch
    if isinstance(batch, torch.Tensor):
        if batch.is_floating_point() and batch.dtype != dtype:
            _note_cast(batch.dtype, dtype)
            return batch.to(dtype)
        return batch
    if isinstance(batch, dict):
        return {k: match_dtype(v, dtype) for k, v in batch.items()}
    if isinstance(batch, list | tuple):
        cast = [match_dtype(v, dtype) for v in batch]
        return type(batch)(*cast) if hasattr(batch, "_fields") else type(batch)(cast)
    return batch


def _note_cast(given: torch.dtype, dtype: torch.dtype) -> None:
    if (given, dtype) in _NOTED:
        return
    _NOTED.add((given, dtype))
    short = str(given).removeprefix("torch."), str(dtype).removeprefix("torch.")
    warn_at_user(
        f"the data is {short[0]} and the model {short[1]}: floating inputs and targets are cast "
        f"to {short[1]} as each batch is used; convert the data once to skip the cast "
        f"(X.astype('float32') for numpy, X.float() for tensors)",
        InputDtypeWarning,
    )


def tf32_capable(device: torch.device) -> bool:
    """Whether ``device`` has TF32 Tensor Cores (NVIDIA Ampere, compute capability 8.0, or newer)."""
    if device.type != "cuda" or not torch.cuda.is_available():
        return False
    return torch.cuda.get_device_capability(device)[0] >= 8


@contextlib.contextmanager
def fast_kernels(
    device: torch.device,
    *,
    deterministic: bool,
    matmul_precision: str = "auto",
    cudnn_benchmark: bool | None = None,
    static_shapes: bool = False,
) -> Iterator[dict[str, Any]]:
    """The GPU throughput settings for the block, restored afterwards (they are process-wide).

    - float32 matmul precision: ``auto`` is ``high`` (TF32 Tensor Cores: ~8x the float32
      matmul rate, a 10-bit mantissa in the products, float32 accumulation) on Ampere or newer
      unless ``run.deterministic``; elsewhere PyTorch's own default stays. Under bf16/fp16
      autocast the matmuls are in low precision anyway; this is for what runs in float32.
    - cuDNN autotuning (``cudnn.benchmark``): ``None`` means on for CUDA when the run is not
      deterministic and the training batches have static shapes (tensor data: one shape, plus
      the short last batch, each tuned once). With shapes that vary, every new shape would be
      tuned again, so it stays off.

    Yields what was chosen, for the start-of-run line and the summary.
    """
    before = (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
    chosen: dict[str, Any] = {}
    if matmul_precision == "auto":
        if tf32_capable(device) and not deterministic:
            chosen["matmul_precision"] = "high"
    else:
        chosen["matmul_precision"] = matmul_precision
    if cudnn_benchmark is None:
        cudnn_benchmark = device.type == "cuda" and not deterministic and static_shapes
    if cudnn_benchmark and deterministic:
        raise ConfigError(
            "train.cudnn_benchmark=true picks kernels by timing, which run.deterministic=true "
            "forbids; set one of them to false"
        )
    if device.type == "cuda":
        chosen["cudnn_benchmark"] = bool(cudnn_benchmark)
    try:
        if "matmul_precision" in chosen:
            torch.set_float32_matmul_precision(chosen["matmul_precision"])
        if "cudnn_benchmark" in chosen:
            torch.backends.cudnn.benchmark = chosen["cudnn_benchmark"]
        yield chosen
    finally:
        torch.set_float32_matmul_precision(before[0])
        torch.backends.cudnn.benchmark = before[1]


def to_channels_last(batch: Any) -> Any:
    """4-D floating tensors of a (nested) batch in channels-last memory format (NHWC)."""
    if isinstance(batch, torch.Tensor):
        if batch.dim() == 4 and batch.is_floating_point():
            return batch.contiguous(memory_format=torch.channels_last)
        return batch
    if isinstance(batch, dict):
        return {k: to_channels_last(v) for k, v in batch.items()}
    if isinstance(batch, list | tuple):
        moved = [to_channels_last(v) for v in batch]
        return type(batch)(moved) if not hasattr(batch, "_fields") else type(batch)(*moved)
    return batch
