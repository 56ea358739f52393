"""Cache the output of an expensive ``__getitem__`` once, in memory-mapped files.

``cache(dataset, path)`` runs ``dataset[i]`` for every index once and writes every field of
the samples (tensors, arrays, numbers, nested in tuples, lists and dicts; fixed shape per field)
to one raw file per field, with a small JSON header beside them. Later epochs and later runs
read from the page cache: a batch is one gather per field, no per-sample Python.

Cache the deterministic part (decode, resize, tokenize) and augment after: a cached random
crop is the same crop every epoch. The cache is rebuilt when the dataset's fingerprint
changes (``dataset.fingerprint``, or the ``fingerprint`` argument). It is written into a
temporary directory and renamed into place, so a crash mid-write never leaves a cache that
gets used.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset

from trainwell.data.fetch import PreservedRNG
from trainwell.errors import DataError
from trainwell.state.atomic import fsync_dir, fsync_file

log = logging.getLogger("trainwell.data")

FORMAT, VERSION = "trainwell-cache", 1
HEADER = "header.json"


def cache(dataset: Any, path: str | os.PathLike[str], fingerprint: Any = None) -> CachedDataset:
    """A `CachedDataset` serving ``dataset``'s samples from memory-mapped files at ``path``.

    ``path`` is a directory. If it holds a complete cache with the same fingerprint, it is
    used as it is; otherwise every sample is computed once (``dataset[i]`` in index order,
    the training RNG left untouched) and written atomically. The fingerprint is the
    ``fingerprint`` argument, else ``dataset.fingerprint``, else the dataset's class and length
    (set one: it is what tells the cache that the preprocessing or the files changed).
    """
    path = Path(path)
    key = _fingerprint(dataset, fingerprint)
    header = read_header(path)
    if (
        header is not None
        and header["fingerprint"] == key
        and header["num_samples"] == len(dataset)
    ):
        return CachedDataset(path)
    if header is not None:
        log.info(
            "cache %s was built for fingerprint %r; rebuilding for %r",
            path,
            header["fingerprint"],
            key,
        )
    write_cache(dataset, path, key)
    return CachedDataset(path)


class CachedDataset(Dataset):
    """Samples read back from a cache written by `cache`.

    ``__getitem__(i)`` returns a sample shaped like the original (numbers as Python numbers,
    arrays as tensors). ``get_batch(indices)`` returns the collated batch (``default_collate``'s
    layout: fields stacked along a new first dimension, tuples as tuples) with one gather per
    field; trainwell's loaders use it. ``__getitems__`` returns a list of samples, as any
    DataLoader expects. Memory maps are opened lazily in each process (workers included).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        header = read_header(self.path)
        if header is None:
            raise DataError(f"no complete trainwell cache at {self.path}; build one with cache()")
        self.header = header
        self.num_samples: int = header["num_samples"]
        self.fingerprint: str = header["fingerprint"]
        self.structure = header["structure"]
        self.fields = header["fields"]
        self._maps: list[np.memmap] | None = None

    def __len__(self) -> int:
        return self.num_samples

    def __getitem__(self, index: int) -> Any:
        if not -self.num_samples <= index < self.num_samples:
            raise IndexError(f"index {index} out of range for {self.num_samples} samples")
        leaves = [column[0] for column in self._gather([index % self.num_samples])]
        return _unflatten(self.structure, iter(leaves), scalar=True)

    def get_batch(self, indices: Sequence[int]) -> Any:
        """The collated batch of ``indices``: one gather per field from the memory maps."""
        return _unflatten(self.structure, iter(self._gather(indices)), scalar=False)

    def __getitems__(self, indices: Sequence[int]) -> list[Any]:
        columns = self._gather(indices)
        rows = [column.unbind(0) for column in columns]
        return [
            _unflatten(self.structure, iter([row[i] for row in rows]), scalar=True)
            for i in range(len(indices))
        ]

    def _gather(self, indices: Sequence[int]) -> list[torch.Tensor]:
        index = np.asarray(indices, dtype=np.int64)
        columns = []
        for field, mapped in zip(self.fields, self._memmaps(), strict=True):
            # Fancy indexing copies out of the map: the batch owns its memory.
            rows = torch.from_numpy(mapped[index][:, : field["row_bytes"]])
            dtype = _torch_dtype(field["dtype"])
            columns.append(rows.view(dtype).reshape(len(index), *field["shape"]))
        return columns

    def _memmaps(self) -> list[np.memmap]:
        if self._maps is None:
            self._maps = [
                np.memmap(
                    self.path / field["file"],
                    dtype=np.uint8,
                    mode="r",
                    shape=(self.num_samples, field["row_bytes"]),
                )
                for field in self.fields
            ]
        return self._maps

    def __getstate__(self) -> dict[str, Any]:
        # A memmap pickles as a full in-memory copy; workers reopen the files instead.
        state = dict(self.__dict__)
        state["_maps"] = None
        return state


