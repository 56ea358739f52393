"""Where a run is: its length in epochs and steps (`RunLength`), its counters (`Counters`:
steps, micro-batches, epochs, batches into the epoch) and its per-epoch records (`History`).
Counters and history are saved in every checkpoint, so a resumed run goes on counting."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from trainwell.config.sections import Config
from trainwell.data.batch import batch_size_of
from trainwell.data.streams import StreamLoader, has_length
from trainwell.errors import DataError
from trainwell.parts.accumulation import Accumulation


@dataclasses.dataclass(frozen=True)
class RunLength:
    """How long the run is: whichever of ``train.max_epochs`` and ``train.max_steps`` comes
    first, in optimizer steps (and so the schedule's length).

    Data of unknown length (a stream: ``stream`` is its `StreamLoader`) are sized by
    ``train.max_steps``: an epoch counts as the whole run (``steps_per_epoch = max_steps``,
    ``batches_per_epoch = 0``: unknown) until a pass ends; the run also ends when the stream
    is exhausted."""

    batches_per_epoch: int
    steps_per_epoch: int
    max_epochs: int
    max_steps: int
    stream: Any = dataclasses.field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, cfg: Config, loader: Any, accumulation: Accumulation) -> RunLength:
        if isinstance(loader, StreamLoader) or not has_length(loader):
            return cls.of_stream(cfg, loader, accumulation)
        batches = num_batches(loader)
        steps = accumulation.steps_per_epoch(batches)
        max_steps = min(cfg.train.max_steps or math.inf, cfg.train.max_epochs * steps)
        return cls(batches, steps, cfg.train.max_epochs, int(max_steps))

    @classmethod
    def of_stream(cls, cfg: Config, loader: Any, accumulation: Accumulation) -> RunLength:
        """A stream's length: ``train.max_steps`` steps (its schedule), or refused without it."""
        steps = cfg.train.max_steps
        if not steps:
            raise DataError(
                f"the training data ({_data_name(loader)}) has no length, so the run's length and "
                "the schedule's total steps are unknown; set train.max_steps to stream it, or "
                "pass a sized Dataset/DataLoader (or tensors)"
            )
        stream = loader if isinstance(loader, StreamLoader) else None
        # batches_per_epoch 0: unknown; a pass is whole only when the stream itself ended
        return cls(0, steps, cfg.train.max_epochs, steps, stream)

    @property
    def stream_exhausted(self) -> bool:
        """The stream can give no more batches (see `StreamLoader`)."""
        return self.stream is not None and self.stream.exhausted


def _data_name(loader: Any) -> str:
    source = getattr(loader, "source", loader)
    inner = getattr(source, "dataset", None)
    return type(inner if inner is not None else source).__name__


def num_batches(loader: Any) -> int:
    try:
        count = len(loader)
    except TypeError:
        raise DataError(
            "the training data has no length, so epochs and the schedule's total steps are "
            "unknown; set train.max_steps to stream it, or pass a sized Dataset/DataLoader "
            "(or tensors)"
        ) from None
    if count == 0:
        raise DataError(
            "the training data yields no batches (empty dataset, or drop_last with fewer samples than data.batch_size)"
        )
    return count


@dataclass
class Counters:
    """Where the run is: optimizer steps, micro-batches, finished epochs, batches into this epoch."""

    step: int = 0
    micro_step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    samples: int = 0

    def advance(self, window: list[Any], stepped: bool, samples: int | None = None) -> None:
        """One accumulation window done: its micro-batches and samples (counted here unless
        given), and the optimizer step if it happened (a step GradScaler skipped is not)."""
        self.step += int(stepped)
        self.micro_step += len(window)
        self.batch_in_epoch += len(window)
        if samples is None:
            samples = sum(batch_size_of(m.batch) for m in window)
        self.samples += samples

    def end_epoch(self, length: RunLength, values: Mapping[str, Any]) -> dict[str, Any]:
        """The epoch's training pass is over: count it when it ran to the end of its batches
        (``train.max_steps`` can end it early), and start its record (epochs 1-based, as users
        count them; ``partial``: a resumed run continues this epoch where it stopped)."""
        known = length.batches_per_epoch > 0  # a stream's (0) is not: only its end is
        whole = self.step < length.max_steps or (
            known and self.batch_in_epoch >= length.batches_per_epoch
        )
        if whole:
            self.epoch, self.batch_in_epoch = self.epoch + 1, 0
        record = {"epoch": self.epoch if whole else self.epoch + 1, "step": self.step, **values}
        if not whole:
            record["partial"] = True
        return record

    def finished(self, length: RunLength) -> bool:
        """The run has reached its length (epochs or steps, whichever comes first)."""
        return (
            self.epoch >= length.max_epochs
            or self.step >= length.max_steps
            or length.stream_exhausted
        )

    def state_dict(self) -> dict[str, Any]:
        return asdict(self)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            setattr(self, key, int(value))


class History:
    """Per-epoch records; part of the checkpoint so a resumed run keeps its whole history."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def state_dict(self) -> dict[str, Any]:
        return {"records": self.records}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.records = list(state["records"])
