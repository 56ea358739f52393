"""Your own values in the run's logs: ``tw.log(name, value)`` from inside a training step.

Call it from a ``step_fn``, a loss function or a `TrainStep` subclass while ``fit()`` runs a
step: the value stays on the device (detached, no host sync), and the loop logs it beside the
loss as the mean over the steps since the last log (``metrics.jsonl``, ``metrics.csv``,
TensorBoard ``train/<name>``, the progress line) and over each epoch (``train_<name>``),
averaged over ranks under DDP/FSDP. Called several times in one step (once per micro-batch),
the step's value is the mean of those calls. A value logged on some steps only is the mean
of the steps that logged it. Use the same names on every rank.

In validation (``fit()``'s, ``tw.evaluate``) a ``step_fn``'s values are not collected; outside
``fit()`` (a loop of your own) nothing collects them either: they are dropped there with a
warning once per name.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import torch

from trainwell.userframe import warn_at_user

_collector: contextvars.ContextVar[StepValues | None] = contextvars.ContextVar(
    "trainwell_step_values", default=None
)
_warned: set[str] = set()


class StepValues:
    """The values logged during one step: sums and call counts, on the device."""

    def __init__(self) -> None:
        self.sums: dict[str, torch.Tensor] = {}
        self.calls: dict[str, int] = {}

    def add(self, name: str, value: torch.Tensor | float) -> None:
        if isinstance(value, torch.Tensor):
            if value.numel() != 1:
                raise ValueError(
                    f"tw.log({name!r}, ...) needs one number; got a tensor of shape "
                    f"{tuple(value.shape)} (reduce it first, e.g. .mean())"
                )
            value = value.detach().float().reshape(())
        else:
            value = torch.tensor(float(value))
        self.sums[name] = self.sums[name] + value if name in self.sums else value
        self.calls[name] = self.calls.get(name, 0) + 1

    def means(self) -> dict[str, torch.Tensor]:
        """Each name's mean over its calls in the step (no op for a single call)."""
        return {
            name: total if self.calls[name] == 1 else total / self.calls[name]
            for name, total in self.sums.items()
        }


def log(name: str, value: torch.Tensor | float) -> None:
    """Log ``value`` (a number or a one-element tensor) as ``name`` for the current training
    step of ``fit()``; see the module's documentation."""
    values = _collector.get()
    if values is None:
        if name not in _warned:
            _warned.add(name)
            warn_at_user(
                f"tw.log({name!r}, ...) outside a training step of fit() (validation, or a "
                "loop of your own): nothing collects it, so it is dropped"
            )
        return
    values.add(name, value)


class collecting:  # noqa: N801 - used as a function: ``with collecting() as values``
    """Collect what `log` receives while the block (one training step) runs. A plain class,
    not a generator: it is entered once per optimizer step."""

    __slots__ = ("_token", "values")

    def __enter__(self) -> StepValues:
        self.values = StepValues()
        self._token = _collector.set(self.values)
        return self.values

    def __exit__(self, *exc: object) -> None:
        _collector.reset(self._token)


@contextlib.contextmanager
def ignoring() -> Iterator[None]:
    """Drop what `log` receives while the block runs, silently (evaluation reuses the
    training ``step_fn``: its logged values are training values)."""
    token = _collector.set(_IGNORED)
    try:
        yield
    finally:
        _collector.reset(token)


class _Ignored(StepValues):
    def add(self, name: str, value: torch.Tensor | float) -> None:
        return None


_IGNORED = _Ignored()


def merge_into(logs: dict[str, Any], values: StepValues) -> None:
    """Add the step's `log` values to the step's own logs (``StepResult.logs``)."""
    if values.sums:
        for name, mean in values.means().items():
            if name in logs:
                raise ValueError(
                    f"tw.log({name!r}, ...) names a value the step already logs; pick another name"
                )
            logs[name] = mean
