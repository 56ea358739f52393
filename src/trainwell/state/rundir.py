"""A run directory that no other run destroys: `RunDirectory` claims it for one run.

- **One run at a time.** An advisory lock (``RUN/.lock``) is held for the run's lifetime:
  ``fcntl.flock`` where the platform has it (the kernel drops it when the holder dies, however
  it dies, so a crashed run never blocks the next), else a file created with ``O_EXCL``. The
  holder's pid and host are written into it for the message a second run gets
  (`RunDirBusyError`), and a lock left by a process that is gone is taken over with a note.
- **An existing run is never overwritten by accident.** A directory that holds a run (its
  ``config.yaml``, ``metrics.jsonl``, ``summary.json`` or checkpoints) is refused
  (`RunDirTakenError`) unless the new run continues it (resumes) or overwrites it on purpose;
  an empty directory, or one holding only files that are not a run's, is fine.
- **Nothing is lost to a run that fails to start.** `RunDirectory.claim` only checks and
  locks; `RunDirectory.start`, called once the run is assembled (and resumed), sets the old
  run's files aside (overwrite) and writes ``config.yaml``; `RunDirectory.commit`, at the
  first optimizer step, deletes the old run. A run that fails before that step (a shape
  error) removes what it wrote and puts back what was there.
- **Default names never collide**: `new_run_dir` creates ``runs/<name>-<time>`` with
  ``os.mkdir``, adding ``-2``, ``-3``... when another run took the name in the same second.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import time
from pathlib import Path
from typing import Any

from trainwell.errors import UserError, warn_at_user
from trainwell.state.atomic import write_text_atomic

try:  # POSIX; elsewhere the lock is a file created exclusively
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".lock"

#: What a trainwell run writes into its directory: removed by an overwrite, and nothing else.
RUN_FILES = (
    "config.yaml",
    "recipe.json",
    "metrics.jsonl",
    "metrics.csv",
    "summary.json",
    "checkpoints",
    "tensorboard",
    "plots",
    "profile",
    "export",
    "mlflow.db",
    "mlflow-artifacts",
    "wandb",
)

#: The files whose presence means a directory holds a run (checkpoints are looked into).
_RUN_MARKERS = ("config.yaml", "metrics.jsonl", "summary.json")


class RunDirBusyError(UserError):
    """Another process is training into the run directory (it holds the lock)."""


class RunDirTakenError(UserError):
    """The run directory holds a run that this one would overwrite."""


class RunDirWarning(UserWarning):
    """Something about the run directory the user should know (a stale lock taken over)."""


def run_in(directory: str | Path) -> list[str]:
    """The files that show ``directory`` holds a trainwell run (empty: it holds none)."""
    directory = Path(directory)
    found = [name for name in _RUN_MARKERS if (directory / name).is_file()]
    checkpoints = directory / "checkpoints"
    if checkpoints.is_dir() and any(checkpoints.glob("*.pt")):
        found.append("checkpoints/")
    return found


def new_run_dir(parent: str | Path, stem: str) -> Path:
    """Create and return ``parent/stem``, or ``parent/stem-2``, ``-3``... if taken: the
    ``os.mkdir`` that creates it is what reserves the name, so two runs started in the same
    second never share a directory."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = parent / (stem if n == 1 else f"{stem}-{n}")
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        return path
    raise UserError(f"{parent} holds 10000 runs named {stem}*; pass --run-dir DIR")


