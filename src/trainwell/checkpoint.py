"""Checkpoints that survive anything: atomic verified writes, retention, exact resume, safe loads.

A checkpoint is one file ``step-NNNNNNNN.pt`` holding ``{"format", "manifest", "state"}``, where
``state`` maps the names of the loop's stateful parts to their ``state_dict()``. It holds
tensors and plain Python values only, so it loads with ``torch.load(weights_only=True)``.

Every write goes to a temporary file beside the target, is flushed and fsynced, then
``os.replace``-d into place, and the directory is fsynced: a crash leaves the old file or the
new one, never a torn one. A JSON sidecar ``step-NNNNNNNN.json`` (written after the checkpoint)
carries the manifest: step, epoch, time, config hash, the metrics at save time and the file's
SHA-256. Resuming takes the newest checkpoint whose sidecar and checksum agree, and reports
any newer one it had to pass over. ``last.pt`` and ``best.pt`` are hard links to the newest
and the best checkpoint, for people and tools.

Every read of a file that has a manifest verifies it first (`load_checkpoint`, `read_weights`,
`load_weights`, `export_weights`): a damaged file is refused, never loaded. A write that fails
(disk full, permissions) removes its temporary file and raises `WriteFailedError` naming the
file, the space needed and free, and the previous checkpoint, which is intact.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import errno
import hashlib
import io
import json
import math
import os
import pickle
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.errors import CheckpointError, ShapeError, WriteFailedError
from trainwell.monitor import Monitor
from trainwell.state import Stateful
from trainwell.userframe import warn_at_user

FORMAT = 1
LAST = "last.pt"
BEST = "best.pt"
PREFIX = "step-"


class CheckpointWarning(UserWarning):
    """Something about checkpoints the user should know, that does not stop training."""


# --------------------------------------------------------------------------- atomic writes


class _HashingWriter(io.RawIOBase):
    """A file wrapper that hashes the bytes as ``torch.save`` writes them (no second read)."""

    def __init__(self, file: Any) -> None:
        self.file = file
        self.sha256 = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.sha256.update(data)
        self.size += len(data)
        return self.file.write(data)

    def flush(self) -> None:
        self.file.flush()


class _WriteFailure(Exception):
    """A write that failed for a reason outside the program: disk full, permissions, I/O.

    Its message says which file, the space needed and the space free; callers add what is
    intact and raise `WriteFailedError`.
    """


def save_atomic(obj: Any, path: str | Path) -> tuple[str, int]:
    """``torch.save`` to ``path`` so that a crash never leaves a partial file at ``path``.

    Returns the SHA-256 (hex) and size in bytes of what was written. A write that fails (disk
    full, permissions) leaves ``path`` as it was, removes the temporary file and raises
    `WriteFailedError` saying how much space was needed and how much is free.
    """
    path = Path(path)
    existed = path.exists()
    try:
        return _save_atomic(obj, path)
    except _WriteFailure as failure:
        kept = f"; {path.name} is unchanged" if existed else ""
        raise WriteFailedError(f"{failure}{kept}") from None


def _save_atomic(obj: Any, path: Path) -> tuple[str, int]:
    writer: _HashingWriter | None = None

    def write(f: Any, tmp: Path) -> None:
        nonlocal writer
        writer = _HashingWriter(f)
        torch.save(obj, writer)

    def estimate() -> int:  # at least what had been written when it failed
        return max(_state_bytes(obj), writer.size if writer is not None else 0)

    _write_atomic(path, write, estimate=estimate)
    assert writer is not None
    return writer.sha256.hexdigest(), writer.size


def _write_atomic(
    path: Path,
    write: Any,
    *,
    estimate: Any = None,
    sync_dir: bool = True,
) -> None:
    """Call ``write(file, temp_path)`` on a fresh temporary file beside ``path``, fsync, rename.

    The temporary file gets the permissions a new file gets (``0o666 & ~umask``). On an
    OSError (or torch's RuntimeError wrapping one) it is removed and `_WriteFailure` raised.
    """
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
        tmp = Path(name)
        with os.fdopen(fd, "wb") as f:  # mkstemp: a unique name, created 0600
            write(f, tmp)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, new_file_mode())  # by path: a writer may have replaced the file
        os.replace(tmp, path)
        tmp = None
    except (OSError, RuntimeError) as exc:
        if isinstance(exc, RuntimeError) and not _is_write_error(exc):
            raise  # a bug or an unsavable object, not the disk
        if tmp is not None:  # first, so that the free space reported is the real one
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            tmp = None
        needed = estimate() if estimate is not None else 0
        raise _WriteFailure(describe_write_failure(path, exc, needed)) from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
    if sync_dir:
        _fsync_dir(path.parent)


def write_json_atomic(data: Mapping[str, Any], path: Path) -> None:
    """Write JSON through a temporary file, fsync and rename."""
    _write_bytes(json.dumps(json_safe(data), indent=2).encode(), Path(path))


def write_text_atomic(text: str, path: str | Path) -> None:
    """Write a small text file through a temporary file, fsync and rename."""
    _write_bytes(text.encode(), Path(path), sync_dir=False)


def _write_bytes(data: bytes, path: Path, *, sync_dir: bool = True) -> None:
    try:
        _write_atomic(
            path, lambda f, _: f.write(data), estimate=lambda: len(data), sync_dir=sync_dir
        )
    except _WriteFailure as failure:
        raise WriteFailedError(str(failure)) from None


def new_file_mode() -> int:
    """The permissions a newly created file gets here: ``0o666`` less the umask (0644 usually)."""
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask would, for every thread, for a moment)
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def _is_write_error(exc: BaseException) -> bool:
    """Whether torch's RuntimeError comes from a failed write (it wraps the OSError)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError):
            return True
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    return any(
        mark in text
        for mark in ("inline_container", "PytorchStreamWriter", "unexpected pos", "write failed")
    )


def describe_write_failure(path: Path, exc: BaseException, needed: int) -> str:
    """``could not write PATH: REASON (needs about N, M free in DIR)`` on one line."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    free = _free_bytes(path.parent)
    if isinstance(cause, OSError):
        reason = cause.strerror or _one_line(str(cause))
        if cause.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            reason += " (check the directory's permissions)"
    elif free is not None and free < needed:
        reason = "No space left on device"
    else:  # torch's own words, without its source location
        reason = "the write failed: " + re.sub(
            r"^\[enforce fail at [^\]]*\]\s*\.?\s*", "", _one_line(str(exc))
        )
    space = f"needs about {_human_bytes(needed)}" if needed else "needs an unknown amount"
    space += (
        f", {_human_bytes(free)} free in {path.parent}"
        if free is not None
        else ", free space unknown"
    )
    return f"could not write {path}: {reason} ({space})"


def _free_bytes(directory: Path) -> int | None:
    for candidate in (directory, *directory.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def _state_bytes(obj: Any) -> int:
    """An estimate of ``torch.save(obj)``'s size: the bytes of its tensors' storages, plus 1%."""
    total, storages, containers = 0, set(), set()
    stack = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, torch.Tensor):
            try:
                storage = value.untyped_storage()
                key = (str(storage.device), storage.data_ptr(), storage.nbytes())
                if key not in storages:
                    storages.add(key)
                    total += storage.nbytes()
            except (RuntimeError, NotImplementedError):  # sparse and other storage-less tensors
                total += value.element_size() * value.nelement()
        elif isinstance(value, Mapping | list | tuple | set):
            if id(value) in containers:
                continue
            containers.add(id(value))
            stack.extend(value.values() if isinstance(value, Mapping) else value)
    return int(total * 1.01) + 4096


def _human_bytes(n: int | None) -> str:
    if n is None:
        return "unknown"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def json_safe(value: Any) -> Any:
    """``value`` with NaN/Inf floats as strings (JSON has no such numbers), keys as strings."""
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _link_atomic(source: Path, target: Path) -> None:
    # A hard link costs no copy; the source is later deleted or replaced, the link keeps the data.
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        if tmp.exists():
            tmp.unlink()
        try:
            os.link(source, tmp)
        except OSError:  # file systems without hard links
            shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise _WriteFailure(describe_write_failure(target, exc, source.stat().st_size)) from exc


# --------------------------------------------------------------------------- safe loading

#: Set by `trusting_checkpoints` (the CLI's ``--trust-checkpoint``): loads may unpickle objects.
_TRUSTED: contextvars.ContextVar[bool] = contextvars.ContextVar("trainwell_trusted", default=False)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@contextlib.contextmanager
def trusting_checkpoints(trusted: bool = True) -> Iterator[None]:
    """Within this block, a checkpoint that needs pickled Python objects is loaded anyway
    (``torch.load(weights_only=False)``), as ``trusted=True`` does for one call.

    Only for files from a source you trust: unpickling can run any code. What
    ``trainwell resume/eval/export --trust-checkpoint`` uses.
    """
    token = _TRUSTED.set(trusted)
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def load_checkpoint(
    path: str | Path, map_location: Any = "cpu", *, trusted: bool = False
) -> dict[str, Any]:
    """Load a checkpoint with ``weights_only=True``; refuse anything that needs unpickling code.

    A checkpoint with a manifest (its JSON sidecar) is verified first: a size or SHA-256 that
    does not match is refused with `CheckpointError`. ``trusted=True`` loads a file that holds
    pickled Python objects (an old checkpoint) — only for files you trust.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(
            f"no checkpoint at {path}; pass the path of a .pt file or a run directory"
        )
    verify_if_manifest(path)
    payload = _safe_torch_load(path, map_location, trusted=trusted)
    if not isinstance(payload, dict) or "state" not in payload:
        raise CheckpointError(
            f"{path} is not a trainwell checkpoint (no 'state' entry); to load bare weights use "
            "trainwell.load_weights(model, path)"
        )
    return payload


def _safe_torch_load(path: Path, map_location: Any, *, trusted: bool = False) -> Any:
    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        if trusted or _TRUSTED.get():
            return _trusted_torch_load(path, map_location)
        raise CheckpointError(_refusal(path, exc)) from None
    except (RuntimeError, EOFError, OSError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is unreadable (truncated or corrupt?): {_one_line(str(exc))}"
        ) from None


def _trusted_torch_load(path: Path, map_location: Any) -> Any:
    try:
        return torch.load(path, map_location=map_location, weights_only=False)
    except (ImportError, AttributeError) as exc:
        raise CheckpointError(
            f"{path} needs Python code that is not importable here to load: {_one_line(str(exc))}"
        ) from None
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is unreadable (truncated or corrupt?): {_one_line(str(exc))}"
        ) from None


