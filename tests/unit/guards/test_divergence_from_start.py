"""A loss that explodes in the first window and never turns NaN (SGD at a huge LR on raw
pixels): the loss-trend guard judges it against a reference it has from step 0 — the untrained
model's first loss, or ln(C) for a C-class cross-entropy — and says so when the run then sits
dead at chance. Healthy twins: the same model at a sane LR, and one whose loss spikes early and
then recovers."""

import math
import warnings

import pytest
import torch
from sklearn.datasets import load_digits
from torch import nn

from trainwell.guards import watch
from trainwell.guards.loss_trend import LossTrendGuard


def _digits_raw_pixels(lr, reduction="mean"):
    """5 epochs of SGD on the digits' raw 0..16 pixels (no scaling: the planted trap)."""
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32)
    y = torch.tensor(digits.target)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    crit = nn.CrossEntropyLoss(reduction=reduction)
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the findings are read from the watch
        with watch(model, opt, loss_fn=crit) as guards:
            for epoch in range(5):
                order = torch.randperm(len(x), generator=torch.Generator().manual_seed(epoch))
                for start in range(0, len(x), 32):
                    batch = order[start : start + 32]
                    opt.zero_grad()
                    loss = crit(model(x[batch]), y[batch])
                    loss.backward()
                    opt.step()
                    losses.append(loss.detach())
    return guards, torch.stack(losses)


@pytest.mark.parametrize("lr", [0.5, 1.0])
def test_a_loss_ten_times_its_start_in_the_first_window_is_reported_there(lr):
    guards, losses = _digits_raw_pixels(lr)
    assert torch.isfinite(losses).all()  # never a NaN: the non-finite guard has nothing
    assert [f.code for f in guards.findings] == ["loss-diverging"]
    finding = guards.findings[0]
    assert finding.step == 101  # the first read (every=100)
    assert "where it started (2.303: the untrained model's first loss, or ln(10)" in finding.message
    numbers = guards.guard(LossTrendGuard).reported
    assert numbers["now"] == pytest.approx(losses[:101].mean().item(), rel=1e-4)


def test_a_loss_that_exploded_and_sits_at_chance_is_reported_as_dead():
    guards, losses = _digits_raw_pixels(0.2)
    assert losses.max() > 10 * torch.log(torch.tensor(10.0))  # the spike
    assert (losses[-50:].mean() - 2.3026).abs() < 0.05  # chance: every unit dead
    assert [f.code for f in guards.findings] == ["loss-diverging"]
    assert "sat at chance since" in guards.findings[0].message
    assert "ln(10) = 2.303" in guards.findings[0].message


@pytest.mark.parametrize("lr", [0.02, 0.1])
def test_a_sane_lr_and_a_loss_that_spikes_then_recovers_are_silent(lr):
    guards, losses = _digits_raw_pixels(lr)
    if lr == 0.1:  # the twin: an early spike above 5x ln(10), then it learns
        assert losses.max() > 5 * math.log(10) and losses[-50:].mean() < losses[:50].mean()
    assert guards.findings == []


def test_ln_c_is_no_reference_for_a_summed_loss():
    """A summed cross-entropy grows with the batch: ln(C) says nothing about it (only its own
    first loss does)."""
    guards, losses = _digits_raw_pixels(0.02 / 32, reduction="sum")
    assert guards.guard(LossTrendGuard).start == pytest.approx(losses[0].item())
    assert losses[0] > 10 * math.log(10)  # ln(C) would have called every summed loss a blow-up
    assert guards.findings == []
