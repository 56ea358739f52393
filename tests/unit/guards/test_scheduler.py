"""Scheduler stepped on the wrong interval or without an optimizer step."""

import pytest
import torch
from tests.fixtures import Net, batches
from torch import nn
from torch.optim import lr_scheduler as S

from trainwell.guards import watch
from trainwell.guards.scheduler import interval_of
from trainwell.parts.schedule import LRSchedule, PlateauSchedule, TorchSchedule, warmup_cosine

from .helpers import codes, warns


def _train(epochs, per_batch_scheduler, scheduler_first=False, steps=10, **kw):
    """``epochs`` of ``steps`` batches, stepping the scheduler after every batch."""
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = per_batch_scheduler(opt)
    crit = nn.CrossEntropyLoss()
    data = batches(steps)
    with watch(model, opt, scheduler=sched, **kw) as guards:
        for _ in range(epochs):
            for x, y in data:
                opt.zero_grad()
                crit(model(x), y).backward()
                if scheduler_first:
                    sched.step()
                opt.step()
                if not scheduler_first:
                    sched.step()
    return guards, sched


@pytest.mark.parametrize(
    "make",
    [
        lambda o: S.StepLR(o, step_size=5),
        lambda o: S.MultiStepLR(o, milestones=[3, 6]),
        lambda o: S.CosineAnnealingLR(o, T_max=8),
        lambda o: S.ExponentialLR(o, gamma=0.5),
    ],
    ids=["StepLR", "MultiStepLR", "CosineAnnealingLR", "ExponentialLR"],
)
def test_epoch_scheduler_stepped_per_batch_is_found(make):
    with warns("scheduler-per-batch"):
        guards, _ = _train(2, make, steps=12)
    assert codes(guards) == ["scheduler-per-batch"]
    assert "once per epoch" in guards.findings[0].fix


@pytest.mark.parametrize("steps_per_epoch", [None, 10])
def test_cosine_with_t_max_in_steps_stepped_per_batch_is_silent(steps_per_epoch):
    guards, _ = _train(
        2, lambda o: S.CosineAnnealingLR(o, T_max=20), steps=10, steps_per_epoch=steps_per_epoch
    )
    assert guards.findings == []


def _per_epoch(make, epochs=3, steps=12):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = make(opt)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, scheduler=sched) as guards:
        for _ in range(epochs):
            for x, y in batches(steps):
                opt.zero_grad()
                crit(model(x), y).backward()
                opt.step()
            sched.step()
    return guards


@pytest.mark.parametrize(
    "make",
    [
        lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=36),
        lambda o: S.LambdaLR(o, lambda s: min(1.0, (s + 1) / 100) * max(0.0, 1 - s / 5000)),
    ],
    ids=["OneCycleLR", "LambdaLR-warmup"],
)
def test_step_scheduler_stepped_per_epoch_is_found(make):
    with warns("scheduler-per-epoch"):
        guards = _per_epoch(make)
    assert codes(guards) == ["scheduler-per-epoch"]


def test_epoch_scheduler_stepped_per_epoch_is_silent():
    assert _per_epoch(lambda o: S.StepLR(o, step_size=2)).findings == []


@pytest.mark.filterwarnings(
    "ignore:Detected call of `lr_scheduler.step\\(\\)`:UserWarning"
)  # torch's
def test_scheduler_before_the_optimizer_step_is_found():
    with warns("scheduler-without-step"):
        guards, _ = _train(1, lambda o: S.StepLR(o, step_size=50), scheduler_first=True, steps=3)
    assert codes(guards) == ["scheduler-without-step"]
    assert "before the optimizer's first step" in guards.findings[0].message


def test_scheduler_stepped_after_a_gradscaler_skip_is_found():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = S.LambdaLR(opt, lambda s: 1.0)
    scaler = torch.amp.GradScaler("cpu")
    crit = nn.CrossEntropyLoss()
    with (
        warns("scheduler-without-step"),
        watch(model, opt, scheduler=sched, scaler=scaler) as guards,
    ):
        for i, (x, y) in enumerate(batches(4)):
            opt.zero_grad()
            loss = crit(model(x), y) * (float("inf") if i == 2 else 1.0)  # step 2 overflows
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            sched.step()  # planted: also after the skipped step
    assert codes(guards) == ["scheduler-without-step"]
    assert "GradScaler skipped" in guards.findings[0].message


