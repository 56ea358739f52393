"""The reference loop steps the schedule on the right interval and only on real optimizer steps."""

import contextlib
import math
import warnings
from functools import partial

import pytest
import torch
from tests.fixtures import mlp, random_data
from torch import nn

import trainwell as tw
from trainwell.guards import GuardWarning
from trainwell.parts.schedule import LRSchedule, TorchSchedule
from trainwell.step.evaluation import NonFiniteDataWarning

pytestmark = [
    pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before"),
    pytest.mark.cpu_only,
]  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


_data = partial(random_data, 40, features=5)
_model = partial(mlp, features=5, hidden=8)


def _config(**sections):
    values = {
        "train": {"max_epochs": 3, "accumulate_steps": 4, "clip_norm": None},
        "data": {"batch_size": 4},  # 40 samples -> 10 batches per epoch
        "optim": {"lr": 0.1, "weight_decay": 0.0},
        "run": {"progress": False, "quiet": True},
    }
    for name, section in sections.items():
        values.setdefault(name, {}).update(section)
    return tw.build_config(values)


class RecordingSchedule(LRSchedule):
    def __init__(self, optimizer):
        self.steps, self.epochs, self.evals = [], [], []
        super().__init__(optimizer, lambda step: 1.0 / (1 + step))

    def after_step(self, step):
        self.steps.append(step)
        super().after_step(step)

    def after_epoch(self, epoch):
        self.epochs.append(epoch)

    def after_eval(self, metrics):
        self.evals.append(dict(metrics))


def _warmup_cosine(step, total, warmup, floor):
    if step < warmup:
        return (step + 1) / warmup
    progress = min(1.0, (step - warmup) / (total - warmup))
    return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))


def test_fit_steps_and_warmup_cosine_lr_with_short_last_window():
    cfg = _config(schedule={"name": "warmup_cosine", "warmup_steps": 2, "min_lr_ratio": 0.1})
    result = tw.fit(_model(), _data(), config=cfg)
    assert result.steps == 9  # windows 4, 4, 2 per epoch
    assert result.epochs == 3
    lrs = [r["lr"] for r in result.history]
    assert [r["step"] for r in result.history] == [3, 6, 9]
    # An epoch's record holds the LR its last update used: updates 2, 5 and 8 (0-based).
    expected = [0.1 * _warmup_cosine(s, total=9, warmup=2, floor=0.1) for s in (2, 5, 8)]
    assert lrs == pytest.approx(expected)


def test_fit_lr_after_run_with_max_steps_longer_than_run():
    # max_epochs ends the run at step 9 before max_steps=20, so the schedule spans 9 steps
    # and ends at its floor instead of stopping mid-decay
    cfg = _config(
        train={"max_steps": 20},
        schedule={"name": "warmup_cosine", "warmup_steps": 2, "min_lr_ratio": 0.1},
    )
    model = _model()
    opt = tw.build_optimizer(model, cfg.optim)
    result = tw.fit(model, _data(), config=cfg, optimizer=opt)
    assert result.steps == 9
    assert opt.param_groups[0]["lr"] == pytest.approx(
        0.1 * _warmup_cosine(9, total=9, warmup=2, floor=0.1)
    )
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.1)


def test_fit_calls_after_step_once_per_optimizer_step_and_after_epoch_per_epoch():
    model = _model()
    opt = tw.build_optimizer(model, lr=0.1)
    schedule = RecordingSchedule(opt)
    x, y = _data()
    result = tw.fit(
        model, (x, y), (x[:10], y[:10]), config=_config(), optimizer=opt, schedule=schedule
    )
    assert schedule.steps == [0, *range(1, 10)]  # 0 from construction, then 1..9
    assert schedule.epochs == [1, 2, 3]
    assert len(schedule.evals) == 3
    assert all("val_loss" in m for m in schedule.evals)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 / 10)
    assert result.steps == 9


def test_fit_does_not_advance_schedule_on_skipped_fp16_step():
    model = _model()
    opt = tw.build_optimizer(model, lr=0.1)
    schedule = RecordingSchedule(opt)
    calls = {"n": 0}

    def step_fn(model, batch):
        calls["n"] += 1
        loss = nn.functional.cross_entropy(model(batch[0]), batch[1])
        return loss * float("inf") if calls["n"] == 1 else loss  # poisons the first window

    cfg = _config(train={"precision": "fp16"})
    result = tw.fit(model, _data(), config=cfg, optimizer=opt, schedule=schedule, step_fn=step_fn)
    assert calls["n"] == 30
    assert result.steps == 8
    assert schedule.steps == [0, *range(1, 9)]
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 / 9)


@pytest.mark.parametrize(("interval", "expected_calls"), [("epoch", 3), ("step", 9)])
def test_fit_steps_torch_schedule_on_its_interval(interval, expected_calls):
    model = _model()
    opt = tw.build_optimizer(model, lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    # StepLR(step_size=1) stepped per optimizer step looks like the per-batch bug: warned.
    caught = pytest.warns(GuardWarning, match="scheduler-per-batch")
    with caught if interval == "step" else contextlib.nullcontext():
        tw.fit(
            model,
            _data(),
            config=_config(),
            optimizer=opt,
            schedule=TorchSchedule(scheduler, interval=interval),
        )
    assert scheduler.last_epoch == expected_calls
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**expected_calls)


