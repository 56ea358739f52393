"""A run of the trainwell command (console script or ``python -m``) whose recipe has no frame of
the user's: its GuardWarning is one ``trainwell: warning:`` line, naming neither the launcher
nor a file of the library."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import trainwell.cli.app

CONSOLE_SCRIPT = Path(sysconfig.get_path("scripts")) / "trainwell"

PLANTED_RECIPE = """
import torch
from torch import nn

from trainwell.config import Config, DataConfig, TrainConfig
from trainwell.recipes import Job


class SoftmaxNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 3)

    def forward(self, x):
        return self.net(x).softmax(1)  # planted: softmax before CrossEntropyLoss


def build(config):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(32, 4, generator=g), torch.randint(0, 3, (32,), generator=g)
    return Job(model=SoftmaxNet(), train_data=(x, y))


build.config = Config(data=DataConfig(batch_size=16), train=TrainConfig(max_epochs=1))
"""


@pytest.mark.parametrize("launch", ["console-script", "python-m"])
def test_a_cli_run_without_user_frames_names_the_trainwell_command_not_its_launcher(
    tmp_path, launch
):
    if launch == "console-script" and not CONSOLE_SCRIPT.is_file():
        pytest.skip("the trainwell console script is not installed here")
    (tmp_path / "planted.py").write_text(PLANTED_RECIPE)
    command = (
        [str(CONSOLE_SCRIPT)] if launch == "console-script" else [sys.executable, "-m", "trainwell"]
    )
    env = {**os.environ, "PYTHONWARNINGS": "always::UserWarning"}
    proc = subprocess.run(
        [*command, "train", "--recipe", "planted:build", "--run-dir", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    # one `trainwell: warning:` line, naming neither the launcher nor a file of the library
    lines = [line for line in proc.stderr.splitlines() if "softmax-into-cross-entropy" in line]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("trainwell: warning: "), lines[0]
    assert "GuardWarning" not in proc.stderr, proc.stderr
    for name in ("runpy.py", "__main__.py", Path(trainwell.cli.app.__file__).name):
        assert name not in proc.stderr, proc.stderr
