"""Sharded checkpoints: each rank writes its own shards (``torch.distributed.checkpoint``).

With FSDP2 and ``checkpoint.sharded`` (``auto``: on under FSDP), a save writes the model and
optimizer states as a ``torch.distributed.checkpoint`` directory ``step-NNNNNNNN.dcp`` beside
the step file, every rank its own shards in parallel, with no full copy anywhere. The step
file ``step-NNNNNNNN.pt`` holds the rest (schedule, counters, RNG streams, history...) and, in
place of each sharded part, a marker ``{"sharded": "step-NNNNNNNN.dcp"}``; its manifest
lists every shard file with its size and SHA-256.

The guarantees are those of a single-file checkpoint:

* **Atomic.** The shards go to a temporary directory, renamed into place by rank 0 once every
  rank's files are written and fsynced; the step file and its manifest come after, the
  manifest last: it is the commit marker. A crash at any point leaves the previous checkpoint
  the newest good one.
* **Verified.** Resuming checks every shard's size and checksum against the manifest; a
  checkpoint with a missing or damaged shard is passed over for the newest good one.
* **Retention** removes a step's shard directory with its step file.
* **Resharding.** ``torch.distributed.checkpoint`` loads the shards into whatever layout the
  loading run has: saved by N ranks, resumed by M, or by one process without FSDP (tested).
* **Async** (``checkpoint.async_save``): every rank copies its shards to CPU memory at the
  step boundary and a background thread writes them (``torch.distributed.checkpoint.
  async_save`` on a process group of its own); the commit above happens when all are written.
* **Export.** ``trainwell export``/``eval`` and `trainwell.read_weights` consolidate the
  model's shards into whole tensors.
* **Data, not code.** A shard directory's ``.metadata`` is a pickle; it is read with an
  unpickler that admits only the classes checkpoint metadata is made of (`read_metadata`), so
  a shared run directory cannot run code on ``eval``/``export``/``resume``/`load_weights`
  (``--trust-checkpoint``/``trusted=True`` reads it with plain ``pickle``). Loading follows a
  step file's marker only into the shard directory its manifest verified, a plain directory
  beside the step file (`pin_shards`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import re
import shutil
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.distributed.checkpoint import FileSystemReader

from trainwell.errors import CheckpointError
from trainwell.state.atomic import fsync_dir, fsync_file
from trainwell.state.trust import checkpoints_trusted

SUFFIX = ".dcp"
MARKER = "sharded"


def shards_of(path: Path) -> Path:
    """The shard directory of step file ``path`` (``step-N.pt`` -> ``step-N.dcp``)."""
    return path.with_suffix(SUFFIX)


def is_marker(value: Any) -> bool:
    """Whether a saved entry stands for state kept in a shard directory."""
    return isinstance(value, Mapping) and set(value) == {MARKER}


class Marker:
    """What the step file keeps for a sharded part: the name of its shard directory."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def state_dict(self) -> dict[str, Any]:
        return {MARKER: self.directory}


# --------------------------------------------------------------------------- saving


def sharded_state(model: nn.Module, optimizers: Mapping[str, torch.optim.Optimizer]) -> dict:
    """Model and optimizer states as this rank's shards (DTensors; plain tensors when the
    model is not sharded), under the names the checkpoint keeps them by."""
    from torch.distributed.checkpoint.state_dict import (
        get_model_state_dict,
        get_optimizer_state_dict,
    )

    state: dict[str, Any] = {"model": get_model_state_dict(model)}
    for name, optimizer in optimizers.items():
        state[name] = get_optimizer_state_dict(model, optimizer)
    return state


def weights_finite(model: nn.Module, strategy: Any) -> bool:
    """Whether every rank's shards of the weights are finite (one all-reduce)."""
    bad = any(
        not bool(torch.isfinite(_local(p)).all())
        for p in model.parameters()
        if p.is_floating_point()
    )
    return not strategy.agree(bad)


def save_shards(
    path: Path, model: nn.Module, optimizers: Mapping[str, torch.optim.Optimizer], strategy: Any
) -> dict[str, Any]:
    """Write every rank's shards into ``shards_of(path)`` (a collective); returns, on rank 0,
    the manifest entry ``{"dir", "files": {name: {"bytes", "sha256"}}}`` ({} elsewhere)."""
    return start_shards(path, model, optimizers, strategy)()