def test_interval_classification():
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
    assert interval_of(S.OneCycleLR(opt, max_lr=1, total_steps=10), 1000) == "step"
    assert interval_of(S.StepLR(opt, 30), 1000) == "epoch"
    assert interval_of(S.StepLR(opt, 30_000), 1000) == "step"
    assert interval_of(S.ReduceLROnPlateau(opt), 1000) is None
    assert interval_of(S.LambdaLR(opt, lambda s: 1.0), 1000) is None
    assert interval_of(S.LinearLR(opt, total_iters=5), 1000) is None  # a short warmup: either
    assert interval_of(S.CosineAnnealingLR(opt, T_max=20), 1000, steps_per_epoch=30) == "epoch"
    assert interval_of(S.CosineAnnealingLR(opt, T_max=460), 1000, steps_per_epoch=23) is None


def _hand_loop(make, epochs=3, steps=12, *, per_step=True, **kw):
    """A hand loop driving a trainwell schedule ``make(optimizer)`` through its moments."""
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    schedule = make(opt)
    crit = nn.CrossEntropyLoss()
    step = 0
    with watch(model, opt, scheduler=schedule, **kw) as guards:
        for epoch in range(epochs):
            for x, y in batches(steps):
                opt.zero_grad()
                crit(model(x), y).backward()
                opt.step()
                step += 1
                if per_step:
                    schedule.after_step(step)
            if not per_step:
                schedule.after_step(step)  # planted where it matters: once per epoch
            schedule.after_epoch(epoch)
            schedule.after_eval({"val_loss": 1.0 / (epoch + 1)})
    return guards


@pytest.mark.parametrize(
    "make,interval,code",
    [
        (lambda o: S.StepLR(o, step_size=5), "step", "scheduler-per-batch"),
        (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=36), "epoch", "scheduler-per-epoch"),
    ],
    ids=["StepLR-declared-step", "OneCycleLR-declared-epoch"],
)
def test_a_torch_schedule_declared_with_the_wrong_interval_is_found(make, interval, code):
    with warns(code):
        guards = _hand_loop(lambda o: TorchSchedule(make(o), interval=interval))
    assert codes(guards) == [code]
    finding = guards.findings[0]
    assert finding.where in ("StepLR", "OneCycleLR")  # named as for the bare scheduler
    assert f"interval={'epoch' if interval == 'step' else 'step'!r}" in finding.fix


def test_a_torch_schedule_declared_wrong_is_found_at_start_when_steps_per_epoch_are_known():
    def make(o):
        return TorchSchedule(S.CosineAnnealingLR(o, T_max=3), interval="step")

    with warns("scheduler-per-batch"):
        guards = _hand_loop(make, epochs=1, steps=2, steps_per_epoch=12)
    assert codes(guards) == ["scheduler-per-batch"] and guards.findings[0].step == 0


@pytest.mark.parametrize(
    "make,interval",
    [
        (lambda o: S.StepLR(o, step_size=2), "epoch"),
        (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=36), "step"),
        (lambda o: S.LambdaLR(o, lambda s: min(1.0, (s + 1) / 20)), "step"),
        (lambda o: S.ReduceLROnPlateau(o), "epoch"),
    ],
    ids=["StepLR", "OneCycleLR", "LambdaLR-warmup", "ReduceLROnPlateau"],
)
def test_a_torch_schedule_declared_right_is_silent(make, interval):
    guards = _hand_loop(lambda o: TorchSchedule(make(o), interval=interval), steps_per_epoch=12)
    assert guards.findings == []


def _warmup_cosine(o):
    return LRSchedule(o, lambda s: warmup_cosine(s, total_steps=36, warmup_steps=6))


def test_an_lr_schedule_applied_once_per_epoch_is_found():
    with warns("scheduler-per-epoch"):
        guards = _hand_loop(_warmup_cosine, per_step=False)
    assert codes(guards) == ["scheduler-per-epoch"]
    assert guards.findings[0].where == "LRSchedule"
    assert "after_step(step) after every optimizer.step()" in guards.findings[0].fix


@pytest.mark.parametrize(
    "make",
    [
        _warmup_cosine,
        lambda o: PlateauSchedule(o, patience=1, warmup_steps=6),  # re-applied after an eval
        lambda o: LRSchedule(o, lambda s: 1.0),
    ],
    ids=["warmup-cosine", "plateau-with-warmup", "constant"],
)
def test_an_lr_schedule_applied_after_every_step_is_silent(make):
    assert _hand_loop(make).findings == []


def test_a_constant_lr_schedule_applied_once_per_epoch_is_silent():
    assert _hand_loop(lambda o: LRSchedule(o, lambda s: 1.0), per_step=False).findings == []


def test_a_lambda_decaying_per_epoch_to_nothing_counts_epochs_not_steps():
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
    assert interval_of(S.LambdaLR(opt, lambda e: 0.98**e), 1000) is None  # spent long before
    assert _per_epoch(lambda o: S.LambdaLR(o, lambda e: 0.98**e)).findings == []
