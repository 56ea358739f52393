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
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import math
import os
import pickle
import threading
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.errors import CheckpointError, ShapeError
from trainwell.state import Stateful

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


def save_atomic(obj: Any, path: str | Path) -> tuple[str, int]:
    """``torch.save`` to ``path`` so that a crash never leaves a partial file at ``path``.

    Returns the SHA-256 (hex) and size in bytes of what was written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        with open(tmp, "wb") as f:
            writer = _HashingWriter(f)
            torch.save(obj, writer)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(path.parent)
    return writer.sha256.hexdigest(), writer.size


def write_json_atomic(data: Mapping[str, Any], path: Path) -> None:
    """Write JSON through a temporary file, fsync and rename."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    with open(tmp, "w") as f:
        json.dump(json_safe(data), f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def write_text_atomic(text: str, path: str | Path) -> None:
    """Write a small text file through a temporary file, fsync and rename."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


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
    if tmp.exists():
        tmp.unlink()
    try:
        os.link(source, tmp)
    except OSError:  # file systems without hard links
        import shutil

        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


# --------------------------------------------------------------------------- safe loading


def load_checkpoint(path: str | Path, map_location: Any = "cpu") -> dict[str, Any]:
    """Load a checkpoint with ``weights_only=True``; refuse anything that needs unpickling code."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(
            f"no checkpoint at {path}; pass the path of a .pt file or a run directory"
        )
    payload = _safe_torch_load(path, map_location)
    if not isinstance(payload, dict) or "state" not in payload:
        raise CheckpointError(
            f"{path} is not a trainwell checkpoint (no 'state' entry); to load bare weights use "
            "trainwell.load_weights(model, path)"
        )
    return payload


def _safe_torch_load(path: Path, map_location: Any) -> Any:
    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        raise CheckpointError(
            f"refusing to load {path}: it needs arbitrary Python objects to unpickle, and "
            f"unpickling runs code, so a file from an untrusted source could run anything "
            f"({str(exc).splitlines()[0][:160]}). Save checkpoints that hold only tensors and "
            "plain values (state_dict()s)"
        ) from None
    except (RuntimeError, EOFError, OSError, ValueError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is unreadable (truncated or corrupt?): {exc}"
        ) from None


def verify(path: Path) -> dict[str, Any]:
    """The manifest of ``path`` if its sidecar exists and its size and SHA-256 match.

    Raises `CheckpointError` saying what is wrong otherwise.
    """
    sidecar = path.with_suffix(".json")
    if not path.is_file():
        raise CheckpointError(f"{path} is missing")
    if not sidecar.is_file():
        raise CheckpointError(f"{path} has no manifest {sidecar.name} (its save did not finish)")
    try:
        manifest = json.loads(sidecar.read_text())
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"manifest {sidecar} is corrupt: {exc}") from None
    size = path.stat().st_size
    if size != manifest.get("bytes"):
        raise CheckpointError(
            f"{path} has {size} bytes, its manifest says {manifest.get('bytes')} (truncated?)"
        )
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    if digest.hexdigest() != manifest.get("sha256"):
        raise CheckpointError(f"{path} does not match the checksum in its manifest (corrupt)")
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
    if path.with_suffix(".json").is_file():  # a file with a manifest must match it
        verify(path)
    return path


def _newest_reporting(directory: Path) -> Path:
    path, skipped = newest_good_checkpoint(directory)
    for reason in skipped:
        warnings.warn(
            f"skipping a checkpoint: {reason}; resuming from {path.name}",
            CheckpointWarning,
            stacklevel=3,
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
        return bool(self.every_steps) and step % self.every_steps == 0

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
            warnings.warn(
                f"not saving step {counters.step}: the model's weights hold NaN/Inf (first in "
                f"{bad!r}); keeping the last good checkpoint ({previous})",
                CheckpointWarning,
                stacklevel=2,
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
            sha256, size = save_atomic(payload, record.path)
            record.write_s = time.perf_counter() - started
            sidecar = {
                **payload["manifest"],
                "metrics": record.metrics,
                "sha256": sha256,
                "bytes": size,
                "write_s": round(record.write_s, 4),
            }
            write_json_atomic(sidecar, record.path.with_suffix(".json"))
            _link_atomic(record.path, self.directory / LAST)
            self._update_best(record)
            self._apply_retention()
            _fsync_dir(self.directory)
        if record.write_s > self.grace_period_s:
            warnings.warn(
                f"saving step {record.step} took {record.write_s:.1f}s, longer than "
                f"checkpoint.grace_period_s={self.grace_period_s:g}: a preemption notice may "
                "not leave enough time (try checkpoint.async_save=true)",
                CheckpointWarning,
                stacklevel=2,
            )

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
        sign = -1.0 if self.mode == "max" else 1.0
        scored.sort(key=lambda item: (sign * item[0], item[1].name))
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
    source: str | Path | Mapping[str, Any], map_location: Any = "cpu"
) -> dict[str, Any]:
    """A model state dict from a trainwell checkpoint, a ``.pt`` state dict or ``.safetensors``."""
    if isinstance(source, Mapping):
        return dict(source)
    path = Path(source)
    if not path.is_file():
        raise CheckpointError(f"no weights file at {path}")
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path), device=str(map_location))
    payload = _safe_torch_load(path, map_location)
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
) -> LoadReport:
    """Load weights into ``model``; report missing and unexpected keys, refuse shape mismatches.

    ``strict=False`` loads what matches (fine-tuning a changed head, as in seed 002) and
    returns the keys that did not. A tensor whose shape differs is always refused, with both
    shapes named. Compile/DDP prefixes (``_orig_mod.``, ``module.``) are stripped.
    """
    target = unwrap_model(model)
    weights = _strip_wrapper_prefixes(read_weights(source, map_location))
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


def export_weights(source: str | Path, out: str | Path, *, fmt: str = "safetensors") -> Path:
    """Write the model weights of checkpoint ``source`` as ``safetensors`` or a ``pt`` state dict."""
    weights = read_weights(source)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "safetensors":
        try:
            from safetensors.torch import save_file
        except ImportError:
            raise CheckpointError(
                "exporting safetensors needs the package: pip install 'trainwell[export]'"
            ) from None
        # clone: safetensors refuses tensors that share storage (tied weights)
        tensors = {
            k: v.contiguous().clone() for k, v in weights.items() if isinstance(v, torch.Tensor)
        }
        tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
        save_file(tensors, str(tmp))
        os.replace(tmp, out)
    elif fmt == "pt":
        save_atomic(weights, out)
    else:
        raise CheckpointError(f"unknown export format {fmt!r}; use safetensors or pt")
    return out
