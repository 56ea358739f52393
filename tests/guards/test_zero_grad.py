"""Gradients not zeroed, zeroed before the step, zeroed inside an accumulation window."""

import torch
from tests.guards.conftest import Net, batches, codes, warns
from torch import nn

from trainwell.guards import watch


def _setup():
    model = Net()
    return model, torch.optim.SGD(model.parameters(), lr=0.1), nn.CrossEntropyLoss()


def test_missing_zero_grad_is_found():
    model, opt, crit = _setup()
    with warns("grad-not-zeroed"), watch(model, opt, every=1) as guards:
        for x, y in batches(4):
            crit(model(x), y).backward()
            opt.step()
    assert codes(guards) == ["grad-not-zeroed"]


def test_zero_grad_only_every_other_step_is_found():
    model, opt, crit = _setup()
    with warns("grad-not-zeroed"), watch(model, opt) as guards:
        for i, (x, y) in enumerate(batches(6)):
            if i % 2 == 0:
                opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
    assert codes(guards) == ["grad-not-zeroed"]


def test_zero_grad_between_backward_and_step_is_found():
    model, opt, crit = _setup()
    with warns("zero-grad-before-step"), watch(model, opt) as guards:
        for x, y in batches(4):
            crit(model(x), y).backward()
            opt.zero_grad()
            opt.step()
    assert codes(guards) == ["zero-grad-before-step"]


def test_zero_grad_in_place_before_step_is_found():
    model, opt, crit = _setup()
    with warns("zero-grad-before-step"), watch(model, opt, every=3) as guards:
        for i, (x, y) in enumerate(batches(6)):
            crit(model(x), y).backward()
            if i == 0:  # a correct first step: the sampled step 0 sees nothing wrong
                opt.step()
                opt.zero_grad(set_to_none=False)
                continue
            opt.zero_grad(set_to_none=False)  # planted, from the unsampled step 1 on
            opt.step()
    assert codes(guards) == ["zero-grad-before-step"]


def test_zero_grad_inside_an_accumulation_window_is_found():
    model, opt, crit = _setup()
    with warns("zero-grad-in-window"), watch(model, opt, accumulate_steps=4) as guards:
        for i, (x, y) in enumerate(batches(8)):
            opt.zero_grad()  # planted: clears the window's earlier micro-batches
            (crit(model(x), y) / 4).backward()
            if (i + 1) % 4 == 0:
                opt.step()
    assert codes(guards) == ["zero-grad-in-window"]


def test_correct_accumulation_and_set_to_none_false_are_silent():
    model, opt, crit = _setup()
    with watch(model, opt, accumulate_steps=4, every=1) as guards:
        for i, (x, y) in enumerate(batches(12)):
            (crit(model(x), y) / 4).backward()
            if (i + 1) % 4 == 0:
                opt.step()
                opt.zero_grad(set_to_none=False)
    assert guards.findings == []
