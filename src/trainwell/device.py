"""Device choice: cuda > mps > cpu unless the user names one."""

from __future__ import annotations

import torch

from trainwell.errors import ConfigError


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
