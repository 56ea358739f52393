"""The LR finder: the sweep's LRs, its stop on divergence, the suggestion's rule, and that
nothing of it stays (weights, optimizer, RNG: a fit() after it is the same as without)."""

from __future__ import annotations

import json
import math
from functools import partial

import pytest
import torch
from tests.fixtures import mlp

import trainwell as tw
from trainwell.cli.app import main
from trainwell.loop.lr_find import lr_find, suggest

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

X = torch.randn(256, 6, generator=torch.Generator().manual_seed(0))
Y = (X[:, 0] - X[:, 2] > 0).long()
CONFIG = {"data": {"batch_size": 16}, "run": {"quiet": True}, "train": {"max_epochs": 2}}


net = partial(mlp, 1, 6, 32, 2, batchnorm=True)  # seed 1, 6 features, 32 hidden, 2 classes


def test_the_lrs_sweep_exponentially_from_min_to_max():
    result = lr_find(net(), (X, Y), config=CONFIG, min_lr=1e-5, max_lr=1e-1, num_steps=30)
    assert len(result.lrs) == 30 and not result.stopped_early
    expected = [1e-5 * (1e4) ** (t / 29) for t in range(30)]
    assert result.lrs == pytest.approx(expected, rel=1e-9)
    assert len(result.losses) == len(result.smoothed) == 30


def test_a_diverging_sweep_stops_early():
    result = lr_find(net(), (X, Y), config=CONFIG, min_lr=1e-3, max_lr=1e6, num_steps=200)
    assert result.stopped_early and len(result.lrs) < 200


def test_nothing_of_the_sweep_stays_a_fit_after_it_is_the_same():
    plain_model = net()
    before = {k: v.clone() for k, v in plain_model.state_dict().items()}
    optimizer = torch.optim.AdamW(plain_model.parameters(), lr=1e-3)
    plain_model(X[:4]).sum().backward()
    optimizer.step()  # an optimizer with state, which the sweep must give back as it was
    opt_state = {k: v.clone() for k, v in optimizer.state_dict()["state"][0].items()}
    weights = {k: v.clone() for k, v in plain_model.state_dict().items()}
    rng = torch.get_rng_state()
    lr_find(plain_model, (X, Y), config=CONFIG, optimizer=optimizer, num_steps=20)
    assert torch.equal(torch.get_rng_state(), rng)
    for name, value in plain_model.state_dict().items():
        assert torch.equal(value, weights[name]), name
    for key, value in optimizer.state_dict()["state"][0].items():
        assert torch.equal(value, opt_state[key]), key
    assert optimizer.param_groups[0]["lr"] == 1e-3
    assert not torch.equal(weights["0.weight"], before["0.weight"])  # the step was real

    swept, untouched = net(), net()
    lr_find(swept, (X, Y), config=CONFIG, num_steps=20)
    tw.fit(swept, (X, Y), config=CONFIG)
    tw.fit(untouched, (X, Y), config=CONFIG)
    for name, value in untouched.state_dict().items():
        assert torch.equal(swept.state_dict()[name], value), name


def test_the_suggestion_is_the_steepest_descent_before_the_minimum():
    lrs = [10 ** (-6 + 6 * t / 99) for t in range(100)]
    center = 1e-3  # a loss that falls fastest at 1e-3, bottoms out at 1e-1, then rises
    smoothed = [
        2 / (1 + math.exp(4 * (math.log10(lr) - math.log10(center))))
        + (0 if lr < 1e-1 else 5 * (math.log10(lr) + 1))
        for lr in lrs
    ]
    steepest, lowest = suggest(lrs, smoothed)
    assert steepest == pytest.approx(center, rel=0.15)
    assert lowest == pytest.approx(1e-1, rel=0.15)
    assert suggest(lrs, sorted(smoothed)) == (None, lrs[0])  # never falls: no suggestion


def test_the_command_writes_the_sweep_and_its_plot(tmp_path, capsys):
    pytest.importorskip("sklearn")
    out = tmp_path / "find"
    assert main(["lr-find", "--recipe", "spiral", "--steps", "40", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "suggested lr" in text and "use it: trainwell train --recipe spiral" in text
    record = json.loads((out / "lr_find.json").read_text())
    assert len(record["lrs"]) <= 40 and record["rule"].startswith("steepest descent")
    if (out / "lr_find.png").exists():
        assert (out / "lr_find.png").stat().st_size > 10_000


def test_bad_bounds_are_a_config_error():
    with pytest.raises(tw.ConfigError, match="0 < min_lr < max_lr"):
        lr_find(net(), (X, Y), min_lr=1.0, max_lr=0.1)
    assert main(["lr-find", "--min-lr", "1", "--max-lr", "0.1"]) == 2