# ----------------------------------------------------------------------------- writing


def write_cache(dataset: Any, path: Path, fingerprint: str) -> None:
    """Compute every sample of ``dataset`` and commit the cache at ``path`` atomically."""
    n = len(dataset)
    if n == 0:
        raise DataError("cannot cache an empty dataset")
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_temps(path)
    temp = (
        path.parent
        / f"{_temp_prefix(path)}{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    )
    temp.mkdir()
    try:
        with PreservedRNG():  # building the cache must not shift the training RNG
            header = _write_fields(dataset, n, temp, fingerprint)
        _write_json(temp / HEADER, header)  # last: a directory without it is incomplete
        fsync_dir(temp)
        _commit(temp, path)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _write_fields(dataset: Any, n: int, temp: Path, fingerprint: str) -> dict[str, Any]:
    first = dataset[0]
    structure, leaves = _flatten(first)
    fields = [
        {
            "file": f"field{i}.bin",
            "dtype": str(leaf.dtype).removeprefix("torch."),
            "shape": list(leaf.shape),
            "row_bytes": leaf.numel() * leaf.element_size(),
        }
        for i, leaf in enumerate(leaves)
    ]
    maps = [
        np.memmap(temp / f["file"], dtype=np.uint8, mode="w+", shape=(n, max(f["row_bytes"], 1)))
        for f in fields
    ]
    for index in range(n):
        sample = first if index == 0 else dataset[index]
        sample_structure, leaves = _flatten(sample)
        if sample_structure != structure:
            raise DataError(
                f"sample {index} has a different structure than sample 0 ({sample_structure} vs "
                f"{structure}); cache() needs samples of one layout"
            )
        for field, leaf, mapped in zip(fields, leaves, maps, strict=True):
            _check_leaf(index, field, leaf)
            mapped[index, : field["row_bytes"]] = leaf.reshape(-1).view(torch.uint8).numpy()
    for mapped in maps:
        mapped.flush()
        fsync_file(mapped.filename)
    return {
        "format": FORMAT,
        "version": VERSION,
        "fingerprint": fingerprint,
        "num_samples": n,
        "structure": structure,
        "fields": fields,
    }


def _check_leaf(index: int, field: dict[str, Any], leaf: torch.Tensor) -> None:
    dtype = str(leaf.dtype).removeprefix("torch.")
    if list(leaf.shape) != field["shape"] or dtype != field["dtype"]:
        raise DataError(
            f"sample {index}: field {field['file']} is {dtype}{list(leaf.shape)} but sample 0's "
            f"is {field['dtype']}{field['shape']}; cache() stores fixed-shape fields: pad or crop "
            "to one shape before caching (or cache the fixed-size part only)"
        )


def _commit(temp: Path, path: Path) -> None:
    """Swap the finished ``temp`` directory in as ``path`` (renames are atomic)."""
    old = None
    if path.exists():
        old = path.parent / f"{_temp_prefix(path)}old-{uuid.uuid4().hex[:8]}"
        os.replace(path, old)  # from here until the next rename, no cache is found: rebuild
    try:
        os.replace(temp, path)
    except OSError:
        # Another process (another rank) committed first; use its cache if it is complete.
        if read_header(path) is None:
            raise
        shutil.rmtree(temp, ignore_errors=True)
    fsync_dir(path.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.tmp-"


def _remove_abandoned_temps(path: Path) -> None:
    """Delete temp directories of crashed writers on this host (their process is gone)."""
    host = socket.gethostname()
    for candidate in path.parent.glob(f"{_temp_prefix(path)}*"):
        rest = candidate.name[len(_temp_prefix(path)) :]
        if rest.startswith("old-"):
            shutil.rmtree(candidate, ignore_errors=True)
            continue
        name, _, tail = rest.rpartition("-")  # host-pid, random
        owner_host, _, pid = name.rpartition("-")
        if owner_host == host and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(candidate, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ----------------------------------------------------------------------------- reading


def read_header(path: Path) -> dict[str, Any] | None:
    """The header of a complete cache at ``path``, or None (missing, partial or foreign)."""
    try:
        header = json.loads((path / HEADER).read_text())
    except (OSError, ValueError):
        return None
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        return None
    n = header["num_samples"]
    for field in header["fields"]:
        file = path / field["file"]
        if not file.is_file() or file.stat().st_size != n * max(field["row_bytes"], 1):
            return None
    return header


# ----------------------------------------------------------------------------- structure


def _flatten(sample: Any) -> tuple[Any, list[torch.Tensor]]:
    """A JSON description of ``sample``'s layout and its leaves as CPU tensors."""
    leaves: list[torch.Tensor] = []

    def visit(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            leaves.append(value.detach().cpu().contiguous())
            return "tensor"
        if isinstance(value, np.ndarray | np.generic):
            leaves.append(torch.from_numpy(np.array(value, copy=True)))
            return "tensor"
        if isinstance(value, bool | int | float):
            # As default_collate does: Python floats are float64 (float32 would round them).
            kind = (
                "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
            )
            leaves.append(torch.tensor(value, dtype=_NUMBER_DTYPES[kind]))
            return kind
        if isinstance(value, dict):
            return {"dict": [[str(k), visit(v)] for k, v in value.items()]}
        if isinstance(value, tuple | list):
            return {type(value).__name__: [visit(v) for v in value]}
        raise DataError(
            f"cache() stores tensors, arrays and numbers (in tuples, lists and dicts); got a "
            f"{type(value).__name__}. Map it to a tensor first (e.g. token ids, class index)"
        )

    return visit(sample), leaves


_NUMBER_DTYPES = {"bool": torch.bool, "int": torch.int64, "float": torch.float64}


def _unflatten(structure: Any, leaves: Any, *, scalar: bool) -> Any:
    """Rebuild a sample (``scalar``: numbers as Python numbers) or a batch from its leaves."""
    if structure == "tensor":
        return next(leaves)
    if structure in ("int", "float", "bool"):
        leaf = next(leaves)
        return leaf.item() if scalar else leaf
    ((kind, items),) = structure.items()
    if kind == "dict":
        return {k: _unflatten(v, leaves, scalar=scalar) for k, v in items}
    values = [_unflatten(v, leaves, scalar=scalar) for v in items]
    return tuple(values) if kind == "tuple" else values


def _fingerprint(dataset: Any, fingerprint: Any) -> str:
    if fingerprint is None:
        fingerprint = getattr(dataset, "fingerprint", None)
    if fingerprint is None:
        fingerprint = f"{type(dataset).__module__}.{type(dataset).__qualname__}:{len(dataset)}"
    return str(fingerprint)


def _torch_dtype(name: str) -> torch.dtype:
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise DataError(f"the cache stores an unknown dtype {name!r}; rebuild it")
    return dtype


def _write_json(file: Path, value: Any) -> None:
    with open(file, "w") as handle:
        json.dump(value, handle, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
