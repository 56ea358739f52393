"""Strategies by name: ``run.strategy`` (``auto``, ``single``, ``ddp``, ``fsdp``, or a name
registered with `register_strategy`) becomes one strategy object, built once per run.

A factory takes ``(device, options)``: ``device`` is ``run.device`` (or `fit()`'s ``device``),
``options`` a `StrategyOptions` with what the built-in strategies read from the config.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from trainwell.config.checks import STRATEGY_NAMES
from trainwell.errors import ConfigError
from trainwell.parts.device import choose_device
from trainwell.strategy.base import BaseStrategy
from trainwell.strategy.ddp import DDP
from trainwell.strategy.process import fits_one_device, launched, local_device
from trainwell.strategy.single import SingleDevice


@dataclass(frozen=True)
class StrategyOptions:
    """What a strategy may need from the run: the model (not yet on the device) and the
    config keys the built-in strategies read."""

    model: nn.Module | None = None
    channels_last: bool = False  # train.channels_last
    precision: str = "fp32"  # train.precision (FSDP's mixed-precision policy)
    fsdp_blocks: str = "auto"  # run.fsdp_blocks
    reshard_after_forward: bool = True  # run.fsdp_reshard_after_forward
    sharded_checkpoints: bool | str = "auto"  # checkpoint.sharded


Factory = Callable[[Any, StrategyOptions], BaseStrategy]


def _single(device: Any, options: StrategyOptions) -> BaseStrategy:
    return SingleDevice(choose_device(device), channels_last=options.channels_last)


def _ddp(device: Any, options: StrategyOptions) -> BaseStrategy:
    return DDP(device, channels_last=options.channels_last)


def _fsdp(device: Any, options: StrategyOptions) -> BaseStrategy:
    from trainwell.strategy.fsdp import FSDP  # torch's FSDP only when asked

    return FSDP(
        device,
        blocks=options.fsdp_blocks,
        reshard_after_forward=options.reshard_after_forward,
        precision=options.precision,
        sharded_checkpoints=options.sharded_checkpoints in (True, "auto"),
        channels_last=options.channels_last,
    )


STRATEGIES: dict[str, Factory] = {"single": _single, "ddp": _ddp, "fsdp": _fsdp}


def register_strategy(name: str, factory: Factory) -> None:
    """Make ``run.strategy=<name>`` build ``factory(device, options)`` (a `BaseStrategy`)."""
    if name == "auto":
        raise ConfigError("'auto' chooses among the strategies; register under another name")
    STRATEGIES[name] = factory
    STRATEGY_NAMES.add(name)  # run.strategy=<name> passes the config's checks


def choose_strategy(
    name: str, device: torch.device | str | None, options: StrategyOptions | None = None
) -> BaseStrategy:
    """``run.strategy`` by name: ``auto`` is single in one process; launched as several, ddp
    when the model's training state fits one device (`fits_one_device`), fsdp otherwise."""
    options = options or StrategyOptions()
    if name == "auto":
        if not launched():
            name = "single"
        else:
            model = options.model
            fits = model is None or fits_one_device(model, local_device(device))
            name = "ddp" if fits else "fsdp"
    factory = STRATEGIES.get(name)
    if factory is None:
        close = difflib.get_close_matches(name, list(STRATEGIES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"run.strategy={name!r} is not a strategy{hint}; known: auto, "
            f"{', '.join(STRATEGIES)}, or one registered with trainwell.strategy.register_strategy"
        )
    return factory(device, options)


def as_strategy(strategy: Any) -> BaseStrategy:
    """``strategy`` when it is one `fit()` can use; a `ConfigError` saying what it needs."""
    if isinstance(strategy, BaseStrategy):
        return strategy
    raise ConfigError(
        f"fit(strategy=...) takes a strategy object (a trainwell.strategy.BaseStrategy "
        f"subclass, which gives every verb fit() calls a default), not {type(strategy).__name__}; "
        "or name one with run.strategy"
    )
