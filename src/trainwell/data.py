"""Data loading: reproducible order, exact mid-epoch resume, whole-batch indexing for tensors.

The order of every epoch is a pure function of (seed, epoch), and where a run is inside an
epoch is just a batch index, so a resumed run continues at the next batch in O(1) and sees
the same batches as an uninterrupted one. Tensors and arrays are batched by indexing whole
batches at once (one gather per batch) instead of ``__getitem__`` per sample plus collate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from trainwell.errors import DataError

SEED_STRIDE = 1_000_003  # a prime, so (seed, epoch) pairs do not collide in practice


def epoch_generator(seed: int, epoch: int) -> torch.Generator:
    """A torch generator whose stream depends only on (seed, epoch)."""
    return torch.Generator().manual_seed(seed * SEED_STRIDE + epoch)


def epoch_order(num_samples: int, seed: int, epoch: int, shuffle: bool = True) -> torch.Tensor:
    """The sample order of one epoch: a permutation fixed by (seed, epoch), or 0..n-1."""
    if not shuffle:
        return torch.arange(num_samples)
    return torch.randperm(num_samples, generator=epoch_generator(seed, epoch))


def batch_seed(seed: int, epoch: int, batch: int) -> int:
    """The RNG seed of one batch: a pure function of (seed, epoch, batch index)."""
    return int(np.random.SeedSequence([seed, epoch, batch]).generate_state(1)[0])


class TensorLoader:
    """Batches of in-memory tensors by whole-batch indexing: ``X[order[i:i+b]]``.

    Yields tuples of tensors (one per input tensor). ``set_epoch`` picks the epoch's order
    and the batch to start from.
    """

    def __init__(
        self,
        tensors: Sequence[torch.Tensor],
        batch_size: int,
        *,
        shuffle: bool = True,
        drop_last: bool = False,
        seed: int = 0,
    ) -> None:
        lengths = {len(t) for t in tensors}
        if len(lengths) != 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            raise DataError(
                f"input tensors must have the same first dimension; got shapes {shapes}"
            )
        self.tensors = tuple(tensors)
        self.num_samples = lengths.pop()
        if self.num_samples == 0:
            raise DataError("the dataset is empty; pass at least one sample")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.seed = seed
        self.epoch = self.start_batch = 0

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        """Use ``epoch``'s order, starting at batch ``start_batch`` (for mid-epoch resume)."""
        self.epoch, self.start_batch = epoch, start_batch

    def __len__(self) -> int:
        if self.drop_last:
            return self.num_samples // self.batch_size
        return math.ceil(self.num_samples / self.batch_size)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        order = epoch_order(self.num_samples, self.seed, self.epoch, self.shuffle)
        order = order.to(self.tensors[0].device)
        end = len(self) * self.batch_size
        for start in range(self.start_batch * self.batch_size, end, self.batch_size):
            index = order[start : start + self.batch_size]
            yield tuple(t[index] for t in self.tensors)


class SeededIndices(list):
    """A batch's sample indices, carrying the seed its fetch (and augmentations) must use."""

    seed: int | None = None


class EpochBatchSampler(Sampler[list[int]]):
    """Batches of indices in an order fixed by (seed, epoch, rank, world size).

    ``set_epoch(epoch, start_batch)`` picks the epoch and where in it to begin: a resumed run
    continues at the next batch in O(1), without loading the batches it skips. Each batch
    carries a seed derived from (seed, epoch, batch index), so its augmentations are the same
    whichever worker fetches it, and however many workers there are.
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
        self.num_samples, self.batch_size = num_samples, batch_size
        self.seed, self.shuffle, self.drop_last = seed, shuffle, drop_last
        self.rank, self.world_size = rank, world_size
        self.epoch = self.start_batch = 0

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        self.epoch, self.start_batch = epoch, start_batch

    def shard(self) -> torch.Tensor:
        """This rank's sample order for the current epoch (padded so every rank has as many)."""
        order = epoch_order(self.num_samples, self.seed, self.epoch, self.shuffle)
        if self.world_size == 1:
            return order
        per_rank = math.ceil(self.num_samples / self.world_size)
        padded = torch.cat([order, order[: per_rank * self.world_size - self.num_samples]])
        return padded[self.rank :: self.world_size]

    def __len__(self) -> int:
        per_rank = math.ceil(self.num_samples / self.world_size)
        if self.drop_last:
            return per_rank // self.batch_size
        return math.ceil(per_rank / self.batch_size)

    def __iter__(self) -> Iterator[list[int]]:
        order = self.shard().tolist()
        size = self.batch_size
        for batch in range(self.start_batch, len(self)):
            indices = SeededIndices(order[batch * size : (batch + 1) * size])
            indices.seed = batch_seed(self.seed, self.epoch, batch)
            yield indices


