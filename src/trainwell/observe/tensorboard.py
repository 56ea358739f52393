"""TensorBoard event files in ``RUN/tensorboard`` (``torch.utils.tensorboard``).

What the run already reads at its logging interval, and nothing more (no extra host sync):
``train/<name>`` per logged step (loss, grad_norm, lr, samples_per_s, tokens_per_s, tflops,
mfu, data_wait, your own `trainwell.log` values, and ``loss_scale`` under fp16), ``epoch/<name>``
per epoch (train and validation losses and metrics), runtime guard findings as text, the
resolved config as text at the start, and at the end the config's scalars as hparams with
the final and best metrics (TensorBoard's HPARAMS tab compares runs by them).

``tensorboard --logdir runs/`` shows every run of a directory side by side.

A write that fails (disk full, permissions) must not kill the run over a log, as for
``metrics.jsonl``: TensorBoard's writer thread would die with a traceback and re-raise in the
training loop. Its records go through `_GuardedRecords`, which keeps the error instead; the log
then stops with one `MetricsLogWarning` and training goes on (a checkpoint that cannot be
written either then ends the run cleanly with exit 4).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from trainwell.errors import ConfigError, warn_at_user
from trainwell.observe.base import FitInfo, Observer, StepReport
from trainwell.observe.log import MetricsLogWarning
from trainwell.state.atomic import describe_write_failure

_Method = TypeVar("_Method", bound=Callable[..., None])

INSTALL = "pip install 'trainwell[tensorboard]'"


def tensorboard_available() -> bool:
    """Whether the ``tensorboard`` package (which writes the event files) is installed."""
    import importlib.util

    return importlib.util.find_spec("tensorboard") is not None


def _guarded(method: _Method) -> _Method:
    """Run a `TensorBoardLog` hook; a failed write stops the log with one warning."""

    @functools.wraps(method)
    def hook(self: TensorBoardLog, *args: Any) -> None:
        if self._failed:
            return
        try:
            method(self, *args)
            failure = self._records.failure if self._records is not None else None
        except OSError as exc:  # opening, flushing or closing the event file here
            failure = exc
        if failure is not None:
            self._give_up(failure)

    return hook  # type: ignore[return-value]


class _GuardedRecords:
    """TensorBoard's record writer, as its writer thread calls it: an OSError is kept (and
    later records dropped) instead of killing the thread with a traceback."""

    def __init__(self, records: Any) -> None:
        self._records = records
        self.failure: OSError | None = None

    def write(self, data: bytes) -> None:
        self._call(self._records.write, data)

    def flush(self) -> None:
        self._call(self._records.flush)

    def close(self) -> None:
        self._call(self._records.close)

    def _call(self, method: Any, *args: Any) -> None:
        if self.failure is not None and method.__name__ != "close":
            return  # the disk said no: later records are dropped, the file is still closed
        try:
            method(*args)
        except OSError as exc:
            self.failure = self.failure or exc

    @property
    def closed(self) -> bool:
        return bool(self._records.closed)


def _guard_records(writer: Any) -> _GuardedRecords | None:
    """Put `_GuardedRecords` between a SummaryWriter's writer thread and its file (None where
    this torch/tensorboard version is laid out differently: then only the main thread's
    errors are caught)."""
    try:
        async_writer = writer._get_file_writer().event_writer._async_writer
        guarded = _GuardedRecords(async_writer._writer)
        async_writer._writer = async_writer._worker._record_writer = guarded
    except AttributeError:  # pragma: no cover - another tensorboard layout
        return None
    return guarded


class TensorBoardLog(Observer):
    """Writes the run's scalars, findings, config and hparams as TensorBoard event files."""

    def __init__(self, run_dir: str | Path) -> None:
        if not tensorboard_available():
            raise ConfigError(f"log.tensorboard=true needs the tensorboard package: {INSTALL}")
        self.directory = Path(run_dir) / "tensorboard"
        self._writer: Any = None
        self._records: _GuardedRecords | None = None
        self._failed = False
        self._config: dict[str, Any] = {}

    @_guarded
    def on_fit_start(self, info: FitInfo) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self._writer = SummaryWriter(str(self.directory))
        self._records = _guard_records(self._writer)
        self._config = info.config
        text = json.dumps(info.config, indent=2, default=str)
        self._writer.add_text("config", f"```\n{text}\n```", info.start_step)

    @_guarded
    def on_step_end(self, report: StepReport) -> None:
        if report.logged is None or self._writer is None:
            return
        for name, value in report.logged.items():
            if _is_number(value):
                self._writer.add_scalar(f"train/{name}", value, report.step)
        if report.scale is not None:  # fp16: read at the log interval, a sync already made
            self._writer.add_scalar("train/loss_scale", float(report.scale), report.step)

    @_guarded
    def on_epoch_end(self, record: dict[str, Any]) -> None:
        if self._writer is None:
            return
        step = record.get("step", 0)
        for name, value in record.items():
            if name not in {"step", "epoch"} and _is_number(value):
                self._writer.add_scalar(f"epoch/{name}", value, step)
        self._writer.flush()  # an epoch is visible in TensorBoard as soon as it ends

    def on_eval_end(self, metrics: dict[str, Any], *, step: int, epoch: int) -> None:
        if metrics.get("kind") == "eval":  # between epoch ends (train.eval_every_steps)
            self.on_epoch_end(metrics)  # guarded there against a failing writer

    @_guarded
    def on_finding(self, finding: Any) -> None:
        if self._writer is not None:
            about = finding.as_dict()
            self._writer.add_text(
                "findings", f"**{about.get('code', '')}** {finding}", about.get("step") or 0
            )

    @_guarded
    def on_fit_end(self, result: Any) -> None:
        # after close(): the run's own writer is done, the hparams get a file of their own
        if not self._config:
            return
        metrics = {f"final/{k}": v for k, v in (result.final or {}).items() if _is_number(v)}
        if _is_number(result.best):
            metrics[f"best/{result.monitor}"] = result.best
        if metrics:
            _write_hparams(self.directory, _hparams(self._config), metrics, result.steps)

    @_guarded
    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    def _give_up(self, failure: BaseException) -> None:
        """Stop writing event files, say so once; the run goes on."""
        self._failed = True
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(OSError):  # its thread stops; the rest is dropped
                writer.close()
        where = describe_write_failure(self.directory / "events.out.tfevents", failure, 0)
        warn_at_user(
            f"{where}; TensorBoard logging stops here (metrics.jsonl goes on) and training goes on",
            MetricsLogWarning,
        )


def _write_hparams(
    directory: Path, hparams: dict[str, Any], metrics: dict[str, float], step: int
) -> None:
    """The run's hparams and their metrics, as SummaryWriter.add_hparams writes them but in
    the run's own directory (add_hparams makes a sub-run per call)."""
    from torch.utils.tensorboard import SummaryWriter
    from torch.utils.tensorboard.summary import hparams as hparams_summaries

    with SummaryWriter(str(directory)) as writer:
        for summary in hparams_summaries(hparams, metrics):
            writer.file_writer.add_summary(summary, step)
        for name, value in metrics.items():
            writer.add_scalar(name, value, step)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _hparams(config: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The config's leaves as ``section.key`` -> a value TensorBoard's hparams accept."""
    flat: dict[str, Any] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_hparams(value, f"{name}."))
        elif isinstance(value, bool | int | float | str):
            flat[name] = value
        elif value is None:
            flat[name] = "null"
        else:
            flat[name] = str(value)
    return flat