def start_shards(
    path: Path,
    model: nn.Module,
    optimizers: Mapping[str, torch.optim.Optimizer],
    strategy: Any,
    *,
    group: Any = None,
) -> Callable[[], dict[str, Any]]:
    """Begin writing every rank's shards into ``shards_of(path)`` (a collective); returns
    ``commit``, which every rank calls once: it waits until this rank's files are on disk,
    then (on rank 0, once every rank's are) renames the directory into place and returns the
    manifest entry ``{"dir", "files": {name: {"bytes", "sha256"}}}`` ({} elsewhere).

    Without ``group`` the shards are written before this returns. With ``group`` (a process
    group of its own, CPU-capable: the saving thread's collectives must never interleave with
    training's) they are copied to CPU memory now and written by a background thread
    (``torch.distributed.checkpoint.async_save``); ``commit`` may then run in another thread.
    """
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp

    final = shards_of(path)
    staging = final.with_name(f".{final.name}.tmp")
    if strategy.is_main:
        shutil.rmtree(staging, ignore_errors=True)  # a crashed save's leftovers
        staging.mkdir(parents=True)
    dist.barrier()
    state = sharded_state(model, optimizers)
    written = None
    if group is None:
        dcp.save(state, checkpoint_id=str(staging))
    else:  # the state is staged to CPU before this returns: training may go on changing it
        written = dcp.async_save(state, checkpoint_id=str(staging), process_group=group)
    rank, world, main = dist.get_rank(), dist.get_world_size(), strategy.is_main

    def commit() -> dict[str, Any]:
        if written is not None:
            written.result()
        mine = _hash_own_files(staging, rank, main)
        every: list[Any] = [None] * world
        dist.all_gather_object(every, mine, group=group)  # also: every rank's files are on disk
        if not main:
            return {}
        fsync_dir(staging)
        if final.exists():  # the same step saved again after a resume
            shutil.rmtree(final)
        os.replace(staging, final)
        fsync_dir(final.parent)
        files = {name: entry for rank_files in every for name, entry in rank_files.items()}
        return {"dir": final.name, "files": dict(sorted(files.items()))}

    return commit


def _hash_own_files(directory: Path, rank: int, main: bool) -> dict[str, dict[str, Any]]:
    """Size and SHA-256 of the files this rank wrote (fsynced); rank 0 also the metadata."""
    own = [p for p in directory.iterdir() if p.name.startswith(f"__{rank}_")]
    if main:
        own += [p for p in directory.iterdir() if not p.name.startswith("__")]
    entries = {}
    for file in own:
        fsync_file(file)
        entries[file.name] = {"bytes": file.stat().st_size, "sha256": _sha256(file)}
    return entries


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_shards(path: Path, manifest: Mapping[str, Any]) -> None:
    """Every shard file the manifest of ``path`` lists is there with its size and checksum;
    `CheckpointError` naming the first that is not."""
    entry = manifest.get("shards")
    if not entry:
        return
    directory = shard_directory(path, entry["dir"])
    for name, expected in entry["files"].items():
        file = directory / name
        if not file.is_file():
            raise CheckpointError(f"{path}'s shard {entry['dir']}/{name} is missing")
        if file.stat().st_size != expected["bytes"] or _sha256(file) != expected["sha256"]:
            raise CheckpointError(
                f"{path}'s shard {entry['dir']}/{name} does not match its manifest (corrupt)"
            )


def remove_shards(path: Path) -> None:
    """Delete the shard directory of step file ``path``, if it has one."""
    shutil.rmtree(shards_of(path), ignore_errors=True)


# --------------------------------------------------------------------------- trust

_SHARD_NAME = re.compile(r"[A-Za-z0-9_.-]+\.dcp")


def shard_directory(path: Path, name: Any) -> Path:
    """The shard directory ``name`` beside step file ``path``; `CheckpointError` unless it is a
    plain directory name there (no path separators, no ``..``, not a symlink), so verifying and
    loading can only ever read files inside the checkpoints directory."""
    if not isinstance(name, str) or not _SHARD_NAME.fullmatch(name) or name.startswith(".."):
        raise CheckpointError(
            f"{path} names the shard directory {name!r}, which is not a directory beside it; "
            "refusing to follow it"
        )
    directory = path.parent / name
    if directory.is_symlink() or directory.resolve().parent != path.parent.resolve():
        raise CheckpointError(
            f"{path}'s shard directory {name} leads outside {path.parent}; refusing to follow it"
        )
    return directory


