"""Checkpoint files that survive anything: the format, manifests and `verify`, safe loading
(`load_checkpoint`), and finding one to resume from
(`find_checkpoint`, `newest_good_checkpoint`, `best_good_checkpoint`). The writes themselves
are `trainwell.state.atomic`'s; the checkpointer that decides when to save, and what to keep,
is `trainwell.state.checkpointer`; model weights as files are `trainwell.state.weights`.

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

import errno
import hashlib
import json
import math
import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from trainwell.config.sections import MonitorConfig
from trainwell.errors import CheckpointError, warn_at_user
from trainwell.state.atomic import (
    one_line,
    strip_ansi,
)
from trainwell.state.sharded import pin_shards, verify_shards
from trainwell.state.trust import checkpoints_trusted

FORMAT = 1


LAST = "last.pt"


BEST = "best.pt"


PREFIX = "step-"


class CheckpointWarning(UserWarning):
    """Something about checkpoints the user should know, that does not stop training."""


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
    manifest = verify_if_manifest(path)
    payload = safe_torch_load(path, map_location, trusted=trusted)
    if not isinstance(payload, dict) or "state" not in payload:
        raise CheckpointError(
            f"{path} is not a trainwell checkpoint (no 'state' entry); to load bare weights use "
            "trainwell.load_weights(model, path)"
        )
    # shard markers name, in full, the directory the manifest verified (or are refused)
    trusted = trusted or checkpoints_trusted()
    payload["state"] = pin_shards(path, payload["state"], manifest, trusted=trusted)
    return payload


def safe_torch_load(path: Path, map_location: Any, *, trusted: bool = False) -> Any:
    """``torch.load`` with ``weights_only=True`` unless trusted; `CheckpointError` if it fails."""
    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        if trusted or checkpoints_trusted():
            return _trusted_torch_load(path, map_location)
        raise CheckpointError(_refusal(path, exc)) from None
    except (RuntimeError, EOFError, OSError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is unreadable (truncated or corrupt?): {one_line(str(exc))}"
        ) from None


def _trusted_torch_load(path: Path, map_location: Any) -> Any:
    try:
        return torch.load(path, map_location=map_location, weights_only=False)
    except (ImportError, AttributeError) as exc:
        raise CheckpointError(
            f"{path} needs Python code that is not importable here to load: {one_line(str(exc))}"
        ) from None
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is unreadable (truncated or corrupt?): {one_line(str(exc))}"
        ) from None


def _refusal(path: Path, exc: BaseException) -> str:
    """Why a weights-only load refused ``path``, and the explicit ways to load it, on one line."""
    text = strip_ansi(str(exc))
    found = re.search(r"GLOBAL ([\w.]+)", text)
    name = found.group(1) if found else None
    what = f"a pickled Python object ({name})" if name else "pickled Python objects"
    allow = (
        f"torch.serialization.add_safe_globals([{name}])"
        if name
        else "torch.serialization.add_safe_globals([...])"
    )
    detail = "" if name else f" (torch: {one_line(text)[:160]})"
    return (
        f"refusing to load {path}: it holds {what}, and unpickling runs code, so a file from an "
        f"untrusted source could run anything{detail}. If you trust this file, load it with "
        "--trust-checkpoint (trainwell resume/eval/export) or trusted=True "
        f"(tw.load_checkpoint, tw.load_weights), or allow-list the class with {allow}"
    )


def verify(path: Path) -> dict[str, Any]:
    """The manifest of ``path`` if its sidecar exists and its size and SHA-256 match.

    A step file's sidecar is ``step-N.json``; ``last.pt``/``best.pt`` are checked against the
    manifest of the step file they link to (or ``best.json``). Raises `CheckpointError` saying
    what is wrong otherwise.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path} is missing")
    sidecars = sidecars_of(path)
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
            verify_shards(path, manifest)  # a sharded checkpoint: every rank's files too
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
    if not sidecars_of(path):
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


def sidecars_of(path: Path) -> list[Path]:
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
    """The ``step-*.pt`` files in ``directory``, newest (highest step) first; none when it
    does not exist, a `CheckpointError` when something else is in its place."""
    directory = Path(directory)
    if not directory.is_dir():
        check_checkpoint_directory(directory)
        return []
    return sorted(directory.glob(f"{PREFIX}*.pt"), reverse=True)


