"""An LR that jumps up mid-run (``lr-jump``) and a decay schedule with gamma > 1 (``lr-grows``),
each with the healthy twins that must stay silent: warmups that rise 100x, warm restarts,
one-cycle and cyclic schedules, a constant warmup."""

import warnings

import pytest
import torch
from tests.fixtures import Net, batches
from torch import nn
from torch.optim import lr_scheduler as S

from trainwell.guards import watch
from trainwell.parts.schedule import TorchSchedule

from .helpers import codes

STEPS_PER_EPOCH = 10


def _train(make_scheduler, *, epochs=12, per_batch=False, bump=None, every=5, pass_it=True):
    """``epochs`` of 10 batches under watch(every=5); the scheduler stepped per epoch (or per
    batch); ``bump=(epoch, factor)`` multiplies the LR by hand at that epoch's start."""
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = make_scheduler(opt) if make_scheduler else None
    crit = nn.CrossEntropyLoss()
    data = batches(STEPS_PER_EPOCH)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the findings are read from the watch
        with watch(model, opt, scheduler=sched if pass_it else None, every=every) as guards:
            for epoch in range(epochs):
                if bump and epoch == bump[0]:
                    for group in opt.param_groups:
                        group["lr"] *= bump[1]
                for x, y in data:
                    opt.zero_grad()
                    crit(model(x), y).backward()
                    opt.step()
                    if per_batch and sched is not None:
                        sched.step()
                if not per_batch and sched is not None:
                    sched.step()
    return guards


def test_a_multistep_decay_with_gamma_30_is_reported_before_the_first_step_and_at_the_jump():
    guards = _train(lambda o: S.MultiStepLR(o, milestones=[4], gamma=30))
    found = {f.code: f for f in guards.findings}
    assert found["lr-grows"].step == 0
    assert "gamma=0.0333 (1/30)" in found["lr-grows"].fix
    assert found["lr-jump"].step == 41  # the first read after epoch 4's milestone (step 40)
    assert "rose to 0.3, 30x the highest it had been (0.01" in found["lr-jump"].message


def test_the_jump_is_seen_without_the_scheduler_being_passed():
    guards = _train(lambda o: S.MultiStepLR(o, milestones=[4], gamma=30), pass_it=False)
    assert codes(guards) == ["lr-jump"]


def test_an_lr_multiplied_by_hand_mid_run_is_reported():
    assert codes(_train(None, bump=(6, 50))) == ["lr-jump"]


def test_a_decay_with_gamma_below_one_is_silent():
    assert codes(_train(lambda o: S.MultiStepLR(o, milestones=[4, 8], gamma=0.1))) == []
    assert codes(_train(lambda o: S.StepLR(o, step_size=3, gamma=0.5))) == []


@pytest.mark.parametrize(
    "name,make",
    [
        ("linear warmup 100x", lambda o: S.LinearLR(o, start_factor=0.01, total_iters=60)),
        ("warmup shorter than a read", lambda o: S.LinearLR(o, start_factor=0.01, total_iters=3)),
        (
            "lambda warmup from zero",
            lambda o: S.LambdaLR(o, lambda s: min(1.0, s / 50)),
        ),
        ("constant warmup", lambda o: S.ConstantLR(o, factor=0.01, total_iters=50)),
        ("warm restarts to zero", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=20)),
        ("one cycle", lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=120)),
        ("cyclic", lambda o: S.CyclicLR(o, base_lr=0.001, max_lr=0.1, step_size_up=15)),
        (
            "warmup then decay",
            lambda o: S.SequentialLR(
                o,
                [S.LinearLR(o, 0.01, total_iters=30), S.MultiStepLR(o, [40], gamma=0.1)],
                milestones=[30],
            ),
        ),
    ],
)
def test_schedules_that_raise_the_lr_on_purpose_are_silent(name, make):
    guards = _train(make, per_batch=True)
    assert codes(guards) == [], name
    unpassed = _train(make, per_batch=True, pass_it=False)  # seen from the LR alone
    assert codes(unpassed) == [], name


def test_trainwell_schedules_are_unwrapped():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    schedule = TorchSchedule(S.MultiStepLR(opt, milestones=[4], gamma=30), interval="epoch")
    with (
        pytest.warns(UserWarning, match="lr-grows"),
        watch(model, opt, scheduler=schedule) as guards,
    ):
        pass
    assert codes(guards) == ["lr-grows"]


def test_the_switch_and_ratio_are_config():
    guards = _train(lambda o: S.MultiStepLR(o, milestones=[4], gamma=30))
    assert codes(guards)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = S.MultiStepLR(opt, milestones=[4], gamma=30)
    with watch(model, opt, scheduler=sched, lr_jump=False) as off:
        pass
    assert codes(off) == []
