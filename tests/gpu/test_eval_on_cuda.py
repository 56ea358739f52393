"""`trainwell eval` and `tw.evaluate` on a GPU with a class-weighted loss: the loss module's
buffers follow the model to the device, as in `fit()`."""

import json
import subprocess
import sys

import torch
from torch import nn

import trainwell as tw


def test_evaluate_moves_a_weighted_loss_to_the_model_device():
    model = nn.Linear(4, 3).cuda()
    loss = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 3.0]))  # on the CPU
    x, y = torch.randn(32, 4), torch.randint(0, 3, (32,))
    on_gpu = tw.evaluate(model, (x, y), loss=loss, device="cuda")["loss"]
    loss_cpu = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 3.0]))
    expected = loss_cpu(model.cpu()(x), y).item()
    assert abs(on_gpu - expected) < 1e-4


def test_the_cli_evaluates_the_tabular_recipe_on_cuda(tmp_path):
    run = tmp_path / "run"
    trained = subprocess.run(
        [sys.executable, "-m", "trainwell", "train", "--recipe", "tabular", "--run-dir",
         str(run), "--quiet", "--set", "train.max_epochs=2", "--set", "run.device=cuda"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stderr[-2000:]
    for split in ("val", "test"):
        done = subprocess.run(
            [sys.executable, "-m", "trainwell", "eval", str(run), "--split", split],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout)[f"{split}_loss"] > 0
