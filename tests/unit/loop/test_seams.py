"""The seams of fit(): stateful observers saved and resumed, the strategy's rank reaching the
loader, foreign loaders that cannot resume exactly saying so, and the run's length."""

import warnings
from functools import partial

import pytest
import torch
from tests.fixtures import mlp, quiet_config
from tests.fixtures import separated_blobs as blobs

import trainwell as tw
from trainwell.loop.builders import build_loader
from trainwell.loop.observers import stateful_observers
from trainwell.loop.run_state import Counters, RunLength
from trainwell.observe.base import Observer
from trainwell.parts.accumulation import Accumulation
from trainwell.strategy.single import SingleDevice

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

model_fn = mlp
cfg = partial(quiet_config, lr=0.02)


class StepCounter(Observer):
    """A user's observer with state: the steps it has seen and the sum of their step numbers."""

    def __init__(self):
        self.seen = 0
        self.total = 0

    def on_step_end(self, report):
        self.seen += 1
        self.total += report.step

    def state_dict(self):
        return {"seen": self.seen, "total": self.total}

    def load_state_dict(self, state):
        self.seen, self.total = state["seen"], state["total"]


def test_a_stateful_observer_is_saved_and_resumed_with_the_run(tmp_path):
    x, y = blobs()  # 4 steps per epoch
    straight = StepCounter()
    tw.fit(model_fn(), (x, y), config=cfg(), observers=[straight])
    assert straight.seen == 12

    run = {"dir": str(tmp_path)}
    first = StepCounter()
    tw.fit(model_fn(), (x, y), config=cfg(run=run, train={"max_epochs": 2}), observers=[first])
    assert first.seen == 8
    resumed = StepCounter()  # a fresh object: its state comes from the checkpoint
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the changed max_epochs is reported; not the point here
        tw.fit(
            model_fn(),
            (x, y),
            config=cfg(run=run, checkpoint={"resume": "auto"}),
            observers=[resumed],
        )
    assert (resumed.seen, resumed.total) == (straight.seen, straight.total)


def test_stateful_observers_are_named_by_class_and_only_those_with_state():
    a, b, plain = StepCounter(), StepCounter(), Observer()
    named = stateful_observers([a, plain, b])
    assert named == {"observer.StepCounter": a, "observer.StepCounter.2": b}


@pytest.mark.filterwarnings("ignore:resuming .* with a different config")
def test_a_checkpoint_without_an_observers_state_is_a_clear_error(tmp_path):
    x, y = blobs()
    run = {"dir": str(tmp_path)}
    tw.fit(model_fn(), (x, y), config=cfg(run=run, train={"max_epochs": 1}))
    with pytest.raises(tw.CheckpointError, match="observer.StepCounter"):
        tw.fit(
            model_fn(),
            (x, y),
            config=cfg(run=run, checkpoint={"resume": "auto"}),
            observers=[StepCounter()],
        )


class FakeRank(SingleDevice):
    """One process that says it is rank 1 of 2: what a distributed strategy tells the loader."""

    rank, world_size = 1, 2


def test_the_loader_takes_rank_and_world_size_from_the_strategy():
    x, y = blobs(64)
    config = cfg(data={"batch_size": 8, "shuffle": False})
    whole = build_loader((x, y), config, SingleDevice("cpu"), train=True)
    shard = build_loader((x, y), config, FakeRank("cpu"), train=True)
    assert len(shard) == len(whole) // 2
    seen = torch.cat([xb for xb, _ in shard])
    everything = torch.cat([xb for xb, _ in whole])
    # rank 1 sees half of the samples, none of them twice
    assert len(seen) == len(everything) // 2
    assert len({tuple(r.tolist()) for r in seen}) == len(seen)
    assert all(any(torch.equal(r, e) for e in everything) for r in seen)


class ForeignLoader:
    """A user's own batch iterable with a length and no way to be told the epoch."""

    def __init__(self, x, y, batch):
        self.x, self.y, self.batch = x, y, batch

    def __len__(self):
        return len(self.x) // self.batch

    def __iter__(self):
        order = torch.randperm(len(self.x))
        for i in range(len(self)):
            index = order[i * self.batch : (i + 1) * self.batch]
            yield self.x[index], self.y[index]


@pytest.mark.filterwarnings("ignore:resuming .* with a different config")
def test_resuming_mid_epoch_on_a_foreign_loader_says_it_is_not_exact(tmp_path):
    x, y = blobs()
    run = {"dir": str(tmp_path)}
    tw.fit(model_fn(), ForeignLoader(x, y, 40), config=cfg(run=run, train={"max_steps": 3}))
    with pytest.warns(UserWarning, match=r"resuming mid-epoch \(batch 3\) on a ForeignLoader"):
        tw.fit(
            model_fn(),
            ForeignLoader(x, y, 40),
            config=cfg(run=run, train={"max_steps": 6}, checkpoint={"resume": "auto"}),
        )


def test_resuming_mid_epoch_on_trainwells_loader_is_silent(tmp_path):
    x, y = blobs()
    run = {"dir": str(tmp_path)}
    tw.fit(model_fn(), (x, y), config=cfg(run=run, train={"max_steps": 2}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tw.fit(
            model_fn(),
            (x, y),
            config=cfg(run=run, train={"max_steps": 5}, checkpoint={"resume": "auto"}),
        )
    assert not [w for w in caught if "mid-epoch" in str(w.message)]


@pytest.mark.parametrize(
    "max_steps,batches_done,whole,epoch",
    [
        (100, 10, True, 1),  # the epoch ran to its end
        (5, 5, False, 1),  # max_steps cut it short: a partial epoch, resumed later
        (10, 10, True, 1),  # max_steps reached exactly at the epoch's end
    ],
)
def test_counters_end_an_epoch_whole_or_partial(max_steps, batches_done, whole, epoch):
    length = RunLength(batches_per_epoch=10, steps_per_epoch=10, max_epochs=3, max_steps=max_steps)
    counters = Counters(step=batches_done, batch_in_epoch=batches_done)
    record = counters.end_epoch(length, {"train_loss": 0.5})
    assert record["epoch"] == epoch and record["train_loss"] == 0.5
    assert record.get("partial", False) is not whole
    assert counters.epoch == (1 if whole else 0)
    assert counters.batch_in_epoch == (0 if whole else batches_done)


def test_run_length_is_whichever_limit_comes_first():
    x, y = blobs()  # 240 samples, batch 64 -> 4 batches -> 2 steps an epoch with accumulation 2
    loader = build_loader((x, y), cfg(), SingleDevice("cpu"), train=True)
    by_epochs = RunLength.of(cfg(train={"max_epochs": 3}), loader, Accumulation(2))
    assert (by_epochs.steps_per_epoch, by_epochs.max_steps) == (2, 6)
    by_steps = RunLength.of(cfg(train={"max_epochs": 3, "max_steps": 5}), loader, Accumulation(2))
    assert by_steps.max_steps == 5


def test_the_summary_says_when_the_monitored_metric_was_never_measured():
    x, y = blobs()
    result = tw.fit(model_fn(), (x, y), config=cfg(train={"max_epochs": 1}))  # no validation
    assert "no best val_loss: the run never measured it" in result.describe()
    assert "finite" not in result.describe()
