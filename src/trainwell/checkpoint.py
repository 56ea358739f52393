"""Checkpoints that survive anything: atomic verified writes, retention, exact resume, safe loads.

This module is the checkpointer and everything about checkpoint files as such: `Checkpointer`
(cadence, retention, ``last.pt``/``best.pt``, async saves), the manifests and `verify`, safe
loading (`load_checkpoint`, `trusting_checkpoints`), finding a checkpoint to resume from
(`find_checkpoint`, `newest_good_checkpoint`) and the state of the loop's parts (`state_of`,
`restore`). The writes themselves are `trainwell.atomic`'s; model weights as files (read, load,
export) are `trainwell.weights`, which imports this module: `state_of` and `restore` import
`trainwell.weights` only when called, so that neither module needs the other to import.

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
import hashlib
import json
import math
import os
import pickle
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.atomic import (
    WriteFailure,
    fsync_dir,
    link_atomic,
    one_line,
    save_atomic_raw,
    strip_ansi,
    write_json_atomic,
)
from trainwell.errors import CheckpointError, WriteFailedError
from trainwell.monitor import Monitor
from trainwell.sharded import is_marker, load_shards, remove_shards, verify_shards
from trainwell.state import Stateful
from trainwell.userframe import warn_at_user

FORMAT = 1
LAST = "last.pt"
BEST = "best.pt"
PREFIX = "step-"


class CheckpointWarning(UserWarning):
    """Something about checkpoints the user should know, that does not stop training."""


# --------------------------------------------------------------------------- safe loading

#: Set by `trusting_checkpoints` (the CLI's ``--trust-checkpoint``): loads may unpickle objects.
_TRUSTED: contextvars.ContextVar[bool] = contextvars.ContextVar("trainwell_trusted", default=False)


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
    payload = safe_torch_load(path, map_location, trusted=trusted)
    if not isinstance(payload, dict) or "state" not in payload:
        raise CheckpointError(
            f"{path} is not a trainwell checkpoint (no 'state' entry); to load bare weights use "
            "trainwell.load_weights(model, path)"
        )
    return payload


def safe_torch_load(path: Path, map_location: Any, *, trusted: bool = False) -> Any:
    """``torch.load`` with ``weights_only=True`` unless trusted; `CheckpointError` if it fails."""
    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        if trusted or _TRUSTED.get():
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


def state_of(parts: Mapping[str, Stateful | None]) -> dict[str, Any]:
    """``{name: part.state_dict()}`` for every part that exists (models unwrapped first)."""
    from trainwell.weights import unwrap_model  # weights imports this module

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
    from trainwell.weights import load_weights, unwrap_model  # weights imports this module

    sharded: dict[str, Any] = {}
    for name, part in parts.items():
        if part is None:
            continue
        if name not in state:
            raise CheckpointError(
                f"the checkpoint has no state for {name!r} (it holds {sorted(state)}); it was "
                "saved by a run with a different setup"
            )
        if is_marker(state[name]):  # in the checkpoint's shard directory: loaded together
            sharded[name] = part
        elif isinstance(part, nn.Module):
            load_weights(unwrap_model(part), state[name], strict=True)
        else:
            part.load_state_dict(state[name])
    if sharded:
        load_shards(Path(state[next(iter(sharded))]["sharded"]), sharded)


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
    - ``min_interval_s``: saves on the cadence (and at a new best) come no closer together
      than this (None: 20x the last save's blocking time, so saving takes at most ~5% of the
      run however short its epochs; 0: every one). The end of training and a stop always
      save. A new best inside the interval is not lost: its state is copied to CPU
      (`hold`) and written just before the next save (a crash in between loses that best
      only; the best before it stays on disk);
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
        min_interval_s: float | None = 0.0,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.every_steps, self.every_epochs = every_steps, every_epochs
        self.keep_last, self.keep_best = keep_last, keep_best
        self.monitor, self.mode = monitor, mode
        self.async_save, self.grace_period_s = async_save, grace_period_s
        self.saves: list[SaveRecord] = []
        self.min_interval_s = min_interval_s
        self._last_save_at = -math.inf  # time.monotonic() when the last save began
        self._held: tuple[dict[str, Any], SaveRecord] | None = None  # a best to write next
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        _remove_stale_temp_files(self.directory)

    # ---- cadence ------------------------------------------------------------

    def due_after_step(self, step: int) -> bool:
        cadence = bool(self.every_steps) and step > 0 and step % self.every_steps == 0
        return cadence and self._interval_passed()

    def due_after_epoch(self, epoch: int, last: bool, *, best: bool = False) -> bool:
        """Save now: at the end, or on the epoch cadence or at a new best (``best``) once
        ``min_interval_s`` has passed since the last save."""
        cadence = best or (bool(self.every_epochs) and epoch % self.every_epochs == 0)
        return last or (cadence and self._interval_passed())

    def _interval_passed(self) -> bool:
        interval = self.min_interval_s
        if interval is None:  # auto: the last save's blocking time x 20 (saving <= ~5%)
            interval = 20 * self.saves[-1].blocked_s if self.saves else 0.0
        return time.monotonic() - self._last_save_at >= interval

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
        before_write: Callable[[], Mapping[str, Any]] | None = None,
        **manifest: Any,
    ) -> SaveRecord | None:
        """Save the state of ``parts`` as ``step-<step>.pt``; None if it was refused (NaN).

        ``counters`` supplies step and epoch; ``metrics`` (e.g. the epoch's validation
        metrics) and ``manifest`` values go into the sidecar. ``before_write`` runs just before
        the file is written (in the background thread when saving asynchronously) and returns
        more sidecar values: a sharded save's shards are committed there, before their step file.
        """
        started = time.perf_counter()
        self._last_save_at = time.monotonic()
        self.wait()  # at most one save in flight
        self.write_held()  # a best held back by min_interval_s: older, so written first
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
        payload, record = self._payload(state, counters, metrics, manifest)
        if self.async_save:
            payload["state"] = _snapshot(state)
            record.blocked_s = time.perf_counter() - started
            self._thread = threading.Thread(
                target=self._write_in_background,
                args=(payload, record, before_write),
                daemon=False,
            )
            self._thread.start()
        else:
            _complete_manifest(payload, before_write)
            self._write(payload, record)
            record.blocked_s = time.perf_counter() - started
        self.saves.append(record)
        return record

    def hold(
        self,
        parts: Mapping[str, Stateful | None],
        counters: Any,
        *,
        metrics: Mapping[str, Any] | None = None,
        **manifest: Any,
    ) -> None:
        """A new best inside ``min_interval_s``: copy its state to CPU now and write it just
        before the next save (or at `close`). A later held best replaces it (it is better)."""
        state = state_of(parts)
        if _first_nonfinite(state.get("model", {})) is not None:
            return  # never a best, never written
        self._held = self._payload(_snapshot(state), counters, metrics, manifest)

    def _payload(
        self,
        state: dict[str, Any],
        counters: Any,
        metrics: Mapping[str, Any] | None,
        manifest: Mapping[str, Any],
    ) -> tuple[dict[str, Any], SaveRecord]:
        """What a save writes (format, manifest, state) and its record."""
        record = SaveRecord(
            path=self.path_for(counters.step),
            step=counters.step,
            epoch=counters.epoch,
            blocked_s=0.0,
            metrics=dict(metrics or {}),
        )
        info = {"step": counters.step, "epoch": counters.epoch, "time": time.time(), **manifest}
        return {"format": FORMAT, "manifest": info, "state": state}, record

    def write_held(self) -> None:
        """Write the best held back by ``min_interval_s``, if any (before a later save)."""
        if self._held is None:
            return
        payload, record = self._held
        self._held = None
        started = time.perf_counter()
        self.wait()
        self._write(payload, record)
        record.blocked_s = time.perf_counter() - started
        self.saves.append(record)

    def _write_in_background(
        self,
        payload: dict[str, Any],
        record: SaveRecord,
        before_write: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        try:
            _complete_manifest(payload, before_write)
            self._write(payload, record)
        except BaseException as exc:  # re-raised in the training thread by wait()
            self._error = exc

    def _write(self, payload: dict[str, Any], record: SaveRecord) -> None:
        started = time.perf_counter()
        with self._lock:
            self._drop_abandoned_future(record.step)
            try:
                self._write_files(payload, record, started)
            except (WriteFailure, WriteFailedError) as failure:
                raise WriteFailedError(f"{failure}; {self._intact(record)}") from None
        if record.write_s > self.grace_period_s:
            warn_at_user(
                f"saving step {record.step} took {record.write_s:.1f}s, longer than "
                f"checkpoint.grace_period_s={self.grace_period_s:g}: a preemption notice may "
                "not leave enough time (try checkpoint.async_save=true)",
                CheckpointWarning,
            )

    def _write_files(self, payload: dict[str, Any], record: SaveRecord, started: float) -> None:
        sha256, size = save_atomic_raw(payload, record.path)
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
            _remove_checkpoint(record.path)
            raise
        link_atomic(record.path, self.directory / LAST)
        self._update_best(record)
        self._apply_retention()
        fsync_dir(self.directory)

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
                _remove_checkpoint(path)

    def _update_best(self, record: SaveRecord) -> None:
        ranked = self._ranked_by_metric()
        if ranked and ranked[0][1] == record.path:
            link_atomic(record.path, self.directory / BEST)
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
                _remove_checkpoint(path)

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
        self.write_held()  # the run ended without a later save (an error): keep its best

    def __enter__(self) -> Checkpointer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _complete_manifest(
    payload: dict[str, Any], before_write: Callable[[], Mapping[str, Any]] | None
) -> None:
    if before_write is not None:
        payload["manifest"].update(before_write())


def _remove_checkpoint(path: Path) -> None:
    """Delete a step's checkpoint: its manifest first (so it is never half-valid), the file,
    and its shard directory (a sharded checkpoint)."""
    path.with_suffix(".json").unlink(missing_ok=True)
    path.unlink(missing_ok=True)
    remove_shards(path)


def _step_of(path: Path) -> int:
    return int(path.stem[len(PREFIX) :])


def _remove_stale_temp_files(directory: Path) -> None:
    # Leftovers of a run killed mid-write: never loadable, safe to drop.
    for tmp in directory.glob(".*.tmp-*"):
        tmp.unlink(missing_ok=True)
    for staging in directory.glob(".*.dcp.tmp"):  # a sharded save that never finished
        shutil.rmtree(staging, ignore_errors=True)
