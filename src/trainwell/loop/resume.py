"""Where a run resumes from: ``checkpoint.resume`` (a file, a run directory, ``auto``), or a
worker torchrun restarted after a failure; the saved state read for this strategy, with a
warning naming every config key that changed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trainwell.config.sections import Config
from trainwell.errors import CheckpointError, warn_at_user
from trainwell.state.checkpoint import (
    PREFIX,
    find_checkpoint,
    list_checkpoints,
    load_checkpoint,
    newest_good_checkpoint,
    verify_if_manifest,
)
from trainwell.strategy.base import Strategy
from trainwell.strategy.process import restart_count


def load_resume_state(cfg: Config, strategy: Strategy, resume: str | None = None) -> dict[str, Any]:
    """The saved state to resume from: ``resume`` (default ``checkpoint.resume``), a file, a
    run directory or ``auto``; warns what a changed config or world size means."""
    return read_resume_state(cfg, strategy, resume_path(cfg, resume))


def resume_path(cfg: Config, resume: str | None = None) -> Path:
    """The checkpoint file ``resume`` (default ``checkpoint.resume``) means for this run."""
    return find_checkpoint(resume or cfg.checkpoint.resume, cfg.run.dir)


def read_resume_state(cfg: Config, strategy: Strategy, path: Path) -> dict[str, Any]:
    """The saved state in checkpoint ``path``; warns what a changed config or world size
    means."""
    # sharded: every rank reads the whole file on CPU and keeps its shard on the device
    where = "cpu" if strategy.collective_state else strategy.device
    payload = load_checkpoint(path, map_location=where)
    manifest = payload["manifest"]
    changed = changed_keys(manifest.get("config", {}), cfg.to_dict())
    if changed:
        warn_at_user(
            f"resuming {path} with a different config ({', '.join(changed)}); the run will not "
            "match one that never stopped",
        )
    saved_world = manifest.get("world_size", 1)
    if saved_world != strategy.world_size and strategy.is_main:
        warn_at_user(
            f"resuming {path}, saved by {saved_world} process(es), with {strategy.world_size}: "
            "the model, optimizer, schedule and counters carry over; each rank's shard of the "
            "epoch and its RNG stream follow the new layout, and the run's length and schedule "
            "are counted in steps of the new layout (a larger world has fewer steps per "
            "epoch); the run does not match one that never stopped"
        )
    return payload["state"]  # shard markers name the verified directory in full


#: Keys that change how a run is shown or stored, not what it computes (as do checkpoint.*).
_PRESENTATION_KEYS = {
    "run.dir",
    "run.overwrite",
    "run.quiet",
    "run.progress",
    "run.log_every",
    "train.max_time",  # when this call stops, not what the run computes
    # per-batch seeds make the batches the same whatever the loader's machinery
    "data.num_workers",
    "data.pin_memory",
    "data.persistent_workers",
    "data.prefetch_factor",
    "data.device_fraction",
    "data.input_bound_threshold",
}


def changed_keys(saved: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    changed = []
    for section, values in current.items():
        if not isinstance(values, Mapping):
            continue
        for key, value in values.items():
            name = f"{section}.{key}"
            old = (
                saved.get(section, {}).get(key, value)
                if isinstance(saved.get(section), Mapping)
                else value
            )
            if name not in _PRESENTATION_KEYS and section != "checkpoint" and old != value:
                changed.append(f"{name}: {old!r} -> {value!r}")
    return changed


def carry_best(checkpointer: Any, source: Path, best_step: int | None) -> None:
    """A run resumed from another run directory (``--resume A --run-dir B``) takes the
    checkpoint it resumed from and the best one of A (the monitor's best step) into B, so
    that B's ``best.pt`` holds the best weights of the whole run, not of B's part of it, and
    B resumes from where it started even before its first save. Sharded checkpoints and
    checkpointers of other kinds are left where they are."""
    adopt = getattr(checkpointer, "adopt", None)
    if adopt is None:
        return
    adopt(source, verified=True)  # verified when it was found
    if best_step is not None:
        best = source.with_name(f"{PREFIX}{best_step:08d}.pt")
        if best != source and best.is_file():
            adopt(best)


def saved_config(run_dir: str | Path) -> tuple[dict[str, Any], Path] | None:
    """The config the run in ``run_dir`` saved with its newest good checkpoint (the one a
    resume continues), and that checkpoint; None when it has no checkpoint, or one too old to
    hold its config. The copy is checked against the manifest's ``config_hash``."""
    directory = Path(run_dir) / "checkpoints"
    if not list_checkpoints(directory):
        return None
    path, _ = newest_good_checkpoint(directory)  # the skipped ones are reported by the resume
    manifest = verify_if_manifest(path) or {}
    config = manifest.get("config")
    if not isinstance(config, dict) or "config_hash" not in manifest:
        return None
    text = json.dumps(config, sort_keys=True)
    if hashlib.sha256(text.encode()).hexdigest()[:16] != manifest["config_hash"]:
        raise CheckpointError(
            f"the manifest of {path} holds a config that does not match its config_hash (edited "
            "by hand?); restore the file, or delete that checkpoint to resume from the one before"
        )
    return config, path


def differing_keys(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The ``section.key`` names whose values differ between two config trees (a key one
    lacks differs), leaving out how a run is shown or stored (`_PRESENTATION_KEYS`,
    ``checkpoint.*``)."""
    names = sorted(set(_flat(a)) | set(_flat(b)))
    flat_a, flat_b = _flat(a), _flat(b)
    return [
        name
        for name in names
        if name not in _PRESENTATION_KEYS
        and not name.startswith("checkpoint.")
        and flat_a.get(name, _MISSING) != flat_b.get(name, _MISSING)
    ]


_MISSING = object()


def _flat(tree: Mapping[str, Any]) -> dict[str, Any]:
    return {
        f"{section}.{key}": value
        for section, values in tree.items()
        if isinstance(values, Mapping)
        for key, value in values.items()
    }


def elastic_resume(resume: str | None, run_dir: str | None) -> str | None:
    """What to resume from: ``checkpoint.resume`` as set, or, in a worker torchrun restarted
    after a failure, ``"auto"`` (the newest good checkpoint) when the run directory has one:
    the restarted command is the original one, which did not ask to resume. (A failure in
    the middle of the first save leaves no good checkpoint: the restart starts afresh.)"""
    if resume or run_dir is None or restart_count() == 0:
        return resume

    try:
        newest_good_checkpoint(Path(run_dir) / "checkpoints")
    except CheckpointError:
        return None
    return "auto"
