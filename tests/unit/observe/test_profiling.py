"""The Profiler observer: one window of steps under torch.profiler, a trace, a table, a summary."""

import json
import time
from functools import partial

import pytest
import torch
from tests.fixtures import mlp, random_data

import trainwell
from trainwell.errors import ConfigError
from trainwell.observe.base import FitInfo, Observer, StepReport
from trainwell.observe.profiler import Profiler, ProfileWindow

CONFIG = {"run": {"quiet": True}, "train": {"max_epochs": 2}, "data": {"batch_size": 16}}


def profiler_enabled() -> bool:
    return bool(
        torch.autograd.profiler._is_profiler_enabled or torch._C._autograd._profiler_enabled()
    )


data = random_data
model = partial(mlp, hidden=8)


class ProfilerState(Observer):
    """Records, at each step's end, whether a profiler is running (after the Profiler's turn)."""

    def __init__(self):
        self.by_step = {}

    def on_step_end(self, report):
        self.by_step[report.step] = profiler_enabled()


class FailAt(Observer):
    def __init__(self, step):
        self.step = step

    def on_step_end(self, report):
        if report.step == self.step:
            raise RuntimeError("boom")


@pytest.mark.cpu_only  # CPU profiler activity: time_kind CPU, aten::mm on top
def test_profiles_the_window_and_writes_trace_table_and_summary(tmp_path):
    lines = []
    profiler = Profiler(
        tmp_path / "prof", ProfileWindow(wait=1, warmup=1, active=2), print_fn=lines.append
    )
    state = ProfilerState()
    result = trainwell.fit(model(), data(), observers=[profiler, state], config=CONFIG)
    assert result.steps == 8

    # profiled only from the end of the wait step to the end of the last active step
    assert state.by_step == {1: False, 2: True, 3: True, 4: False, 5: False, 6: False, 7: False, 8: False}  # fmt: skip
    assert not profiler_enabled() and not profiler.running

    summary = profiler.summary
    assert summary["steps_profiled"] == 2 and summary["steps_planned"] == 2
    assert summary["complete"] is True
    assert (summary["first_step"], summary["last_step"]) == (3, 4)
    assert summary["time_kind"] == "CPU"

    trace = tmp_path / "prof" / "trace-step4.pt.trace.json"
    assert summary["trace"] == str(trace)
    events = json.loads(trace.read_text())["traceEvents"]
    names = {e.get("name") for e in events}
    assert names & {"aten::addmm", "aten::linear"}
    assert {"ProfilerStep#1", "ProfilerStep#2"} <= names  # the two active steps
    assert "ProfilerStep#0" not in names  # the warmup step is not kept

    table = (tmp_path / "prof" / "profile.txt").read_text()
    assert summary["table"] == str(tmp_path / "prof" / "profile.txt")
    assert "Self CPU" in table and "aten::addmm" in table
    assert "2 of 2 active steps recorded (steps 3-4)" in table

    top = summary["top_ops"]
    assert 0 < len(top) <= 15
    for name, self_us, share in top:
        assert isinstance(name, str) and not name.startswith("ProfilerStep")
        assert self_us > 0 and 0 < share <= 1
    assert [t[1] for t in top] == sorted((t[1] for t in top), reverse=True)
    assert sum(t[2] for t in top) + summary["outside_ops_share"] <= 1 + 1e-6
    assert 0 <= summary["data_wait_share"] <= 1

    text = "\n".join(lines)
    assert lines[0] == "profiler: 2 steps recorded (steps 3-4)"
    assert str(trace) in text and "https://ui.perfetto.dev" in text
    assert lines[1] == "  top ops by self CPU time:"
    assert [line.split()[-1] for line in lines[2:7]] == [name.split()[-1] for name, _, _ in top[:5]]
    assert f"{top[0][2]:.1%}" in lines[2]
    assert lines[7].startswith("  outside any operator: ")  # only the top 5 ops are printed
    assert "waiting for data:" in text and "profile.txt" in text


def test_a_run_shorter_than_the_window_writes_what_it_recorded(tmp_path):
    lines = []
    profiler = Profiler(tmp_path, ProfileWindow(wait=1, warmup=1, active=5), print_fn=lines.append)
    config = {**CONFIG, "train": {"max_epochs": 1}}  # 4 steps: only steps 3 and 4 are active
    trainwell.fit(model(), data(), observers=[profiler], config=config)

    assert not profiler_enabled() and not profiler.running
    summary = profiler.summary
    assert summary["steps_profiled"] == 2 and summary["steps_planned"] == 5
    assert summary["complete"] is False
    assert (tmp_path / "trace-step4.pt.trace.json").is_file()
    assert "2 of 5 active steps recorded" in (tmp_path / "profile.txt").read_text()
    assert lines[0].startswith("profiler: only 2 of 5 active steps recorded (steps 3-4)")
    assert "the run ended before the window was complete" in lines[0]
    profiler.close()  # twice is harmless
    assert profiler.summary is summary


