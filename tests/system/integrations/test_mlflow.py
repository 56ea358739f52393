"""log.mlflow: a run logged into a real MLflow store (SQLite in the run directory by default),
read back with MLflow's own client."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import trainwell as tw

pytest.importorskip("mlflow")
pytest.importorskip("sqlalchemy")
from mlflow.tracking import MlflowClient  # noqa: E402

X = torch.randn(96, 4, generator=torch.Generator().manual_seed(0))
Y = (X[:, 0] > 0).long()


def test_a_run_lands_in_the_sqlite_store_with_params_metrics_and_its_status(tmp_path):
    run = tmp_path / "run"
    config = {
        "run": {"dir": str(run), "quiet": True, "log_every": 2},
        "train": {"max_epochs": 2},
        "data": {"batch_size": 16},
        "log": {"mlflow": True, "mlflow_experiment": "tests"},
    }
    torch.manual_seed(0)
    result = tw.fit(nn.Linear(4, 2), (X, Y), (X, Y), metrics=["accuracy"], config=config)
    client = MlflowClient(tracking_uri=f"sqlite:///{run / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("tests")
    [logged] = client.search_runs([experiment.experiment_id])
    assert logged.info.status == "FINISHED" and logged.info.run_name == "run"
    assert logged.data.params["optim.lr"] == "0.001"
    assert logged.data.params["train.max_epochs"] == "2"
    val = client.get_metric_history(logged.info.run_id, "epoch/val_loss")
    assert [m.value for m in val] == pytest.approx([h["val_loss"] for h in result.history])
    assert [m.step for m in val] == [h["step"] for h in result.history]
    train = client.get_metric_history(logged.info.run_id, "train/loss")
    assert [m.step for m in train] == [2, 4, 6, 8, 10, 12]
    assert logged.data.metrics["best/val_loss"] == pytest.approx(result.best)


def test_a_run_that_fails_is_marked_failed(tmp_path):
    run = tmp_path / "run"
    config = {"run": {"dir": str(run), "quiet": True}, "log": {"mlflow": True}}

    def broken(model, batch):
        raise RuntimeError("a bug in the step")

    with pytest.raises(RuntimeError, match="a bug in the step"):
        tw.fit(nn.Linear(4, 2), (X, Y), step_fn=broken, config=config)
    client = MlflowClient(tracking_uri=f"sqlite:///{run / 'mlflow.db'}")
    [logged] = client.search_runs([client.get_experiment_by_name("trainwell").experiment_id])
    assert logged.info.status == "FAILED"
