"""Your own recipe (``module:function``) run by the trainwell command in subprocesses: a run
that resumes and evaluates from any directory."""

import json
import subprocess
import sys

RECIPE = """
from dataclasses import dataclass

import torch

from trainwell.config import Config, TrainConfig
from trainwell.recipes import Job


@dataclass(frozen=True)
class ModelConfig:
    hidden: int = 8


def build(config):
    g = torch.Generator().manual_seed(config.run.seed)
    x = torch.randn(200, 4, generator=g)
    y = (x[:, 0] > 0).long()
    model = torch.nn.Sequential(
        torch.nn.Linear(4, config.model.hidden), torch.nn.ReLU(), torch.nn.Linear(config.model.hidden, 2)
    )
    return Job(model=model, train_data=(x[:160], y[:160]), val_data=(x[160:], y[160:]))


build.config = Config(train=TrainConfig(max_epochs=2), model=ModelConfig())
"""


def trainwell(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_a_user_recipe_run_resumes_and_evaluates_from_any_directory(tmp_path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "myrecipe.py").write_text(RECIPE)
    run = tmp_path / "runs" / "mine"
    first = trainwell(
        "train", "--recipe", "myrecipe:build", "--run-dir", str(run), "--quiet",
        "--set", "model.hidden=6", cwd=project,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert json.loads((run / "summary.json").read_text())["epochs"] == 2
    second = trainwell("resume", str(run), "--set", "train.max_epochs=3", cwd=elsewhere)
    assert second.returncode == 0, second.stderr
    assert "resuming at epoch 3" in second.stderr
    assert json.loads((run / "summary.json").read_text())["epochs"] == 3
    shown = trainwell("eval", str(run), "--checkpoint", "last", cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["epoch"] == 3
