"""Model weights as files: read, load into a model, export; and the model inside its wrappers.

`read_weights` reads a model state dict from a trainwell checkpoint, a ``.pt`` state dict or a
``.safetensors`` file; `load_weights` loads it into a model, naming missing and unexpected keys
and refusing shape mismatches; `export_weights` writes a checkpoint's weights for use elsewhere
and never over a checkpoint. Every read of a file that has a manifest verifies it first (with
`trainwell.state.checkpoint`'s verification and safe loader, which this module imports), and every
write goes through `trainwell.state.atomic`.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.errors import CheckpointError, ShapeError, WriteFailedError, warn_at_user
from trainwell.state.atomic import (
    WriteFailure,
    one_line,
    save_atomic_raw,
    state_bytes,
    write_atomic,
)
from trainwell.state.checkpoint import (
    BEST,
    LAST,
    PREFIX,
    CheckpointWarning,
    choose_checkpoint,
    list_checkpoints,
    safe_torch_load,
    sidecars_of,
    verify_if_manifest,
)
from trainwell.state.sharded import MARKER, consolidated_model, is_marker, pin_shards
from trainwell.state.trust import checkpoints_trusted, trusting_checkpoints

# --------------------------------------------------------------------------- wrappers


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
    source: str | Path | Mapping[str, Any],
    map_location: Any = "cpu",
    *,
    trusted: bool = False,
    which: str = "auto",
) -> dict[str, Any]:
    """A model state dict from a trainwell checkpoint, a ``.pt`` state dict, ``.safetensors``,
    or a run directory (its best checkpoint, else the newest that verifies).

    A file with a manifest is verified first (see `load_checkpoint`); ``trusted=True`` loads a
    file that holds pickled Python objects — only for files you trust. ``which`` picks between
    a checkpoint's raw weights and their moving average (``train.ema_decay``): ``auto`` (the
    average when the checkpoint has one: it is what the run validated), ``raw`` or ``ema``.
    """
    if which not in ("auto", "raw", "ema"):
        raise CheckpointError(f"unknown weights {which!r}; use auto, raw or ema")
    if isinstance(source, Mapping):
        return dict(source)
    path = Path(source)
    if path.is_dir():  # a run directory (or its checkpoints/): its best checkpoint, as the CLI
        run_dir = path.parent if path.name == "checkpoints" else path
        path = choose_checkpoint(run_dir, "best")
    if not path.is_file():
        raise CheckpointError(
            f"no weights file at {path}; pass a checkpoint, a .pt or .safetensors file, or a "
            "run directory"
        )
    weights = _weights_in(path, map_location, trusted=trusted, which=which)
    _warn_if_not_finite(path, weights)
    return weights


def _warn_if_not_finite(path: Path, weights: Mapping[str, Any]) -> None:
    """One warning naming the tensors of ``weights`` that hold NaN or Inf: such a file loads
    (it may be what you want to inspect), but never without a word."""
    bad = [
        name
        for name, value in weights.items()
        if isinstance(value, torch.Tensor)
        and value.is_floating_point()
        and not bool(torch.isfinite(value).all())
    ]
    if bad:
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        warn_at_user(
            f"{path} holds NaN or Inf in {len(bad)} tensor(s): {shown}; a model loaded with "
            "them predicts NaN (was it saved from a diverged run?)",
            CheckpointWarning,
        )


def _weights_in(path: Path, map_location: Any, *, trusted: bool, which: str) -> dict[str, Any]:
    """The model state dict in file ``path`` (verified first when it has a manifest)."""
    manifest = verify_if_manifest(path)
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        try:
            return load_file(str(path), device=str(map_location))
        except Exception as exc:  # safetensors raises its own SafetensorError
            raise CheckpointError(
                f"weights file {path} is unreadable (truncated or corrupt?): {one_line(str(exc))}"
            ) from None
    payload = safe_torch_load(path, map_location, trusted=trusted)
    if isinstance(payload, dict) and "state" in payload and "model" in payload["state"]:
        state = payload["state"]
        if which == "ema" and "ema" not in state:
            raise CheckpointError(
                f"{path} holds no moving average of the weights (its run had "
                "train.ema_decay=null); ask for the raw weights"
            )
        if which != "raw" and "ema" in state:
            return state["ema"]["weights"]
        model = state["model"]
        if is_marker(model):  # a sharded checkpoint: its shards gathered into whole tensors
            trusted = trusted or checkpoints_trusted()
            pinned = pin_shards(path, model, manifest, trusted=trusted)
            with trusting_checkpoints(trusted):
                return consolidated_model(Path(pinned[MARKER]))
        return model
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
    drop: Sequence[str] = (),
    rename: Mapping[str, str] | None = None,
) -> LoadReport:
    """Load weights into ``model``; report missing and unexpected keys, refuse shape mismatches.

    ``source``: a checkpoint, a ``.pt``/``.safetensors`` file, a run directory (its best
    checkpoint) or a state dict. For fine-tuning, ``rename={"old.": "new."}`` renames key
    prefixes of the source first, and ``drop=["fc."]`` leaves the source's keys with those
    prefixes out (a new head keeps its fresh weights; the model's dropped keys are not counted
    missing). ``strict=False`` loads what matches and returns the keys that did not. A tensor
    whose shape differs is always refused, with both shapes named and the ``drop=`` that
    leaves it out. Compile/DDP prefixes (``_orig_mod.``, ``module.``) are stripped. A file
    with a manifest is verified first; ``trusted=True`` loads one that holds pickled objects.
    """
    target = unwrap_model(model)
    weights = _strip_wrapper_prefixes(read_weights(source, map_location, trusted=trusted))
    weights = _renamed(weights, rename or {})
    dropped = tuple(drop)
    weights = {k: v for k, v in weights.items() if not k.startswith(dropped)}
    own = target.state_dict()
    mismatched = [
        (k, tuple(v.shape), tuple(own[k].shape))
        for k, v in weights.items()
        if k in own and isinstance(v, torch.Tensor) and v.shape != own[k].shape
    ]
    if mismatched:
        raise ShapeError(_mismatch_message(mismatched))
    result = target.load_state_dict(weights, strict=False)
    missing = [k for k in result.missing_keys if not (dropped and k.startswith(dropped))]
    report = LoadReport(missing, list(result.unexpected_keys))
    if strict and (report.missing or report.unexpected):
        raise CheckpointError(
            f"the weights do not match the model ({report}); pass strict=False to load what "
            "matches, drop=[prefixes] to leave keys out, or rename={old: new} for moved modules"
        )
    return report


def _renamed(weights: dict[str, Any], rename: Mapping[str, str]) -> dict[str, Any]:
    """``weights`` with each key's first matching prefix of ``rename`` replaced."""
    if not rename:
        return weights
    out = {}
    for key, value in weights.items():
        old = next((p for p in rename if key.startswith(p)), None)
        out[rename[old] + key[len(old) :] if old is not None else key] = value
    return out