def _refusal(path: Path, exc: BaseException) -> str:
    """Why a weights-only load refused ``path``, and the explicit ways to load it, on one line."""
    text = _ANSI.sub("", str(exc))
    found = re.search(r"GLOBAL ([\w.]+)", text)
    name = found.group(1) if found else None
    what = f"a pickled Python object ({name})" if name else "pickled Python objects"
    allow = (
        f"torch.serialization.add_safe_globals([{name}])"
        if name
        else "torch.serialization.add_safe_globals([...])"
    )
    detail = "" if name else f" (torch: {_one_line(text)[:160]})"
    return (
        f"refusing to load {path}: it holds {what}, and unpickling runs code, so a file from an "
        f"untrusted source could run anything{detail}. If you trust this file, load it with "
        "--trust-checkpoint (trainwell resume/eval/export) or trusted=True "
        f"(tw.load_checkpoint, tw.load_weights), or allow-list the class with {allow}"
    )


def _one_line(text: str) -> str:
    """``text`` without terminal escape codes, on one line."""
    return " ".join(_ANSI.sub("", text).split())


def verify(path: Path) -> dict[str, Any]:
    """The manifest of ``path`` if its sidecar exists and its size and SHA-256 match.

    A step file's sidecar is ``step-N.json``; ``last.pt``/``best.pt`` are checked against the
    manifest of the step file they link to (or ``best.json``). Raises `CheckpointError` saying
    what is wrong otherwise.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path} is missing")
    sidecars = _sidecars_of(path)
    if not sidecars:
        sidecar = path.with_suffix(".json")
        raise CheckpointError(f"{path} has no manifest {sidecar.name} (its save did not finish)")
    before = path.stat()
    digest: str | None = None
    problem = ""
    for sidecar in sidecars:
        manifest = _read_manifest(sidecar)
        if before.st_size != manifest.get("bytes"):
            problem = problem or (
                f"{path} has {before.st_size} bytes, its manifest says {manifest.get('bytes')} "
                "(truncated?)"
            )
            continue
        if digest is None:
            digest = _sha256_of(path)
        if digest == manifest.get("sha256"):
            _remember_verified(path, before, manifest)
            return manifest
        problem = problem or f"{path} does not match the checksum in its manifest (corrupt)"
    raise CheckpointError(problem)


def verify_if_manifest(path: str | Path) -> dict[str, Any] | None:
    """`verify` ``path`` when it has a manifest (a trainwell checkpoint); None when it has none.

    Files verified before and unchanged since (same inode, size, mtime and ctime) are not
    hashed again, so the resume path reads a large checkpoint once to check and once to load.
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return None
    known = _VERIFIED.get((stat.st_dev, stat.st_ino))
    if known is not None and known[0] == _identity(stat):
        return known[1]
    if not _sidecars_of(path):
        return None
    return verify(path)


