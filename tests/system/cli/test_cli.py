"""The trainwell command as a user runs it: real subprocesses, exit codes, files, messages."""

import json
import subprocess
import sys

import pytest


def trainwell(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_default_job_reaches_97_percent_and_writes_its_run_directory(tmp_path):
    run_dir = tmp_path / "run"
    proc = trainwell("train", "--run-dir", str(run_dir))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["monitor"] == "val_accuracy"
    assert summary["best"] >= 0.97
    assert summary["epochs"] == 20
    assert (run_dir / "checkpoints" / "best.pt").is_file()
    assert (run_dir / "checkpoints" / "last.pt").is_file()
    assert "recipe: digits" in (run_dir / "config.yaml").read_text()
    kinds = [
        json.loads(line)["kind"] for line in (run_dir / "metrics.jsonl").read_text().splitlines()
    ]
    assert kinds.count("epoch") == 20 and "step" in kinds
    # The person reading the terminal sees per-epoch lines and the summary.
    assert "epoch  20/20" in proc.stderr
    assert "best val_accuracy" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_resume_continues_a_run_and_eval_reads_its_checkpoint(tmp_path):
    run_dir = tmp_path / "run"
    first = trainwell(
        "train",
        "--recipe",
        "spiral",
        "--run-dir",
        str(run_dir),
        "--set",
        "train.max_epochs=2",
        "--quiet",
    )
    assert first.returncode == 0, first.stderr
    second = trainwell("resume", str(run_dir), "--set", "train.max_epochs=4")
    assert second.returncode == 0, second.stderr
    assert "resuming at epoch 3" in second.stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["epochs"] == 4
    shown = trainwell("eval", str(run_dir), "--checkpoint", "last")
    assert shown.returncode == 0, shown.stderr
    metrics = json.loads(shown.stdout)
    assert metrics["epoch"] == 4
    assert metrics["val_accuracy"] == pytest.approx(summary["final"]["val_accuracy"], abs=1e-6)


def test_config_file_and_overrides(tmp_path):
    config = tmp_path / "small.yaml"
    config.write_text("run:\n  recipe: spiral\ntrain:\n  max_epochs: 1\nmodel:\n  hidden: 16\n")
    run_dir = tmp_path / "run"
    proc = trainwell(
        "train",
        "--config",
        str(config),
        "--set",
        "data.batch_size=128",
        "--run-dir",
        str(run_dir),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    saved = (run_dir / "config.yaml").read_text()
    assert "recipe: spiral" in saved and "hidden: 16" in saved and "batch_size: 128" in saved


def test_bad_labels_in_a_user_recipe_exit_2(tmp_path):
    (tmp_path / "badrecipe.py").write_text(
        "import torch\n"
        "from trainwell.recipes import Job\n"
        "def build(config):\n"
        "    x = torch.randn(32, 4)\n"
        "    y = torch.full((32,), 5)\n"
        "    return Job(model=torch.nn.Linear(4, 3), train_data=(x, y))\n"
    )
    proc = trainwell(
        "train", "--recipe", "badrecipe:build", "--run-dir", str(tmp_path / "r"), cwd=tmp_path
    )
    assert proc.returncode == 2
    assert "labels must be class indices in [0, 3)" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_same_seed_same_run_and_guards_do_not_change_it(tmp_path):
    finals = []
    for name, extra in [("a", []), ("b", []), ("no-guards", ["--set", "guards.enabled=false"])]:
        run_dir = tmp_path / name
        proc = trainwell(
            "train",
            "--recipe",
            "spiral",
            "--run-dir",
            str(run_dir),
            "--set",
            "train.max_epochs=3",
            "--quiet",
            *extra,
        )
        assert proc.returncode == 0, proc.stderr
        finals.append(json.loads((run_dir / "summary.json").read_text())["final"])
    for final in finals:
        final.pop("time_s"), final.pop("data_wait", None)  # timings, not results
    assert finals[0] == finals[1] == finals[2]
