"""Which guards a watch runs: the built-in `GUARDS`, and those added with `register_guard`.

A registered guard is a `Guard` subclass like the built-in ones (same moments, cadence and
reporting through ``ctx.report``); every `watch()` and `fit()` opened after it is registered
runs it while the guards are enabled. Its ``switch`` is None (on whenever the guards are on)
or the name of a boolean `GuardsConfig` field that turns it off with the others.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from trainwell.config.guards import GuardsConfig
from trainwell.guards.base import Guard
from trainwell.guards.batchnorm import BatchNormBatchGuard
from trainwell.guards.clipping import ClippingGuard
from trainwell.guards.duplicates import DuplicateBatchGuard
from trainwell.guards.grad_norm import GradNormGuard
from trainwell.guards.graph import EvalGraphGuard, RetainedGraphGuard
from trainwell.guards.loss_input import LossInputGuard
from trainwell.guards.loss_trend import AccumulationScaleGuard, LossTrendGuard
from trainwell.guards.lr_jump import LRJumpGuard
from trainwell.guards.mode import TrainModeGuard
from trainwell.guards.nonfinite import NonFiniteGuard
from trainwell.guards.params import OptimizerParamsGuard
from trainwell.guards.scheduler import SchedulerGuard
from trainwell.guards.zero_grad import ZeroGradGuard

GUARDS: tuple[type[Guard], ...] = (
    OptimizerParamsGuard,
    ZeroGradGuard,
    SchedulerGuard,
    LRJumpGuard,
    ClippingGuard,
    LossInputGuard,
    TrainModeGuard,
    EvalGraphGuard,
    RetainedGraphGuard,
    BatchNormBatchGuard,
    GradNormGuard,
    DuplicateBatchGuard,
    LossTrendGuard,
    AccumulationScaleGuard,
    NonFiniteGuard,  # last: skip_step rewrites gradients the others have already read
)

_registered: list[type[Guard]] = []  # in registration order
G = TypeVar("G", bound=type[Guard])


def register_guard(cls: G) -> G:
    """Run the guard class ``cls`` in every `watch()` and `fit()` opened from now on.

    ``cls`` subclasses `trainwell.guards.Guard`; its ``switch`` is None (on whenever the
    guards are on) or a boolean `GuardsConfig` field (e.g. ``"optimizer_params"``) that
    switches it off too. Returns ``cls``, so it also works as a class decorator;
    registering a class again changes nothing. Undo with `unregister_guard`.
    """
    if not (isinstance(cls, type) and issubclass(cls, Guard)):
        raise TypeError(f"register_guard takes a Guard subclass, not {cls!r}")
    if cls in GUARDS:
        raise ValueError(f"{cls.__name__} is a built-in guard: it runs already")
    switch = cls.switch
    if switch is not None and not isinstance(getattr(GuardsConfig(), switch, None), bool):
        switches = sorted(
            f.name
            for f in dataclasses.fields(GuardsConfig)
            if isinstance(getattr(GuardsConfig(), f.name), bool)
        )
        raise ValueError(
            f"{cls.__name__}.switch={switch!r}: set switch = None (on whenever the guards "
            f"are on) or name one of the GuardsConfig switches: {', '.join(switches)}"
        )
    if cls not in _registered:
        _registered.append(cls)
    return cls


def unregister_guard(cls: type[Guard]) -> None:
    """Stop running ``cls`` in the watches opened from now on (nothing if not registered);
    a watch already open keeps its guards until it closes."""
    if cls in _registered:
        _registered.remove(cls)


def registered_guards() -> tuple[type[Guard], ...]:
    """The guard classes added with `register_guard`, in registration order."""
    return tuple(_registered)


def guards_on(config: GuardsConfig) -> list[type[Guard]]:
    """The guard classes a watch with ``config`` runs: the built-in ones whose switch is on,
    then the registered ones (before `NonFiniteGuard`, which must come last)."""
    classes = [*(c for c in GUARDS if c is not NonFiniteGuard), *_registered, NonFiniteGuard]
    return [cls for cls in classes if cls.switch is None or getattr(config, cls.switch)]