def pin_shards(
    path: Path, state: Any, manifest: Mapping[str, Any] | None, *, trusted: bool = False
) -> Any:
    """``state`` (a checkpoint's state tree) with every shard marker naming, in full, the shard
    directory the manifest of ``path`` verified. A marker that names another directory than
    the manifest verified is refused unless ``trusted``. Whatever the case, the directory must
    lie beside ``path`` (`shard_directory`); a file without a manifest (a copy that lost its
    hard link) is unverified either way, and its metadata is still read as data only."""
    verified = ((manifest or {}).get("shards") or {}).get("dir")

    def pinned(value: Any) -> Any:
        if is_marker(value):
            name = value[MARKER]
            directory = shard_directory(path, name)  # beside path, trusted or not
            if manifest is not None and name != verified and not trusted:
                raise CheckpointError(
                    f"{path} points to shards in {name!r}, which its manifest does not verify "
                    f"({'it lists ' + repr(verified) if verified else 'it lists no shards'}); "
                    "refusing to load them (--trust-checkpoint or trusted=True overrides)"
                )
            return {MARKER: str(directory)}
        if isinstance(value, Mapping):  # rebuilt only along the way to a marker
            items = {key: pinned(item) for key, item in value.items()}
            changed = any(items[key] is not item for key, item in value.items())
            return items if changed else value
        return value

    return pinned(state)


# Everything a torch.distributed.checkpoint ``.metadata`` pickle is made of (torch 2.4-2.13):
# its dataclasses, tensor sizes, dtypes and layouts, and the path it was written to.
_METADATA_MODULES = (
    "torch.distributed.checkpoint.metadata",
    "torch.distributed.checkpoint.planner",
)
_METADATA_GLOBALS = {
    ("torch.distributed.checkpoint.filesystem", "_StorageInfo"),
    ("torch", "Size"),
    ("torch.serialization", "_get_layout"),
    ("collections", "OrderedDict"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "slice"),
    ("pathlib", "Path"),
    ("pathlib", "PosixPath"),
    ("pathlib", "WindowsPath"),
    ("pathlib", "PurePosixPath"),
    ("pathlib", "PureWindowsPath"),
}


