"""Schedules: exact LR values, totals derived by build_schedule, plateau, TorchSchedule."""

import math

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.config.sections import ScheduleConfig
from trainwell.parts.schedule import LRSchedule, PlateauSchedule, TorchSchedule, build_schedule

# These tests step torch schedulers without optimizer steps in between, on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")

LR = 0.5


def _optimizer(lr=LR, groups=1):
    params = [{"params": [nn.Parameter(torch.zeros(1))], "lr": lr * (i + 1)} for i in range(groups)]
    return torch.optim.SGD(params, lr=lr)


def _lr_at(name, step, *, steps_per_epoch=10, total_steps=100, **cfg):
    opt = _optimizer()
    schedule = build_schedule(
        opt,
        ScheduleConfig(name=name, **cfg),
        steps_per_epoch=steps_per_epoch,
        total_steps=total_steps,
    )
    schedule.after_step(step)
    return opt.param_groups[0]["lr"]


@pytest.mark.parametrize(
    ("step", "factor"),
    [
        (0, 0.1),
        (4, 0.5),
        (9, 1.0),
        (10, 1.0),
        (55, 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 45 / 90))),
        (100, 0.1),
        (150, 0.1),
    ],
)
def test_warmup_cosine_values(step, factor):
    lr = _lr_at("warmup_cosine", step, total_steps=100, warmup_steps=10, min_lr_ratio=0.1)
    assert lr == pytest.approx(LR * factor, rel=1e-12)


def test_schedule_sets_factor_zero_at_construction():
    opt = _optimizer()
    build_schedule(opt, ScheduleConfig(warmup_steps=10), steps_per_epoch=10, total_steps=100)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * 0.1)
    assert opt.param_groups[0]["base_lr"] == LR


def test_schedule_scales_every_group_by_its_base_lr():
    opt = _optimizer(groups=3)
    sched = build_schedule(opt, ScheduleConfig(warmup_steps=4), steps_per_epoch=1, total_steps=10)
    sched.after_step(1)
    assert [g["lr"] for g in opt.param_groups] == pytest.approx(
        [LR * 0.5, 2 * LR * 0.5, 3 * LR * 0.5]
    )
    assert sched.lr == pytest.approx(3 * LR * 0.5)


@pytest.mark.parametrize(("step", "factor"), [(0, 0.25), (2, 0.75), (3, 1.0), (1000, 1.0)])
def test_constant_with_warmup(step, factor):
    assert _lr_at("constant", step, warmup_steps=4) == pytest.approx(LR * factor)


def test_constant_without_warmup_is_flat():
    assert [_lr_at("constant", s) for s in (0, 50, 500)] == [LR, LR, LR]


@pytest.mark.parametrize(
    ("step", "factor"), [(0, 0.1), (9, 1.0), (10, 1.0), (55, 0.5), (100, 0.0), (120, 0.0)]
)
def test_warmup_linear(step, factor):
    assert _lr_at("warmup_linear", step, warmup_steps=10) == pytest.approx(LR * factor, abs=1e-12)


def test_warmup_linear_floor():
    assert _lr_at("warmup_linear", 100, warmup_steps=10, min_lr_ratio=0.2) == pytest.approx(
        LR * 0.2
    )
    assert _lr_at("warmup_linear", 55, warmup_steps=10, min_lr_ratio=0.2) == pytest.approx(LR * 0.6)


@pytest.mark.parametrize(
    ("step", "factor"),
    [
        (0, 1 / 25),
        (15, 1 / 25 + (1 - 1 / 25) * 0.5),
        (30, 1.0),
        (65, (1 / 25 / 1e4) + (1 - 1 / 25 / 1e4) * 0.5),
        (100, 1 / 25 / 1e4),
    ],
)
def test_one_cycle(step, factor):
    assert _lr_at("one_cycle", step, total_steps=100, pct_start=0.3) == pytest.approx(LR * factor)


