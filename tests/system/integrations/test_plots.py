"""Pictures of runs: the series come from metrics.jsonl, every PNG is a real image, the
decision-boundary GIF has a frame per epoch and recording it changes nothing in training."""

from __future__ import annotations

import json

import pytest
import torch

import trainwell as tw
from trainwell.cli.app import main

pytest.importorskip("matplotlib")
from matplotlib import image  # noqa: E402

from trainwell.observe.plots import DecisionBoundary, plot_runs, read_run
from trainwell.recipes.spiral import SpiralMLP, make_spiral  # noqa: E402

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

X, Y = make_spiral(300, 0.2, seed=0)


def train(run_dir, observers=(), **log):
    torch.manual_seed(0)
    model = SpiralMLP(16)
    config = {
        "run": {"dir": str(run_dir), "quiet": True, "log_every": 4},
        "train": {"max_epochs": 3},
        "data": {"batch_size": 32},
        "log": log,
    }
    data = (X[:240], Y[:240]), (X[240:], Y[240:])
    tw.fit(model, *data, metrics=["accuracy"], config=config, observers=observers)
    return model


def test_the_series_are_the_logged_records_and_a_cut_line_is_skipped(tmp_path):
    train(tmp_path / "a")
    path = tmp_path / "a" / "metrics.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    with path.open("a") as handle:
        handle.write('{"kind": "step", "step": 99, "loss": 0.')  # a crash mid-line
    series = read_run(tmp_path / "a")
    steps = [r for r in records if r["kind"] == "step"]
    epochs = [r for r in records if r["kind"] == "epoch"]
    assert series.steps["loss"] == ([r["step"] for r in steps], [r["loss"] for r in steps])
    assert series.epochs["val_accuracy"] == (
        [r["step"] for r in epochs],
        [r["val_accuracy"] for r in epochs],
    )
    assert "best" not in series.epochs  # flags are not series


def test_two_sets_validated_every_n_steps_plot_by_step_each_loss_on_loss_png(tmp_path):
    from trainwell.observe.plots import layout

    torch.manual_seed(0)
    sets = {"clean": (X[240:], Y[240:]), "noisy": (X[240:] + 0.5, Y[240:])}
    config = {
        "run": {"dir": str(tmp_path / "a"), "quiet": True, "log_every": 4},
        "train": {"max_epochs": 2, "eval_every_steps": 3},  # 8 steps per epoch
        "data": {"batch_size": 32},
    }
    tw.fit(SpiralMLP(16), (X[:240], Y[:240]), sets, metrics=["accuracy"], config=config)
    series = read_run(tmp_path / "a")
    assert series.epochs["val_clean_loss"][0] == [3, 6, 9, 12, 15, 16]  # every 3 steps, the end
    assert len(series.epochs["val_noisy_accuracy"][1]) == 6
    panels = dict(layout([series]))
    drawn = [name for panel in panels["loss.png"] for _, name in panel.series]
    assert {"loss", "val_clean_loss", "val_noisy_loss"} <= set(drawn)
    titles = [panel.title for panel in panels["metrics.png"]]
    assert titles[:2] == ["val_clean_accuracy", "val_noisy_accuracy"]
    written = plot_runs([tmp_path / "a"], tmp_path / "plots")
    assert {p.name for p in written} >= {"loss.png", "metrics.png"}


def test_several_runs_plot_into_real_pngs(tmp_path):
    train(tmp_path / "a")
    train(tmp_path / "b")
    written = plot_runs([tmp_path / "a", tmp_path / "b"], tmp_path / "plots")
    names = sorted(p.name for p in written)
    assert names == ["grad_norm.png", "loss.png", "lr.png", "metrics.png", "throughput.png"]
    for path in written:
        pixels = image.imread(path)
        assert pixels.ndim == 3 and pixels.shape[0] > 300 and pixels.shape[1] > 600
        assert pixels.std() > 0.05  # not a blank canvas


def test_the_cli_plots_a_run_and_refuses_a_directory_without_logs(tmp_path, capsys):
    train(tmp_path / "a")
    assert main(["plot", str(tmp_path / "a")]) == 0
    assert (tmp_path / "a" / "plots" / "loss.png").is_file()
    assert main(["plot", str(tmp_path)]) == 2
    assert "has no metrics.jsonl" in capsys.readouterr().err


def test_log_plots_writes_the_pngs_when_the_run_ends(tmp_path):
    train(tmp_path / "a", plots=True)
    assert (tmp_path / "a" / "plots" / "metrics.png").is_file()


def test_the_decision_boundary_gif_has_a_frame_per_epoch_and_changes_no_weight(tmp_path):
    from PIL import Image

    plain = train(tmp_path / "plain")
    torch.manual_seed(0)
    watched_model = SpiralMLP(16)
    gif = tmp_path / "boundary.gif"
    boundary = DecisionBoundary(watched_model, X[:240], Y[:240], gif, resolution=40)
    torch.manual_seed(0)
    config = {
        "run": {"dir": str(tmp_path / "w"), "quiet": True, "log_every": 4},
        "train": {"max_epochs": 3},
        "data": {"batch_size": 32},
    }
    data = (X[:240], Y[:240]), (X[240:], Y[240:])
    tw.fit(watched_model, *data, metrics=["accuracy"], config=config, observers=[boundary])
    for name, weight in plain.state_dict().items():
        assert torch.equal(watched_model.state_dict()[name], weight), name
    assert [epoch for epoch, _ in boundary.frames] == [1, 2, 3]
    assert Image.open(gif).n_frames == 3
    # the classes it predicts over the grid are those the trained model predicts there
    final = watched_model(boundary.grid).argmax(dim=1).reshape(40, 40)
    assert torch.equal(boundary.frames[-1][1], final)
