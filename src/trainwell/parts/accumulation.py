"""Gradient accumulation: k micro-batches, one optimizer step, the same gradient as a k x batch.

Each micro-batch loss is weighted so the accumulated gradient is the mean over the window:
by ``1 / n`` where ``n`` is the number of micro-batches actually in the window (the short last
window of an epoch gets its own divisor and is stepped, not dropped), or by ``count_i / sum``
when a per-batch count is given (e.g. non-padding tokens), which makes token-mean losses add up
to the big-batch token mean. Without a count, batches that carry ``num_tokens`` (`pad_collate`)
are weighted by it all the same: a token-mean loss is then exact with or without
``train.weight_by``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from trainwell.data.batch import count_in
from trainwell.errors import DataError


@dataclass
class MicroBatch:
    """One micro-batch and the weight its (mean) loss gets inside its accumulation window."""

    batch: Any
    weight: float | torch.Tensor
    is_last: bool  # the last micro-batch of its window: gradients complete after its backward

    def weigh(self, loss: torch.Tensor) -> torch.Tensor:
        """``loss`` times this micro-batch's weight (no extra op for a window of one)."""
        if isinstance(self.weight, float) and self.weight == 1.0:
            return loss
        return loss * self.weight


class Accumulation:
    """Group batches into accumulation windows and weight each micro-batch's loss.

    ``count`` (optional) maps a batch to its count of real elements (an int or a 0-d tensor),
    or names a key of dict batches holding it. Under several processes that average their
    gradients (DDP, FSDP), pass ``mean_over_ranks=strategy.mean``: the counts are then weighed
    against the global total (one all-reduce of one number per window), so ranks with more
    real tokens weigh more, exactly as in one process with the whole batch. Use it from a
    hand-written loop::

        accumulation = Accumulation(steps=4)
        for window in accumulation.windows(loader):
            optimizer.zero_grad()
            for micro in window:
                (criterion(model(micro.batch[0]), micro.batch[1]) * micro.weight).backward()
            optimizer.step()
    """

    def __init__(
        self,
        steps: int = 1,
        count: str | Callable[[Any], Any] | None = None,
        *,
        mean_over_ranks: Callable[[Any], Any] | None = None,
    ) -> None:
        if steps < 1:
            raise ValueError(f"accumulation steps must be >= 1, got {steps}")
        self.steps = steps
        self._count = _count_fn(count)
        self._mean_over_ranks = mean_over_ranks

    def windows(self, batches: Iterable[Any]) -> Iterator[list[MicroBatch]]:
        """Yield lists of up to ``steps`` micro-batches; the last list may be shorter."""
        window: list[Any] = []
        for batch in batches:
            window.append(batch)
            if len(window) == self.steps:
                yield self._weigh(window)
                window = []
        if window:
            yield self._weigh(window)

    def steps_per_epoch(self, num_batches: int) -> int:
        """Optimizer steps in an epoch of ``num_batches`` (a short last window counts)."""
        return -(-num_batches // self.steps)

    def _weigh(self, window: list[Any]) -> list[MicroBatch]:
        counts = [self._count(b) if self._count else count_in(b) for b in window]
        if any(c is None for c in counts):  # no count (or not on every batch): a plain mean
            weights: list[Any] = [1.0 / len(window)] * len(window)
        else:
            total = sum(counts)
            if self._mean_over_ranks is not None:
                # Gradients are averaged over the W ranks, so weight by count / (global total
                # / W): the update is the mean over every rank's tokens, not a mean of means.
                total = self._mean_over_ranks(total)
            # Stay on the device: dividing tensors never syncs with the host.
            weights = [c / total for c in counts]
        last = len(window) - 1
        return [
            MicroBatch(b, w, i == last)
            for i, (b, w) in enumerate(zip(window, weights, strict=True))
        ]


def _count_fn(count: str | Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    if count is None or callable(count):
        return count
    key = count

    def from_key(batch: Any) -> Any:
        if not isinstance(batch, dict) or key not in batch:
            found = list(batch) if isinstance(batch, dict) else type(batch).__name__
            raise DataError(
                f"train.weight_by={key!r} needs dict batches with a {key!r} entry; got {found}"
            )
        return batch[key]

    return from_key
