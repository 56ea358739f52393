"""Strategies by name: ``run.strategy`` (``auto``, ``single``, ``ddp``, ``fsdp``, or a name
registered with `register_strategy`) becomes one strategy object, built once per run."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from trainwell.parts.device import choose_device
from trainwell.strategy.ddp import DDP
from trainwell.strategy.process import _local_device, fits_one_device, launched
from trainwell.strategy.single import SingleDevice


def choose_strategy(
    name: str,
    device: torch.device | str | None,
    *,
    channels_last: bool,
    model: nn.Module | None = None,
    precision: str = "fp32",
    fsdp_blocks: str = "auto",
    reshard_after_forward: bool = True,
    sharded_checkpoints: bool | str = "auto",
) -> Any:
    """``run.strategy``: single (one process), ddp, fsdp, or auto: single in one process;
    launched as several, ddp when the model's training state fits one device
    (`fits_one_device`), fsdp otherwise."""
    if name == "auto" and launched():
        fits = model is None or fits_one_device(model, _local_device(device))
        name = "ddp" if fits else "fsdp"
    if name == "fsdp":
        from trainwell.strategy.fsdp import FSDP

        return FSDP(
            device,
            blocks=fsdp_blocks,
            reshard_after_forward=reshard_after_forward,
            precision=precision,
            sharded_checkpoints=sharded_checkpoints in (True, "auto"),
            channels_last=channels_last,
        )
    if name == "ddp":
        return DDP(device, channels_last=channels_last)
    return SingleDevice(choose_device(device), channels_last=channels_last)