class RunDirLock:
    """The advisory lock of one run directory (see the module docstring)."""

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise `RunDirBusyError` naming the process that holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while self._fd is None:
            fd = self._open_locked() if fcntl is not None else self._create_exclusive()
            if fd is None:
                continue  # the file changed under us (its holder released it): try again
            previous = _read_holder(fd)
            _write_holder(fd)
            self._fd = fd
            if previous and not _is_this_process(previous):
                warn_at_user(
                    f"{self.path.parent}: taking over the lock of {_describe(previous)}, "
                    "which is no longer running (it stopped without releasing it)",
                    RunDirWarning,
                )

    def _open_locked(self) -> int | None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read_holder(fd)
            os.close(fd)
            raise RunDirBusyError(_busy(self.path.parent, holder)) from None
        # A holder that released (and removed the file) between our open and our flock left
        # us a lock on a file no one else will see: only the file at the path counts.
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(self.path))
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            return None
        return fd

    def _create_exclusive(self) -> int | None:  # pragma: no cover - platforms without flock
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = _read_holder_at(self.path)
            if holder and not _alive(holder):
                self.path.unlink(missing_ok=True)  # stale: its holder is gone
                warn_at_user(f"removed the stale lock of {_describe(holder)}", RunDirWarning)
                return None
            raise RunDirBusyError(_busy(self.path.parent, holder)) from None

    def release(self) -> None:
        """Give the lock back (the file goes first, so the next run finds no stale record)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(fd)  # the flock goes with the descriptor

    @property
    def held(self) -> bool:
        return self._fd is not None


class RunDirectory:
    """One run's claim on its directory: `claim` (lock; refuse a run it would overwrite),
    `start` (set the old run aside when overwriting; write ``config.yaml``), `commit` (the
    run made its first step: the old run is deleted), `release` (unlock; a run that failed
    before its first step takes back what it wrote and puts the old run back)."""

    def __init__(self, directory: str | Path, *, continuing: bool, overwrite: bool) -> None:
        self.directory = Path(directory)
        self.continuing, self.overwrite = continuing, overwrite
        self.lock = RunDirLock(self.directory)
        self.started = self.committed = False
        self._set_aside: Path | None = None  # the old run, while this one has not stepped
        self._before: set[str] = set()  # the run files there before this run started
        self._old_config: str | None = None

    def claim(self) -> RunDirectory:
        """Lock the directory; refuse one that holds a run this one neither continues nor
        overwrites. Writes nothing but the lock."""
        self.lock.acquire()
        found = run_in(self.directory)
        if found and not (self.continuing or self.overwrite):
            self.lock.release()
            raise RunDirTakenError(
                f"{self.directory} already holds a run ({', '.join(found)}); continue it with "
                "--resume auto (checkpoint.resume=auto), train into another --run-dir, or "
                "replace it with --overwrite (run.overwrite=true), which deletes its checkpoints "
                "and logs"
            )
        return self

    def start(self, config_text: str) -> None:
        """The run is starting: set the old run's files aside (overwrite), write
        ``config.yaml`` (the one it replaces is kept until the first step)."""
        config = self.directory / "config.yaml"
        if self.overwrite:
            self._set_aside = set_aside(self.directory)
            if self._set_aside is not None and (self._set_aside / "checkpoints").is_dir():
                (self.directory / "checkpoints").mkdir()  # the checkpointer's, emptied
        self._before = {name for name in RUN_FILES if _exists(self.directory / name)}
        if config.is_file():
            self._old_config = config.read_text()
        write_text_atomic(config_text, config)
        self.started = True

    def commit(self) -> None:
        """The run made its first optimizer step: the old run it replaces is gone for good."""
        if self.committed:
            return
        self.committed = True
        if self._set_aside is not None:
            shutil.rmtree(self._set_aside, ignore_errors=True)
            self._set_aside = None

    def release(self, failed: bool = False) -> None:
        """Unlock. A run that ``failed`` before its first step leaves the directory as it found
        it: what it wrote goes, the old ``config.yaml`` and the old run it replaced come back."""
        try:
            if self.started and not self.committed and failed:
                self._roll_back()
            else:
                self.commit()
        finally:
            self.lock.release()

    def _roll_back(self) -> None:
        for name in RUN_FILES:
            if name not in self._before or name == "config.yaml":
                _remove(self.directory / name)
        if self._old_config is not None:
            write_text_atomic(self._old_config, self.directory / "config.yaml")
        if self._set_aside is not None:
            for item in self._set_aside.iterdir():
                _remove(self.directory / item.name)
                os.replace(item, self.directory / item.name)
            self._set_aside.rmdir()

    def __enter__(self) -> RunDirectory:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.release(failed=kind is not None)


def set_aside(directory: str | Path) -> Path | None:
    """Move what a run wrote into ``directory`` (`RUN_FILES`, nothing else) into a hidden
    folder there, returned (None: there was nothing). A rename each: a crash in the middle
    never leaves a half-deleted checkpoint directory that looks like a run."""
    directory = Path(directory)
    aside = directory / f".overwritten-{os.getpid()}-{time.time_ns()}"
    for name in RUN_FILES:
        path = directory / name
        if _exists(path):
            aside.mkdir(exist_ok=True)
            os.replace(path, aside / name)
    return aside if aside.exists() else None


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _write_holder(fd: int) -> None:
    record = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
    data = (json.dumps(record) + "\n").encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    with contextlib.suppress(OSError):
        os.fsync(fd)


def _read_holder(fd: int) -> dict[str, Any] | None:
    try:
        text = os.pread(fd, 4096, 0).decode(errors="replace")
        holder = json.loads(text)
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def _read_holder_at(path: Path) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_holder(fd)
    finally:
        os.close(fd)


def _is_this_process(holder: dict[str, Any]) -> bool:
    return holder.get("pid") == os.getpid() and holder.get("host") == socket.gethostname()


def _alive(holder: dict[str, Any]) -> bool:
    """Whether the holder may still run: always, unless it is on this host and its pid is gone."""
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int):
        return True
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "another process"
    return f"pid {holder.get('pid')} on {holder.get('host')}"


def _busy(directory: Path, holder: dict[str, Any] | None) -> str:
    return (
        f"{directory} is in use by another run ({_describe(holder)} holds {directory / LOCK_FILE})"
        "; wait for it to finish, or train into another --run-dir"
    )
