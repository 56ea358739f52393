"""`tw.load_weights` takes what the CLI takes (a run directory) and what fine-tuning needs:
``drop=`` for a new head, ``rename=`` for moved modules, and advice that says so."""

import pytest
import torch
from tests.fixtures import blobs
from torch import nn

import trainwell as tw
from trainwell.state.weights import read_weights


def net(classes=3):
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, classes))


@pytest.fixture
def run_dir(tmp_path):
    x, y = blobs()
    config = {"run": {"quiet": True, "device": "cpu", "dir": str(tmp_path / "run")},
              "train": {"max_epochs": 3}}  # fmt: skip
    result = tw.fit(net(), (x[:180], y[:180]), (x[180:], y[180:]), config=config)
    return tmp_path / "run", result


def test_a_run_directory_loads_its_best_checkpoint(run_dir):
    path, result = run_dir
    model = net()
    tw.load_weights(model, path)
    best = read_weights(path / "checkpoints" / "best.pt")
    for name, value in model.state_dict().items():
        assert torch.equal(value, best[name]), name
    assert read_weights(path / "checkpoints").keys() == best.keys()  # its checkpoints/ too


def test_a_new_head_gets_advice_naming_drop_and_drop_loads_the_rest(run_dir):
    path, _ = run_dir
    model = net(classes=5)
    fresh_head = model[2].weight.detach().clone()
    with pytest.raises(
        tw.ShapeError, match=r"2\.weight: checkpoint \(3, 8\) vs model \(5, 8\).*drop=\['2\.'\]"
    ):
        tw.load_weights(model, path, strict=False)
    report = tw.load_weights(model, path, drop=["2."])  # strict: the dropped head is no miss
    assert report.missing == [] and report.unexpected == []
    assert torch.equal(model[2].weight, fresh_head)  # the new head keeps its own weights
    assert torch.equal(model[0].weight, read_weights(path)["0.weight"])


def test_rename_moves_keys_to_the_model_modules(run_dir):
    path, _ = run_dir

    class Wrapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = net()

    model = Wrapped()
    with pytest.raises(tw.CheckpointError, match="rename="):
        tw.load_weights(model, path)
    tw.load_weights(model, path, rename={"": "backbone."})
    assert torch.equal(model.backbone[0].weight, read_weights(path)["0.weight"])
