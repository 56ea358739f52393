"""Data loading: reproducible order, exact mid-epoch resume, whole-batch fetches, caching.

The order of every epoch is a pure function of (seed, epoch, rank, world size), and where a
run is inside an epoch is just a batch index, so a resumed run continues at the next batch in
O(1) and sees the same batches as an uninterrupted one. Every pass over a loader is the next
epoch (as ``DataLoader(shuffle=True)`` reshuffles per ``iter()``); ``set_epoch`` picks the
epoch of the next pass and ``state_dict`` holds the position. Tensors and arrays are batched by
indexing whole batches at once (one gather per batch) instead of ``__getitem__`` per sample
plus collate; datasets that read whole batches skip DataLoader's machinery; every batch is
fetched under its own seed, so augmentations do not depend on the worker count.

See docs/data.md.
"""

from trainwell.data.caching import CachedDataset, cache
from trainwell.data.epochs import BatchLoader, EpochBatchSampler, SeededDataLoader, TensorLoader
from trainwell.data.fetch import (
    BatchSeededDataset,
    PreservedRNG,
    ReadyBatch,
    SeededIndices,
    as_tensors,
    collate_batch,
    seed_worker,
)
from trainwell.data.loader import (
    _is_batch_iterable as _is_batch_iterable,
)
from trainwell.data.loader import (
    has_static_shapes,
    make_loader,
    start_epoch,
    warn_if_inexact_resume,
)
from trainwell.data.order import (
    SEED_STRIDE,
    batch_seed,
    epoch_generator,
    epoch_order,
    shard_order,
)
from trainwell.data.padding import PadCollate, pad_collate
from trainwell.data.placement import fits_on_device, place_tensors
from trainwell.data.streams import BatchList, StreamLoader, is_list_of_batches
from trainwell.data.workers import choose_num_workers

# Private names of the former single-module trainwell.data, kept for existing importers.
_as_tensors = as_tensors

__all__ = [
    "SEED_STRIDE",
    "BatchList",
    "BatchLoader",
    "BatchSeededDataset",
    "CachedDataset",
    "EpochBatchSampler",
    "PadCollate",
    "PreservedRNG",
    "ReadyBatch",
    "SeededDataLoader",
    "SeededIndices",
    "StreamLoader",
    "TensorLoader",
    "as_tensors",
    "batch_seed",
    "cache",
    "choose_num_workers",
    "collate_batch",
    "epoch_generator",
    "epoch_order",
    "fits_on_device",
    "has_static_shapes",
    "is_list_of_batches",
    "make_loader",
    "pad_collate",
    "place_tensors",
    "seed_worker",
    "shard_order",
    "start_epoch",
    "warn_if_inexact_resume",
]
