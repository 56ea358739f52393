"""Run-directory logs: ``metrics.jsonl`` (per log step and per epoch) and ``summary.json``."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from trainwell.errors import warn_at_user
from trainwell.observe.base import FitInfo, Observer, StepReport
from trainwell.state.atomic import describe_write_failure, json_safe, write_text_atomic


class MetricsLogWarning(UserWarning):
    """A run log (``metrics.jsonl``, ``metrics.csv``) could not be appended to; training goes
    on without it."""


class AppendedFile:
    """A text file a run appends to, line by line. A full disk must not kill a run over a log
    line (the checkpoints say for themselves when they cannot be written): on a failed write
    the file is cut back to its last whole line, a warning says why, and later lines are
    dropped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = None

    def open(self) -> None:
        _cut_partial_line(self.path)  # a resumed run must not glue its first line onto it
        self._file = open(self.path, "a", buffering=1)  # noqa: SIM115 - closed in close()

    @property
    def is_open(self) -> bool:
        return self._file is not None

    def write(self, text: str) -> None:
        if self._file is None:
            return
        good_size = self._file.tell()
        try:
            self._file.write(text)
        except OSError as exc:
            self._give_up(exc, good_size, len(text))

    def _give_up(self, exc: OSError, good_size: int, needed: int) -> None:
        file, self._file = self._file, None
        with contextlib.suppress(OSError):
            file.close()
        try:
            with open(self.path, "r+b") as f:
                f.truncate(good_size)  # no half-written last line
        except OSError:
            pass
        failure = describe_write_failure(self.path, exc, needed)
        warn_at_user(
            f"{failure}; this log stops here (its lines so far are intact) and training goes on",
            MetricsLogWarning,
        )

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError as exc:
                warn_at_user(describe_write_failure(self.path, exc, 0), MetricsLogWarning)


def _cut_partial_line(path: Path) -> None:
    """Cut ``path`` back to its last whole line: a run killed mid-write leaves a partial last
    line, which no reader can parse, and the next append would be glued onto it."""
    try:
        with open(path, "r+b") as f:
            size = f.seek(0, 2)
            if size == 0:
                return
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
            start = max(0, size - (1 << 20))  # a line is far shorter than 1 MiB
            f.seek(start)
            tail = f.read()
            newline = tail.rfind(b"\n")
            if newline >= 0 or start == 0:
                f.truncate(start + newline + 1)  # (newline -1, start 0: all one partial line)
            else:  # a "line" over 1 MiB is not ours: end it rather than cut into it
                f.write(b"\n")
    except OSError:
        return  # no file yet (or unreadable): opening it for appending says what is wrong


class MetricsLog(Observer):
    """Appends one JSON record per logged step and per epoch; writes a summary at the end."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / "metrics.jsonl"
        self._file = AppendedFile(self.path)

    def on_fit_start(self, info: FitInfo) -> None:
        self._file.open()

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(json_safe(record)) + "\n")

    def on_step_end(self, report: StepReport) -> None:
        if report.logged is not None:
            self._write(
                {"kind": "step", "step": report.step, "epoch": report.epoch, **report.logged}
            )

    def on_epoch_end(self, record: dict[str, Any]) -> None:
        self._write({"kind": "epoch", **record})

    def on_eval_end(self, metrics: dict[str, Any], *, step: int, epoch: int) -> None:
        if metrics.get("kind") == "eval":  # between epoch ends (train.eval_every_steps)
            self.on_epoch_end(metrics)

    def on_finding(self, finding: Any) -> None:
        self._write({"kind": "finding", **finding.as_dict()})

    def close(self) -> None:
        self._file.close()

    def on_fit_end(self, result: Any) -> None:
        self.close()
        summary = json_safe(result.summary())
        write_text_atomic(json.dumps(summary, indent=2) + "\n", self.run_dir / "summary.json")
