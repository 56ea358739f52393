"""Clipping that cannot act: before backward, after step, on fp16-scaled gradients."""

import torch
from tests.guards.conftest import Net, batches, codes, warns
from torch import nn

from trainwell.guards import watch


def _loop(order, scaler=None, steps=3):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, scaler=scaler) as guards:
        for x, y in batches(steps):
            for action in order:
                if action == "zero":
                    opt.zero_grad()
                elif action == "backward":
                    loss = crit(model(x), y)
                    (scaler.scale(loss) if scaler else loss).backward()
                elif action == "clip":
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                elif action == "unscale":
                    scaler.unscale_(opt)
                elif action == "step":
                    if scaler:
                        scaler.step(opt)
                        scaler.update()
                    else:
                        opt.step()
    return guards


def test_clip_before_backward_is_found():
    with warns("clip-before-backward"):
        guards = _loop(["zero", "clip", "backward", "step"])
    assert codes(guards) == ["clip-before-backward"]


def test_clip_after_step_is_found():
    with warns("clip-after-step"):
        guards = _loop(["backward", "step", "clip", "zero"])
    assert codes(guards) == ["clip-after-step"]


def test_fp16_clip_without_unscale_is_found():
    with warns("clip-scaled-grads"):
        guards = _loop(["zero", "backward", "clip", "step"], scaler=torch.amp.GradScaler("cpu"))
    assert codes(guards) == ["clip-scaled-grads"]


def test_correct_clipping_is_silent():
    assert _loop(["zero", "backward", "clip", "step"]).findings == []
    scaler = torch.amp.GradScaler("cpu")
    assert _loop(["zero", "backward", "unscale", "clip", "step"], scaler=scaler).findings == []


def test_clip_value_and_other_models_clipping():
    other = nn.Linear(2, 2)
    other(torch.randn(1, 2)).sum().backward()
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt) as guards:
        torch.nn.utils.clip_grad_norm_(other.parameters(), 1.0)  # not the watched model
        assert guards.findings == []
        x, y = batches(1)[0]
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        with warns("clip-after-step"):
            torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)  # planted: after the step
    assert codes(guards) == ["clip-after-step"]
    assert guards.findings[0].where == "clip_grad_value_"
