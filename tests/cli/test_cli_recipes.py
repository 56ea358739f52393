"""Your own recipe (``module:function``): its contract, its errors, and runs that resume anywhere."""

import json
import subprocess
import sys

import pytest

from trainwell.cli.app import main

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


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("    return {'model': torch.nn.Linear(4, 2)}", "returned a dict"),
        ("    return None", "returned None"),
        ("    return Job(model='linear', train_data=(x, y))", "model must be a torch.nn.Module"),
        ("    return Job(model=torch.nn.Linear(4, 2), train_data=None)", "train_data"),
    ],
)
def test_a_recipe_that_returns_the_wrong_thing_exits_2_saying_what_it_must_return(
    tmp_path, monkeypatch, capsys, body, message
):
    name = f"wrongrecipe{abs(hash(body))}"
    (tmp_path / f"{name}.py").write_text(
        "import torch\nfrom trainwell.recipes import Job\n"
        "def build(config):\n    x, y = torch.randn(8, 4), torch.zeros(8).long()\n" + body + "\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code = main(["train", "--recipe", f"{name}:build", "--run-dir", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert message in err and "Job(" in err