def test_a_run_that_ends_during_wait_never_starts_a_profiler_and_says_so(tmp_path, monkeypatch):
    created = []
    real = torch.profiler.profile
    monkeypatch.setattr(
        torch.profiler, "profile", lambda *a, **k: created.append(1) or real(*a, **k)
    )
    lines = []
    profiler = Profiler(tmp_path / "p", ProfileWindow(wait=20), print_fn=lines.append)
    trainwell.fit(model(), data(), observers=[profiler], config=CONFIG)

    assert created == [] and not profiler_enabled()
    assert profiler.summary["steps_profiled"] == 0 and profiler.summary["steps_seen"] == 8
    assert profiler.summary["trace"] is None and profiler.summary["table"] is None
    assert lines == [
        "profiler: the run ended after 8 steps, before any step was recorded "
        "(window: wait 20, warmup 2, active 5 steps); nothing written"
    ]
    assert not (tmp_path / "p").exists()


def test_a_run_that_ends_during_warmup_says_nothing_was_recorded(tmp_path):
    lines = []
    profiler = Profiler(tmp_path, ProfileWindow(wait=2, warmup=6, active=1), print_fn=lines.append)
    trainwell.fit(model(), data(), observers=[profiler], config=CONFIG)

    assert not profiler_enabled()
    assert profiler.summary["steps_profiled"] == 0 and profiler.summary["trace"] is None
    assert profiler.summary["data_wait_share"] is None and profiler.summary["top_ops"] == []
    assert lines == [
        "profiler: the run ended after 8 steps, before any step was recorded "
        "(window: wait 2, warmup 6, active 1 steps); nothing written"
    ]
    assert list(tmp_path.iterdir()) == []


def test_an_error_inside_the_window_stops_the_profiler_and_keeps_the_trace(tmp_path):
    lines = []
    profiler = Profiler(tmp_path, ProfileWindow(wait=1, warmup=1, active=3), print_fn=lines.append)
    with pytest.raises(RuntimeError, match="boom"):
        trainwell.fit(model(), data(), observers=[profiler, FailAt(step=4)], config=CONFIG)

    assert not profiler_enabled() and not profiler.running
    assert profiler.summary["steps_profiled"] == 2  # steps 3 and 4 had ended
    assert (tmp_path / "trace-step4.pt.trace.json").is_file()
    assert "only 2 of 3 active steps recorded" in lines[0]


@pytest.mark.cpu_only  # CPU profiler activity: time_kind CPU, aten::mm on top
def test_data_wait_share_counts_the_active_steps_only(tmp_path):
    """Driven by hand: each step takes ~20 ms; warmup steps say they waited all of it, the
    active ones half of it, so the share is ~0.5 only if warmup is left out."""
    profiler = Profiler(
        tmp_path, ProfileWindow(wait=1, warmup=2, active=3), print_fn=lambda s: None
    )
    info = FitInfo(
        max_epochs=1, steps_per_epoch=10, total_steps=10, start_epoch=0, start_step=0,
        device="cpu", precision="fp32", num_parameters=0, run_dir=None,
    )  # fmt: skip
    profiler.on_fit_start(info)
    x = torch.randn(32, 32)
    for step in range(1, 11):
        (x @ x).sum()
        time.sleep(0.02)
        active = 3 < step <= 6
        report = StepReport(
            step=step, epoch=1, batch_in_epoch=step, loss=torch.tensor(0.0), grad_norm=None,
            lr=0.1, stepped=True, samples=1, data_wait_s=0.01 if active else 0.02,
        )  # fmt: skip
        profiler.on_step_end(report)
        assert profiler.running == (1 <= step < 6)
    profiler.on_fit_end(None)

    summary = profiler.summary
    assert summary["steps_profiled"] == 3 and (summary["first_step"], summary["last_step"]) == (
        4,
        6,
    )
    assert 0.2 < summary["data_wait_share"] <= 0.5
    assert any(name == "aten::mm" for name, _, _ in summary["top_ops"])
    assert not profiler_enabled()


def test_wait_zero_profiles_from_the_first_step(tmp_path):
    profiler = Profiler(
        tmp_path, ProfileWindow(wait=0, warmup=1, active=1), print_fn=lambda s: None
    )
    state = ProfilerState()
    trainwell.fit(model(), data(), observers=[profiler, state], config=CONFIG)
    assert state.by_step[1] is True and state.by_step[2] is False
    assert profiler.summary["steps_profiled"] == 1 and profiler.summary["first_step"] == 2
    assert (tmp_path / "trace-step2.pt.trace.json").is_file()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"wait": -1}, "wait"),
        ({"warmup": -2}, "warmup"),
        ({"active": 0}, "active"),
        ({"active": 1.5}, "active"),
        ({"wait": True}, "wait"),
        ({"warmup": "2"}, "warmup"),
    ],
)
def test_invalid_window_values_name_the_field(kwargs, field):
    with pytest.raises(ConfigError, match=rf"ProfileWindow\.{field} must be an integer >="):
        ProfileWindow(**kwargs)


def test_window_defaults_and_window_type_is_checked(tmp_path):
    assert ProfileWindow() == ProfileWindow(wait=5, warmup=2, active=5)
    assert ProfileWindow(wait=0, warmup=0, active=1).total == 1
    with pytest.raises(ConfigError, match="window must be a ProfileWindow"):
        Profiler(tmp_path, (1, 1, 2))
