"""The checkpointer: `Checkpointer` saves the state of a run's parts (``state_of``) on its
cadence (``checkpoint.every_steps``, ``every_epochs``, ``min_interval_s``), in the background
if asked, keeps the last and the best (``keep_last``, ``keep_best``, ranked by the monitor),
holds a new best that arrives between saves, and puts saved state back (`restore`).

The files themselves (format, manifests, verification, safe loading) are
`trainwell.state.checkpoint`'s; `NoCheckpoints` stands in when a run has no directory.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.config.sections import MonitorConfig
from trainwell.errors import CheckpointError, WriteFailedError, warn_at_user
from trainwell.state.atomic import (
    WriteFailure,
    fsync_dir,
    link_atomic,
    save_atomic_raw,
    write_json_atomic,
)
from trainwell.state.checkpoint import (
    BEST,
    FORMAT,
    LAST,
    PREFIX,
    CheckpointWarning,
    _step_of,
    check_checkpoint_directory,
    list_checkpoints,
    newest_good_checkpoint,
    ranked_by_metric,
    verify,
)
from trainwell.state.rng import Stateful
from trainwell.state.sharded import is_marker, load_shards, remove_shards, shards_of
from trainwell.state.weights import load_weights, unwrap_model


class NoCheckpoints:
    """Stands in for the checkpointer when a run has no directory: saves nothing."""

    last_path = best_path = None

    @property
    def saves(self) -> list[Any]:
        return []

    def due_after_step(self, step: int) -> bool:
        return False

    def due_after_epoch(self, epoch: int, last: bool, *, best: bool = False) -> bool:
        return False

    def save(self, *args: Any, **kwargs: Any) -> None:
        return None

    def hold(self, *args: Any, **kwargs: Any) -> None:
        return None

    def wait(self) -> None:
        return None

    def __enter__(self) -> NoCheckpoints:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


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
        check_checkpoint_directory(self.directory)  # a file or a link loop in its place
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WriteFailedError(
                f"cannot make the checkpoint directory {self.directory}: "
                f"{exc.strerror or exc}; pass a --run-dir you can write to"
            ) from None
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

    def adopt(self, source: Path, *, verified: bool = False) -> bool:
        """Bring ``source``, a checkpoint of another directory (the run this one resumed
        from), in under its own name with its manifest (a hard link, else a copy) and rank it
        with this directory's own, so ``best.pt`` stays the best of the whole run. False (and
        nothing done) for one of this directory, a sharded one, or one that does not verify
        (``verified``: it was verified already, as the checkpoint a run resumed from was).
        """
        target = self.directory / source.name
        sidecar = source.with_suffix(".json")
        if source.parent.resolve() == self.directory.resolve() or target.exists():
            return False
        if not sidecar.is_file() or shards_of(source).exists():
            return False
        try:
            if not verified:
                verify(source)
            manifest = json.loads(sidecar.read_text())
        except (CheckpointError, ValueError):
            return False  # a damaged best is not carried: the run's own saves rank alone
        link_atomic(source, target)  # the file first: a manifest never names a missing file
        write_json_atomic(manifest, target.with_suffix(".json"))
        self._update_best(SaveRecord(target, manifest.get("step", 0), manifest.get("epoch", 0), 0))
        fsync_dir(self.directory)
        return True

    def _update_best(self, record: SaveRecord) -> None:
        ranked = self._ranked_by_metric()
        if ranked and ranked[0][1] == record.path:
            link_atomic(record.path, self.directory / BEST)
            write_json_atomic(
                json.loads(record.path.with_suffix(".json").read_text()),
                self.directory / "best.json",
            )

    def _ranked_by_metric(self) -> list[tuple[float, Path]]:
        return ranked_by_metric(self.directory, MonitorConfig(self.monitor, self.mode))

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


def _remove_stale_temp_files(directory: Path) -> None:
    # Leftovers of a run killed mid-write: never loadable, safe to drop.
    for tmp in directory.glob(".*.tmp-*"):
        tmp.unlink(missing_ok=True)
    for staging in directory.glob(".*.dcp.tmp"):  # a sharded save that never finished
        shutil.rmtree(staging, ignore_errors=True)
