"""No host syncs on the hot path: between the logging interval's reads, a training step of
fit() (guards on or off, fp32 or bf16, with accumulation) and of the guards around a
hand-written loop calls none of the tensor methods that wait for the device.

On CPU nothing waits, so the calls themselves are counted (``item``, ``tolist``, ``__bool__``,
``__float__``, ``__int__``, ``cpu``, ``numpy``); on CUDA `torch.cuda.set_sync_debug_mode`
would raise on a real sync (run there when a GPU is present).
"""

import contextlib
from functools import partial

import pytest
import torch
from tests.fixtures import blobs, mlp
from torch import nn

import trainwell as tw
from trainwell.guards import watch

SYNCING = ("item", "tolist", "__bool__", "__float__", "__int__", "cpu", "numpy")


class SyncCounter:
    """Counts calls of the syncing Tensor methods while ``on``."""

    def __init__(self, monkeypatch):
        self.on, self.calls = False, []
        for name in SYNCING:
            original = getattr(torch.Tensor, name)
            monkeypatch.setattr(torch.Tensor, name, self._counting(name, original))

    def _counting(self, name, original):
        def method(tensor, *args, **kwargs):
            if self.on:
                self.calls.append(name)
            return original(tensor, *args, **kwargs)

        return method


class CountBetween(tw.Observer):
    """Counts syncs from the end of step ``first`` to the end of step ``last`` (all within
    one epoch, away from the guards' reads): the steps in between, whole."""

    def __init__(self, counter, first, last):
        self.counter, self.first, self.last = counter, first, last

    def on_step_end(self, report):
        if report.step == self.first:
            self.counter.on = True
        elif report.step == self.last:
            self.counter.on = False


#: 2048 samples, 16 features, 4 classes; a BatchNorm in the model
data = partial(blobs, 2048, 0, features=16, classes=4, scale=1.0, shift=1.0)
model_fn = partial(mlp, features=16, hidden=32, classes=4, batchnorm=True)


@pytest.mark.cpu_only  # counts the calls themselves, which only means something on CPU
@pytest.mark.parametrize(
    "guards,precision,accumulate",
    [(True, "fp32", 1), (False, "fp32", 1), (True, "bf16", 2), (True, "fp32", 4)],
)
def test_fit_steps_between_reads_do_not_sync(monkeypatch, guards, precision, accumulate):
    counter = SyncCounter(monkeypatch)
    config = {
        "run": {"quiet": True, "log_every": 1000},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 1, "precision": precision, "accumulate_steps": accumulate},
        "guards": {"enabled": guards, "every": 1000},
    }
    steps = 2048 // 16 // accumulate
    first, last = 3, steps - 3  # past the first steps' full checks (and their read)
    probe = CountBetween(counter, first, last)
    tw.fit(model_fn(), data(), config=config, observers=[probe])
    assert counter.calls == [], f"{len(counter.calls)} syncs in {last - first} steps"


@pytest.mark.cpu_only  # counts the calls themselves, which only means something on CPU
def test_the_logging_interval_is_where_fit_syncs(monkeypatch):
    """The counter sees the loop's one read per log interval: the test can fail."""
    counter = SyncCounter(monkeypatch)
    config = {
        "run": {"quiet": True, "log_every": 10},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 1},
        "guards": {"enabled": False},
    }
    tw.fit(model_fn(), data(), config=config, observers=[CountBetween(counter, 5, 45)])
    assert 4 <= len(counter.calls) <= 8  # steps 10, 20, 30, 40: a read or two each


@pytest.mark.cpu_only  # counts the calls themselves, which only means something on CPU
def test_watched_hand_loop_steps_between_reads_do_not_sync(monkeypatch):
    counter = SyncCounter(monkeypatch)
    x, y = data()
    model = model_fn()
    optimizer = tw.build_optimizer(model, lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    with watch(model, optimizer, loss_fn=criterion, every=1000) as guards:
        for step in range(120):
            counter.on = 5 <= step < 115  # past the first steps' full checks
            index = slice(16 * step, 16 * step + 16)
            optimizer.zero_grad(set_to_none=True)
            criterion(model(x[index]), y[index]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        counter.on = False
    assert guards.findings == []
    assert counter.calls == [], f"{len(counter.calls)} syncs: {sorted(set(counter.calls))}"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_no_cuda_sync_in_fit_steps():
    x, y = data()
    config = {
        "run": {"quiet": True, "log_every": 1000, "device": "cuda"},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 1},
        "guards": {"every": 1000},
    }

    class Strict(tw.Observer):
        def on_step_end(self, report):
            if report.step == 3:
                torch.cuda.set_sync_debug_mode("error")
            elif report.step == 120:
                torch.cuda.set_sync_debug_mode("default")

    try:
        tw.fit(model_fn(), (x, y), config=config, observers=[Strict()])
    finally:
        with contextlib.suppress(Exception):
            torch.cuda.set_sync_debug_mode("default")
