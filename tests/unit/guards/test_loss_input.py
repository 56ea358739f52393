"""Softmax/log-softmax outputs fed to the wrong classification loss."""

import pytest
import torch
import torch.nn.functional as F
from tests.fixtures import Net, batches
from torch import nn

from trainwell.guards import watch

from .helpers import codes, warns


def _train(head, loss_fn=None, functional=None, steps=3):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt, loss_fn=loss_fn) as guards:
        for x, y in batches(steps):
            opt.zero_grad()
            out = head(model(x))
            loss = loss_fn(out, y) if loss_fn is not None else functional(out, y)
            loss.backward()
            opt.step()
    return guards


def _softmax(t):
    return t.softmax(1)


def _log_softmax(t):
    return t.log_softmax(1)


def _logits(t):
    return t


@pytest.mark.parametrize(
    "head,loss,expected",
    [
        (_softmax, nn.CrossEntropyLoss(), "softmax-into-cross-entropy"),
        (_log_softmax, nn.CrossEntropyLoss(), "log-softmax-into-cross-entropy"),
        (_softmax, nn.NLLLoss(), "probabilities-into-nll"),
        (_logits, nn.NLLLoss(), "logits-into-nll"),
    ],
)
def test_loss_module_inputs_are_checked(head, loss, expected):
    with warns(expected):
        guards = _train(head, loss_fn=loss)
    assert codes(guards) == [expected]
    assert guards.findings[0].source.split(":")[0].endswith("test_loss_input.py")


@pytest.mark.parametrize(
    "head,functional,expected",
    [
        (_softmax, F.cross_entropy, "softmax-into-cross-entropy"),
        (_logits, F.nll_loss, "logits-into-nll"),
    ],
)
def test_functional_losses_are_checked(head, functional, expected):
    # Looked up at call time, as user code does: F.cross_entropy(...)
    with warns(expected):
        guards = _train(head, functional=lambda o, y: getattr(F, functional.__name__)(o, y))
    assert codes(guards) == [expected]


def test_correct_pairs_are_silent():
    assert _train(_logits, loss_fn=nn.CrossEntropyLoss()).findings == []
    assert _train(_log_softmax, loss_fn=nn.NLLLoss()).findings == []
    assert _train(_logits, functional=lambda o, y: F.cross_entropy(o, y)).findings == []


def test_inputs_are_checked_on_the_first_call_then_every_n_calls():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, loss_fn=crit, every=4) as guards:
        for i, (x, y) in enumerate(batches(6)):
            opt.zero_grad()
            out = model(x)
            crit(out.softmax(1) if i in (1, 2) else out, y).backward()  # bug on unchecked calls
            opt.step()
    assert guards.findings == []
