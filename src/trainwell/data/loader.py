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

from collections.abc import Callable, Iterator
from typing import Any, Literal

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

from trainwell.data.epochs import (
    BatchLoader,
    EpochBatchSampler,
    SeededDataLoader,
    TensorLoader,
    log,
)
from trainwell.data.fetch import (
    BatchSeededDataset,
    as_tensors,
    collate_batch,
    fetches_whole_batches,
)
from trainwell.data.order import (
    epoch_generator,
)
from trainwell.data.placement import (
    DEVICE_FRACTION,
    place_tensors,
    wants_pinned_batches,
)
from trainwell.data.sharding import shard_dataloader
from trainwell.data.streams import BatchList, StreamLoader, is_list_of_batches
from trainwell.data.workers import choose_num_workers
from trainwell.errors import DataError, warn_at_user


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
    check_numeric(data)
    if isinstance(data, IterableDataset):
        _warn_unsharded(data, rank, world_size)
        return StreamLoader(
            DataLoader(
                data,
                batch_size=batch_size,
                drop_last=drop_last,
                collate_fn=collate_fn or collate_batch,
                num_workers=0 if num_workers == "auto" else num_workers,
                pin_memory=wants_pinned_batches(device, pin_memory),
            )
        )
    if collate_fn is None and is_list_of_batches(data):
        _warn_unsharded(data, rank, world_size)
        return BatchList(data)
    if _is_batch_iterable(data):
        _warn_unsharded(data, rank, world_size)
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


def _warn_unsharded(data: Any, rank: int, world_size: int) -> None:
    if world_size > 1 and rank == 0:
        warn_at_user(
            f"the training data ({type(data).__name__}) is an iterable of batches that "
            f"trainwell cannot split between {world_size} processes: it must yield only "
            "this rank's batches, or every rank trains on the same data; pass a Dataset "
            "or a DataLoader to have it sharded"
        )


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


_RESUMABLE = (TensorLoader, BatchLoader, SeededDataLoader, BatchList)


def start_epoch(loader: Any, epoch: int, start_batch: int = 0) -> Iterator[Any]:
    """Iterate ``loader``'s batches of ``epoch``, beginning at batch ``start_batch``.

    trainwell's loaders jump there in O(1) (``set_epoch``: the pass this returns is exactly
    that epoch; a plain pass after it would be the next one). A foreign loader is told the epoch if it (or its
    sampler) has ``set_epoch`` (the DistributedSampler protocol), and its first ``start_batch``
    batches are loaded and dropped: exact only if its order is a function of the epoch.
    """
    if isinstance(loader, (*_RESUMABLE, StreamLoader)):
        loader.set_epoch(epoch, start_batch)  # a stream drops its first start_batch itself
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
    if isinstance(loader, StreamLoader):
        warn_at_user(
            f"resuming a stream of batches ({type(loader.source).__name__}) at batch "
            f"{start_batch}: its first {start_batch} batches are read again and dropped; exact "
            "only if it yields the same batches every time it is created and read (see "
            "docs/data.md, streams)"
        )
        return
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


def check_numeric(data: Any) -> None:
    """Strings and object arrays are not data a model can take: one clear `DataError` (what was
    given, what is expected) instead of a traceback from deep inside collation or torch."""
    parts = data if isinstance(data, tuple) else (data,)  # (X, y): look at each
    for index, part in enumerate(parts):
        what = _not_numeric(part)
        if what is None:
            continue
        where = f"element {index} of the data tuple" if isinstance(data, tuple) else "the data"
        raise DataError(
            f"{where} is {what}: trainwell needs numbers (tensors, numeric numpy arrays, or a "
            "Dataset returning them); encode text first (a tokenizer, or a vocabulary of ids) "
            "and convert mixed columns with X.astype('float32')"
        )


def _not_numeric(value: Any) -> str | None:
    """What ``value`` is when it is text or an object array, else None."""
    if isinstance(value, str):
        return "a string"
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUSV":
        kind = {"O": "object", "U": "string", "S": "bytes", "V": "structured"}[value.dtype.kind]
        return f"a numpy array of dtype {value.dtype} ({kind})"
    if isinstance(value, list) and value and isinstance(value[0], str | bytes):
        return f"a list of {len(value)} strings"
    return None


def _is_batch_iterable(data: Any) -> bool:
    # A user's own iterable of batches (generator, custom loader): not indexable, so not a Dataset.
    return hasattr(data, "__iter__") and not hasattr(data, "__getitem__")


def has_static_shapes(loader: Any) -> bool:
    """Whether every batch has one shape (bar a short last batch): tensors batched by
    trainwell. A Dataset's samples may vary (sequences padded per batch), so not those."""
    return isinstance(loader, TensorLoader)