@pytest.mark.parametrize(
    ("step", "factor"), [(0, 1.0), (19, 1.0), (20, 0.1), (39, 0.1), (40, 0.01)]
)
def test_step_decay_in_epochs(step, factor):
    # steps_per_epoch=10, step_size=2 epochs -> decay every 20 steps
    assert _lr_at("step", step, steps_per_epoch=10, step_size=2, gamma=0.1) == pytest.approx(
        LR * factor
    )


@pytest.mark.parametrize(
    ("step", "factor"), [(0, 1.0), (14, 1.0), (15, 0.5), (24, 0.5), (25, 0.25), (99, 0.25)]
)
def test_multistep_in_epochs(step, factor):
    # steps_per_epoch=5, milestones at epochs 3 and 5
    lr = _lr_at("multistep", step, steps_per_epoch=5, milestones=(3, 5), gamma=0.5)
    assert lr == pytest.approx(LR * factor)


@pytest.mark.parametrize(("step", "factor"), [(0, 1.0), (3, 1.0), (4, 0.9), (8, 0.81), (13, 0.729)])
def test_exponential_per_epoch(step, factor):
    assert _lr_at("exponential", step, steps_per_epoch=4, gamma=0.9) == pytest.approx(LR * factor)


@pytest.mark.parametrize(
    ("step", "factor"),
    [
        (0, 1.0),
        (5, 0.5),  # half of the first 10-step cycle
        (10, 1.0),  # restart; the second cycle lasts 20 steps
        (20, 0.5),
        (30, 1.0),  # second restart
    ],
)
def test_cosine_restarts(step, factor):
    lr = _lr_at("cosine_restarts", step, steps_per_epoch=5, cycle_epochs=2, cycle_mult=2)
    assert lr == pytest.approx(LR * factor)


def test_cosine_restarts_floor():
    lr = _lr_at("cosine_restarts", 5, steps_per_epoch=5, cycle_epochs=2, min_lr_ratio=0.2)
    assert lr == pytest.approx(LR * (0.2 + 0.8 * 0.5))


def test_build_schedule_derives_warmup_from_ratio_and_total():
    opt = _optimizer()
    sched = build_schedule(opt, ScheduleConfig(warmup_ratio=0.1), steps_per_epoch=5, total_steps=50)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * 1 / 5)  # 5 warmup steps
    sched.after_step(4)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR)
    sched.after_step(50)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.0, abs=1e-15)
    sched.after_step(27)  # halfway through the 45-step decay
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * 0.5 * (1 + math.cos(math.pi * 22 / 45)))


def test_warmup_steps_win_over_ratio():
    opt = _optimizer()
    build_schedule(
        opt, ScheduleConfig(warmup_steps=2, warmup_ratio=0.5), steps_per_epoch=1, total_steps=100
    )
    assert opt.param_groups[0]["lr"] == pytest.approx(LR / 2)


def test_unknown_schedule_name_is_config_error():
    with pytest.raises(tw.ConfigError, match="bogus"):
        build_schedule(
            _optimizer(), ScheduleConfig(name="bogus"), steps_per_epoch=1, total_steps=10
        )


def test_pure_schedules_have_empty_state():
    sched = build_schedule(_optimizer(), ScheduleConfig(), steps_per_epoch=1, total_steps=10)
    assert isinstance(sched, LRSchedule)
    assert sched.state_dict() == {}


# --------------------------------------------------------------------------- plateau


def _plateau(**kw):
    opt = _optimizer()
    sched = build_schedule(
        opt,
        ScheduleConfig(name="plateau", plateau_patience=2, plateau_factor=0.5, **kw),
        steps_per_epoch=10,
        total_steps=100,
        monitor="val_loss",
        mode="min",
    )
    return opt, sched


