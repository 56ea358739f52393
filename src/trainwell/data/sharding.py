"""A user's DataLoader split between ranks: every rank reads a disjoint shard of each epoch.

`make_loader` hands a ``DataLoader`` back unchanged in one process. Launched as several
processes, a DataLoader that does not shard itself would give every rank the whole dataset:
each epoch would train on every sample W times, silently. `shard_dataloader` rebuilds it over
the same dataset, collate function and worker settings:

- **shuffled or sequential** (``shuffle=True`` / ``False``, the usual case): an
  `EpochBatchSampler`. The order is a function of (seed, epoch), the same on every rank; rank r
  takes every W-th sample from position r, padded with the order's head so every rank takes as
  many steps; each batch gets its own seed; resume is O(1), mid-epoch included.
- **any other sampler or batch sampler** (weighted, bucketing, ...): its batches dealt out in
  turn, batch i to rank i mod W, padded with the epoch's first batches. A sampler that draws
  from an unseeded generator gets one seeded by (seed, epoch) for each epoch, so every rank
  draws the same batches to deal.
- **already sharded** (a ``DistributedSampler`` or anything with ``num_replicas`` and
  ``rank``): kept, after checking that it names this rank and world size.
- **an IterableDataset**: kept, with a warning: its iterator must split the stream by rank
  itself (nothing outside it can).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from torch.utils.data import (
    BatchSampler,
    DataLoader,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
)

from trainwell.data.epochs import EpochBatchSampler, SeededDataLoader
from trainwell.data.fetch import BatchSeededDataset
from trainwell.data.order import check_rank, epoch_generator
from trainwell.errors import DataError, warn_at_user


def shard_dataloader(loader: DataLoader, *, rank: int, world_size: int, seed: int) -> Any:
    """``loader`` as rank ``rank`` of ``world_size`` should read it (see the module's doc);
    ``loader`` itself in one process."""
    check_rank(rank, world_size)
    if world_size == 1:
        return loader
    if isinstance(loader.dataset, IterableDataset):
        if rank == 0:
            warn_at_user(
                f"the training DataLoader reads an IterableDataset "
                f"({type(loader.dataset).__name__}) with {world_size} processes: trainwell "
                "cannot split a stream, so its iterator must yield only this rank's samples "
                "(torch.distributed.get_rank()), or every rank trains on the same data"
            )
        return loader
    sampler = loader.sampler if loader.batch_sampler is None else loader.batch_sampler.sampler
    if _is_sharded(sampler) or _is_sharded(loader.batch_sampler):
        _check_sharded(sampler if _is_sharded(sampler) else loader.batch_sampler, rank, world_size)
        return loader
    if loader.batch_sampler is None:
        raise DataError(
            "the training DataLoader has batch_size=None (it yields ready batches one sample "
            f"at a time), so trainwell cannot split it between {world_size} processes; give "
            "it a batch_size, or shard it yourself (a DistributedSampler)"
        )
    if _plain_order(loader):
        return _rebuilt(loader, _epoch_sampler(loader, sampler, rank, world_size, seed))
    return _rebuilt(
        loader, DealtBatches(loader.batch_sampler, rank, world_size, seed), seeded=False
    )


def _is_sharded(sampler: Any) -> bool:
    return hasattr(sampler, "num_replicas") and hasattr(sampler, "rank")


def _check_sharded(sampler: Any, rank: int, world_size: int) -> None:
    if (sampler.num_replicas, sampler.rank) != (world_size, rank):
        raise DataError(
            f"the training DataLoader's {type(sampler).__name__} has num_replicas="
            f"{sampler.num_replicas}, rank={sampler.rank}, but this process is rank {rank} of "
            f"{world_size}; build it with num_replicas=world_size, rank=rank, or pass a plain "
            "DataLoader and let trainwell shard it"
        )


def _plain_order(loader: DataLoader) -> bool:
    """A torch BatchSampler over the whole dataset, in order or as a permutation."""
    batches = loader.batch_sampler
    if type(batches) is not BatchSampler:
        return False
    sampler = batches.sampler
    if type(sampler) is SequentialSampler:
        return True
    return (
        type(sampler) is RandomSampler
        and not sampler.replacement
        and sampler.num_samples == len(loader.dataset)
    )


def _epoch_sampler(loader: DataLoader, sampler: Sampler, rank: int, world: int, seed: int):
    return EpochBatchSampler(
        len(loader.dataset),
        loader.batch_sampler.batch_size,
        seed=seed,
        shuffle=isinstance(sampler, RandomSampler),
        drop_last=loader.batch_sampler.drop_last,
        rank=rank,
        world_size=world,
    )


def _rebuilt(loader: DataLoader, batch_sampler: Any, *, seeded: bool = True) -> DataLoader:
    """A loader like ``loader`` (dataset, collate, workers, pinning) over ``batch_sampler``."""
    workers: dict[str, Any] = {}
    if loader.num_workers > 0:
        workers = {
            "persistent_workers": loader.persistent_workers,
            "prefetch_factor": loader.prefetch_factor,
            "multiprocessing_context": loader.multiprocessing_context,
            "worker_init_fn": loader.worker_init_fn,
            "timeout": loader.timeout,
        }
    if seeded:  # per-batch seeds: augmentations reproduce across resumes and worker counts
        cls, dataset = SeededDataLoader, BatchSeededDataset(loader.dataset)
    else:
        cls, dataset = DataLoader, loader.dataset
    rebuilt = cls(
        dataset,
        batch_sampler=batch_sampler,
        num_workers=loader.num_workers,
        collate_fn=loader.collate_fn,
        pin_memory=loader.pin_memory,
        pin_memory_device=loader.pin_memory_device,
        **workers,
    )
    rebuilt.workers_reason = ""
    return rebuilt


class DealtBatches(Sampler[list[int]]):
    """The batches of another batch sampler dealt out between ranks: batch i goes to rank
    i mod ``world_size``; the last round is completed with the epoch's first batches, so every
    rank takes ``ceil(n / world_size)`` steps.

    ``set_epoch`` reaches the wrapped sampler (the DistributedSampler protocol). A wrapped
    sampler with an unseeded ``generator`` draws, each epoch, from one seeded by (seed, epoch):
    every rank sees the same batches to deal, and a resumed run the same as an unbroken one.
    """

    def __init__(self, batches: Any, rank: int, world_size: int, seed: int = 0) -> None:
        check_rank(rank, world_size)
        self.batches, self.rank, self.world_size, self.seed = batches, rank, world_size, seed
        self.epoch = 0
        self._seeded = [
            s
            for s in (batches, getattr(batches, "sampler", None))
            if s is not None and hasattr(s, "generator") and s.generator is None
        ]

    def set_epoch(self, epoch: int) -> None:
        """The epoch of the next pass (also told to the wrapped samplers that listen)."""
        self.epoch = epoch
        for target in (self.batches, getattr(self.batches, "sampler", None)):
            if target is not None and hasattr(target, "set_epoch"):
                target.set_epoch(epoch)

    def __len__(self) -> int:
        return -(-len(self.batches) // self.world_size)

    def __iter__(self) -> Iterator[list[int]]:
        for sampler in self._seeded:
            sampler.generator = epoch_generator(self.seed, self.epoch)
        self.epoch += 1  # a plain next pass is the next epoch, as for trainwell's loaders
        head: list[list[int]] = []
        dealt, i = 0, -1
        for i, batch in enumerate(self.batches):
            if len(head) < self.world_size:
                head.append(list(batch))
            if i % self.world_size == self.rank:
                dealt += 1
                yield list(batch)
        if dealt < len(self):  # the last round is short: pad it with the epoch's first batches
            missing = (len(self) - 1) * self.world_size + self.rank  # the index it would have had
            yield head[(missing - i - 1) % len(head)]
