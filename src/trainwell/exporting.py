"""The whole model as a ``torch.export`` program (``trainwell export --format exported``).

The model is exported in eval mode on a real batch of the run's data, saved with
``torch.export.save`` (a ``.pt2`` file that runs without the model's Python class:
``torch.export.load(path).module()(x)``), then loaded back and run on the same batch: the
largest difference from the eager model is reported, and a difference beyond float tolerance
is an error, not a file left behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.atomic import fsync_dir, fsync_file
from trainwell.errors import UserError

TOLERANCE = 1e-4  # relative to the outputs' scale


def example_batch(job: Any, size: int = 8) -> torch.Tensor:
    """The inputs of a few samples of the job's validation (else training) data."""
    data = job.val_data if job.val_data is not None else job.train_data
    if isinstance(data, tuple | list) and isinstance(data[0], torch.Tensor):
        return data[0][:size]
    first = next(iter(data))
    inputs = first[0] if isinstance(first, tuple | list) else first
    if not isinstance(inputs, torch.Tensor):
        raise UserError(
            "--format exported needs batches whose inputs are one tensor; export the weights "
            "(--format safetensors) and export the model in your own code"
        )
    return inputs[:size]


def export_program(model: nn.Module, example: torch.Tensor, out: Path) -> tuple[Path, float]:
    """Export ``model`` on ``example``, write it to ``out`` and check it: (path, max diff)."""
    model = model.eval().cpu()
    example = example.cpu()
    try:
        program = torch.export.export(model, (example,))
    except Exception as exc:  # torch.export's own errors name the construct it cannot trace
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"torch.export could not export the model: {first}") from None
    with torch.inference_mode():
        eager = model(example)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".tmp-{out.name}")  # torch.export wants the .pt2 suffix
    torch.export.save(program, str(staging))
    difference = _difference(torch.export.load(str(staging)).module(), example, eager)
    scale = float(eager.abs().max()) or 1.0
    if difference > TOLERANCE * scale:
        staging.unlink(missing_ok=True)
        raise UserError(
            f"the exported program's outputs differ from the model's by {difference:.3g} on "
            "a batch; nothing was written"
        )
    _commit(staging, out)
    return out, difference


def _difference(module: nn.Module, example: torch.Tensor, eager: torch.Tensor) -> float:
    with torch.inference_mode():
        exported = module(example)
    return float((exported - eager).abs().max())


def _commit(staging: Path, out: Path) -> None:
    """Move the checked file into place atomically (a crash leaves no half file at ``out``)."""
    fsync_file(staging)
    os.replace(staging, out)
    fsync_dir(out.parent)


__all__ = ["example_batch", "export_program"]
