"""Loaders with reproducible order, exact mid-epoch resume and whole-batch fetches.

The order of every epoch is a pure function of (seed, epoch, rank, world size), and where a
run is inside an epoch is just a batch index, so a resumed run continues at the next batch in
O(1) and sees the same batches as an uninterrupted one. Like ``DataLoader(shuffle=True)``,
every new pass (each ``iter(loader)``) is the next epoch by itself; ``set_epoch(epoch,
start_batch)`` says which epoch (and batch) the next pass is, and counting goes on from there
(`EpochCursor`). Three loaders, picked by `make_loader`:

- `TensorLoader`: in-memory tensors, one gather per tensor per batch (``X[order[i:i+b]]``);
- `BatchLoader`: a Dataset that reads whole batches (``__getitems__``/``get_batch``), fetched
  in the main process without DataLoader's per-batch machinery;
- `SeededDataLoader`: a DataLoader over an `EpochBatchSampler`, for worker processes or
  datasets that only have ``__getitem__``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import torch
from torch.utils.data import DataLoader, Sampler

from trainwell.data.fetch import (
    BatchSeededDataset,
    SeededIndices,
    as_tensors,
    collate_batch,
    fetches_whole_batches,
)
from trainwell.data.order import (
    batch_seed,
    check_rank,
    epoch_generator,
    num_batches,
    shard_order,
)
from trainwell.data.placement import (
    DEVICE_FRACTION,
    gather,
    host_array,
    pin_batch,
    place_tensors,
    wants_pinned_batches,
)
from trainwell.data.sharding import shard_dataloader
from trainwell.data.workers import choose_num_workers
from trainwell.errors import DataError
from trainwell.userframe import warn_at_user

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


def make_loader(
    data: Any,
    *,
    batch_size: int = 64,
    shuffle: bool = True,
    drop_last: bool = False,
    num_workers: int | Literal["auto"] = 0,
    pin_memory: bool | None = None,
    persistent_workers: bool = True,
    prefetch_factor: int = 2,
    seed: int = 0,
    collate_fn: Callable[[Any], Any] | None = None,
    device: torch.device | str | None = None,
    device_fraction: float = DEVICE_FRACTION,
    rank: int = 0,
    world_size: int = 1,
) -> Any:
    """A loader for ``data`` with reproducible order and sensible defaults.

    - a ``DataLoader`` is passed through unchanged in one process; with ``world_size > 1`` it
      is rebuilt so that this rank reads a disjoint shard of each epoch (`shard_dataloader`);
      any other iterable of batches is passed through (it must shard itself);
    - ``(X, y)`` tensors, numpy arrays or a ``TensorDataset`` are batched by whole-batch
      indexing (`TensorLoader`); on CUDA they are first moved to the GPU if they fit in
      ``device_fraction`` of its free memory;
    - a ``Dataset`` gets order fixed by (seed, epoch, rank), per-batch seeds for augmentations,
      ``pin_memory`` on CUDA and persistent workers: a `BatchLoader` when it reads whole
      batches (``__getitems__``/``get_batch``) and ``num_workers=0``, else a `SeededDataLoader`.

    ``num_workers="auto"`` measures a few fetches and picks a count (`choose_num_workers`);
    the loader's ``workers_reason`` says why, and it is logged on the ``trainwell.data`` logger.
    """
    if isinstance(data, DataLoader):
        return shard_dataloader(data, rank=rank, world_size=world_size, seed=seed)
    if _is_batch_iterable(data):
        if world_size > 1 and rank == 0:
            warn_at_user(
                f"the training data ({type(data).__name__}) is an iterable of batches that "
                f"trainwell cannot split between {world_size} processes: it must yield only "
                "this rank's batches, or every rank trains on the same data; pass a Dataset "
                "or a DataLoader to have it sharded"
            )
        return data
    tensors = as_tensors(data)
    if tensors is not None:
        return _tensor_loader(
            tensors,
            batch_size,
            shuffle=shuffle,
            drop_last=drop_last,
            seed=seed,
            rank=rank,
            world_size=world_size,
            pin_memory=pin_memory,
            device=device,
            device_fraction=device_fraction,
        )
    if not hasattr(data, "__getitem__") or not hasattr(data, "__len__"):
        raise DataError(
            f"cannot load training data of type {type(data).__name__}; pass a Dataset, a "
            "DataLoader, or a tuple of tensors/arrays (X, y)"
        )
    if len(data) == 0:
        raise DataError("the dataset is empty; pass at least one sample")
    reason = ""
    if num_workers == "auto":
        num_workers, reason = choose_num_workers(data, batch_size, collate_fn)
        log.info("data.num_workers=auto -> %d: %s", num_workers, reason)
    pinned = wants_pinned_batches(device, pin_memory)
    sampler = EpochBatchSampler(
        len(data),
        batch_size,
        seed=seed,
        shuffle=shuffle,
        drop_last=drop_last,
        rank=rank,
        world_size=world_size,
    )
    # get_batch returns a collated batch: only trainwell's own collate knows to pass it through.
    dataset = BatchSeededDataset(data, use_get_batch=collate_fn is None)
    collate = collate_fn or collate_batch
    loader: BatchLoader | SeededDataLoader
    if num_workers == 0 and fetches_whole_batches(data):
        loader = BatchLoader(dataset, sampler, collate, pin_memory=pinned)
    else:
        workers = (
            {"persistent_workers": persistent_workers, "prefetch_factor": prefetch_factor}
            if num_workers > 0
            else {}
        )
        loader = SeededDataLoader(
            dataset,
            batch_sampler=sampler,
            num_workers=num_workers,
            pin_memory=pinned,
            collate_fn=collate,
            generator=epoch_generator(seed, 0),
            **workers,
        )
    loader.workers_reason = reason
    return loader


def _tensor_loader(
    tensors: tuple[torch.Tensor, ...],
    batch_size: int,
    *,
    shuffle: bool,
    drop_last: bool,
    seed: int,
    rank: int,
    world_size: int,
    pin_memory: bool | None,
    device: torch.device | str | None,
    device_fraction: float,
) -> TensorLoader:
    lengths = {len(t) for t in tensors}
    if len(lengths) == 1 and lengths.pop() > 0:  # TensorLoader reports bad shapes itself
        tensors, placement = place_tensors(tensors, device, device_fraction)
    else:
        placement = ""
    loader = TensorLoader(
        tensors,
        batch_size,
        shuffle=shuffle,
        drop_last=drop_last,
        seed=seed,
        rank=rank,
        world_size=world_size,
        pin_memory=wants_pinned_batches(device, pin_memory),
    )
    loader.placement = placement
    return loader


_RESUMABLE = (TensorLoader, BatchLoader, SeededDataLoader)


def start_epoch(loader: Any, epoch: int, start_batch: int = 0) -> Iterator[Any]:
    """Iterate ``loader``'s batches of ``epoch``, beginning at batch ``start_batch``.

    trainwell's loaders jump there in O(1) (``set_epoch``: the pass this returns is exactly
    that epoch; a plain pass after it would be the next one). A foreign loader is told the epoch if it (or its
    sampler) has ``set_epoch`` (the DistributedSampler protocol), and its first ``start_batch``
    batches are loaded and dropped: exact only if its order is a function of the epoch.
    """
    if isinstance(loader, _RESUMABLE):
        loader.set_epoch(epoch, start_batch)
        return iter(loader)
    for target in (
        getattr(loader, "sampler", None),
        getattr(loader, "batch_sampler", None),
        loader,
    ):
        if target is not None and hasattr(target, "set_epoch"):
            target.set_epoch(epoch)
            break
    iterator = iter(loader)
    for _ in range(start_batch):
        next(iterator, None)
    return iterator


def warn_if_inexact_resume(loader: Any, start_batch: int) -> None:
    """A run resumed mid-epoch (at batch ``start_batch``) on a loader trainwell cannot position
    exactly says so, with what the resumed epoch will see and how to make it exact."""
    if start_batch == 0 or isinstance(loader, _RESUMABLE):
        return
    name = type(loader).__name__
    if any(
        hasattr(target, "set_epoch")
        for target in (getattr(loader, "sampler", None), getattr(loader, "batch_sampler", None))
    ) or hasattr(loader, "set_epoch"):
        what = (
            f"its first {start_batch} batches of this epoch are loaded again and dropped; exact "
            "only if its order is a function of the epoch given to set_epoch"
        )
    else:
        what = (
            f"it cannot be told the epoch, so the {start_batch} batches skipped are those of a "
            "new pass, not the ones the interrupted run trained on: the resumed epoch sees a "
            "different order"
        )
    warn_at_user(
        f"resuming mid-epoch (batch {start_batch}) on a {name}: {what}. For an exact O(1) "
        "resume, pass the Dataset or the tensors themselves (fit() then builds a loader that "
        "resumes exactly), or a loader made by trainwell.make_loader"
    )


def _is_batch_iterable(data: Any) -> bool:
    # A user's own iterable of batches (generator, custom loader): not indexable, so not a Dataset.
    return hasattr(data, "__iter__") and not hasattr(data, "__getitem__")


def has_static_shapes(loader: Any) -> bool:
    """Whether every batch has one shape (bar a short last batch): tensors batched by
    trainwell. A Dataset's samples may vary (sequences padded per batch), so not those."""
    return isinstance(loader, TensorLoader)
