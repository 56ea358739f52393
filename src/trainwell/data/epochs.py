"""Loaders that know where they are in an epoch: a cursor (epoch, batch) that a checkpoint\nsaves, and the tensor, batch-reading and DataLoader-based loaders that follow it, so a\nresumed run continues at the next batch."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from torch.utils.data import DataLoader, Sampler

from trainwell.data.fetch import (
    BatchSeededDataset,
    SeededIndices,
    collate_batch,
)
from trainwell.data.order import (
    batch_seed,
    check_rank,
    num_batches,
    shard_order,
)
from trainwell.data.placement import (
    gather,
    host_array,
    pin_batch,
)
from trainwell.errors import DataError

log = logging.getLogger("trainwell.data")


class EpochCursor:
    """Which epoch (and batch) the next pass over a loader starts at, and where a pass is.

    Each new pass claims the pending position and moves it on to the start of the following
    epoch, so plain passes run epochs 0, 1, 2, ... as ``DataLoader(shuffle=True)`` reshuffles
    on every ``iter()``. `set` (a loader's ``set_epoch``) replaces the pending position: the
    next pass uses it, and the counting goes on from there. The pass in progress counts the
    batches handed to the consumer, so `position` is where a run stopped inside an epoch.
    The claim is made when a pass fetches its first batch, not when ``iter()`` is called: a
    DataLoader with workers builds (and drops) a sampler iterator it never reads from.
    Plain integers only: loaders stay picklable (spawned workers, deep copies).
    """

    def __init__(self) -> None:
        self.epoch = 0  # the epoch the next pass runs
        self.start_batch = 0  # the batch of that epoch it begins at
        self.current: tuple[int, int] | None = None  # (epoch, batches handed out) of this pass

    def set(self, epoch: int, start_batch: int = 0) -> None:
        """The next pass runs ``epoch`` from batch ``start_batch``; passes after it count on."""
        if epoch < 0 or start_batch < 0:
            raise ValueError(
                f"need epoch >= 0 and start_batch >= 0, got epoch={epoch}, start_batch={start_batch}"
            )
        self.epoch, self.start_batch = int(epoch), int(start_batch)
        self.current = None  # an explicit position overrides the pass in progress

    def claim(self) -> tuple[int, int]:
        """Start a pass: its (epoch, start batch); the pass after it is the next epoch's."""
        epoch, start_batch = self.epoch, self.start_batch
        self.epoch, self.start_batch = epoch + 1, 0
        self.current = (epoch, start_batch)
        return epoch, start_batch

    def handed_out(self) -> None:
        """The pass in progress handed one more batch to the consumer."""
        if self.current is not None:
            self.current = (self.current[0], self.current[1] + 1)

    def position(self, num_batches: int) -> tuple[int, int]:
        """(epoch, batch) of the next batch: inside the pass in progress, else the next pass."""
        if self.current is not None and self.current[1] < num_batches:
            return self.current
        return self.epoch, self.start_batch

    def state_dict(self, num_batches: int) -> dict[str, int]:
        epoch, start_batch = self.position(num_batches)
        return {"epoch": epoch, "start_batch": start_batch}


class FollowsEpochCursor:
    """``epoch``, ``set_epoch`` and ``state_dict`` of an object whose passes an `EpochCursor`
    counts (its ``cursor``); ``len()`` is the number of batches in one pass."""

    cursor: EpochCursor

    @property
    def epoch(self) -> int:
        """The epoch the next pass runs."""
        return self.cursor.epoch

    @property
    def start_batch(self) -> int:
        """The batch the next pass begins at."""
        return self.cursor.start_batch

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        """The next pass runs ``epoch``'s order from batch ``start_batch``; later ones count on."""
        self.cursor.set(epoch, start_batch)

    def state_dict(self) -> dict[str, int]:
        """``{"epoch", "start_batch"}`` of the next batch (inside a pass: where it stopped)."""
        return self.cursor.state_dict(len(self))

    def load_state_dict(self, state: dict[str, int]) -> None:
        self.set_epoch(state["epoch"], state.get("start_batch", 0))


class TensorLoader(FollowsEpochCursor):
    """Batches of in-memory tensors by whole-batch indexing: ``X[order[i:i+b]]``.

    Yields tuples of tensors (one per input tensor), on the device the tensors are on. Each
    pass is the next epoch; ``set_epoch`` picks the epoch (and the batch to start from) of the
    next pass. ``state_dict`` is the position of the next batch. With ``world_size > 1``
    each rank gets its shard of the epoch's order (padded like `EpochBatchSampler`'s).
    ``pin_memory`` gathers host batches straight into pinned memory (for async copies to CUDA).
    """

    def __init__(
        self,
        tensors: Sequence[torch.Tensor],
        batch_size: int,
        *,
        shuffle: bool = True,
        drop_last: bool = False,
        seed: int = 0,
        rank: int = 0,
        world_size: int = 1,
        pin_memory: bool = False,
    ) -> None:
        lengths = {len(t) for t in tensors}
        if len(lengths) != 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            raise DataError(
                f"input tensors must have the same first dimension; got shapes {shapes}"
            )
        check_rank(rank, world_size)
        self.tensors = tuple(tensors)
        self.num_samples = lengths.pop()
        if self.num_samples == 0:
            raise DataError("the dataset is empty; pass at least one sample")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.seed = seed
        self.rank, self.world_size = rank, world_size
        self.pin_memory = pin_memory and self.tensors[0].device.type == "cpu"
        self._arrays = [host_array(t) for t in self.tensors]  # numpy views: see `gather`
        self.cursor = EpochCursor()
        self.placement = ""  # why the tensors are where they are (set by make_loader)

    def order(self, epoch: int | None = None) -> torch.Tensor:
        """This rank's sample order for ``epoch`` (default: the next pass's), on the tensors' device."""
        order = shard_order(
            self.num_samples,
            self.seed,
            self.epoch if epoch is None else epoch,
            shuffle=self.shuffle,
            rank=self.rank,
            world_size=self.world_size,
        )
        return order.to(self.tensors[0].device)

    def __len__(self) -> int:
        return num_batches(self.num_samples, self.batch_size, self.drop_last, self.world_size)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        cursor = self.cursor
        epoch, start_batch = cursor.claim()  # on the first next(): a generator
        order, size, pinned = self.order(epoch), self.batch_size, self.pin_memory
        arrays = self._arrays
        order_array = order.numpy() if any(a is not None for a in arrays) else None
        for batch in range(start_batch, len(self)):
            span = slice(batch * size, (batch + 1) * size)
            index = order[span]
            array_index = order_array[span] if order_array is not None else None
            out = tuple(
                gather(t, index, pinned, array=a, array_index=array_index)
                for t, a in zip(self.tensors, arrays, strict=True)
            )
            cursor.handed_out()
            yield out


class EpochBatchSampler(FollowsEpochCursor, Sampler[list[int]]):
    """Batches of indices in an order fixed by (seed, epoch, rank, world size).

    Each pass is the next epoch (passes run 0, 1, 2, ... by themselves, also under a plain
    ``DataLoader``); ``set_epoch(epoch, start_batch)`` picks the epoch of the next pass and
    where in it to begin: a resumed run continues at the next batch in O(1), without loading
    the batches it skips. Each batch
    carries a seed derived from (seed, epoch, batch index, rank), so its augmentations are the
    same whichever worker fetches it, and however many workers there are.
    """

    def __init__(
        self,
        num_samples: int,
        batch_size: int,
        *,
        seed: int = 0,
        shuffle: bool = True,
        drop_last: bool = False,
        rank: int = 0,
        world_size: int = 1,
    ) -> None:
        check_rank(rank, world_size)
        self.num_samples, self.batch_size = num_samples, batch_size
        self.seed, self.shuffle, self.drop_last = seed, shuffle, drop_last
        self.rank, self.world_size = rank, world_size
        self.cursor = EpochCursor()

    def shard(self, epoch: int | None = None) -> torch.Tensor:
        """This rank's order for ``epoch`` (default: the next pass's), padded like every rank's."""
        return shard_order(
            self.num_samples,
            self.seed,
            self.epoch if epoch is None else epoch,
            shuffle=self.shuffle,
            rank=self.rank,
            world_size=self.world_size,
        )

    def __len__(self) -> int:
        return num_batches(self.num_samples, self.batch_size, self.drop_last, self.world_size)

    def __iter__(self) -> Iterator[list[int]]:
        # A generator: the pass claims its epoch when its first batch is fetched, so the
        # iterator a multi-worker DataLoader creates and never reads does not use one up.
        epoch, start_batch = self.cursor.claim()
        order = self.shard(epoch).tolist()
        size = self.batch_size
        for batch in range(start_batch, len(self)):
            indices = SeededIndices(order[batch * size : (batch + 1) * size])
            indices.seed = batch_seed(self.seed, epoch, batch, self.rank)
            yield indices


class BatchLoader(FollowsEpochCursor):
    """Batches of a Dataset that reads whole batches, fetched in the main process.

    The same batches as a `SeededDataLoader` over the same sampler (same order, same per-batch
    seeds, same collate), without DataLoader's iterator and fetcher layers: for each batch one
    ``__getitems__`` (or ``get_batch``) call and one collate. Pinned on request. Each pass is
    the next epoch of the sampler; ``set_epoch`` and ``state_dict`` as on `TensorLoader`.
    """

    def __init__(
        self,
        dataset: BatchSeededDataset,
        batch_sampler: EpochBatchSampler,
        collate_fn: Callable[[Any], Any] = collate_batch,
        *,
        pin_memory: bool = False,
    ) -> None:
        self.dataset = dataset
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.num_workers = 0
        self.workers_reason = ""

    @property
    def cursor(self) -> EpochCursor:
        return self.batch_sampler.cursor

    def __len__(self) -> int:
        return len(self.batch_sampler)

    def __iter__(self) -> Iterator[Any]:
        fetch, collate, pin = self.dataset.__getitems__, self.collate_fn, self.pin_memory
        cursor = self.batch_sampler.cursor
        for indices in self.batch_sampler:
            batch = collate(fetch(indices))
            batch = pin_batch(batch) if pin else batch
            cursor.handed_out()
            yield batch


class SeededDataLoader(FollowsEpochCursor, DataLoader):
    """A DataLoader over an `EpochBatchSampler`: reproducible order, seeds and resume point.

    Each pass is the next epoch (the sampler's, in the main process: persistent workers or
    not); ``set_epoch`` and ``state_dict`` as on `TensorLoader`. Batches are counted as they
    reach the consumer, not as workers prefetch them.
    """

    workers_reason = ""

    @property
    def cursor(self) -> EpochCursor:
        return self.batch_sampler.cursor

    def __iter__(self) -> Any:
        iterator = super().__iter__()
        cursor = getattr(self.batch_sampler, "cursor", None)
        return iterator if cursor is None else _Counted(iterator, cursor)


class _Counted:
    """A DataLoader iterator that tells the cursor of each batch handed to the consumer."""

    def __init__(self, iterator: Any, cursor: EpochCursor) -> None:
        self.iterator, self.cursor = iterator, cursor

    def __iter__(self) -> _Counted:
        return self

    def __next__(self) -> Any:
        batch = next(self.iterator)
        self.cursor.handed_out()
        return batch

    def __len__(self) -> int:
        return len(self.iterator)

    def __getattr__(self, name: str) -> Any:  # the DataLoader iterator's other attributes
        if name == "iterator":  # not set yet (e.g. while unpickling): no endless recursion
            raise AttributeError(name)
        return getattr(self.iterator, name)
