"""Fetching one batch: per-batch seeding, whole-batch reads, collation.

Each batch carries a seed derived from (seed, epoch, batch index, rank). Whoever fetches it
(the main process or any worker) seeds python, numpy and torch with that seed first, so a
batch's augmentations depend only on which batch it is. Per-worker seeds (the classic
``worker_init_fn`` recipe) only make workers differ from each other: the values still depend on
which worker happened to fetch which batch, so they change with ``num_workers`` and after a
resume. Per-batch seeds give identical batches for any worker count, and on resume.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset, default_collate

from trainwell.errors import DataError


class SeededIndices(list):
    """A batch's sample indices, carrying the seed its fetch (and augmentations) must use."""

    seed: int | None = None


class ReadyBatch:
    """A batch a dataset's ``get_batch`` returned already collated: collation passes it through."""

    __slots__ = ("batch",)

    def __init__(self, batch: Any) -> None:
        self.batch = batch


def collate_batch(data: Any) -> Any:
    """trainwell's default collate: a `ReadyBatch` as it is, a list of samples by ``default_collate``."""
    if isinstance(data, ReadyBatch):
        return data.batch
    try:
        return default_collate(data)
    except RuntimeError as exc:
        if "stack expects each tensor to be equal size" not in str(exc):
            raise
        raise DataError(
            f"the samples of a batch differ in shape ({_sample_shapes(data)}), so they cannot "
            "be stacked into one tensor; pass collate_fn= (to fit, make_loader or your "
            "DataLoader): trainwell.data.pad_collate pads sequences and counts real tokens"
        ) from None


def _sample_shapes(samples: Any) -> str:
    """The distinct shapes of the samples' tensors, the first few: ``[5] vs [7] vs [3]``."""
    shapes: list[str] = []
    for sample in samples:
        fields = sample if isinstance(sample, tuple | list) else [sample]
        if isinstance(sample, dict):
            fields = list(sample.values())
        described = ", ".join(str(list(f.shape)) for f in fields if isinstance(f, torch.Tensor))
        if described not in shapes:
            shapes.append(described)
        if len(shapes) == 3:
            break
    return " vs ".join(f"({s})" if ", " in s else s for s in shapes)


def fetches_whole_batches(dataset: Any) -> bool:
    """Whether ``dataset`` reads a batch in one call (``get_batch`` or ``__getitems__``)."""
    return callable(getattr(dataset, "get_batch", None)) or callable(
        getattr(dataset, "__getitems__", None)
    )


class BatchSeededDataset(Dataset):
    """Wraps a map-style dataset: seeds python, numpy and torch before fetching each batch.

    In a worker process the worker's streams are simply reseeded. In the main process
    (``num_workers=0``) torch's training stream is saved and restored around the fetch, so
    loading data never shifts the model's dropout or initialisation randomness.

    With ``use_get_batch`` a dataset's ``get_batch(indices)`` (a batch already collated, e.g.
    `CachedDataset`) is used and wrapped in `ReadyBatch`, for `collate_batch` to pass through.
    Otherwise ``__getitems__(indices)`` when the dataset has it, else ``__getitem__`` per index.
    """

    def __init__(self, dataset: Any, *, use_get_batch: bool = False) -> None:
        self.dataset = dataset
        self.use_get_batch = use_get_batch and callable(getattr(dataset, "get_batch", None))

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[index]

    def __getitems__(self, indices: list[int]) -> Any:
        seed = getattr(indices, "seed", None)
        if seed is None:
            return self._fetch(indices)
        if torch.utils.data.get_worker_info() is not None:
            seed_worker(seed)
            return self._fetch(indices)
        with PreservedTorchRNG():
            seed_worker(seed)
            return self._fetch(indices)

    def _fetch(self, indices: list[int]) -> Any:
        if self.use_get_batch:
            return ReadyBatch(self.dataset.get_batch(list(indices)))
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(list(indices))
        return [self.dataset[i] for i in indices]


class PreservedTorchRNG:
    """Save torch's CPU random state on entry and restore it on exit (about 1 us).

    Used around each batch's fetch in the main process: the model's dropout stream must not
    shift with data loading. Python's and numpy's global streams are left as the batch's seed
    made them: a pure function of (seed, epoch, batch), so runs stay reproducible and resume
    stays exact, without the ~60 us per batch that saving numpy's state would cost.
    """

    def __enter__(self) -> None:
        self.state = torch.get_rng_state()

    def __exit__(self, *exc: object) -> None:
        torch.set_rng_state(self.state)


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
    """Seed python, numpy and torch's CPU generator (in a worker, or around one batch's fetch).

    Only the CPU generator: ``torch.manual_seed`` would also reseed every CUDA generator, and in
    the main process that would reset the model's GPU dropout stream at every batch.
    """
    random.seed(worker_seed)
    np.random.seed(worker_seed % 2**32)
    torch.default_generator.manual_seed(worker_seed)


def as_tensors(data: Any) -> tuple[torch.Tensor, ...] | None:
    """``data`` as a tuple of tensors if it is in-memory arrays (or a TensorDataset), else None."""
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


def fetch_batch(
    dataset: BatchSeededDataset, indices: list[int], collate_fn: Callable[[Any], Any]
) -> Any:
    """One batch as the loaders produce it: seeded fetch, then collate."""
    return collate_fn(dataset.__getitems__(indices))
