"""A GuardWarning names the user's line: never trainwell's, torch's, runpy's or a console script's."""

import sys
import sysconfig
import warnings
from pathlib import Path

import torch
from tests.fixtures import Net
from torch import nn

import trainwell as tw
import trainwell.cli.app
from trainwell.guards import GuardWarning
from trainwell.guards.finding import user_frame

CONSOLE_SCRIPT = Path(sysconfig.get_path("scripts")) / "trainwell"


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
