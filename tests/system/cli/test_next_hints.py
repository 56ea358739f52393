"""The ``next:`` commands a finished run prints, run as printed (real subprocesses, CPU)."""

import json
import shlex
import subprocess
import sys

import pytest

SPIRAL = ["--recipe", "spiral", "--set", "model.num_points=200", "--set", "run.device=cpu"]


def trainwell(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "trainwell", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def printed_commands(stderr: str) -> list[list[str]]:
    """The ``trainwell ...`` commands under ``next:`` (and a ``resume with:`` line)."""
    lines = stderr.split("run directory:", 1)[1].splitlines()
    commands = []
    for line in lines:
        text = line.split("resume with:", 1)[-1].split("   #", 1)[0].split("  #", 1)[0].strip()
        if text.startswith("trainwell "):
            commands.append(shlex.split(text)[1:])
    return commands


def test_a_stop_mid_epoch_prints_commands_that_all_work(tmp_path):
    run = tmp_path / "run"
    mid_epoch = ["--set", "model.num_points=2000", "--set", "train.max_steps=3"]  # 25 steps/epoch
    proc = trainwell("train", *SPIRAL, "--run-dir", str(run), *mid_epoch)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((run / "summary.json").read_text())["epochs"] == 0  # mid-epoch
    commands = printed_commands(proc.stderr)
    assert [c[0] for c in commands] == ["resume", "eval", "export", "plot"], proc.stderr
    assert commands[0] == ["resume", str(run), "--set", "train.max_steps=6"]
    for command in commands:
        done = trainwell(*command)
        assert done.returncode == 0, (command, done.stderr)
    assert json.loads((run / "summary.json").read_text())["steps"] == 6


@pytest.mark.slow
def test_a_run_of_two_processes_prints_a_resume_of_two_that_works(tmp_path):
    run = tmp_path / "run"
    proc = trainwell(
        "train", *SPIRAL, "--run-dir", str(run), "--nproc", "2", "--set", "train.max_epochs=1"
    )
    assert proc.returncode == 0, proc.stderr
    resume = printed_commands(proc.stderr)[0]
    assert resume == ["resume", str(run), "--nproc", "2", "--set", "train.max_epochs=2"]
    done = trainwell(*resume)
    assert done.returncode == 0, done.stderr
    assert "saved by 2 process(es), with 1" not in done.stderr  # it launched two again
    summary = json.loads((run / "summary.json").read_text())
    assert summary["epochs"] == 2
