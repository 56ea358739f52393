"""Gradients not zeroed, zeroed before the step, zeroed inside an accumulation window."""

import torch
from tests.fixtures import Net, batches
from torch import nn

from trainwell.guards import watch

from .helpers import codes, warns


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


def _gan():
    netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))
    netD = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.SGD(netG.parameters(), lr=0.01)
    opt_d = torch.optim.SGD(netD.parameters(), lr=0.01)
    return netG, netD, opt_g, opt_d, nn.BCEWithLogitsLoss()


def test_a_gan_discriminator_never_zeroed_is_found_but_not_the_generator():
    """G's backward flows through D and fills D's grads: fine when D's zero_grad() clears them
    before D's step (tests/system/healthy/test_healthy_loops.py), the bug when nothing does."""
    netG, netD, opt_g, opt_d, bce = _gan()
    ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
    with warns("grad-not-zeroed"), watch(netG, opt_g) as g_watch, watch(netD, opt_d) as d_watch:
        for x, _ in batches(6):
            fake = netG(torch.randn(16, 4))
            (bce(netD(x), ones) + bce(netD(fake.detach()), zeros)).backward()  # planted: D
            opt_d.step()  # is never zeroed
            opt_g.zero_grad()
            bce(netD(fake), ones).backward()
            opt_g.step()
    assert codes(d_watch) == ["grad-not-zeroed"] and g_watch.findings == []


def test_missing_zero_grad_behind_an_input_gradient_attack_is_found():
    model, opt, crit = _setup()
    with warns("grad-not-zeroed"), watch(model, opt) as guards:
        for x, y in batches(4):
            x_adv = x.clone().requires_grad_(True)
            (grad,) = torch.autograd.grad(crit(model(x_adv), y), x_adv)  # writes no .grad
            crit(model(x + 0.1 * grad.sign()), y).backward()  # planted: never zeroed
            opt.step()
    assert codes(guards) == ["grad-not-zeroed"]


def test_zero_grad_inside_a_window_is_found_between_autograd_grad_passes():
    model, opt, crit = _setup()
    with warns("zero-grad-in-window"), watch(model, opt, accumulate_steps=2) as guards:
        for i, (x, y) in enumerate(batches(8)):
            x_adv = x.clone().requires_grad_(True)
            (grad,) = torch.autograd.grad(crit(model(x_adv), y), x_adv)  # no .grad: not a pass
            opt.zero_grad()  # planted: clears the window's first micro-batch
            (crit(model(x + 0.1 * grad.sign()), y) / 2).backward()
            if i % 2 == 1:
                opt.step()
    assert codes(guards) == ["zero-grad-in-window"]


def test_a_finding_names_the_rank_that_saw_it_under_torchrun(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    model, opt, crit = _setup()
    with warns("grad-not-zeroed") as seen, watch(model, opt, every=1) as guards:
        for x, y in batches(4):
            crit(model(x), y).backward()
            opt.step()
    assert [f.rank for f in guards.findings] == [1]
    assert str(seen[0].message).startswith("rank 1: [grad-not-zeroed]")
    monkeypatch.delenv("WORLD_SIZE")
    from trainwell.guards.base import _process_rank

    assert _process_rank() is None  # one process: findings name no rank
