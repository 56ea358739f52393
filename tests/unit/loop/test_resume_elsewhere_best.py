"""``--resume A --run-dir B``: B's ``best.pt`` holds the best weights of the whole run, A's
part included, and the model ends with them (``monitor.restore_best``)."""

import json
import warnings

import torch
from tests.fixtures import mlp, separated_blobs

import trainwell as tw


def _fit(run_dir, epochs, resume=None):
    data = separated_blobs(96)
    config = {
        "run": {"dir": str(run_dir), "quiet": True, "device": "cpu"},
        "train": {"max_epochs": epochs},
        "data": {"batch_size": 32},
        # the loss falls every epoch: "max" makes the first epoch the best of the whole run
        "monitor": {"metric": "val_loss", "mode": "max"},
        "checkpoint": {"resume": resume, "keep_last": 1},
    }
    model = mlp()
    return model, tw.fit(model, data, data, config=config)


def _manifest(path):
    return json.loads(path.with_suffix(".json").read_text()) if path.suffix == ".pt" else None


def test_best_pt_of_a_run_resumed_into_another_directory_is_the_best_of_the_whole_run(tmp_path):
    _, first = _fit(tmp_path / "a", 2)
    assert first.best_epoch == 1
    a_best = torch.load(tmp_path / "a" / "checkpoints" / "best.pt", weights_only=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "restore_best: ... not the best step" warning
        warnings.filterwarnings("ignore", message="resuming .* different config")
        model, second = _fit(tmp_path / "b", 4, resume=str(tmp_path / "a"))
    assert second.best_epoch == 1 and second.best_step == first.best_step
    best = tmp_path / "b" / "checkpoints" / "best.pt"
    b_best = torch.load(best, weights_only=True)
    assert b_best["manifest"]["step"] == first.best_step
    for name, tensor in a_best["state"]["model"].items():
        assert torch.equal(b_best["state"]["model"][name], tensor), name
        assert torch.equal(model.state_dict()[name], tensor), name  # restored at the end
    assert "read back from best.pt" in second.weights
    assert json.loads((tmp_path / "b" / "checkpoints" / "best.json").read_text())["step"] == (
        first.best_step
    )
    # A is untouched: its files are its own still
    assert (tmp_path / "a" / "checkpoints" / "best.pt").is_file()
