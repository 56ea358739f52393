"""The ``next:`` lines at the end of a run: each one works as printed. A run `fit()` was
called on from Python gets Python calls (the CLI has no recipe to rebuild it), a run stopped
by ``train.max_steps`` mid-epoch gets more steps, a run of N processes a resume of N."""

from pathlib import Path

import torch
from tests.fixtures import mlp, separated_blobs

import trainwell as tw
from trainwell.loop.result import FitResult


def _snippet(text: str, marker: str) -> str:
    line = next(line for line in text.splitlines() if marker in line)
    return line.split("   #", 1)[0].strip()


def test_a_python_run_hints_python_calls_and_they_work(tmp_path):
    data = separated_blobs(96)
    run = tmp_path / "run"
    config = {
        "run": {"dir": str(run), "quiet": True, "device": "cpu"},
        "train": {"max_epochs": 2},
        "data": {"batch_size": 32},
    }
    model = mlp()
    result = tw.fit(model, data, data, config=config)
    text = result.describe()
    assert "trainwell resume" not in text and "trainwell eval" not in text, text
    # tw.load_weights + tw.evaluate: the best checkpoint's weights, measured
    fresh = mlp(seed=1)
    namespace = {"tw": tw, "model": fresh, "train_data": data, "val_data": data}
    exec(_snippet(text, "tw.load_weights("), namespace)
    best = torch.load(run / "checkpoints" / "best.pt", weights_only=True)["state"]["model"]
    for name, tensor in fresh.state_dict().items():
        assert torch.equal(tensor, best[name]), name
    # tw.fit(..., config=tw.load_config(RUN/config.yaml, resume + longer)): the run goes on
    resumed = eval(_snippet(text, "tw.fit("), namespace)
    assert resumed.epochs == 4 and resumed.steps == 2 * result.steps
    assert resumed.history[0]["epoch"] == 1  # the whole history: it resumed, not restarted


def _result(**fields) -> FitResult:
    values = {
        "history": [],
        "monitor": "val_loss",
        "best": None,
        "best_epoch": None,
        "best_step": None,
        "best_checkpoint": None,
        "last_checkpoint": Path("r/checkpoints/last.pt"),
        "steps": 3,
        "epochs": 0,
        "wall_time_s": 1.0,
        "stop_reason": "reached train.max_steps=3",
        "run_dir": Path("r"),
        "saves": [type("Save", (), {"step": 3, "path": "p", "blocked_s": 0.0, "write_s": 0.0})],
        "recipe": "spiral",
    }
    return FitResult(**{**values, **fields})


def test_a_stop_by_max_steps_mid_epoch_hints_more_steps_not_zero_epochs():
    text = _result().describe()
    assert "trainwell resume r --set train.max_steps=6" in text
    assert "max_epochs=0" not in text


def test_a_run_of_two_processes_hints_a_resume_of_two():
    text = _result(world_size=2, stop_reason="reached train.max_epochs=2", epochs=2).describe()
    assert "trainwell resume r --nproc 2 --set train.max_epochs=4" in text
    preempted = _result(world_size=2, preempted="SIGTERM").describe()
    assert "resume with: trainwell resume r --nproc 2" in preempted