def test_plateau_reduces_after_patience_bad_evaluations():
    opt, sched = _plateau()
    assert isinstance(sched, PlateauSchedule)
    lrs = []
    for value in [1.0, 0.9, 0.95, 0.9, 0.8, 0.85, 0.85]:
        sched.after_eval({"val_loss": value})
        lrs.append(opt.param_groups[0]["lr"])
    # bad evals: 0.95, 0.9 (not better than 0.9) -> reduce; 0.8 better; 0.85, 0.85 -> reduce
    assert lrs == pytest.approx([LR, LR, LR, LR / 2, LR / 2, LR / 2, LR / 4])
    sched.after_step(5)  # per-step updates keep the reduced scale
    assert opt.param_groups[0]["lr"] == pytest.approx(LR / 4)


def test_plateau_mode_max():
    opt = _optimizer()
    sched = PlateauSchedule(opt, monitor="val_acc", mode="max", patience=1, factor=0.1)
    sched.after_eval({"val_acc": 0.5})
    sched.after_eval({"val_acc": 0.6})
    assert opt.param_groups[0]["lr"] == pytest.approx(LR)
    sched.after_eval({"val_acc": 0.55})
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * 0.1)


def test_plateau_threshold_is_relative():
    opt = _optimizer()
    sched = PlateauSchedule(opt, patience=1, factor=0.5, threshold=0.1)
    sched.after_eval({"val_loss": 1.0})
    sched.after_eval({"val_loss": 0.95})  # only 5% better: not an improvement
    assert opt.param_groups[0]["lr"] == pytest.approx(LR / 2)
    sched.after_eval({"val_loss": 0.85})  # 15% better than best 1.0
    assert sched.best == 0.85
    assert opt.param_groups[0]["lr"] == pytest.approx(LR / 2)


def test_plateau_with_warmup():
    opt, sched = _plateau(warmup_steps=4)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR / 4)
    sched.after_step(3)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR)


def test_plateau_state_round_trip():
    opt, sched = _plateau()
    for value in [1.0, 1.0, 1.0, 1.1]:
        sched.after_eval({"val_loss": value})
    state = sched.state_dict()
    assert state == {"scale": 0.5, "best": 1.0, "num_bad": 1}

    opt2, sched2 = _plateau()
    sched2.load_state_dict(state)
    sched2.after_step(7)
    assert opt2.param_groups[0]["lr"] == pytest.approx(LR / 2)
    # both continue identically: one more bad evaluation reduces again
    for s in (sched, sched2):
        s.after_eval({"val_loss": 1.2})
    assert opt.param_groups[0]["lr"] == opt2.param_groups[0]["lr"] == pytest.approx(LR / 4)


def test_plateau_unknown_monitor_is_config_error_naming_metrics():
    _, sched = _plateau()
    with pytest.raises(tw.ConfigError, match="val_accuracy"):
        sched.after_eval({"val_accuracy": 0.3, "epoch": 1})


def test_plateau_nan_is_never_best():
    opt = _optimizer()
    sched = PlateauSchedule(opt, patience=1, factor=0.5)
    sched.after_eval({"val_loss": float("nan")})
    sched.after_eval({"val_loss": 1.0})
    sched.after_eval({"val_loss": 0.5})
    sched.after_eval({"val_loss": 0.25})
    assert sched.best == 0.25
    assert opt.param_groups[0]["lr"] == pytest.approx(LR / 2)  # only the NaN eval was bad


# --------------------------------------------------------------------------- TorchSchedule


def test_torch_schedule_step_interval():
    opt = _optimizer()
    sched = TorchSchedule(
        torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5), interval="step"
    )
    sched.after_step(1)
    sched.after_step(2)
    sched.after_epoch(1)
    sched.after_eval({"val_loss": 1.0})
    assert sched.lr == pytest.approx(LR / 4)
    assert sched.scheduler.last_epoch == 2


