"""Train/eval mode, graphs built in validation, graphs kept alive across steps."""

import torch
from tests.fixtures import Net, batches
from torch import nn

from trainwell.guards import watch

from .helpers import codes, warns


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


def _attack(model, crit, x, y):
    x_adv = x.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(crit(model(x_adv), y), x_adv)  # writes no .grad
    return (x + 0.1 * grad.sign()).detach()


def test_adversarial_training_that_stays_in_eval_mode_is_found():
    model = Net(dropout=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with warns("eval-mode-training"), watch(model, opt) as guards:
        for x, y in batches(4):
            model.eval()  # the attack in eval mode: fine
            x_adv = _attack(model, crit, x, y)
            opt.zero_grad()  # planted: model.train() forgotten before the training step
            crit(model(x_adv), y).backward()
            opt.step()
    assert codes(guards) == ["eval-mode-training"]


def test_eval_mode_gradients_the_step_then_uses_are_found():
    model = Net(dropout=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with warns("eval-mode-training"), watch(model, opt) as guards:
        for x, y in batches(4):
            opt.zero_grad()
            model.eval()
            x_in = x.clone().requires_grad_(True)
            crit(model(x_in), y).backward()  # for x_in.grad (a saliency map): fills .grad too
            model.train()  # planted: no zero_grad() before the training backward
            crit(model(x), y).backward()
            opt.step()
    assert codes(guards) == ["eval-mode-training"]


def test_a_logged_loss_held_until_replaced_every_few_steps_is_silent():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt) as guards:
        for i, (x, y) in enumerate(batches(20)):
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
            if i % 6 == 0:
                logged = loss  # one graph at a time, replaced: not a leak
    assert guards.findings == [] and logged.requires_grad


# ------------------------------------------------------------------ findings name the line


def _line_of(marker: str) -> str:
    """``test_mode_graph.py:N`` of the line in this file ending with ``# <marker>``."""
    import pathlib

    lines = pathlib.Path(__file__).read_text().splitlines()
    (number,) = [i + 1 for i, line in enumerate(lines) if line.endswith(f"# {marker}")]
    return f"test_mode_graph.py:{number}"


def test_validation_graph_names_the_validation_forward_line():
    model, crit = Net(), nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    (xv, yv) = batches(1, seed=1)[0]
    with warns("validation-graph") as record, watch(model, opt, loss_fn=crit) as guards:
        for _ in range(2):
            model.train()
            for x, y in batches(3):
                opt.zero_grad()
                crit(model(x), y).backward()
                opt.step()  # the step where it is noticed
            model.eval()
            crit(model(xv), yv)  # validation forward
    (finding,) = guards.findings
    assert finding.source.endswith(_line_of("validation forward"))
    assert record[0].filename.endswith("test_mode_graph.py")
    assert f"test_mode_graph.py:{record[0].lineno}" == _line_of("validation forward")


def test_a_running_total_of_losses_names_the_line_and_the_variable():
    model, crit = Net(), nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total = torch.zeros(())
    with warns("retained-graph") as record, watch(model, opt, loss_fn=crit) as guards:
        for x, y in batches(12):
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
            total += loss  # keeps every graph
    (finding,) = guards.findings
    assert finding.source.endswith(_line_of("keeps every graph"))
    assert "'total'" in finding.message and "add_() at" in finding.message
    assert f"test_mode_graph.py:{record[0].lineno}" == _line_of("keeps every graph")


def test_losses_appended_to_a_list_name_the_list():
    model, crit = Net(), nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    history = []
    with warns("retained-graph"), watch(model, opt, loss_fn=crit) as guards:
        for x, y in batches(12):
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
            history.append(loss)
    (finding,) = guards.findings
    assert "held by 'history'" in finding.message
    assert torch.overrides._get_current_function_mode() is None  # the finder left the stack
