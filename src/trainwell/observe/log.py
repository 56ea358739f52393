"""Run-directory logs: ``metrics.jsonl`` (per log step and per epoch) and ``summary.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trainwell.checkpoint import json_safe, write_text_atomic
from trainwell.observe.base import FitInfo, Observer, StepReport


class MetricsLog(Observer):
    """Appends one JSON record per logged step and per epoch; writes a summary at the end."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / "metrics.jsonl"
        self._file = None

    def on_fit_start(self, info: FitInfo) -> None:
        self._file = open(self.path, "a", buffering=1)  # noqa: SIM115 - closed in on_fit_end

    def _write(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(json_safe(record)) + "\n")

    def on_step_end(self, report: StepReport) -> None:
        if report.logged is not None:
            self._write(
                {"kind": "step", "step": report.step, "epoch": report.epoch, **report.logged}
            )

    def on_epoch_end(self, record: dict[str, Any]) -> None:
        self._write({"kind": "epoch", **record})

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def on_fit_end(self, result: Any) -> None:
        self.close()
        summary = json_safe(result.summary())
        write_text_atomic(json.dumps(summary, indent=2) + "\n", self.run_dir / "summary.json")