def test_torch_schedule_epoch_interval():
    opt = _optimizer()
    sched = TorchSchedule(
        torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5), interval="epoch"
    )
    for s in range(1, 6):
        sched.after_step(s)
    assert sched.lr == pytest.approx(LR)
    sched.after_epoch(1)
    assert sched.lr == pytest.approx(LR / 2)


def test_torch_schedule_reduce_on_plateau_uses_monitor():
    opt = _optimizer()
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=0, factor=0.1)
    sched = TorchSchedule(plateau, monitor="val_acc")
    sched.after_step(1)
    sched.after_epoch(1)
    sched.after_eval({"val_acc": 0.5, "val_loss": 9.0})
    sched.after_eval({"val_acc": 0.6, "val_loss": 0.0})
    assert sched.lr == pytest.approx(LR)
    sched.after_eval({"val_acc": 0.4, "val_loss": 0.0})
    assert sched.lr == pytest.approx(LR * 0.1)


def test_torch_schedule_state_round_trip():
    opt = _optimizer()
    sched = TorchSchedule(
        torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5), interval="epoch"
    )
    for e in range(3):
        sched.after_epoch(e + 1)
    state = sched.state_dict()
    opt2 = _optimizer()
    sched2 = TorchSchedule(
        torch.optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.5), interval="epoch"
    )
    opt2.load_state_dict(opt.state_dict())  # a checkpoint restores the optimizer's LRs too
    sched2.load_state_dict(state)
    assert sched2.scheduler.last_epoch == 3
    sched.after_epoch(4)
    sched2.after_epoch(4)
    assert sched.lr == pytest.approx(LR / 4)
    assert sched2.lr == pytest.approx(LR / 4)


def test_torch_schedule_bad_interval_is_config_error():
    sched = torch.optim.lr_scheduler.StepLR(_optimizer(), step_size=1)
    with pytest.raises(tw.ConfigError, match="batch"):
        TorchSchedule(sched, interval="batch")


def test_torch_plateau_unknown_monitor_is_config_error():
    opt = _optimizer()
    sched = TorchSchedule(torch.optim.lr_scheduler.ReduceLROnPlateau(opt), monitor="val_acc")
    with pytest.raises(tw.ConfigError, match="val_accuracy"):
        sched.after_eval({"val_loss": 1.0, "val_accuracy": 0.5})


def test_plateau_reduction_during_warmup_keeps_the_warmup():
    opt, sched = _plateau(warmup_steps=10)
    sched.after_step(1)  # warmup factor 2/10
    for value in [1.0, 1.0, 1.0]:  # two bad evaluations: reduce by half
        sched.after_eval({"val_loss": value})
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * 0.2 * 0.5)


def test_fit_takes_any_object_with_the_schedule_moments_and_names_them_otherwise():
    import pytest
    import torch
    from torch import nn

    import trainwell as tw
    from trainwell.errors import ConfigError

    class HalveEachEpoch:
        def __init__(self, optimizer):
            self.optimizer, self.epochs, self.steps = optimizer, 0, 0

        def after_step(self, step):
            self.steps = step

        def after_epoch(self, epoch):
            self.epochs = epoch
            for group in self.optimizer.param_groups:
                group["lr"] *= 0.5

        def after_eval(self, metrics):
            pass

        @property
        def lr(self):
            return self.optimizer.param_groups[0]["lr"]

        def state_dict(self):
            return {}

        def load_state_dict(self, state):
            pass

    model = nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.8)
    schedule = HalveEachEpoch(opt)
    data = (torch.randn(32, 4), torch.randint(0, 3, (32,)))
    config = {"run": {"quiet": True}, "train": {"max_epochs": 3}, "data": {"batch_size": 8}}
    tw.fit(model, data, optimizer=opt, schedule=schedule, config=config)
    assert (schedule.epochs, schedule.steps) == (3, 12)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    with pytest.raises(ConfigError, match="after_step, after_epoch, after_eval"):
        tw.fit(model, data, optimizer=opt, schedule=object(), config=config)
