"""``train.max_time``: the run saves and stops when its time is up, says why, and a resume
goes on exactly; the value is validated. The clock is replaced by one that ticks a second at
each read, so the stop is at a known step."""

import json

import pytest
import torch
from tests.fixtures import blobs, mlp, quiet_config

import trainwell as tw
from trainwell.loop import stops
from trainwell.loop.stops import TimeLimit

DATA, VAL = blobs(240), blobs(60, seed=1)


class TickingClock:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _fit(run_dir, resume=None, **train):
    model = mlp()
    cfg = quiet_config(
        max_epochs=4,
        run={"device": "cpu", "dir": str(run_dir)},
        data={"batch_size": 32},  # 8 steps per epoch, 32 in all
        train=train,
        monitor={"restore_best": False},
        checkpoint={"resume": resume},
    )
    return model, tw.fit(model, DATA, VAL, config=cfg)


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("2h", 7200.0), ("90m", 5400.0), ("45s", 45.0), ("1h30m", 5400.0), (30, 30.0), ("12.5", 12.5)],
)
def test_durations_are_read_in_seconds(written, seconds):
    cfg = tw.build_config({"train": {"max_time": written}})
    assert TimeLimit(cfg.train.max_time).seconds == seconds


@pytest.mark.parametrize("written", ["2x", "h", "1h30", "-5", 0, ""])
def test_a_bad_duration_is_one_line_naming_the_key_and_an_example(written):
    with pytest.raises(tw.ConfigError) as info:
        tw.build_config({"train": {"max_time": written}})
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("train.max_time=") and "not a positive duration" in message
    assert "2h" in message  # an example of what to write


@pytest.mark.filterwarnings("error:resuming")  # max_time is no change of what is computed
def test_time_up_saves_stops_says_why_and_resume_auto_goes_on_exactly(tmp_path, monkeypatch):
    straight_model, straight = _fit(tmp_path / "straight")

    monkeypatch.setattr(stops, "_now", TickingClock())
    _, cut = _fit(tmp_path / "cut", max_time="10s")
    assert cut.stop_reason == "time limit reached: train.max_time=10s (10s)"
    assert 0 < cut.steps < straight.steps  # cut short, at a step boundary
    assert cut.saves[-1].step == cut.steps  # and saved there
    summary = json.loads((tmp_path / "cut" / "summary.json").read_text())
    assert summary["stop_reason"].startswith("time limit reached")
    assert "# resume it: your fit() call" in cut.describe()  # fit() from Python: its Python call

    monkeypatch.setattr(stops, "_now", stops.time.monotonic)
    resumed_model, resumed = _fit(tmp_path / "cut", resume="auto")
    assert resumed.steps == straight.steps
    assert resumed.stop_reason == "reached train.max_epochs=4"
    for a, b in zip(straight_model.parameters(), resumed_model.parameters(), strict=True):
        assert torch.equal(a, b)  # the run that was cut and resumed is the run that was not


def test_no_limit_never_stops():
    limit = TimeLimit(None, clock=TickingClock())
    assert all(limit.reason() is None for _ in range(100))
    limit = TimeLimit("3s", clock=TickingClock())
    assert [limit.reason() is None for _ in range(3)] == [True, True, False]