def _mismatch_message(mismatched: list[tuple[str, tuple, tuple]]) -> str:
    """The mismatched tensors with both shapes, and the ``drop=`` that fine-tuning needs."""
    shown = "; ".join(f"{k}: checkpoint {a} vs model {b}" for k, a, b in mismatched[:5])
    more = f" (and {len(mismatched) - 5} more)" if len(mismatched) > 5 else ""
    prefixes = sorted({k.rsplit(".", 1)[0] + "." if "." in k else k for k, _, _ in mismatched})
    return (
        f"checkpoint tensors do not fit the model: {shown}{more}. Fine-tuning with a new head? "
        f"Leave them out: load_weights(model, source, drop={prefixes}) (the model keeps its "
        "own); otherwise build the model with the configuration it was trained with"
    )


def _strip_wrapper_prefixes(weights: dict[str, Any]) -> dict[str, Any]:
    """Drop ``_orig_mod.``/``module.`` that a wrapper put before *every* key (older checkpoints)."""
    for prefix in ("_orig_mod.", "module."):
        while weights and all(k.startswith(prefix) for k in weights):
            weights = {k[len(prefix) :]: v for k, v in weights.items()}
    return weights


def export_weights(
    source: str | Path,
    out: str | Path,
    *,
    fmt: str = "safetensors",
    trusted: bool = False,
    which: str = "auto",
) -> Path:
    """Write the model weights of checkpoint ``source`` as ``safetensors`` or a ``pt`` state dict.

    ``which``: ``auto``, ``raw`` or ``ema`` weights, as in `read_weights`. ``source`` is
    verified against its manifest first. ``out`` may never be ``source`` (also
    through a symlink or hard link) nor any other checkpoint: `CheckpointError`. The file is
    written atomically and gets the usual permissions (``0o666 & ~umask``); a failed write
    raises `WriteFailedError`.
    """
    source, out = Path(source), Path(out)
    if fmt not in ("safetensors", "pt"):
        raise CheckpointError(f"unknown export format {fmt!r}; use safetensors or pt")
    refuse_overwriting_checkpoint(source, out)
    weights = read_weights(source, trusted=trusted, which=which)
    try:
        if fmt == "safetensors":
            _export_safetensors(weights, out)
        else:
            save_atomic_raw(weights, out)
    except WriteFailure as failure:
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
    return path.is_file() and bool(sidecars_of(path))


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
            raise OSError(errno.EIO, one_line(str(exc))) from exc

    write_atomic(out, write, estimate=lambda: state_bytes(tensors))
