"""An exponential moving average of the weights (``train.ema_decay``), kept on the device.

After every real optimizer step (not one GradScaler skipped) each floating-point entry of the
model's state (parameters and buffers such as BatchNorm's running statistics) moves towards
the live value: ``ema = decay_t * ema + (1 - decay_t) * live``, one fused ``_foreach_lerp_``
for the lot; integer buffers (``num_batches_tracked``) are copied. With warmup (the default)
the decay starts low and rises to ``decay``, ``decay_t = min(decay, (1 + t) / (10 + t))`` after
t updates, so the average is not dominated by the random initial weights.

In `fit()` the average is what validation measures (and so what picks the best checkpoint,
early stopping and the schedule's plateau), it is saved in every checkpoint as ``ema`` beside
the raw weights (which training resumes from, exactly), and it is what the model holds when
``fit()`` returns: the best average with ``monitor.restore_best``, the last one otherwise.
``trainwell export`` and ``trainwell eval`` use it (``--weights raw`` for the raw ones).

In your own loop::

    ema = tw.EMA(model, decay=0.999)
    ...  optimizer.step(); ema.update()
    with ema.applied():          # the model holds the average inside the block
        evaluate(model, val_loader)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
from torch import nn

from trainwell.errors import ConfigError


class EMA:
    """The exponential moving average of ``model``'s state (see the module documentation)."""

    def __init__(self, model: nn.Module, decay: float, *, warmup: bool = True) -> None:
        if not 0.0 < decay < 1.0:
            raise ConfigError(f"train.ema_decay={decay!r} must be between 0 and 1 (e.g. 0.999)")
        self.decay, self.warmup, self.updates = float(decay), warmup, 0
        live = model.state_dict()  # tensors sharing the model's storage: updated in place
        self.names = list(live)
        self._live = list(live.values())
        self.shadow = [t.detach().clone() for t in self._live]
        floating = [i for i, t in enumerate(self._live) if t.is_floating_point()]
        self._float_live = [self._live[i] for i in floating]
        self._float_shadow = [self.shadow[i] for i in floating]
        others = [i for i in range(len(self._live)) if i not in set(floating)]
        self._other_live = [self._live[i] for i in others]
        self._other_shadow = [self.shadow[i] for i in others]

    def current_decay(self) -> float:
        """The decay the next update uses."""
        if not self.warmup:
            return self.decay
        return min(self.decay, (1 + self.updates) / (10 + self.updates))

    @torch.no_grad()
    def update(self) -> None:
        """Move the average towards the model's current state (after an optimizer step)."""
        weight = 1.0 - self.current_decay()
        if self._float_shadow:
            torch._foreach_lerp_(self._float_shadow, self._float_live, weight)
        for shadow, live in zip(self._other_shadow, self._other_live, strict=True):
            shadow.copy_(live)
        self.updates += 1

    def after_step(self, stepped: bool) -> None:
        """`update` when the optimizer really stepped (GradScaler skips do not count)."""
        if stepped:
            self.update()

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        """The model holds the average inside the block, its own weights again after it."""
        with torch.no_grad():
            saved = [t.clone() for t in self._live]
            torch._foreach_copy_(self._live, self.shadow)
        try:
            yield
        finally:
            with torch.no_grad():
                torch._foreach_copy_(self._live, saved)

    @torch.no_grad()
    def copy_to_model(self) -> None:
        """Put the average into the model for good (the end of `fit()`)."""
        torch._foreach_copy_(self._live, self.shadow)

    def weights(self) -> dict[str, torch.Tensor]:
        """The average as a model state dict (the model's own keys)."""
        return dict(zip(self.names, self.shadow, strict=True))

    def state_dict(self) -> dict[str, Any]:
        return {"decay": self.decay, "updates": self.updates, "weights": self.weights()}

    @torch.no_grad()
    def load_state_dict(self, state: dict[str, Any]) -> None:
        weights = state["weights"]
        missing = [n for n in self.names if n not in weights]
        if missing:
            raise ConfigError(
                f"the checkpoint's EMA weights lack {missing[:3]}: it was saved for another model"
            )
        for name, shadow in zip(self.names, self.shadow, strict=True):
            shadow.copy_(weights[name])
        self.updates = int(state["updates"])


class NoEMA:
    """Stands in for `EMA` when ``train.ema_decay`` is off: every moment does nothing."""

    def after_step(self, stepped: bool) -> None:
        return None

    def applied(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def copy_to_model(self) -> None:
        return None


def build_ema(decay: float | None, model: nn.Module, strategy: Any) -> EMA | NoEMA:
    """``train.ema_decay`` as a part: an `EMA` of the (unwrapped) model, or `NoEMA`."""
    if decay is None:
        return NoEMA()
    if getattr(strategy, "collective_state", False):
        raise ConfigError(
            "train.ema_decay does not work with run.strategy=fsdp yet (the average would be "
            "sharded); use run.strategy=ddp, or set train.ema_decay=null"
        )
    return EMA(model, decay)
