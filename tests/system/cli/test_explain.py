"""`trainwell explain` on real runs built to show each pathology (tiny models, seconds each),
and the healthy control: the default job gets no `problem`."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
import torch
from tests.fixtures import blobs, quiet_config, random_data
from torch import nn
from torch.utils.data import Dataset

import trainwell as tw


def trainwell(*args):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args], capture_output=True, text=True, timeout=300
    )


def explained(run_dir) -> dict[str, dict]:
    proc = trainwell("explain", str(run_dir), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["run"] == str(run_dir)
    return {f["code"]: f for f in body["findings"]}


def train(run_dir, *sets):
    settings = [a for s in ("run.device=cpu", *sets) for a in ("--set", s)]
    proc = trainwell("train", "--run-dir", str(run_dir), *settings)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.mark.slow
def test_the_default_job_gets_no_problem(tmp_path):
    train(tmp_path / "run")
    found = explained(tmp_path / "run")
    assert [c for c, f in found.items() if f["severity"] == "problem"] == []
    text = trainwell("explain", str(tmp_path / "run"))
    assert text.returncode == 0 and "problem" not in text.stdout


def test_sgd_at_a_huge_lr_is_diverged_at_a_named_step(tmp_path):
    run = tmp_path / "run"
    train(
        run,
        "train.max_epochs=1",
        "run.log_every=2",
        "optim.name=sgd",
        "optim.lr=100",
        "train.clip_norm=null",
    )
    diverged = explained(run)["diverged"]
    assert diverged["severity"] == "problem"
    assert "step " in diverged["evidence"] and "at LR " in diverged["evidence"]
    assert "metrics.jsonl line" in diverged["evidence"]
    assert diverged["suggestion"] == "--set optim.lr=10"
    unstable = explained(run)["unstable-gradients"]  # the same run's grad norms, logged
    assert unstable["severity"] == "warning" and "grad norm" in unstable["evidence"]


def test_an_lr_of_1e_6_is_lr_too_low(tmp_path):
    run = tmp_path / "run"
    train(run, "train.max_epochs=2", "optim.lr=1e-6")
    low = explained(run)["lr-too-low"]
    assert low["severity"] == "problem" and "optim.lr=1e-06" in low["evidence"]
    assert low["suggestion"] == "--set optim.lr=1e-05"


def test_a_tiny_training_set_with_a_wide_model_is_overfitting(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 512), nn.ReLU(), nn.Linear(512, 3))
    config = quiet_config(
        max_epochs=25, lr=0.01, run={"dir": str(tmp_path / "run"), "device": "cpu"}
    )
    tw.fit(model, random_data(24, 20), random_data(64, 20, seed=1), config=config)
    over = explained(tmp_path / "run")["overfitting"]
    assert over["severity"] == "problem"
    assert "bottomed at" in over["evidence"] and "gap" in over["evidence"]
    assert "early_stop was off" in over["evidence"]


class Sleepy(Dataset):
    """Blobs that take 20 ms a sample to load: the loop mostly waits for data, even on a
    machine so busy that a step of the tiny model takes tens of milliseconds."""

    def __init__(self):
        self.x, self.y = blobs(64)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(0.02)
        return self.x[i], self.y[i]


def test_a_dataset_that_sleeps_is_input_bound(tmp_path):
    config = quiet_config(
        max_epochs=2,
        run={"dir": str(tmp_path / "run"), "device": "cpu", "log_every": 2},
        data={"batch_size": 8},
    )
    tw.fit(nn.Linear(4, 3), Sleepy(), config=config)
    slow = explained(tmp_path / "run")["input-bound"]
    assert slow["severity"] == "problem"
    assert "data.num_workers=0" in slow["evidence"]
    assert slow["suggestion"] == "--set data.num_workers=4"


def test_a_run_that_stopped_improving_is_a_plateau(tmp_path):
    """Blobs a few epochs learn for certain: the best accuracy comes early, then nothing new."""
    from tests.fixtures import separated_blobs

    torch.manual_seed(0)
    config = quiet_config(
        max_epochs=8,
        lr=0.05,
        run={"dir": str(tmp_path / "run")},
        monitor={"metric": "val_accuracy", "mode": "max"},
    )
    result = tw.fit(
        nn.Linear(4, 3),
        separated_blobs(),
        separated_blobs(seed=1),
        metrics=["accuracy"],
        config=config,
    )
    assert result.best_epoch is not None and result.best_epoch <= 8 - 3
    plateau = explained(tmp_path / "run")["plateau"]
    assert plateau["severity"] == "info"
    assert f"epoch {result.best_epoch}" in plateau["evidence"]


class BigTable(nn.Module):
    """A linear model that also carries a 64 MB buffer: every checkpoint writes it."""

    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 3)
        self.register_buffer("table", torch.zeros(16_000_000))

    def forward(self, x):
        return self.net(x)


def test_a_run_that_mostly_saves_is_checkpoint_bound(tmp_path):
    config = quiet_config(
        max_epochs=3,
        run={"dir": str(tmp_path / "run")},
        checkpoint={"min_interval_s": 0, "keep_last": 1},
    )
    tw.fit(BigTable(), blobs(64), blobs(32, seed=1), config=config)
    saving = explained(tmp_path / "run")["checkpoint-bound"]
    assert saving["severity"] in ("warning", "problem")
    assert "checkpoint" in saving["evidence"]


def test_a_model_too_small_for_the_spiral_is_underfitting(tmp_path):
    """Four hidden units for three interleaved spirals: both losses high, close, still falling."""
    run = tmp_path / "run"
    sets = ("run.device=cpu", "model.hidden=4", "train.max_epochs=4", "optim.lr=0.03")
    args = [a for s in sets for a in ("--set", s)]
    proc = trainwell("train", "--recipe", "spiral", "--run-dir", str(run), *args)
    assert proc.returncode == 0, proc.stderr
    under = explained(run)["underfitting"]
    assert under["severity"] == "warning"
    assert "both high and close" in under["evidence"] and "still falling" in under["evidence"]
    assert "problem" not in {f["severity"] for f in explained(run).values()}


def test_one_corrupted_batch_is_a_loss_spike_not_a_divergence(tmp_path):
    """16 samples scaled 40x, met once per epoch (no shuffling): the loss jumps there and the
    run goes on learning."""
    x, y = blobs(1024, features=4, classes=3)
    x[512:528] *= 40
    torch.manual_seed(0)
    config = quiet_config(
        max_epochs=2,
        lr=0.05,
        run={"dir": str(tmp_path / "run"), "log_every": 1},
        data={"batch_size": 16, "shuffle": False},
    )
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
    tw.fit(model, (x, y), blobs(128, seed=1), config=config)
    found = explained(tmp_path / "run")
    assert "diverged" not in found
    spikes = found["loss-spikes"]
    assert spikes["severity"] == "warning" and "step 33" in spikes["evidence"]


def test_a_path_that_is_not_a_run_is_one_line_and_exit_2(tmp_path):
    proc = trainwell("explain", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "is not a run directory" in proc.stderr


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_html_page_is_self_contained_and_renders_in_headless_chromium(tmp_path):
    run = tmp_path / "run"
    train(
        run,
        "train.max_epochs=1",
        "run.log_every=2",
        "optim.name=sgd",
        "optim.lr=100",
        "train.clip_norm=null",
    )
    page = tmp_path / "explain.html"
    proc = trainwell("explain", str(run), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    text = page.read_text()
    assert "diverged" in text and "data:image/png;base64," in text
    assert "http://" not in text and "https://" not in text  # opens offline
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed")
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1200,1600",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.is_file()
    from PIL import Image

    gray = Image.open(shot).convert("L").tobytes()
    pixels = torch.frombuffer(bytearray(gray), dtype=torch.uint8).float()
    assert pixels.numel() == 1200 * 1600 and pixels.std() > 10  # not a blank page


def test_compare_lines_up_explain_findings_of_real_runs(tmp_path):
    """Two runs, one at LR 1e-6: compare names the finding only that run has (from explain)."""
    for name, lr in (("a", "0.003"), ("b", "1e-6")):
        train(tmp_path / name, "train.max_epochs=2", f"optim.lr={lr}")
    a, b, plot = str(tmp_path / "a"), str(tmp_path / "b"), tmp_path / "curves.svg"
    proc = trainwell("compare", a, b, "--plot", str(plot))
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^  optim\.lr +0\.003 +1e-06$", proc.stdout, flags=re.M)
    assert re.search(r"^  lr-too-low +- +yes$", proc.stdout, flags=re.M)
    assert plot.read_text().lstrip().startswith("<?xml") and "<svg" in plot.read_text()
    table = json.loads(trainwell("compare", a, b, "--format", "json").stdout)
    assert table["config_diff"]["optim.lr"] == {a: 0.003, b: 1e-06}
    # timing findings (input-bound, checkpoint-bound) follow the machine's load, not the runs
    assert table["findings_diff"]["lr-too-low"] == [b]
    assert {"diverged", "overfitting", "underfitting"}.isdisjoint(table["findings_diff"])
    bad = trainwell("compare", a, b, "--plot", str(tmp_path / "x.gif"))
    assert bad.returncode == 2 and ".png or .svg" in bad.stderr
