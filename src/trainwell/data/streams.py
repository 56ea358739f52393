"""Batches of unknown number (streams) and lists of ready batches.

- `StreamLoader`: an ``IterableDataset`` (batched here), a generator of batches, or any
  iterable or loader without a length. ``fit()`` trains on one when ``train.max_steps`` says
  how long the run is (the schedule is sized from it). A generator (an iterator: it can be
  read once) is **one stream**: when it ends, the run ends. Anything else is re-read on every
  pass, and each pass is an epoch; a pass that yields nothing ends the run too.
- `BatchList`: a list of batches (the rule is `is_list_of_batches`), read in its order,
  each pass an epoch, resumed in O(1).

Resume of a stream: the resumed pass reads its first ``start_batch`` batches again and drops
them. That is exact when the stream yields the same batches every time it is created (a
generator built by your recipe from the run's seed) or read (an ``IterableDataset`` whose
order is fixed, or a function of the epoch given to its ``set_epoch``); otherwise the resumed
run trains on other batches than the interrupted one would have (the count of steps, the
schedule and every saved state are still exact).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import torch

_END = object()


class StreamLoader:
    """Batches of ``source`` (an iterable or iterator of batches) with no known count.

    ``exhausted`` turns True when the stream can give no more: a one-shot iterator ran out,
    or a pass over a re-readable source yielded nothing. ``set_epoch(epoch, start_batch)``
    tells the source the epoch (if it, or its ``dataset``/``sampler``, has ``set_epoch``) and
    makes the next pass drop its first ``start_batch`` batches (resume; see the module doc).
    """

    def __init__(self, source: Any) -> None:
        self.source = source
        self.one_shot = isinstance(source, Iterator)  # a generator: read once, one stream
        self.exhausted = False
        self._skip = 0

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        for target in (
            self.source,
            getattr(self.source, "dataset", None),
            getattr(self.source, "sampler", None),
        ):
            if target is not None and callable(getattr(target, "set_epoch", None)):
                target.set_epoch(epoch)
                break
        self._skip = start_batch

    def __iter__(self) -> Iterator[Any]:
        iterator = iter(self.source)
        skip, self._skip = self._skip, 0
        for _ in range(skip):  # resume: the batches the interrupted run already trained on
            if next(iterator, _END) is _END:
                break
        count = 0
        for batch in iterator:
            count += 1
            yield batch
        # reached only when the source ran out (a loop that stops early closes this generator)
        if self.one_shot or (count == 0 and skip == 0):
            self.exhausted = True


class BatchList:
    """A list of ready batches: each pass reads them in order and is the next epoch;
    ``set_epoch(epoch, start_batch)`` resumes at a batch in O(1), exactly."""

    def __init__(self, batches: Sequence[Any]) -> None:
        self.batches = batches
        self._start = 0

    def __len__(self) -> int:
        return len(self.batches)

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        self._start = start_batch

    def __iter__(self) -> Iterator[Any]:
        start, self._start = self._start, 0
        return iter(self.batches[start:])


def as_stream_if_unsized(loader: Any) -> Any:
    """``loader`` as it is when it has a length, else a `StreamLoader` over it (what `fit()`
    trains on, to know when a stream ran out)."""
    if isinstance(loader, StreamLoader) or has_length(loader):
        return loader
    return StreamLoader(loader)


def has_length(loader: Any) -> bool:
    """Whether ``len(loader)`` answers (a DataLoader over an IterableDataset raises)."""
    try:
        len(loader)
    except TypeError:
        return False
    return True


def is_list_of_batches(data: Any) -> bool:
    """Whether a list holds batches rather than samples. The rule (docs/data.md):

    a ``list`` whose every element is a tuple/list or dict of tensors, every tensor with at
    least one dimension and, within an element, one leading size (the batch dimension); that
    size is the same for every element but the last, which may be smaller, and it is above 1
    in the first element. A sample ``(x, y)`` with a 0-d label is never a batch. Ambiguous
    data (samples whose tensors all share a first dimension) can be made explicit: wrap
    samples in a ``Dataset``, or pass batches as ``iter(batches)`` (one stream).
    """
    if not isinstance(data, list) or not data:
        return False
    sizes = [_batch_size(element) for element in data]
    if any(size is None for size in sizes) or sizes[0] < 2:
        return False
    first = sizes[0]
    return all(size == first for size in sizes[:-1]) and sizes[-1] <= first


def _batch_size(element: Any) -> int | None:
    """The one leading size of every tensor in ``element``; None if it is not batch-like."""
    if isinstance(element, Mapping):
        values = list(element.values())
    elif isinstance(element, tuple | list):
        values = list(element)
    else:
        return None
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    if not tensors or len(tensors) != len(values) or any(t.dim() == 0 for t in tensors):
        return None
    sizes = {t.shape[0] for t in tensors}
    return sizes.pop() if len(sizes) == 1 else None
