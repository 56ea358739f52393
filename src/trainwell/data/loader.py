"""Loaders with reproducible order, exact mid-epoch resume and whole-batch fetches.

The order of every epoch is a pure function of (seed, epoch, rank, world size), and where a
run is inside an epoch is just a batch index, so a resumed run continues at the next batch in
O(1) and sees the same batches as an uninterrupted one. Three loaders, picked by `make_loader`:

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
from trainwell.data.workers import choose_num_workers
from trainwell.errors import DataError

log = logging.getLogger("trainwell.data")


class TensorLoader:
    """Batches of in-memory tensors by whole-batch indexing: ``X[order[i:i+b]]``.

    Yields tuples of tensors (one per input tensor), on the device the tensors are on.
    ``set_epoch`` picks the epoch's order and the batch to start from. With ``world_size > 1``
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
        self.epoch = self.start_batch = 0
        self.placement = ""  # why the tensors are where they are (set by make_loader)

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        """Use ``epoch``'s order, starting at batch ``start_batch`` (for mid-epoch resume)."""
        self.epoch, self.start_batch = epoch, start_batch

    def order(self) -> torch.Tensor:
        """This rank's sample order for the current epoch, on the tensors' device."""
        order = shard_order(
            self.num_samples,
            self.seed,
            self.epoch,
            shuffle=self.shuffle,
            rank=self.rank,
            world_size=self.world_size,
        )
        return order.to(self.tensors[0].device)

    def __len__(self) -> int:
        return num_batches(self.num_samples, self.batch_size, self.drop_last, self.world_size)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        order, size, pinned = self.order(), self.batch_size, self.pin_memory
        arrays = self._arrays
        order_array = order.numpy() if any(a is not None for a in arrays) else None
        for batch in range(self.start_batch, len(self)):
            span = slice(batch * size, (batch + 1) * size)
            index = order[span]
            array_index = order_array[span] if order_array is not None else None
            yield tuple(
                gather(t, index, pinned, array=a, array_index=array_index)
                for t, a in zip(self.tensors, arrays, strict=True)
            )


class EpochBatchSampler(Sampler[list[int]]):
    """Batches of indices in an order fixed by (seed, epoch, rank, world size).

    ``set_epoch(epoch, start_batch)`` picks the epoch and where in it to begin: a resumed run
    continues at the next batch in O(1), without loading the batches it skips. Each batch
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
        self.epoch = self.start_batch = 0

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        self.epoch, self.start_batch = epoch, start_batch

    def shard(self) -> torch.Tensor:
        """This rank's sample order for the current epoch (padded so every rank has as many)."""
        return shard_order(
            self.num_samples,
            self.seed,
            self.epoch,
            shuffle=self.shuffle,
            rank=self.rank,
            world_size=self.world_size,
        )

    def __len__(self) -> int:
        return num_batches(self.num_samples, self.batch_size, self.drop_last, self.world_size)

    def __iter__(self) -> Iterator[list[int]]:
        order = self.shard().tolist()
        size = self.batch_size
        for batch in range(self.start_batch, len(self)):
            indices = SeededIndices(order[batch * size : (batch + 1) * size])
            indices.seed = batch_seed(self.seed, self.epoch, batch, self.rank)
            yield indices


class BatchLoader:
    """Batches of a Dataset that reads whole batches, fetched in the main process.

    The same batches as a `SeededDataLoader` over the same sampler (same order, same per-batch
    seeds, same collate), without DataLoader's iterator and fetcher layers: for each batch one
    ``__getitems__`` (or ``get_batch``) call and one collate. Pinned on request.
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

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        """Use ``epoch``'s order, starting at batch ``start_batch`` (for mid-epoch resume)."""
        self.batch_sampler.set_epoch(epoch, start_batch)

    def __len__(self) -> int:
        return len(self.batch_sampler)

    def __iter__(self) -> Iterator[Any]:
        fetch, collate, pin = self.dataset.__getitems__, self.collate_fn, self.pin_memory
        for indices in self.batch_sampler:
            batch = collate(fetch(indices))
            yield pin_batch(batch) if pin else batch


class SeededDataLoader(DataLoader):
    """A DataLoader over an `EpochBatchSampler`: reproducible order, seeds and resume point."""

    workers_reason = ""

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        self.batch_sampler.set_epoch(epoch, start_batch)


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

    - a ``DataLoader`` (or any iterable of batches) is passed through unchanged;
    - ``(X, y)`` tensors, numpy arrays or a ``TensorDataset`` are batched by whole-batch
      indexing (`TensorLoader`); on CUDA they are first moved to the GPU if they fit in
      ``device_fraction`` of its free memory;
    - a ``Dataset`` gets order fixed by (seed, epoch, rank), per-batch seeds for augmentations,
      ``pin_memory`` on CUDA and persistent workers: a `BatchLoader` when it reads whole
      batches (``__getitems__``/``get_batch``) and ``num_workers=0``, else a `SeededDataLoader`.

    ``num_workers="auto"`` measures a few fetches and picks a count (`choose_num_workers`);
    the loader's ``workers_reason`` says why, and it is logged on the ``trainwell.data`` logger.
    """
    if isinstance(data, DataLoader) or _is_batch_iterable(data):
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

    trainwell's loaders jump there in O(1). A foreign loader is told the epoch if it (or its
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


def _is_batch_iterable(data: Any) -> bool:
    # A user's own iterable of batches (generator, custom loader): not indexable, so not a Dataset.
    return hasattr(data, "__iter__") and not hasattr(data, "__getitem__")
