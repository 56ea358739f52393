"""The whole model as a program: ``trainwell export --format exported`` (``torch.export``)
or ``--format onnx``.

The model is exported in eval mode on a real batch of the run's data, with the batch size
left free, and saved: a ``.pt2`` file (``torch.export.save``; it runs without the model's
Python class: ``torch.export.load(path).module()(x)``) or an ``.onnx`` file
(``torch.onnx.export(dynamo=True)``; ``pip install 'trainwell[onnx]'``). The file is then
loaded back (ONNX: by ONNX Runtime) and run on that batch and on a single sample; the
largest difference from the eager model is reported, and a difference beyond float
tolerance is an error, not a file left behind.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from torch import nn

from trainwell.errors import UserError, WriteFailedError
from trainwell.state.atomic import describe_write_failure, fsync_dir, fsync_file

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


def _batch_dynamic() -> tuple[dict[int, Any], ...]:
    """The inputs' first dimension, the batch, of any size in the exported model."""
    return ({0: torch.export.Dim.DYNAMIC},)


def export_program(model: nn.Module, example: torch.Tensor, out: Path) -> tuple[Path, float]:
    """Export ``model`` on ``example`` (any batch size), write it to ``out`` and check it on
    the example and on one sample: (path, max diff)."""
    model = model.eval().cpu()
    example = example.cpu()
    try:
        program = torch.export.export(model, (example,), dynamic_shapes=_batch_dynamic())
    except Exception as exc:  # torch.export's own errors name the construct it cannot trace
        raise UserError(f"torch.export could not export the model: {_first_line(exc)}") from None
    # In memory first: torch's file writer aborts the whole process on a full disk, where a
    # Python write raises an OSError that can be reported and cleaned up after.
    buffer = io.BytesIO()
    torch.export.save(program, buffer)
    with _staged(out) as staging:  # torch.export wants the .pt2 suffix: .tmp-NAME.pt2
        _write_file(staging, buffer.getvalue())
        loaded = torch.export.load(str(staging)).module()
        difference = _checked(lambda x: loaded(x), model, example, staging)
        _commit(staging, out)
    return out, difference


def export_onnx(model: nn.Module, example: torch.Tensor, out: Path) -> tuple[Path, float]:
    """Export ``model`` as ONNX (``torch.onnx.export(dynamo=True)``, any batch size), write it
    to ``out`` and check it with ONNX Runtime on the example and on one sample."""
    try:
        import onnxruntime
    except ImportError:
        raise UserError("--format onnx needs: pip install 'trainwell[onnx]'") from None
    model = model.eval().cpu()
    example = example.cpu()
    try:
        program = torch.onnx.export(
            model, (example,), dynamo=True, dynamic_shapes=_batch_dynamic(), verbose=False
        )
    except Exception as exc:
        raise UserError(f"the ONNX export failed: {_first_line(exc)}") from None
    with _staged(out) as staging:
        program.save(str(staging))
        session = onnxruntime.InferenceSession(str(staging), providers=["CPUExecutionProvider"])
        name = session.get_inputs()[0].name

        def run(x: torch.Tensor) -> torch.Tensor:
            return torch.from_numpy(session.run(None, {name: x.numpy()})[0])

        difference = _checked(run, model, example, staging)
        _commit(staging, out)
    return out, difference


@contextlib.contextmanager
def _staged(out: Path) -> Iterator[Path]:
    """The temporary file beside ``out`` that an export is written to and checked in; it is
    removed whatever happens (a failed check, a full disk, Ctrl-C). A write that fails is a
    `WriteFailedError` (exit 4) naming ``out``; an existing ``out`` is left as it was."""
    staging = out.with_name(f".tmp-{out.name}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        yield staging
    except OSError as exc:
        with contextlib.suppress(OSError):  # first, so that the free space reported is real
            staging.unlink(missing_ok=True)
        kept = f"; {out.name} is unchanged" if out.exists() else ""
        raise WriteFailedError(f"{describe_write_failure(out, exc, 0)}{kept}") from None
    finally:
        with contextlib.suppress(OSError):
            staging.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # ONNX may write its weights beside the model
            staging.with_name(staging.name + ".data").unlink(missing_ok=True)


def _write_file(path: Path, data: bytes) -> None:
    """``data`` into a new file at ``path``, flushed to disk."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _checked(run: Any, model: nn.Module, example: torch.Tensor, staging: Path) -> float:
    """The largest difference between ``run`` and the eager model on the example and on its
    first sample alone (another batch size); beyond tolerance, the file is removed."""
    worst = 0.0
    for batch in (example, example[:1]):
        with torch.inference_mode():
            eager = model(batch)
            worst = max(worst, float((run(batch) - eager).abs().max()))
        if worst > TOLERANCE * (float(eager.abs().max()) or 1.0):
            staging.unlink(missing_ok=True)
            raise UserError(
                f"the exported model's outputs differ from the model's by {worst:.3g} on a "
                f"batch of {len(batch)}; nothing was written"
            )
    return worst


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _commit(staging: Path, out: Path) -> None:
    """Move the checked file into place atomically (a crash leaves no half file at ``out``)."""
    fsync_file(staging)
    os.replace(staging, out)
    fsync_dir(out.parent)


__all__ = ["example_batch", "export_onnx", "export_program"]
