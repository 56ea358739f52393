"""Checkpoints: the whole training state in one file, written atomically, loaded safely.

A checkpoint is ``{"format", "manifest", "state"}`` where ``state`` maps the names of the loop's
stateful parts to their ``state_dict()``; it holds tensors and plain Python values only, so it
loads with ``torch.load(weights_only=True)``. Writes go to a temporary file beside the target,
are flushed and fsynced, then ``os.replace``-d over it, and the directory is fsynced: a crash
leaves either the old file or the new one, never a torn one.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from trainwell.errors import CheckpointError
from trainwell.state import Stateful

FORMAT = 1
LAST = "last.pt"
BEST = "best.pt"


def save_atomic(obj: Any, path: str | Path) -> Path:
    """``torch.save`` to ``path`` so that a crash never leaves a partial file at ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(path.parent)
    return path


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_checkpoint(path: str | Path, map_location: Any = "cpu") -> dict[str, Any]:
    """Load a checkpoint with ``weights_only=True``; refuse anything that needs unpickling code."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(
            f"no checkpoint at {path}; pass the path of a .pt file or a run directory"
        )
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        raise CheckpointError(
            f"refusing to load {path}: it needs arbitrary Python objects to unpickle, which could "
            f"run untrusted code ({str(exc).splitlines()[0][:200]}). Only load files you trust, "
            "and save checkpoints that hold tensors and plain values"
        ) from None
    except (RuntimeError, EOFError, OSError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is unreadable (truncated or corrupt?): {exc}"
        ) from None
    if not isinstance(payload, dict) or "state" not in payload:
        raise CheckpointError(
            f"{path} is not a trainwell checkpoint (no 'state' entry); to load bare weights use "
            "model.load_state_dict(torch.load(path, weights_only=True))"
        )
    return payload


def state_of(parts: Mapping[str, Stateful | None]) -> dict[str, Any]:
    """``{name: part.state_dict()}`` for every part that exists."""
    return {name: part.state_dict() for name, part in parts.items() if part is not None}


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
        part.load_state_dict(state[name])


class Checkpointer:
    """Saves ``last.pt`` and ``best.pt`` (full training state) in ``directory``."""

    def __init__(self, directory: str | Path, *, save_last: bool = True, save_best: bool = True):
        self.directory = Path(directory)
        self.save_last, self.save_best = save_last, save_best
        self.last_path: Path | None = None
        self.best_path: Path | None = None
        self.last_save_s = 0.0

    def save(
        self,
        parts: Mapping[str, Stateful | None],
        counters: Any,
        *,
        is_best: bool,
        **manifest: Any,
    ) -> None:
        """Save the state of ``parts`` as last (and as best when ``is_best``).

        ``counters`` (step, epoch) and ``manifest`` values go into the checkpoint's manifest.
        """
        if not (self.save_last or (self.save_best and is_best)):
            return
        start = time.perf_counter()
        payload = {
            "format": FORMAT,
            "manifest": {
                "step": counters.step,
                "epoch": counters.epoch,
                "time": time.time(),
                **manifest,
            },
            "state": state_of(parts),
        }
        target = self.directory / (LAST if self.save_last else BEST)
        save_atomic(payload, target)
        if self.save_last:
            self.last_path = target
        if self.save_best and is_best:
            self.best_path = self.directory / BEST
            if target != self.best_path:
                _link_atomic(target, self.best_path)
        self.last_save_s = time.perf_counter() - start


def _link_atomic(source: Path, target: Path) -> None:
    # A hard link costs no copy; last.pt is later replaced by a new file, so best.pt keeps its data.
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    if tmp.exists():
        tmp.unlink()
    try:
        os.link(source, tmp)
    except OSError:
        import shutil

        shutil.copyfile(source, tmp)
    os.replace(tmp, target)
    _fsync_dir(target.parent)


def find_checkpoint(resume: str | Path, run_dir: str | Path | None = None) -> Path:
    """The checkpoint file meant by ``resume``: a file, a run directory, or ``"auto"``."""
    if str(resume) == "auto":
        if run_dir is None:
            raise CheckpointError('resume="auto" needs a run directory (run.dir) to look in')
        candidate = Path(run_dir) / "checkpoints" / LAST
        if not candidate.is_file():
            raise CheckpointError(
                f'resume="auto" found no checkpoint at {candidate}; start without resume, or pass '
                "the path of a checkpoint"
            )
        return candidate
    path = Path(resume)
    if path.is_dir():
        for candidate in (path / "checkpoints" / LAST, path / LAST):
            if candidate.is_file():
                return candidate
        raise CheckpointError(f"no checkpoint in {path} (looked for checkpoints/{LAST} and {LAST})")
    if not path.is_file():
        raise CheckpointError(
            f"resume path {path} does not exist; pass a checkpoint file or run directory"
        )
    return path
