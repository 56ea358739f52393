"""A GuardWarning names the user's line: never trainwell's, torch's, runpy's or a console script's."""

import os
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path

import pytest
import torch
from tests.guards.conftest import Net
from torch import nn

import trainwell as tw
import trainwell.cli.app
from trainwell.guards import GuardWarning
from trainwell.guards.finding import user_frame

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


class SoftmaxNet(Net):
    def forward(self, x):
        return super().forward(x).softmax(1)  # planted: softmax before CrossEntropyLoss


def _fit_arguments():
    x, y = torch.randn(32, 4), torch.randint(0, 3, (32,))
    cfg = {"run": {"quiet": True}, "train": {"max_epochs": 1}, "data": {"batch_size": 16}}
    return {
        "model": SoftmaxNet(),
        "train_data": (x, y),
        "loss": nn.CrossEntropyLoss(),
        "config": cfg,
    }


def _guard_warnings(record):
    return [w for w in record if issubclass(w.category, GuardWarning)]


def test_a_fit_warning_names_the_callers_file():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = tw.fit(**_fit_arguments())
    [warning] = _guard_warnings(record)
    assert warning.filename == __file__
    assert result.findings[0].source.split(":")[0].endswith("test_attribution.py")


def test_a_console_script_frame_is_skipped_for_the_user_frame_behind_it():
    # The frame of a launcher like .venv/bin/trainwell, with user code further out.
    launcher = compile("result = fit(**arguments)", str(CONSOLE_SCRIPT), "exec")
    scope = {"fit": tw.fit, "arguments": _fit_arguments()}  # fit() called from the launcher
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        exec(launcher, scope)
    [warning] = _guard_warnings(record)
    assert warning.filename == __file__
    assert scope["result"].findings[0].source.split(":")[0].endswith("test_attribution.py")


def test_user_frame_skips_library_runpy_and_launcher_files(tmp_path):
    import runpy

    for filename in (
        runpy.__file__,
        str(CONSOLE_SCRIPT),
        torch.__file__,
        tw.__file__,
        "<frozen runpy>",
    ):
        code = compile("frame = sys._getframe()", filename, "exec")
        scope = {"sys": sys}
        exec(code, scope)
        assert user_frame(scope["frame"]) is not scope["frame"], filename
    script = tmp_path / "train.py"
    code = compile("frame = sys._getframe()", str(script), "exec")
    scope = {"sys": sys}
    exec(code, scope)
    assert user_frame(scope["frame"]) is scope["frame"]


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
    lines = [line for line in proc.stderr.splitlines() if ": GuardWarning: " in line]
    assert len(lines) == 1, proc.stderr
    filename = lines[0].split(": GuardWarning: ")[0].rsplit(":", 1)[0]
    assert Path(filename).name not in ("trainwell", "runpy.py", "__main__.py"), filename
    assert Path(filename).resolve() == Path(trainwell.cli.app.__file__).resolve(), filename
