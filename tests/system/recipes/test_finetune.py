"""Fine-tuning from a saved run: the backbone's weights come from the checkpoint, stay frozen
for train.freeze_epochs (no update, no optimizer state), then train with layer-wise LR decay."""

from __future__ import annotations

import pytest
import torch

import trainwell as tw
from trainwell.cli.app import main
from trainwell.config.tree import build_config
from trainwell.recipes.finetune import CONFIG, build, odd_or_even

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def digits_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("digits")
    assert main(["train", "--run-dir", str(run), "--quiet", "--set", "train.max_epochs=2"]) == 0
    return run


class Snapshots(tw.Observer):
    def __init__(self, model):
        self.model, self.features = model, []

    def on_epoch_end(self, record):
        self.features.append(self.model.features[0].weight.detach().clone())


def test_the_backbone_loads_stays_frozen_then_trains_and_the_head_is_new(digits_run):
    cfg = build_config({"model": {"checkpoint": str(digits_run)}, "run": {"quiet": True},
                        "train": {"max_epochs": 3}}, base=CONFIG)  # fmt: skip
    job = build(cfg)
    saved = torch.load(digits_run / "checkpoints" / "best.pt", weights_only=True)["state"]["model"]
    assert torch.equal(job.model.features[0].weight, saved["features.0.weight"])
    assert job.model.classifier[-1].out_features == 2
    assert torch.equal(job.train_data[1], odd_or_even(job.train_data[1] + 0))
    snapshots = Snapshots(job.model)
    result = tw.fit(job.model, job.train_data, job.val_data, loss=job.loss, metrics=job.metrics,
                    config=cfg, observers=[snapshots])  # fmt: skip
    first, second, third = snapshots.features
    assert torch.equal(first, saved["features.0.weight"])  # frozen: not moved, not decayed
    assert torch.equal(second, saved["features.0.weight"])
    assert not torch.equal(third, second)  # unfrozen in epoch 3
    assert all(p.requires_grad for p in job.model.parameters())
    assert result.findings == []  # the guards see nothing wrong in a frozen backbone
    assert result.best > 0.9


def test_layer_wise_decay_gives_the_backbone_lower_learning_rates(digits_run):
    cfg = build_config({"model": {"checkpoint": str(digits_run)}}, base=CONFIG)
    job = build(cfg)
    groups = tw.param_groups(job.model, weight_decay=0.01, lr=1.0,
                             layer_decay=cfg.optim.layer_decay, layers=cfg.optim.layers)  # fmt: skip
    head = next(p for p in job.model.classifier[-1].parameters())
    stem = job.model.features[0].weight
    lr_of = {id(p): g["lr"] for g in groups for p in g["params"]}
    assert lr_of[id(stem)] < lr_of[id(head)] == 1.0


def test_without_a_checkpoint_it_says_how_to_make_one(capsys):
    assert main(["train", "--recipe", "finetune", "--quiet"]) == 2
    assert "trainwell train --run-dir runs/digits" in capsys.readouterr().err


def test_a_frozen_module_that_does_not_exist_is_named(tmp_path):
    x, y = torch.randn(32, 4), torch.randint(0, 2, (32,))
    config = {"run": {"quiet": True}, "train": {"freeze": "backbone", "freeze_epochs": 1}}
    with pytest.raises(tw.ConfigError, match="no module 'backbone'"):
        tw.fit(torch.nn.Linear(4, 2), (x, y), config=config)