class BatchSeededDataset(Dataset):
    """Wraps a map-style dataset: seeds python, numpy and torch before fetching each batch.

    In a worker process the worker's streams are simply reseeded. In the main process
    (``num_workers=0``) the training streams are saved and restored around the fetch, so
    loading data never shifts the model's dropout or initialisation randomness.
    """

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[index]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        seed = getattr(indices, "seed", None)
        if seed is None:
            return self._fetch(indices)
        if torch.utils.data.get_worker_info() is not None:
            seed_worker(seed)
            return self._fetch(indices)
        with PreservedRNG():
            seed_worker(seed)
            return self._fetch(indices)

    def _fetch(self, indices: list[int]) -> list[Any]:
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(list(indices))
        return [self.dataset[i] for i in indices]


class PreservedRNG:
    """Save python, numpy and torch CPU random states on entry; restore them on exit."""

    def __enter__(self) -> None:
        self.states = (random.getstate(), np.random.get_state(), torch.get_rng_state())

    def __exit__(self, *exc: object) -> None:
        python, numpy, torch_state = self.states
        random.setstate(python)
        np.random.set_state(numpy)
        torch.set_rng_state(torch_state)


def seed_worker(worker_seed: int) -> None:
    """Seed python, numpy and torch (in a DataLoader worker, or around one batch's fetch)."""
    random.seed(worker_seed)
    np.random.seed(worker_seed % 2**32)
    torch.manual_seed(worker_seed)


class SeededDataLoader(DataLoader):
    """A DataLoader over an `EpochBatchSampler`: reproducible order, seeds and resume point."""

    def set_epoch(self, epoch: int, start_batch: int = 0) -> None:
        self.batch_sampler.set_epoch(epoch, start_batch)


def make_loader(
    data: Any,
    *,
    batch_size: int = 64,
    shuffle: bool = True,
    drop_last: bool = False,
    num_workers: int = 0,
    pin_memory: bool | None = None,
    persistent_workers: bool = True,
    prefetch_factor: int = 2,
    seed: int = 0,
    collate_fn: Any = None,
    device: torch.device | str | None = None,
) -> Any:
    """A loader for ``data`` with reproducible order and sensible defaults.

    - a ``DataLoader`` (or any iterable of batches) is passed through unchanged;
    - ``(X, y)`` tensors or numpy arrays are batched by whole-batch indexing (`TensorLoader`);
    - a ``Dataset`` gets a `SeededDataLoader`: order fixed by (seed, epoch), per-batch seeds
      for augmentations, ``pin_memory`` on CUDA, persistent workers.
    """
    if isinstance(data, DataLoader) or _is_batch_iterable(data):
        return data
    tensors = _as_tensors(data)
    if tensors is not None:
        return TensorLoader(tensors, batch_size, shuffle=shuffle, drop_last=drop_last, seed=seed)
    if not hasattr(data, "__getitem__") or not hasattr(data, "__len__"):
        raise DataError(
            f"cannot load training data of type {type(data).__name__}; pass a Dataset, a "
            "DataLoader, or a tuple of tensors/arrays (X, y)"
        )
    if pin_memory is None:
        pin_memory = device is not None and torch.device(device).type == "cuda"
    workers = (
        {"persistent_workers": persistent_workers, "prefetch_factor": prefetch_factor}
        if num_workers > 0
        else {}
    )
    sampler = EpochBatchSampler(
        len(data), batch_size, seed=seed, shuffle=shuffle, drop_last=drop_last
    )
    return SeededDataLoader(
        BatchSeededDataset(data),
        batch_sampler=sampler,
        num_workers=num_workers,
        pin_memory=pin_memory,
        collate_fn=collate_fn,
        generator=epoch_generator(seed, 0),
        **workers,
    )


def start_epoch(loader: Any, epoch: int, start_batch: int = 0) -> Iterator[Any]:
    """Iterate ``loader``'s batches of ``epoch``, beginning at batch ``start_batch``.

    trainwell's loaders jump there in O(1). A foreign loader is told the epoch if it (or its
    sampler) has ``set_epoch`` (the DistributedSampler protocol), and its first ``start_batch``
    batches are loaded and dropped: exact only if its order is a function of the epoch.
    """
    if isinstance(loader, TensorLoader | SeededDataLoader):
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


def _as_tensors(data: Any) -> tuple[torch.Tensor, ...] | None:
    if isinstance(data, torch.utils.data.TensorDataset):
        return tuple(data.tensors)
    if isinstance(data, torch.Tensor | np.ndarray):
        return (torch.as_tensor(data),)
    if (
        isinstance(data, tuple | list)
        and data
        and all(isinstance(t, torch.Tensor | np.ndarray) for t in data)
    ):
        return tuple(torch.as_tensor(t) for t in data)
    return None
