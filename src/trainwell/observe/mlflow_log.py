"""MLflow tracking (``log.mlflow``; ``pip install 'trainwell[mlflow]'``).

By default the tracking store is a local SQLite database in the run directory
(``sqlite:///RUN/mlflow.db``): a real MLflow store that ``mlflow ui --backend-store-uri
sqlite:///RUN/mlflow.db`` opens, with no server to run. ``log.mlflow_uri`` points at a real
tracking server (``http://...``) or another store instead, and ``log.mlflow_experiment``
names the experiment.

One MLflow run per trainwell run: the resolved config as params (``section.key``), what the
loop logs at its interval as ``train/<name>`` metrics, each epoch's record as
``epoch/<name>``, guard findings as tags, the final and best metrics at the end, and the run
marked FINISHED (or FAILED when training raised). It uses ``MlflowClient`` with an explicit
run id, so nothing depends on MLflow's process-wide "active run".
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trainwell.errors import ConfigError
from trainwell.observe.base import FitInfo, Observer, StepReport

INSTALL = "pip install 'trainwell[mlflow]'"
#: The loggers that print while MLflow opens its store ("Creating initial MLflow database
#: tables...", Alembic's migrations): at ERROR under run.quiet, while the store is opened.
QUIETED = ("mlflow", "alembic")
MAX_PARAM = 500  # MLflow's limit on a param value's length


class MLflowLog(Observer):
    """Logs a run to MLflow (see the module documentation)."""

    def __init__(
        self, run_dir: str | Path, uri: str | None, experiment: str, *, quiet: bool = False
    ) -> None:
        try:
            import mlflow  # noqa: F401
        except ImportError:
            raise ConfigError(f"log.mlflow=true needs MLflow: {INSTALL}") from None
        self.run_dir = Path(run_dir)
        self.uri = uri or f"sqlite:///{self.run_dir.resolve() / 'mlflow.db'}"
        self.experiment = experiment
        self.quiet = quiet  # run.quiet: MLflow's own INFO lines (creating its tables) too
        self.client: Any = None
        self.run_id: str | None = None
        self.findings = 0

    def on_fit_start(self, info: FitInfo) -> None:
        with _errors_only(QUIETED if self.quiet else ()):
            self._start(info)

    def _start(self, info: FitInfo) -> None:
        from mlflow.tracking import MlflowClient

        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.client = MlflowClient(tracking_uri=self.uri)
        experiment = self.client.get_experiment_by_name(self.experiment)
        if experiment is None:
            artifacts = (self.run_dir / "mlflow-artifacts").resolve().as_uri()
            experiment_id = self.client.create_experiment(
                self.experiment, artifact_location=artifacts if self._local() else None
            )
        else:
            experiment_id = experiment.experiment_id
        run = self.client.create_run(experiment_id, run_name=self.run_dir.name)
        self.run_id = run.info.run_id
        self._log(params=_params(info.config))

    def _local(self) -> bool:
        return self.uri.startswith(("sqlite:", "file:", "/"))

    def on_step_end(self, report: StepReport) -> None:
        if report.logged is not None and self.run_id is not None:
            self._log(metrics=_metrics("train", report.logged, report.step))

    def on_epoch_end(self, record: dict[str, Any]) -> None:
        if self.run_id is not None:
            values = {k: v for k, v in record.items() if k not in {"step"}}
            self._log(metrics=_metrics("epoch", values, int(record.get("step", 0))))

    def on_eval_end(self, metrics: dict[str, Any], *, step: int, epoch: int) -> None:
        if metrics.get("kind") == "eval":  # between epoch ends (train.eval_every_steps)
            self.on_epoch_end(metrics)

    def on_finding(self, finding: Any) -> None:
        if self.run_id is not None:
            self.findings += 1
            self.client.set_tag(self.run_id, f"finding.{self.findings}", str(finding)[:5000])

    def on_fit_end(self, result: Any) -> None:
        if self.run_id is None:
            return
        final = _metrics("final", result.final or {}, result.steps)
        if isinstance(result.best, int | float):
            final += _metrics("best", {result.monitor: result.best}, result.steps)
        self._log(metrics=final)
        self.client.set_terminated(self.run_id, "FINISHED" if result.ok else "FAILED")
        self.run_id = None

    def close(self) -> None:
        # Called when fit() ends, before on_fit_end; an error on its way out ends the run here.
        if self.run_id is not None and sys.exc_info()[0] is not None:
            self.client.set_terminated(self.run_id, "FAILED")
            self.run_id = None

    def _log(self, *, metrics: list[Any] = (), params: list[Any] = ()) -> None:
        metrics, params = list(metrics), list(params)
        while metrics or params:  # MLflow takes at most 1000 metrics and 100 params a batch
            self.client.log_batch(self.run_id, metrics=metrics[:1000], params=params[:100])
            metrics, params = metrics[1000:], params[100:]


@contextlib.contextmanager
def _errors_only(names: tuple[str, ...]) -> Iterator[None]:
    """The loggers ``names`` print errors only inside the block; their levels are restored."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _metrics(prefix: str, values: dict[str, Any], step: int) -> list[Any]:
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    return [
        Metric(f"{prefix}/{name}", float(value), now, step)
        for name, value in values.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    ]


def _params(config: dict[str, Any], prefix: str = "") -> list[Any]:
    from mlflow.entities import Param

    params = []
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            params += _params(value, f"{name}.")
        else:
            params.append(Param(name, str(value)[:MAX_PARAM]))
    return params
