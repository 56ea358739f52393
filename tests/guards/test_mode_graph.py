"""Train/eval mode, graphs built in validation, graphs kept alive across steps."""

import torch
from tests.guards.conftest import Net, batches, codes, warns
from torch import nn

from trainwell.guards import watch


def _epochs(model, *, train_mode=True, eval_mode=True, no_grad=True, keep=None, epochs=2):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    data, (xv, yv) = batches(4), batches(1, seed=1)[0]
    with watch(model, opt, loss_fn=crit) as guards:
        for _ in range(epochs):
            if train_mode:
                model.train()
            for x, y in data:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                if keep is not None:
                    keep.append(loss)
            if eval_mode:
                model.eval()
            if no_grad:
                with torch.no_grad():
                    crit(model(xv), yv)
            else:
                crit(model(xv), yv)
    return guards


def test_training_in_eval_mode_is_found():
    with warns("eval-mode-training"):
        guards = _epochs(Net(dropout=True), train_mode=False)
    assert codes(guards) == ["eval-mode-training"]
    assert "net.2" in guards.findings[0].message  # the Dropout layer is named


def test_eval_mode_training_without_dropout_or_batchnorm_is_silent():
    assert _epochs(Net(), train_mode=False).findings == []


def test_a_deliberately_frozen_batchnorm_is_silent():
    model = Net(batchnorm=True, dropout=True)
    model.net[1].eval()  # frozen BatchNorm while the rest trains

    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt) as guards:
        for x, y in batches(3):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            model.net[1].eval()
    assert guards.findings == []


def test_validation_in_train_mode_is_found():
    with warns("train-mode-validation"):
        guards = _epochs(Net(batchnorm=True), eval_mode=False)
    assert codes(guards) == ["train-mode-validation"]


def test_validation_that_builds_a_graph_is_found():
    with warns("validation-graph"):
        guards = _epochs(Net(dropout=True), no_grad=False)
    assert codes(guards) == ["validation-graph"]
    assert guards.findings[0].step == 4  # after the first epoch's 4 steps


def test_losses_kept_with_their_graph_are_found():
    kept: list = []
    with warns("retained-graph"):
        guards = _epochs(Net(), keep=kept, epochs=2)
    assert codes(guards) == ["retained-graph"]
    assert "loss.item()" in guards.findings[0].fix


def test_detached_losses_are_silent():
    class Detach(list):
        def append(self, loss):
            super().append(loss.detach())

    kept = Detach()
    guards = _epochs(Net(), keep=kept, epochs=2)
    assert guards.findings == [] and len(kept) == 8


def test_healthy_epochs_are_silent():
    assert _epochs(Net(dropout=True, batchnorm=True)).findings == []
