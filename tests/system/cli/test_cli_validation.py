"""Several validation sets, validation every N steps and a time limit, through the trainwell
command: a recipe whose ``val_data`` names two sets, cut by ``train.max_time``, resumed with
``--resume auto``, then evaluated; and the one-line errors of bad values."""

import json
import subprocess
import sys

RECIPE = """
import torch

from trainwell.config import Config, TrainConfig
from trainwell.recipes import Job


def build(config):
    g = torch.Generator().manual_seed(config.run.seed)
    x = torch.randn(400, 4, generator=g)
    y = (x[:, 0] > 0).long()
    noisy = x[300:] + torch.randn(100, 4, generator=g)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    return Job(
        model=model,
        train_data=(x[:200], y[:200]),
        val_data={"clean": (x[200:300], y[200:300]), "noisy": (noisy, y[300:])},
        metrics=["accuracy"],
    )


build.config = Config(train=TrainConfig(max_epochs=100000))
"""


def trainwell(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def _records(run, kind):
    lines = (run / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


def test_two_sets_every_n_steps_cut_by_max_time_resume_and_eval(tmp_path):
    (tmp_path / "sets.py").write_text(RECIPE)
    run = tmp_path / "run"
    args = ["train", "--recipe", "sets:build", "--run-dir", str(run), "--quiet",
            "--set", "run.device=cpu", "--set", "data.batch_size=50",
            "--set", "train.eval_every_steps=10", "--set", "train.max_time=2s"]  # fmt: skip
    first = trainwell(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    summary = json.loads((run / "summary.json").read_text())
    assert summary["stop_reason"] == "time limit reached: train.max_time=2s (2s)"
    assert summary["monitor"] == "val_clean_loss"  # the first set's loss
    steps = summary["steps"]
    assert (run / "checkpoints" / f"step-{steps:08d}.pt").is_file()  # saved where it stopped
    evaluations = _records(run, "eval")
    assert evaluations and all(r["step"] % 10 == 0 for r in evaluations)
    assert {"val_clean_loss", "val_noisy_accuracy"} <= set(evaluations[0])
    assert not any("val_clean_loss" in r for r in _records(run, "epoch"))  # not at epoch ends

    second = trainwell(*args, "--resume", "auto", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    again = json.loads((run / "summary.json").read_text())
    assert again["steps"] > steps and again["stop_reason"].startswith("time limit reached")
    new = [r["step"] for r in _records(run, "eval") if r["step"] > steps]
    assert new and all(s % 10 == 0 for s in new)  # the cadence goes on from the step count

    shown = trainwell("eval", str(run), "--checkpoint", "last", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    values = json.loads(shown.stdout)
    assert {"val_clean_loss", "val_clean_accuracy", "val_noisy_loss"} <= set(values)


def test_bad_max_time_and_monitor_are_one_line_exit_2(tmp_path):
    (tmp_path / "sets.py").write_text(RECIPE)
    base = ["train", "--recipe", "sets:build", "--run-dir", str(tmp_path / "r"),
            "--set", "run.device=cpu"]  # fmt: skip
    bad_time = trainwell(*base, "--set", "train.max_time=2x", cwd=tmp_path)
    assert bad_time.returncode == 2
    assert "train.max_time='2x' is not a positive duration" in bad_time.stderr
    bad_monitor = trainwell(*base, "--set", "monitor.metric=val_dirty_loss", cwd=tmp_path)
    assert bad_monitor.returncode == 2
    assert "val_clean_loss, val_clean_accuracy, val_noisy_loss" in bad_monitor.stderr
    for proc in (bad_time, bad_monitor):
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
