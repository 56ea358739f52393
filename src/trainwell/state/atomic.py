"""Atomic writes: the one place where trainwell puts a file on disk so a crash never tears it.

Every write goes to a temporary file beside the target, is flushed and fsynced, then
``os.replace``-d into place, and the directory is fsynced: a crash leaves the old file or the
new one, never a torn one. A write that fails (disk full, permissions) removes its temporary
file and raises `WriteFailedError` (or `WriteFailure`, for callers that add what is intact)
naming the file, the space needed and the space free. Checkpoints, exported weights, configs,
logs and the data cache all write through these helpers.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from trainwell.errors import WriteFailedError
from trainwell.state.preemption import interrupted_twice

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


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


class WriteFailure(Exception):
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
        return save_atomic_raw(obj, path)
    except WriteFailure as failure:
        kept = f"; {path.name} is unchanged" if existed else ""
        raise WriteFailedError(f"{failure}{kept}") from None


def save_atomic_raw(obj: Any, path: Path) -> tuple[str, int]:
    """`save_atomic` raising `WriteFailure`, for callers that add what is intact to the message."""
    writer: _HashingWriter | None = None

    def write(f: Any, tmp: Path) -> None:
        nonlocal writer
        writer = _HashingWriter(f)
        torch.save(obj, writer)

    def estimate() -> int:  # at least what had been written when it failed
        return max(state_bytes(obj), writer.size if writer is not None else 0)

    write_atomic(path, write, estimate=estimate)
    assert writer is not None
    return writer.sha256.hexdigest(), writer.size


def write_atomic(
    path: Path,
    write: Any,
    *,
    estimate: Any = None,
    sync_dir: bool = True,
) -> None:
    """Call ``write(file, temp_path)`` on a fresh temporary file beside ``path``, fsync, rename.

    The temporary file gets the permissions a new file gets (``0o666 & ~umask``). On an
    OSError (or torch's RuntimeError wrapping one) it is removed and `WriteFailure` raised.
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
        if interrupted_twice():  # Ctrl-C inside torch's writer, reported by it as an error
            raise KeyboardInterrupt from None  # (the finally clause removes the temp file)
        if isinstance(exc, RuntimeError) and not _is_write_error(exc):
            raise  # a bug or an unsavable object, not the disk
        if tmp is not None:  # first, so that the free space reported is the real one
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            tmp = None
        needed = estimate() if estimate is not None else 0
        raise WriteFailure(describe_write_failure(path, exc, needed)) from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
    if sync_dir:
        fsync_dir(path.parent)


def write_json_atomic(data: Mapping[str, Any], path: Path) -> None:
    """Write JSON through a temporary file, fsync and rename."""
    _write_bytes(json.dumps(json_safe(data), indent=2).encode(), Path(path))


def write_text_atomic(text: str, path: str | Path) -> None:
    """Write a small text file through a temporary file, fsync and rename."""
    _write_bytes(text.encode(), Path(path), sync_dir=False)


def _write_bytes(data: bytes, path: Path, *, sync_dir: bool = True) -> None:
    try:
        write_atomic(
            path, lambda f, _: f.write(data), estimate=lambda: len(data), sync_dir=sync_dir
        )
    except WriteFailure as failure:
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
        reason = cause.strerror or one_line(str(cause))
        if cause.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            reason += " (check the directory's permissions)"
    elif free is not None and free < needed:
        reason = "No space left on device"
    else:  # torch's own words, without its source location
        reason = "the write failed: " + re.sub(
            r"^\[enforce fail at [^\]]*\]\s*\.?\s*", "", one_line(str(exc))
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


def state_bytes(obj: Any) -> int:
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


def fsync_dir(directory: Path) -> None:
    """fsync ``directory`` so that a rename in it survives a crash (skipped where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def link_atomic(source: Path, target: Path) -> None:
    """Point ``target`` at ``source``'s bytes (a hard link, else a copy), replacing it atomically.

    Raises `WriteFailure` if it cannot.
    """
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
        raise WriteFailure(describe_write_failure(target, exc, source.stat().st_size)) from exc
    finally:  # also on Ctrl-C between the link and the rename
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def fsync_file(file: str | os.PathLike[str]) -> None:
    """fsync a file that is already written and closed (e.g. a flushed memory map)."""
    fd = os.open(file, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape codes."""
    return _ANSI.sub("", text)


def one_line(text: str) -> str:
    """``text`` without terminal escape codes, on one line."""
    return " ".join(_ANSI.sub("", text).split())
