"""Your own values in the run's logs: ``tw.log(name, value)`` from inside a training step.

Call it from a ``step_fn``, a loss function or a `TrainStep` subclass while ``fit()`` runs a
step: the value stays on the device (detached, no host sync), and the loop logs it beside the
loss as the mean over the steps since the last log (``metrics.jsonl``, ``metrics.csv``,
TensorBoard ``train/<name>``, the progress line) and over each epoch (``train_<name>``),
averaged over ranks under DDP/FSDP. Called several times in one step (once per micro-batch),
the step's value is the mean of those calls. A value logged on some steps only is the mean
of the steps that logged it. Use the same names on every rank.

In validation (``fit()``'s, ``tw.evaluate``) a ``step_fn``'s values are not collected. In a
loop of your own, `RunLogger` collects them (``with logger.step(): ...``) into the same files
as ``fit()``; with nothing collecting, a value is dropped with a warning once per name.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from typing import Any

import torch

from trainwell.errors import warn_at_user
from trainwell.observe.base import FitInfo
from trainwell.observe.log import MetricsLog
from trainwell.observe.table import CSVLog
from trainwell.observe.tensorboard import TensorBoardLog, tensorboard_available

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
                f"tw.log({name!r}, ...) outside a training step: nothing collects it, so it is "
                "dropped (in a loop of your own, log inside `with tw.RunLogger(...).step():`)"
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


def with_logged(logs: Mapping[str, Any], values: StepValues | None) -> Mapping[str, Any]:
    """The step's own logs (``StepResult.logs``) with the values `log` collected in the step."""
    if values is None or not values.sums:
        return logs
    merged = dict(logs)
    if values is not None and values.sums:
        for name, mean in values.means().items():
            if name in merged:
                raise ValueError(
                    f"tw.log({name!r}, ...) names a value the step already logs; pick another name"
                )
            merged[name] = mean
    return merged


class RunLogger:
    """The logs of a run directory for a loop of your own: ``metrics.jsonl``, ``metrics.csv``
    and TensorBoard (when installed), as ``fit()`` writes them, fed by `log`::

        with tw.RunLogger("runs/mine", log_every=50) as logger:
            for x, y in loader:
                with logger.step():          # one optimizer step
                    loss = ...
                    tw.log("loss", loss)     # stays on the device
                ...
            logger.epoch(val_loss=...)       # an epoch's record, whenever you have one

    The values of each step are summed on the device; every ``log_every`` steps their means
    over the steps that logged them are read (the one host sync) and written as a ``step``
    record. ``epoch(**values)`` writes an ``epoch`` record at once.
    """

    def __init__(
        self,
        run_dir: str | Any,
        *,
        log_every: int = 50,
        csv: bool = True,
        tensorboard: bool | str = "auto",
        config: dict[str, Any] | None = None,
    ) -> None:
        if log_every < 1:
            raise ValueError(f"log_every must be >= 1, got {log_every}")
        self.log_every, self.steps, self.epochs = log_every, 0, 0
        self.sums: dict[str, torch.Tensor] = {}
        self.counts: dict[str, int] = {}
        self.observers: list[Any] = [MetricsLog(run_dir)]
        if csv:
            self.observers.append(CSVLog(run_dir))
        if tensorboard is True or (tensorboard == "auto" and tensorboard_available()):
            self.observers.append(TensorBoardLog(run_dir))
        info = FitInfo(0, 0, 0, 0, 0, "", "", 0, str(run_dir), config=dict(config or {}))
        for observer in self.observers:
            observer.on_fit_start(info)

    @contextlib.contextmanager
    def step(self) -> Iterator[StepValues]:
        """One optimizer step: `log` calls inside it count for this step."""
        with collecting() as values:
            yield values
        for name, mean in values.means().items():
            self.sums[name] = self.sums[name] + mean if name in self.sums else mean
            self.counts[name] = self.counts.get(name, 0) + 1
        self.steps += 1
        if self.steps % self.log_every == 0:
            self.flush()

    def flush(self) -> None:
        """Write the means since the last record now (one host read)."""
        if not self.sums:
            return
        names = list(self.sums)
        means = torch.stack([self.sums[n].float().cpu() for n in names]).tolist()
        logged = {n: m / self.counts[n] for n, m in zip(names, means, strict=True)}
        self.sums, self.counts = {}, {}
        report = _Report(self.steps, self.epochs + 1, logged)
        for observer in self.observers:
            observer.on_step_end(report)

    def epoch(self, **values: float) -> None:
        """An epoch's record (your validation metrics, say): written at once, after the
        steps not yet written."""
        self.flush()
        self.epochs += 1
        record = {"epoch": self.epochs, "step": self.steps, **values}
        for observer in self.observers:
            observer.on_epoch_end(record)

    def close(self) -> None:
        self.flush()
        for observer in self.observers:
            observer.close()

    def __enter__(self) -> RunLogger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Report:
    """What the log observers read of a step (`trainwell.observe.StepReport`'s fields)."""

    def __init__(self, step: int, epoch: int, logged: dict[str, float]) -> None:
        self.step, self.epoch, self.logged, self.scale = step, epoch, logged, None