#: (device, inode) -> (size, mtime, ctime) and manifest of files that verified.
_VERIFIED: dict[tuple[int, int], tuple[tuple[int, int, int], dict[str, Any]]] = {}


def _identity(stat: os.stat_result) -> tuple[int, int, int]:
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _remember_verified(path: Path, before: os.stat_result, manifest: dict[str, Any]) -> None:
    after = path.stat()
    if _identity(after) != _identity(before):
        return  # changed while it was read: check again next time
    if len(_VERIFIED) > 1024:
        _VERIFIED.clear()
    _VERIFIED[(after.st_dev, after.st_ino)] = (_identity(after), manifest)


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _sidecars_of(path: Path) -> list[Path]:
    """The manifests that describe ``path``.

    A step file has its own ``.json``. Any other file (``last.pt``, ``best.pt``, a copy) is
    described by the sidecar of a step file it is a hard link to, or by its own ``.json`` if
    that is a manifest (``best.json``); a plain JSON file beside a plain ``.pt`` is none.
    """
    own = path.with_suffix(".json")
    if path.name.startswith(PREFIX):
        return [own] if own.is_file() else []
    found = []
    try:
        stat = path.stat()
        for step in list_checkpoints(path.parent):
            if step != path and os.path.samestat(step.stat(), stat):
                sidecar = step.with_suffix(".json")
                if sidecar.is_file():
                    found.append(sidecar)
    except OSError:
        pass
    if own.is_file():
        try:
            data = json.loads(own.read_text())
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict) and "sha256" in data and "bytes" in data:
            found.append(own)
    return found


