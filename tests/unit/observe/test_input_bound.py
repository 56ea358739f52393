"""InputBoundDetector: warns once when waiting for data dominates, stays silent otherwise."""

import warnings

import pytest
import torch
from tests.fixtures import random_data
from torch import nn
from torch.utils.data import Dataset

import trainwell as tw
from trainwell.observe.base import FitInfo, StepReport
from trainwell.observe.input_bound import InputBoundDetector, InputBoundWarning


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def info(num_workers=0):
    return FitInfo(
        max_epochs=1,
        steps_per_epoch=100,
        total_steps=100,
        start_epoch=0,
        start_step=0,
        device="cpu",
        precision="fp32",
        num_parameters=1,
        run_dir=None,
        config={"data": {"num_workers": num_workers}},
    )


def feed(detector, clock, waits, *, log_every=10, step_s=0.002, workers=0):
    """Drive ``detector`` with steps of ``step_s`` seconds, one logged interval per wait share."""
    detector.on_fit_start(info(workers))
    step = 0
    for wait in waits:
        for i in range(log_every):
            step += 1
            clock.now += step_s
            logged = {"loss": 1.0, "data_wait": wait} if i == log_every - 1 else None
            report = StepReport(
                step=step,
                epoch=1,
                batch_in_epoch=step,
                loss=torch.zeros(()),
                grad_norm=None,
                lr=0.1,
                stepped=True,
                samples=32,
                data_wait_s=0.0,
                logged=logged,
            )
            detector.on_step_end(report)


def test_warns_once_with_the_numbers_and_what_to_try():
    clock = Clock()
    detector = InputBoundDetector(threshold=0.2, clock=clock)
    with pytest.warns(InputBoundWarning) as caught:
        feed(detector, clock, [0.9, 0.6, 0.7, 0.8, 0.9])
    assert len(caught) == 1
    message = str(caught[0].message)
    # intervals 2 and 3 (the first is skipped): 65% of 2 ms per batch
    assert message.startswith("65% of training time is spent waiting for data")
    assert "(1.3 ms/batch fetch vs 0.7 ms compute" in message
    assert "data.num_workers=auto" in message and "trainwell.data.cache" in message
    finding = detector.finding
    assert finding.intervals == 2
    assert finding.fetch_s == pytest.approx(0.0013) and finding.compute_s == pytest.approx(0.0007)


def test_silent_when_fast_or_when_slow_only_at_start_or_not_in_a_row():
    for waits in (
        [0.01, 0.02, 0.05, 0.01],  # fast
        [0.95, 0.05, 0.05, 0.05],  # worker start-up in the first interval only
        [0.05, 0.5, 0.05, 0.5, 0.05, 0.5],  # spikes, never two in a row
    ):
        clock = Clock()
        detector = InputBoundDetector(clock=clock)
        with warnings.catch_warnings():
            warnings.simplefilter("error", InputBoundWarning)
            feed(detector, clock, waits)
        assert detector.finding is None, waits


def test_counts_micro_batches_across_epochs_and_never_reads_unlogged_steps():
    detector = InputBoundDetector(patience=1, skip=0, clock=Clock())
    detector.on_fit_start(info(num_workers=4))
    for batch_in_epoch in (2, 4, 6, 2, 4):  # accumulation of 2, an epoch ends after 6
        detector.on_step_end(
            StepReport(1, 1, batch_in_epoch, torch.zeros(()), None, 0.1, True, 8, 0.0)
        )
    assert detector._batches == 10
    assert detector.finding is None


def test_advice_names_the_current_worker_count():
    clock = Clock()
    detector = InputBoundDetector(clock=clock)
    with pytest.warns(InputBoundWarning, match=r"more workers \(data.num_workers is 3\)"):
        feed(detector, clock, [0.5, 0.5, 0.5], workers=3)


class CpuBound(Dataset):
    """Real CPU work per item (no sleep): fetching dwarfs the tiny model's step."""

    def __len__(self):
        return 96

    def __getitem__(self, i):
        value = sum(k * k % 7 for k in range(20_000)) % 5
        return torch.full((4,), float(value + i % 3)), i % 2


def run(data, observers, model):
    # One intra-op thread: on a busy 2-core machine a second OpenMP thread spin-waits and
    # inflates a tiny model's step 40-fold, which would blur what the tests compare.
    torch.set_num_threads(1)  # the autouse fixture in tests/conftest.py restores it
    cfg = {
        "run": {"quiet": True, "log_every": 3},
        "data": {"batch_size": 8},
        "train": {"max_epochs": 1},
    }
    return tw.fit(model, data, config=cfg, observers=observers)


def test_fit_on_a_slow_dataset_warns():
    detector = InputBoundDetector()
    with pytest.warns(InputBoundWarning, match="waiting for data"):
        run(CpuBound(), [detector], nn.Linear(4, 2))
    assert detector.finding.wait_share > 0.5


def test_fit_on_in_memory_tensors_with_real_compute_is_silent():
    x, y = random_data(512, features=64, classes=2)
    model = nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.Linear(512, 2))
    detector = InputBoundDetector()
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputBoundWarning)
        run((x, y), [detector], model)
    assert detector._intervals_seen >= 4 and detector.finding is None
