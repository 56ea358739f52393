"""Data loading: reproducible order, seeded workers, and whole-batch indexing for tensors.

The order of every epoch is a pure function of (seed, epoch), so a resumed run sees the same
batches as an uninterrupted one. Tensors and arrays are batched by indexing whole batches at
once (one gather per batch) instead of ``__getitem__`` per sample plus ``default_collate``.
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


class TensorLoader:
    """Batches of in-memory tensors by whole-batch indexing: ``X[order[i:i+b]]``.

    Yields tuples of tensors (one per input tensor). ``set_epoch`` picks the epoch's order.
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
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        if self.drop_last:
            return self.num_samples // self.batch_size
        return math.ceil(self.num_samples / self.batch_size)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        order = epoch_order(self.num_samples, self.seed, self.epoch, self.shuffle)
        device = self.tensors[0].device
        order = order.to(device)
        for start in range(0, len(self) * self.batch_size, self.batch_size):
            index = order[start : start + self.batch_size]
            yield tuple(t[index] for t in self.tensors)


class EpochSampler(Sampler[int]):
    """Sample indices in an order fixed by (seed, epoch); call ``set_epoch`` every epoch."""

    def __init__(self, num_samples: int, *, seed: int = 0, shuffle: bool = True) -> None:
        self.num_samples = num_samples
        self.seed = seed
        self.shuffle = shuffle
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return self.num_samples

    def __iter__(self) -> Iterator[int]:
        return iter(epoch_order(self.num_samples, self.seed, self.epoch, self.shuffle).tolist())


class _WorkerSeeder:
    """``worker_init_fn`` that seeds python, numpy and torch from the worker's torch seed.

    PyTorch gives worker ``i`` the seed ``base_seed + i``, with ``base_seed`` drawn from the
    loader's generator, which `SeededDataLoader.set_epoch` reseeds from (seed, epoch). So every
    worker has its own stream (augmentations differ across workers and epochs), and the same
    streams come back on every run with the same seed.
    """

    def __call__(self, worker_id: int) -> None:
        seed_worker(torch.initial_seed())


def seed_worker(worker_seed: int) -> None:
    """Seed python, numpy and torch inside one DataLoader worker."""
    random.seed(worker_seed)
    np.random.seed(worker_seed % 2**32)
    torch.manual_seed(worker_seed)


class SeededDataLoader(DataLoader):
    """A DataLoader whose order and worker seeds follow (seed, epoch); has ``set_epoch``."""

    def set_epoch(self, epoch: int) -> None:
        if isinstance(self.sampler, EpochSampler):
            self.sampler.set_epoch(epoch)
        # The loader's generator seeds each worker's base seed when an iterator starts.
        self.generator.manual_seed(self._trainwell_seed * SEED_STRIDE + epoch)


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
    - a ``Dataset`` gets a `SeededDataLoader`: order fixed by (seed, epoch), a seeded
      generator and per-worker seeds, ``pin_memory`` on CUDA, persistent workers.
    """
    if isinstance(data, DataLoader) or _is_batch_iterable(data):
        return data
    tensors = _as_tensors(data)
    if tensors is not None:
        return TensorLoader(tensors, batch_size, shuffle=shuffle, drop_last=drop_last, seed=seed)
    if not isinstance(data, Dataset) and not hasattr(data, "__getitem__"):
        raise DataError(
            f"cannot load training data of type {type(data).__name__}; pass a Dataset, a "
            "DataLoader, or a tuple of tensors/arrays (X, y)"
        )
    if pin_memory is None:
        pin_memory = device is not None and torch.device(device).type == "cuda"
    workers = (
        dict(persistent_workers=persistent_workers, prefetch_factor=prefetch_factor)
        if num_workers > 0
        else {}
    )
    loader = SeededDataLoader(
        data,
        batch_size=batch_size,
        sampler=EpochSampler(len(data), seed=seed, shuffle=shuffle),
        drop_last=drop_last,
        num_workers=num_workers,
        pin_memory=pin_memory,
        collate_fn=collate_fn,
        generator=epoch_generator(seed, 0),
        worker_init_fn=_WorkerSeeder() if num_workers > 0 else None,
        **workers,
    )
    loader._trainwell_seed = seed
    return loader


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
