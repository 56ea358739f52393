"""``metrics.csv``: the records of ``metrics.jsonl`` as columns, for spreadsheets and pandas.

One row per logged step (``kind=step``) and per epoch (``kind=epoch``), the union of their
keys as columns, blank where a row has no value. A column that appears later (the first
validation metrics, a value logged with `trainwell.log` from step 1000 on) widens the file
once: it is rewritten atomically with the wider header, then appended to again. A resumed run
appends to the file it finds.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from trainwell.errors import WriteFailedError, warn_at_user
from trainwell.observe.base import FitInfo, Observer, StepReport
from trainwell.observe.log import AppendedFile, MetricsLogWarning
from trainwell.state.atomic import describe_write_failure, json_safe, write_text_atomic


class CSVLog(Observer):
    """Appends one CSV row per logged step and per epoch to ``RUN/metrics.csv``."""

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / "metrics.csv"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = AppendedFile(self.path)
        self.columns: list[str] = []

    def on_fit_start(self, info: FitInfo) -> None:
        self.columns = _header_of(self.path)
        self._file.open()

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

    def _write(self, record: dict[str, Any]) -> None:
        if not self._file.is_open:  # not started, or given up on a full disk
            return
        row = {k: v for k, v in json_safe(record).items() if isinstance(v, str | int | float)}
        new = [k for k in row if k not in self.columns]
        if new and not self._widen([*self.columns, *new]):
            return
        self._file.write(_line([row.get(column, "") for column in self.columns]))

    def _widen(self, columns: list[str]) -> bool:
        """Rewrite the file with ``columns`` as its header (rows so far kept, blank in the new
        columns); False when it cannot be written (then the log stops, as on a full disk)."""
        self._file.close()
        rows = _rows_of(self.path)
        text = _line(columns) + "".join(_line([r.get(c, "") for c in columns]) for r in rows)
        try:
            write_text_atomic(text, self.path)
        except (OSError, WriteFailedError) as exc:
            warn_at_user(
                f"{describe_write_failure(self.path, exc, len(text))}; this log stops here",
                MetricsLogWarning,
            )
            return False
        self.columns = columns
        self._file.open()
        return True

    def close(self) -> None:
        self._file.close()

    def on_fit_end(self, result: Any) -> None:
        self.close()


def _line(cells: list[Any]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    return buffer.getvalue()


def _header_of(path: Path) -> list[str]:
    if not path.is_file():
        return []
    with path.open(newline="") as handle:
        return next(csv.reader(handle), [])


def _rows_of(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))