def _bare(kind, opt):
    S = torch.optim.lr_scheduler
    return {
        "onecycle": lambda: S.OneCycleLR(opt, max_lr=0.1, total_steps=9),
        "cyclic": lambda: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2),
        "cosine_steps": lambda: S.CosineAnnealingLR(opt, T_max=9),
        "cosine_epochs": lambda: S.CosineAnnealingLR(opt, T_max=3),
        "warmup_then_cosine": lambda: S.SequentialLR(
            opt,
            [S.LinearLR(opt, start_factor=0.1, total_iters=2), S.CosineAnnealingLR(opt, T_max=7)],
            milestones=[2],
        ),
    }[kind]()


@pytest.mark.parametrize(
    ("kind", "expected_steps"),
    [
        ("onecycle", 9),
        ("cyclic", 9),
        ("cosine_steps", 9),
        ("cosine_epochs", 3),
        ("warmup_then_cosine", 9),
    ],
)
def test_fit_steps_a_bare_torch_scheduler_on_the_interval_it_means(kind, expected_steps):
    model = _model()
    opt = tw.build_optimizer(model, lr=0.1)
    scheduler = _bare(kind, opt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tw.fit(model, _data(), config=_config(), optimizer=opt, schedule=scheduler)
    assert not [w for w in caught if issubclass(w.category, GuardWarning)]  # stepped right
    assert scheduler.last_epoch == expected_steps


def test_fit_refuses_a_bare_scheduler_whose_interval_is_ambiguous():
    model = _model()
    opt = tw.build_optimizer(model, lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with pytest.raises(tw.ConfigError, match=r"StepLR.*TorchSchedule\(scheduler, interval="):
        tw.fit(model, _data(), config=_config(), optimizer=opt, schedule=scheduler)


def test_fit_reduce_on_plateau_is_fed_val_metric():
    model = _model()
    opt = tw.build_optimizer(model, lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
    seen = []
    original_step = plateau.step
    plateau.step = lambda metric: (seen.append(metric), original_step(metric))[1]
    x, y = _data()
    result = tw.fit(model, (x, y), (x, y), config=_config(), optimizer=opt, schedule=plateau)
    assert seen == pytest.approx([r["val_loss"] for r in result.history])


def test_fit_rejects_a_non_schedule():
    with pytest.raises(tw.ConfigError, match="schedule"):
        tw.fit(_model(), _data(), config=_config(), schedule="cosine")


class StopAfter(tw.Observer):
    """Asks the loop to stop after ``epochs`` epochs: an interrupted run."""

    def __init__(self, epochs):
        self.epochs = epochs

    def on_epoch_end(self, record):
        if record["epoch"] >= self.epochs:
            self.should_stop, self.stop_reason = True, "test interruption"


def test_resumed_run_matches_uninterrupted_run(tmp_path):
    def model():
        return mlp(features=5, hidden=8, dropout=0.2)

    x, y = _data()
    run_dir = str(tmp_path / "run")
    common = {
        "schedule": {"name": "warmup_cosine", "warmup_steps": 3},
        "train": {"accumulate_steps": 3, "max_epochs": 4},
        "run": {"dir": run_dir},
    }
    straight = model()
    full = tw.fit(straight, (x, y), (x[:8], y[:8]), config=_config(**common))

    import shutil

    shutil.rmtree(run_dir)
    first = tw.fit(
        model(), (x, y), (x[:8], y[:8]), config=_config(**common), observers=[StopAfter(2)]
    )
    assert first.epochs == 2 and "test interruption" in first.stop_reason
    resumed_model = model()
    resumed = tw.fit(
        resumed_model,
        (x, y),
        (x[:8], y[:8]),
        config=_config(checkpoint={"resume": "auto"}, **common),
    )
    assert resumed.steps == full.steps == 16  # 4 epochs x windows of 3, 3, 3, 1
    assert resumed.epochs == 4
    assert [r["train_loss"] for r in resumed.history] == pytest.approx(
        [r["train_loss"] for r in full.history]
    )
    assert [r["lr"] for r in resumed.history] == pytest.approx([r["lr"] for r in full.history])
    for a, b in zip(straight.parameters(), resumed_model.parameters()):
        torch.testing.assert_close(a, b)


def test_fit_early_stopping_with_nan_validation_loss_reports_a_reason():
    x, y = _data()
    bad_val = (torch.full((8, 5), float("nan")), y[:8])
    cfg = _config(early_stop={"patience": 1}, train={"accumulate_steps": 1})
    with pytest.warns(NonFiniteDataWarning, match="validation data holds NaN"):
        result = tw.fit(_model(), (x, y), bad_val, config=cfg)
    assert result.epochs == 1
    assert "val_loss" in result.stop_reason
    assert result.best is None


def test_fit_early_stopping_stops_after_patience():
    x, y = _data()
    cfg = _config(early_stop={"patience": 2}, train={"max_epochs": 20}, optim={"lr": 1e-9})
    # lr ~ 0: val_loss never improves by more than min_delta after the first epoch
    cfg = tw.build_config(overrides=["early_stop.min_delta=0.5"], base=cfg)
    result = tw.fit(_model(), (x, y), (x, y), config=cfg)
    assert result.epochs == 3
    assert result.best_epoch == 1
    assert "val_loss" in result.stop_reason


def test_fit_best_checkpoint_is_the_best_epoch(tmp_path):
    x, y = _data()
    # lr so small that AdamW's update vanishes in float32: val_loss is exactly equal every epoch
    cfg = _config(optim={"lr": 1e-30}, train={"max_epochs": 2}, run={"dir": str(tmp_path)})
    result = tw.fit(_model(), (x, y), (x[:8], y[:8]), config=cfg)
    assert result.history[0]["val_loss"] == result.history[1]["val_loss"]
    assert result.best_epoch == 1
    saved = tw.load_checkpoint(result.best_checkpoint)
    assert saved["manifest"]["epoch"] == result.best_epoch
