"""BestTracker and EarlyStopping: monitor, mode, patience, min_delta, NaN, state round trip."""

import math

import pytest

import trainwell as tw


def test_best_tracker_min():
    t = tw.BestTracker("val_loss", "min")
    assert t.update({"val_loss": 1.0}, step=10, epoch=1) is True
    assert t.update({"val_loss": 1.5}, step=20, epoch=2) is False
    assert t.update({"val_loss": 1.0}, step=30, epoch=3) is False  # equal is not better
    assert t.update({"val_loss": 0.5}, step=40, epoch=4) is True
    assert (t.best, t.best_step, t.best_epoch) == (0.5, 40, 4)


def test_best_tracker_max():
    t = tw.BestTracker("val_accuracy", "max")
    assert t.update({"val_accuracy": 0.5, "val_loss": 3.0}, step=1, epoch=1)
    assert not t.update({"val_accuracy": 0.4, "val_loss": 0.1}, step=2, epoch=2)
    assert t.update({"val_accuracy": 0.7}, step=3, epoch=3)
    assert t.best == 0.7 and t.best_epoch == 3


def test_nan_is_never_best():
    t = tw.BestTracker("val_loss", "min")
    assert t.update({"val_loss": math.nan}, step=1, epoch=1) is False
    assert t.best is None
    assert t.update({"val_loss": 2.0}, step=2, epoch=2) is True
    assert t.update({"val_loss": math.nan}, step=3, epoch=3) is False
    assert t.best == 2.0
    m = tw.BestTracker("acc", "max")
    m.update({"acc": 0.1}, step=1, epoch=1)
    assert m.update({"acc": math.nan}, step=2, epoch=2) is False
    assert m.best == 0.1


def test_unknown_monitor_is_config_error_naming_available_metrics():
    t = tw.BestTracker("val_acc", "max")
    with pytest.raises(tw.ConfigError) as info:
        t.update({"val_loss": 1.0, "val_accuracy": 0.5}, step=1, epoch=1)
    message = str(info.value)
    assert "val_acc" in message and "val_loss" in message and "val_accuracy" in message
    es = tw.EarlyStopping("nope")
    with pytest.raises(tw.ConfigError, match="val_loss"):
        es.update({"val_loss": 1.0})


def test_bad_mode_is_config_error():
    with pytest.raises(tw.ConfigError, match="mode"):
        tw.BestTracker("val_loss", "lowest")


def test_best_tracker_state_round_trip():
    t = tw.BestTracker("val_loss", "min")
    t.update({"val_loss": 0.3}, step=7, epoch=2)
    u = tw.BestTracker("val_loss", "min")
    u.load_state_dict(t.state_dict())
    assert (u.best, u.best_step, u.best_epoch) == (0.3, 7, 2)
    assert u.update({"val_loss": 0.4}, step=8, epoch=3) is False
    assert u.update({"val_loss": 0.2}, step=9, epoch=4) is True


def test_early_stopping_patience_min():
    es = tw.EarlyStopping("val_loss", "min", patience=2)
    assert es.update({"val_loss": 1.0}) is False
    assert es.update({"val_loss": 1.1}) is False  # 1 bad
    assert es.update({"val_loss": 0.9}) is False  # improvement resets
    assert es.num_bad == 0
    assert es.update({"val_loss": 0.95}) is False
    assert es.update({"val_loss": 0.9}) is True  # 2 bad (equal is not better)
    assert es.should_stop
    assert "val_loss" in es.reason and "2" in es.reason


def test_early_stopping_mode_max_and_min_delta():
    es = tw.EarlyStopping("acc", "max", patience=2, min_delta=0.05)
    es.update({"acc": 0.50}, epoch=1)
    assert es.update({"acc": 0.54}, epoch=2) is False  # +0.04 < min_delta: bad
    assert es.num_bad == 1
    assert es.update({"acc": 0.56}, epoch=3) is False  # +0.06 over 0.50: good
    assert es.num_bad == 0 and es.tracker.best == 0.56 and es.tracker.best_epoch == 3
    assert es.update({"acc": 0.60}, epoch=4) is False  # +0.04: bad
    assert es.update({"acc": 0.605}, epoch=5) is True  # +0.045: second bad evaluation
    assert es.tracker.best == 0.56


def test_early_stopping_nan_counts_as_bad():
    es = tw.EarlyStopping("val_loss", patience=2)
    es.update({"val_loss": 1.0})
    assert es.update({"val_loss": math.nan}) is False
    assert es.update({"val_loss": math.nan}) is True
    assert es.tracker.best == 1.0


def test_early_stopping_reason_when_every_value_was_nan():
    es = tw.EarlyStopping("val_loss", patience=1)
    assert es.update({"val_loss": math.nan}) is True
    assert "val_loss" in es.reason


def test_early_stopping_state_round_trip():
    es = tw.EarlyStopping("val_loss", patience=3)
    for v in (1.0, 0.8, 0.9, 0.85):
        es.update({"val_loss": v}, step=1, epoch=1)
    state = es.state_dict()
    assert state["num_bad"] == 2
    fresh = tw.EarlyStopping("val_loss", patience=3)
    fresh.load_state_dict(state)
    assert fresh.tracker.best == 0.8 and fresh.num_bad == 2 and not fresh.should_stop
    assert (
        fresh.update({"val_loss": 0.81}) is True
    )  # the third bad evaluation, counted across the resume
    stopped = tw.EarlyStopping("val_loss", patience=2)
    stopped.load_state_dict(state)
    assert stopped.should_stop


def test_one_monitor_defines_better_for_tracking_plateau_and_retention():
    import math

    import pytest

    from trainwell.config.sections import MonitorConfig
    from trainwell.errors import ConfigError

    lower, higher = MonitorConfig("val_loss", "min"), MonitorConfig("val_acc", "max")
    assert lower.improved(0.4, 0.5) and not lower.improved(0.5, 0.5)  # a tie is no better
    assert higher.improved(0.9, 0.8) and not higher.improved(0.8, 0.9)
    assert not lower.improved(math.nan, None) and lower.improved(math.inf, None)
    assert not lower.improved(0.45, 0.5, min_delta=0.1) and lower.improved(0.3, 0.5, min_delta=0.1)
    assert not lower.improved(0.99, 1.0, rel=0.05) and lower.improved(0.9, 1.0, rel=0.05)
    assert sorted([0.3, 0.1, 0.2], key=higher.rank_key) == [0.3, 0.2, 0.1]
    with pytest.raises(ConfigError, match="'min' or 'max'"):
        MonitorConfig("val_loss", "largest")
    with pytest.raises(ConfigError, match="val_f1"):
        lower.value_of({"val_f1": 0.5})