class _MetadataUnpickler(pickle.Unpickler):
    """Unpickles checkpoint metadata and nothing else: any other global (a function such as
    ``os.system``, a class of another module) is refused before it is even looked up."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _METADATA_GLOBALS:
            return super().find_class(module, name)
        if module == "torch" and isinstance(
            getattr(torch, name, None), torch.dtype | torch.layout | torch.memory_format
        ):
            return getattr(torch, name)
        if module in _METADATA_MODULES:
            found = super().find_class(module, name)
            if isinstance(found, type):  # its dataclasses and enums, never a function
                return found
        raise pickle.UnpicklingError(f"{module}.{name}")


def read_metadata(file: Any) -> Any:
    """The checkpoint metadata pickled in ``file``; `CheckpointError` when it holds anything
    else (code that would run on load)."""
    try:
        return _MetadataUnpickler(file).load()
    except pickle.UnpicklingError as exc:
        where = getattr(file, "name", "a shard directory's .metadata")
        raise CheckpointError(
            f"{where} holds pickled Python objects beyond checkpoint metadata ({exc}): loading "
            "it could run any code. If you trust this run directory, pass --trust-checkpoint "
            "(trainwell resume/eval/export/train) or trusted=True"
        ) from None


def vet_metadata(directory: Path) -> None:
    """Read shard directory ``directory``'s metadata with `read_metadata` before
    ``torch.distributed.checkpoint`` does (it would wrap our refusal in its own exception):
    `CheckpointError` when it holds more than checkpoint metadata, unless trusted."""
    if checkpoints_trusted():
        return
    for file in sorted(directory.glob("*.metadata")):
        with file.open("rb") as handle:
            _data_files_inside(directory, read_metadata(handle))


def safe_planner(base: type) -> Any:
    """A load planner of class ``base`` whose non-tensor values (``param_groups`` entries and
    the like, which torch's planners read with ``torch.load(weights_only=False)``) are read as
    data first: a value holding a pickled object is refused unless checkpoints are trusted."""

    class Planner(base):  # type: ignore[misc, valid-type]
        refusal: CheckpointError | None = None

        def load_bytes(self, read_item: Any, value: io.BytesIO) -> None:
            if not checkpoints_trusted():
                try:  # the same bytes as data only: tensors and plain values
                    torch.load(io.BytesIO(value.getvalue()), weights_only=True)
                except pickle.UnpicklingError as exc:
                    found = re.search(r"GLOBAL ([\w.]+)", str(exc))
                    self.refusal = CheckpointError(
                        f"the shard value {read_item.dest_index.fqn} holds a pickled Python "
                        f"object ({found.group(1) if found else 'unknown'}): loading it could "
                        "run any code. If you trust this run directory, pass --trust-checkpoint "
                        "or trusted=True"
                    )
                    raise self.refusal from None
                value.seek(0)
            super().load_bytes(read_item, value)

    return Planner()


@contextlib.contextmanager
def _refusal_of(planner: Any) -> Iterator[None]:
    """Our refusal as itself: torch wraps what a planner raises in an exception of its own."""
    try:
        yield
    except BaseException:  # torch's CheckpointException is a BaseException
        if getattr(planner, "refusal", None) is not None:
            raise planner.refusal from None
        raise


def _data_files_inside(directory: Path, metadata: Any) -> None:
    """`CheckpointError` unless every data file ``metadata`` reads lies in ``directory``: the
    verified shard files, never a path that climbs out of it."""
    for info in (getattr(metadata, "storage_data", None) or {}).values():
        name = str(getattr(info, "relative_path", ""))
        if not name or Path(name).name != name or name in (".", "..") or "\\" in name:
            raise CheckpointError(
                f"{directory}/.metadata reads its data from {name!r}, outside the shard "
                "directory that was verified; refusing to load it"
            )


class SafeReader(FileSystemReader):
    """`torch.distributed.checkpoint`'s file reader with `read_metadata`'s restricted
    unpickler in place of plain ``pickle`` (unless checkpoints are trusted)."""

    def read_metadata(self, *args: Any, **kwargs: Any) -> Any:
        if checkpoints_trusted():
            return super().read_metadata(*args, **kwargs)
        from torch.distributed.checkpoint.metadata import StorageMeta

        with self.fs.create_stream(self._get_metadata_path(kwargs.get("rank")), "rb") as file:
            metadata = read_metadata(file)
        if getattr(metadata, "storage_meta", None) is None:
            metadata.storage_meta = StorageMeta()
        metadata.storage_meta.load_id = self.load_id
        _data_files_inside(Path(str(self.path)), metadata)
        return metadata


# --------------------------------------------------------------------------- loading


def load_shards(directory: Path, parts: Mapping[str, Any]) -> None:
    """Load the model and optimizers in ``parts`` from shard directory ``directory``, in
    whatever layout they have now (FSDP with any number of ranks, or one plain process)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import (
        set_model_state_dict,
        set_optimizer_state_dict,
    )

    if not directory.is_dir():
        raise CheckpointError(f"the checkpoint's shard directory {directory} is missing")
    raw = {name: getattr(part, "part", part) for name, part in parts.items()}
    model = next(p for p in raw.values() if isinstance(p, nn.Module))
    optimizers = {n: p for n, p in raw.items() if isinstance(p, torch.optim.Optimizer)}
    state = sharded_state(model, optimizers)  # the layout to load into
    from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner

    vet_metadata(directory)
    planner = safe_planner(DefaultLoadPlanner)
    with warnings.catch_warnings(), _refusal_of(planner):
        # one plain process is a layout we mean: not torch's warning
        warnings.filterwarnings("ignore", message="torch.distributed is disabled")
        dcp.load(state, storage_reader=SafeReader(str(directory)), planner=planner)
    set_model_state_dict(model, state["model"])
    for name, optimizer in optimizers.items():
        set_optimizer_state_dict(model, optimizer, state[name])


def consolidated_model(directory: Path) -> dict[str, torch.Tensor]:
    """The whole model state in shard directory ``directory`` (its shards gathered into plain
    tensors on CPU), for export, evaluation and `read_weights`."""
    from torch.distributed.checkpoint.default_planner import _EmptyStateDictLoadPlanner
    from torch.distributed.checkpoint.state_dict_loader import _load_state_dict

    if not directory.is_dir():
        raise CheckpointError(f"the checkpoint's shard directory {directory} is missing")
    vet_metadata(directory)
    whole: dict[str, Any] = {}
    planner = safe_planner(_EmptyStateDictLoadPlanner)
    # what dcp_to_torch_save does, with the safe readers and no round trip through a file
    with _refusal_of(planner):
        _load_state_dict(
            whole, storage_reader=SafeReader(str(directory)), planner=planner, no_dist=True
        )
    return {
        name: _local(t) if isinstance(t, torch.Tensor) else t for name, t in whole["model"].items()
    }


def _local(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.to_local() if hasattr(tensor, "to_local") else tensor