def check_checkpoint_directory(directory: str | Path) -> None:
    """Raise `CheckpointError` when ``directory`` cannot be a checkpoint directory: a file, a
    symlink loop or a link to nothing is in its place. A missing one is fine (it is made)."""
    directory = Path(directory)
    try:
        directory.stat()
    except FileNotFoundError:
        if not directory.is_symlink():
            return  # nothing there yet
        problem = f"is a symbolic link to {os.readlink(directory)}, which does not exist"
    except OSError as exc:  # ELOOP: checkpoints -> checkpoints
        problem = f"cannot be used: {exc.strerror or exc}"
        if exc.errno == errno.ELOOP:
            problem = f"is a symbolic link loop ({directory.name} -> {os.readlink(directory)})"
    else:
        if directory.is_dir():
            return
        problem = "is a file, not a directory"
    raise CheckpointError(
        f"{directory} {problem}; checkpoints go in a directory there: move it out of the "
        "way, or pass another --run-dir"
    )


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


def ranked_by_metric(directory: Path, monitor: MonitorConfig) -> list[tuple[float, Path]]:
    """The checkpoints in ``directory`` whose manifest holds a finite ``monitor.metric``,
    best first; among equal values the oldest, as the best tracker counts a tie as no better."""
    scored = []
    for path in list_checkpoints(directory):
        sidecar = path.with_suffix(".json")
        if not sidecar.is_file():
            continue
        value = json.loads(sidecar.read_text()).get("metrics", {}).get(monitor.metric)
        if isinstance(value, int | float) and math.isfinite(value):
            scored.append((float(value), path))
    scored.sort(key=lambda item: (monitor.rank_key(item[0]), item[1].name))
    return scored


def best_good_checkpoint(directory: str | Path, monitor: str, mode: str) -> Path | None:
    """The checkpoint with the best ``monitor`` value among those that verify; None if none."""
    for _, path in ranked_by_metric(Path(directory), MonitorConfig(monitor, mode)):
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


def _step_of(path: Path) -> int:
    return int(path.stem[len(PREFIX) :])


def choose_checkpoint(
    run_dir: str | Path,
    which: str = "best",
    monitor: str = "val_loss",
    mode: str = "min",
    *,
    note: Callable[[str], None] | None = None,
) -> Path:
    """The checkpoint file ``which`` (best, last, step-N or a path) means in run directory
    ``run_dir``, verified (what ``trainwell eval``/``export`` and `load_weights` of a run
    directory read). ``note`` is told of damaged files passed over (default: a warning).

    - a path: that file; damaged -> `CheckpointError`;
    - ``last``: the newest checkpoint that verifies, with a note for each newer damaged one;
    - ``best``: ``best.pt``; damaged -> `CheckpointError` naming the alternatives (another
      file is not "the best" and must be asked for); none (a run without validation) -> last.
    """
    note = note or (lambda message: warn_at_user(message, CheckpointWarning))
    run_dir = Path(run_dir)
    directory = run_dir / "checkpoints"
    numbered = re.fullmatch(r"step-(\d+)(\.pt)?", which)
    if numbered:  # step-N: that step's checkpoint of the run
        which = str(directory / f"step-{int(numbered.group(1)):08d}.pt")
    if which not in ("best", "last"):
        path = Path(which)
        if not path.is_file():
            raise CheckpointError(
                f"no checkpoint at {path}; pass best, last, step-N or the path of a checkpoint file"
            )
        verify_if_manifest(path)
        return path
    if which == "best":
        best = directory / BEST
        if best.is_file():
            try:
                verify_if_manifest(best)
            except CheckpointError as exc:
                good = best_good_checkpoint(directory, monitor, mode)
                other = f", or --checkpoint {good} (the best that verifies)" if good else ""
                raise CheckpointError(
                    f"the best checkpoint is damaged: {exc}; another file is not used in its "
                    f"place: pass --checkpoint last (the newest that verifies){other}"
                ) from None
            return best
        if list_checkpoints(directory):
            note(f"{directory} has no {BEST} (no validation metric); using the newest checkpoint")
    if list_checkpoints(directory):
        path, skipped = newest_good_checkpoint(directory)
        for reason in skipped:
            note(f"{reason}; using {path.name}, the newest checkpoint that verifies")
        return path
    last = directory / LAST
    if last.is_file():
        verify_if_manifest(last)
        return last
    raise CheckpointError(f"no checkpoint in {directory}")
