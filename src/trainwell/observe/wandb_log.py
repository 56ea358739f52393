"""Weights & Biases (``log.wandb``; ``pip install 'trainwell[wandb]'``), offline by default.

``log.wandb_mode=offline`` (the default) writes the run under ``RUN/wandb/`` with no account
and no network; ``wandb sync RUN/wandb/offline-run-*`` uploads it later. ``online`` logs as it
goes (after ``wandb login``). One W&B run per trainwell run, named after the run directory:
the resolved config, ``train/<name>`` at the logging interval and ``epoch/<name>`` per epoch
(x: the optimizer step), guard findings and the final and best metrics in the summary, and
an exit code of 1 when training raised.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from trainwell.errors import ConfigError
from trainwell.observe.base import FitInfo, Observer, StepReport

INSTALL = "pip install 'trainwell[wandb]'"


class WandbLog(Observer):
    """Logs a run to Weights & Biases (see the module documentation)."""

    def __init__(self, run_dir: str | Path, project: str, mode: str) -> None:
        try:
            import wandb  # noqa: F401
        except ImportError:
            raise ConfigError(f"log.wandb=true needs wandb: {INSTALL}") from None
        self.run_dir, self.project, self.mode = Path(run_dir), project, mode
        self.run: Any = None
        self.findings = 0

    def on_fit_start(self, info: FitInfo) -> None:
        import wandb

        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.run = wandb.init(
            project=self.project,
            name=self.run_dir.name,
            dir=str(self.run_dir),
            config=info.config,
            mode=self.mode,
            settings=wandb.Settings(silent=True),
            reinit="create_new",
        )

    def on_step_end(self, report: StepReport) -> None:
        if report.logged is not None and self.run is not None:
            self.run.log(_numbers("train", report.logged), step=report.step)

    def on_epoch_end(self, record: dict[str, Any]) -> None:
        if self.run is not None:
            values = {k: v for k, v in record.items() if k != "step"}
            self.run.log(_numbers("epoch", values), step=int(record.get("step", 0)))

    def on_eval_end(self, metrics: dict[str, Any], *, step: int, epoch: int) -> None:
        if metrics.get("kind") == "eval":  # between epoch ends (train.eval_every_steps)
            self.on_epoch_end(metrics)

    def on_finding(self, finding: Any) -> None:
        if self.run is not None:
            self.findings += 1
            self.run.summary[f"finding.{self.findings}"] = str(finding)

    def on_fit_end(self, result: Any) -> None:
        if self.run is None:
            return
        self.run.summary.update(_numbers("final", result.final or {}))
        if isinstance(result.best, int | float):
            self.run.summary[f"best/{result.monitor}"] = result.best
        self.run.finish(exit_code=0 if result.ok else 1)
        self.run = None

    def close(self) -> None:
        # Called when fit() ends, before on_fit_end; an error on its way out ends the run here.
        if self.run is not None and sys.exc_info()[0] is not None:
            self.run.finish(exit_code=1)
            self.run = None


def _numbers(prefix: str, values: dict[str, Any]) -> dict[str, float]:
    return {
        f"{prefix}/{name}": float(value)
        for name, value in values.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