def _read_manifest(sidecar: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(sidecar.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"manifest {sidecar} is corrupt: {exc}") from None
    if not isinstance(manifest, dict):
        raise CheckpointError(f"manifest {sidecar} is corrupt: not a JSON object")
    return manifest


def list_checkpoints(directory: str | Path) -> list[Path]:
    """The ``step-*.pt`` files in ``directory``, newest (highest step) first."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(directory.glob(f"{PREFIX}*.pt"), reverse=True)


def newest_good_checkpoint(directory: str | Path) -> tuple[Path, list[str]]:
    """The newest checkpoint that verifies, and a line for each newer one that did not."""
    skipped: list[str] = []
    for path in list_checkpoints(directory):
        try:
            verify(path)
        except CheckpointError as exc:
            skipped.append(str(exc))
            continue
        return path, skipped
    detail = f" ({'; '.join(skipped)})" if skipped else ""
    raise CheckpointError(f"no loadable checkpoint in {directory}{detail}")


def best_good_checkpoint(directory: str | Path, monitor: str, mode: str) -> Path | None:
    """The checkpoint with the best ``monitor`` value among those that verify; None if none."""
    ranked = Checkpointer.__new__(Checkpointer)
    ranked.directory, ranked.monitor, ranked.mode = Path(directory), monitor, mode
    for _, path in ranked._ranked_by_metric():
        try:
            verify(path)
        except CheckpointError:
            continue
        return path
    return None


def find_checkpoint(resume: str | Path, run_dir: str | Path | None = None) -> Path:
    """The checkpoint file meant by ``resume``: a file, a run directory, or ``"auto"``.

    For a directory (or ``"auto"``: the run directory) this is the newest checkpoint that
    verifies; newer ones that are corrupt or incomplete are reported as warnings.
    """
    if str(resume) == "auto":
        if run_dir is None:
            raise CheckpointError(
                'checkpoint.resume="auto" needs a run directory (run.dir) to look in'
            )
        directory = Path(run_dir) / "checkpoints"
        if not list_checkpoints(directory):
            raise CheckpointError(
                f'checkpoint.resume="auto" found no checkpoint in {directory}; start without '
                "resume, or pass the path of a checkpoint"
            )
        return _newest_reporting(directory)
    path = Path(resume)
    if path.is_dir():
        for directory in (path / "checkpoints", path):
            if list_checkpoints(directory):
                return _newest_reporting(directory)
        raise CheckpointError(f"no checkpoint in {path} (looked for checkpoints/{PREFIX}*.pt)")
    if not path.is_file():
        raise CheckpointError(
            f"resume path {path} does not exist; pass a checkpoint file or run directory"
        )
    verify_if_manifest(path)  # a file with a manifest must match it
    return path


def _newest_reporting(directory: Path) -> Path:
    path, skipped = newest_good_checkpoint(directory)
    for reason in skipped:
        warn_at_user(
            f"skipping a checkpoint: {reason}; resuming from {path.name}",
            CheckpointWarning,
        )
    return path


# --------------------------------------------------------------------------- state


def _wrapper_types() -> tuple[type, ...]:
    """Module types that only wrap the user's model: compile, DDP, DataParallel, FSDP (1)."""
    types: list[type] = [nn.DataParallel, nn.parallel.DistributedDataParallel]
    try:
        from torch._dynamo.eval_frame import OptimizedModule

        types.append(OptimizedModule)
    except ImportError:  # pragma: no cover - torch without dynamo
        pass
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel

        types.append(FullyShardedDataParallel)
    except ImportError:  # pragma: no cover - torch built without distributed
        pass
    return tuple(types)


def unwrap_model(model: nn.Module) -> nn.Module:
    """The user's module inside ``torch.compile``, DDP, DataParallel and FSDP wrappers.

    Decided by the wrapper's type, never by attribute names: a user's own submodule that
    happens to be called ``module`` is part of the model.
    """
    wrappers = _wrapper_types()
    while isinstance(model, wrappers):
        model = getattr(model, "_orig_mod", None) or model.module
    return model


def state_of(parts: Mapping[str, Stateful | None]) -> dict[str, Any]:
    """``{name: part.state_dict()}`` for every part that exists (models unwrapped first)."""
    state = {}
    for name, part in parts.items():
        if part is None:
            continue
        state[name] = (
            unwrap_model(part).state_dict() if isinstance(part, nn.Module) else part.state_dict()
        )
    return state


def restore(parts: Mapping[str, Stateful | None], state: Mapping[str, Any]) -> None:
    """Load each part's saved state; a part the checkpoint lacks is an error, not a silent skip."""
    for name, part in parts.items():
        if part is None:
            continue
        if name not in state:
            raise CheckpointError(
                f"the checkpoint has no state for {name!r} (it holds {sorted(state)}); it was "
                "saved by a run with a different setup"
            )
        if isinstance(part, nn.Module):
            load_weights(unwrap_model(part), state[name], strict=True)
        else:
            part.load_state_dict(state[name])


def _snapshot(value: Any) -> Any:
    """A CPU copy of a state tree, so a background thread can write it while training goes on."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, Mapping):
        return {k: _snapshot(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_snapshot(v) for v in value)
    return copy.deepcopy(value)


def _first_nonfinite(model_state: Mapping[str, Any]) -> str | None:
    for name, tensor in model_state.items():
        is_float = isinstance(tensor, torch.Tensor) and tensor.is_floating_point()
        if is_float and not bool(torch.isfinite(tensor).all()):
            return name
    return None


# --------------------------------------------------------------------------- the checkpointer


@dataclass
class SaveRecord:
    """What one save did: where, how long the loop was blocked, how long the write took."""

    path: Path
    step: int
    epoch: int
    blocked_s: float
    write_s: float = 0.0
    metrics: dict[str, Any] = field(default_factory=dict)


class Checkpointer:
    """Saves the training state on its own cadence and keeps the right files.

    - ``every_steps`` / ``every_epochs``: when to save (and always at the end of training);
    - ``keep_last``: the newest checkpoints kept; ``keep_best``: the best ones kept by the
      monitored metric (``mode`` min/max);
    - ``async_save``: copy the state to CPU at the step boundary and write it in a background
      thread; at most one save is in flight, the next save and `close` wait for it;
    - a checkpoint whose weights hold NaN/Inf is never written over good ones.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        every_steps: int | None = None,
        every_epochs: int | None = 1,
        keep_last: int = 2,
        keep_best: int = 1,
        monitor: str = "val_loss",
        mode: str = "min",
        async_save: bool = False,
        grace_period_s: float = 30.0,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.every_steps, self.every_epochs = every_steps, every_epochs
        self.keep_last, self.keep_best = keep_last, keep_best
        self.monitor, self.mode = monitor, mode
        self.async_save, self.grace_period_s = async_save, grace_period_s
        self.saves: list[SaveRecord] = []
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        _remove_stale_temp_files(self.directory)

    # ---- cadence ------------------------------------------------------------

    def due_after_step(self, step: int) -> bool:
        return bool(self.every_steps) and step > 0 and step % self.every_steps == 0

    def due_after_epoch(self, epoch: int, last: bool) -> bool:
        return last or (bool(self.every_epochs) and epoch % self.every_epochs == 0)

    # ---- paths --------------------------------------------------------------

    @property
    def last_path(self) -> Path | None:
        path = self.directory / LAST
        return path if path.is_file() else None

    @property
    def best_path(self) -> Path | None:
        path = self.directory / BEST
        return path if path.is_file() else None

    def path_for(self, step: int) -> Path:
        return self.directory / f"{PREFIX}{step:08d}.pt"

    # ---- saving -------------------------------------------------------------

    def save(
        self,
        parts: Mapping[str, Stateful | None],
        counters: Any,
        *,
        metrics: Mapping[str, Any] | None = None,
        **manifest: Any,
    ) -> SaveRecord | None:
        """Save the state of ``parts`` as ``step-<step>.pt``; None if it was refused (NaN).

        ``counters`` supplies step and epoch; ``metrics`` (e.g. the epoch's validation
        metrics) and ``manifest`` values go into the sidecar.
        """
        started = time.perf_counter()
        self.wait()  # at most one save in flight
        state = state_of(parts)
        bad = _first_nonfinite(state.get("model", {}))
        if bad is not None:
            previous = self.saves[-1].path.name if self.saves else "none yet"
            warn_at_user(
                f"not saving step {counters.step}: the model's weights hold NaN/Inf (first in "
                f"{bad!r}); keeping the last good checkpoint ({previous})",
                CheckpointWarning,
            )
            return None
        record = SaveRecord(
            path=self.path_for(counters.step),
            step=counters.step,
            epoch=counters.epoch,
            blocked_s=0.0,
            metrics=dict(metrics or {}),
        )
        info = {"step": counters.step, "epoch": counters.epoch, "time": time.time(), **manifest}
        payload = {"format": FORMAT, "manifest": info, "state": state}
        if self.async_save:
            payload["state"] = _snapshot(state)
            record.blocked_s = time.perf_counter() - started
            self._thread = threading.Thread(
                target=self._write_in_background, args=(payload, record), daemon=False
            )
            self._thread.start()
        else:
            self._write(payload, record)
            record.blocked_s = time.perf_counter() - started
        self.saves.append(record)
        return record

    def _write_in_background(self, payload: dict[str, Any], record: SaveRecord) -> None:
        try:
            self._write(payload, record)
        except BaseException as exc:  # re-raised in the training thread by wait()
            self._error = exc

    def _write(self, payload: dict[str, Any], record: SaveRecord) -> None:
        started = time.perf_counter()
        with self._lock:
            self._drop_abandoned_future(record.step)
            try:
                self._write_files(payload, record, started)
            except (_WriteFailure, WriteFailedError) as failure:
                raise WriteFailedError(f"{failure}; {self._intact(record)}") from None
        if record.write_s > self.grace_period_s:
            warn_at_user(
                f"saving step {record.step} took {record.write_s:.1f}s, longer than "
                f"checkpoint.grace_period_s={self.grace_period_s:g}: a preemption notice may "
                "not leave enough time (try checkpoint.async_save=true)",
                CheckpointWarning,
            )

    def _write_files(self, payload: dict[str, Any], record: SaveRecord, started: float) -> None:
        sha256, size = _save_atomic(payload, record.path)
        record.write_s = time.perf_counter() - started
        sidecar = {
            **payload["manifest"],
            "metrics": record.metrics,
            "sha256": sha256,
            "bytes": size,
            "write_s": round(record.write_s, 4),
        }
        try:
            write_json_atomic(sidecar, record.path.with_suffix(".json"))
        except WriteFailedError:
            # Without its manifest the new file can never be used; it only takes space.
            record.path.unlink(missing_ok=True)
            record.path.with_suffix(".json").unlink(missing_ok=True)
            raise
        _link_atomic(record.path, self.directory / LAST)
        self._update_best(record)
        self._apply_retention()
        _fsync_dir(self.directory)

    def _intact(self, record: SaveRecord) -> str:
        """What a failed save left to resume from, for its error message."""
        try:
            path, _ = newest_good_checkpoint(self.directory)
        except CheckpointError:
            return "there is no earlier checkpoint to resume from"
        if path == record.path:
            return f"the checkpoint {path.name} was written and is intact"
        return f"the previous checkpoint {path.name} is intact (free some space, then resume)"

    def _drop_abandoned_future(self, step: int) -> None:
        """Delete checkpoints of later steps: they belong to a timeline this run resumed away
        from (it restarted from an older checkpoint), and must never be resumed from again."""
        for path in list_checkpoints(self.directory):
            if _step_of(path) > step:
                path.unlink(missing_ok=True)
                path.with_suffix(".json").unlink(missing_ok=True)

    def _update_best(self, record: SaveRecord) -> None:
        ranked = self._ranked_by_metric()
        if ranked and ranked[0][1] == record.path:
            _link_atomic(record.path, self.directory / BEST)
            write_json_atomic(
                json.loads(record.path.with_suffix(".json").read_text()),
                self.directory / "best.json",
            )

    def _ranked_by_metric(self) -> list[tuple[float, Path]]:
        """Checkpoints with the monitored metric, best first."""
        scored = []
        for path in list_checkpoints(self.directory):
            sidecar = path.with_suffix(".json")
            if not sidecar.is_file():
                continue
            value = json.loads(sidecar.read_text()).get("metrics", {}).get(self.monitor)
            if isinstance(value, int | float) and math.isfinite(value):
                scored.append((float(value), path))
        # Best first; among equal values the oldest, as BestTracker counts a tie as no better.
        monitor = Monitor(self.monitor, self.mode)
        scored.sort(key=lambda item: (monitor.rank_key(item[0]), item[1].name))
        return scored

    def _apply_retention(self) -> None:
        newest = list_checkpoints(self.directory)
        keep = set(newest[: max(self.keep_last, 1)])
        keep.update(path for _, path in self._ranked_by_metric()[: self.keep_best])
        for path in newest:
            if path not in keep:
                path.unlink(missing_ok=True)
                path.with_suffix(".json").unlink(missing_ok=True)

    def wait(self) -> None:
        """Block until the save in flight (if any) is on disk; re-raise its error."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self) -> None:
        self.wait()

    def __enter__(self) -> Checkpointer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _step_of(path: Path) -> int:
    return int(path.stem[len(PREFIX) :])


def _remove_stale_temp_files(directory: Path) -> None:
    # Leftovers of a run killed mid-write: never loadable, safe to drop.
    for tmp in directory.glob(".*.tmp-*"):
        tmp.unlink(missing_ok=True)


# --------------------------------------------------------------------------- weights


@dataclass
class LoadReport:
    """Keys a weight load could not match: the model's missing ones and the file's extra ones."""

    missing: list[str]
    unexpected: list[str]

    def __str__(self) -> str:
        return (
            f"missing keys: {self.missing or 'none'}; unexpected keys: {self.unexpected or 'none'}"
        )


def read_weights(
    source: str | Path | Mapping[str, Any], map_location: Any = "cpu", *, trusted: bool = False
) -> dict[str, Any]:
    """A model state dict from a trainwell checkpoint, a ``.pt`` state dict or ``.safetensors``.

    A file with a manifest is verified first (see `load_checkpoint`); ``trusted=True`` loads a
    file that holds pickled Python objects — only for files you trust.
    """
    if isinstance(source, Mapping):
        return dict(source)
    path = Path(source)
    if not path.is_file():
        raise CheckpointError(f"no weights file at {path}")
    verify_if_manifest(path)
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        try:
            return load_file(str(path), device=str(map_location))
        except Exception as exc:  # safetensors raises its own SafetensorError
            raise CheckpointError(
                f"weights file {path} is unreadable (truncated or corrupt?): {_one_line(str(exc))}"
            ) from None
    payload = _safe_torch_load(path, map_location, trusted=trusted)
    if isinstance(payload, dict) and "state" in payload and "model" in payload["state"]:
        return payload["state"]["model"]
    if isinstance(payload, dict):
        return payload
    raise CheckpointError(f"{path} holds a {type(payload).__name__}, not a state dict")


def load_weights(
    model: nn.Module,
    source: str | Path | Mapping[str, Any],
    *,
    strict: bool = True,
    map_location: Any = "cpu",
    trusted: bool = False,
) -> LoadReport:
    """Load weights into ``model``; report missing and unexpected keys, refuse shape mismatches.

    ``strict=False`` loads what matches (fine-tuning a changed head, as in seed 002) and
    returns the keys that did not. A tensor whose shape differs is always refused, with both
    shapes named. Compile/DDP prefixes (``_orig_mod.``, ``module.``) are stripped. A file with
    a manifest is verified first; ``trusted=True`` loads one that holds pickled Python objects.
    """
    target = unwrap_model(model)
    weights = _strip_wrapper_prefixes(read_weights(source, map_location, trusted=trusted))
    own = target.state_dict()
    mismatched = [
        f"{k}: checkpoint {tuple(v.shape)} vs model {tuple(own[k].shape)}"
        for k, v in weights.items()
        if k in own and isinstance(v, torch.Tensor) and v.shape != own[k].shape
    ]
    if mismatched:
        raise ShapeError(
            "checkpoint tensors do not fit the model: "
            + "; ".join(mismatched[:5])
            + (f" (and {len(mismatched) - 5} more)" if len(mismatched) > 5 else "")
            + ". Build the model with the configuration it was trained with"
        )
    result = target.load_state_dict(weights, strict=False)
    report = LoadReport(list(result.missing_keys), list(result.unexpected_keys))
    if strict and (report.missing or report.unexpected):
        raise CheckpointError(
            f"the weights do not match the model ({report}); pass strict=False to load what matches"
        )
    return report


def _strip_wrapper_prefixes(weights: dict[str, Any]) -> dict[str, Any]:
    """Drop ``_orig_mod.``/``module.`` that a wrapper put before *every* key (older checkpoints)."""
    for prefix in ("_orig_mod.", "module."):
        while weights and all(k.startswith(prefix) for k in weights):
            weights = {k[len(prefix) :]: v for k, v in weights.items()}
    return weights


def export_weights(
    source: str | Path, out: str | Path, *, fmt: str = "safetensors", trusted: bool = False
) -> Path:
    """Write the model weights of checkpoint ``source`` as ``safetensors`` or a ``pt`` state dict.

    ``source`` is verified against its manifest first. ``out`` may never be ``source`` (also
    through a symlink or hard link) nor any other checkpoint: `CheckpointError`. The file is
    written atomically and gets the usual permissions (``0o666 & ~umask``); a failed write
    raises `WriteFailedError`.
    """
    source, out = Path(source), Path(out)
    if fmt not in ("safetensors", "pt"):
        raise CheckpointError(f"unknown export format {fmt!r}; use safetensors or pt")
    refuse_overwriting_checkpoint(source, out)
    weights = read_weights(source, trusted=trusted)
    try:
        if fmt == "safetensors":
            _export_safetensors(weights, out)
        else:
            _save_atomic(weights, out)
    except _WriteFailure as failure:
        raise WriteFailedError(f"{failure}; the checkpoint {source.name} is unchanged") from None
    return out


def refuse_overwriting_checkpoint(source: Path, out: Path) -> None:
    """Raise `CheckpointError` if writing ``out`` would replace ``source`` or any checkpoint."""
    same = _same_file(source, out)
    if same or is_checkpoint_file(out):
        what = "its input" if same else "a checkpoint"
        raise CheckpointError(
            f"refusing to overwrite {out}: it is {what}; pass --out with another file "
            "(the default is RUN/export/model-STEP.FORMAT)"
        )


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.resolve() == b.resolve():
            return True
        return b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def is_checkpoint_file(path: Path) -> bool:
    """Whether ``path`` is (or would be taken for) a trainwell checkpoint: a step file,
    ``last.pt``/``best.pt`` beside step files, or any file with a manifest."""
    path = Path(path)
    name = path.name
    named_like_one = (name.startswith(PREFIX) and name.endswith((".pt", ".json"))) or name in (
        LAST,
        BEST,
        "best.json",
    )
    if named_like_one and (path.parent.name == "checkpoints" or list_checkpoints(path.parent)):
        return True
    return path.is_file() and bool(_sidecars_of(path))


def _export_safetensors(weights: Mapping[str, Any], out: Path) -> None:
    try:
        from safetensors.torch import save_file
    except ImportError:
        raise CheckpointError(
            "exporting safetensors needs the package: pip install 'trainwell[export]'"
        ) from None
    # clone: safetensors refuses tensors that share storage (tied weights)
    tensors = {k: v.contiguous().clone() for k, v in weights.items() if isinstance(v, torch.Tensor)}

    def write(f: Any, tmp: Path) -> None:
        try:
            save_file(tensors, str(tmp))  # its own handle on the temporary file; fsynced by ours
        except OSError:
            raise
        except Exception as exc:  # SafetensorError: "I/O error: ... (os error 28)"
            code = re.search(r"os error (\d+)", str(exc))
            if code:
                raise OSError(int(code.group(1)), os.strerror(int(code.group(1)))) from exc
            raise OSError(errno.EIO, _one_line(str(exc))) from exc

    _write_atomic(out, write, estimate=lambda: _state_bytes(tensors))
