"""When the guards look: structural checks back off after the first cycles, value checks run
every cycle, and fit() reads at validation only when the losses are not finite."""

import pytest
import torch
from tests.fixtures import Net, batches, random_data
from torch import nn

import trainwell as tw
from trainwell.guards import NonFiniteError, watch
from trainwell.guards.base import structure_cycle
from trainwell.guards.watcher import Watch

from .helpers import codes, warns
from .test_nonfinite import Poisoned


def test_structural_cycles_are_the_first_powers_of_two_then_every_nth():
    picked = [c for c in range(70) if structure_cycle(c, 16)]
    assert picked == [0, 1, 2, 4, 8, 16, 32, 48, 64]
    assert [c for c in range(10) if structure_cycle(c, 4)] == [0, 1, 2, 4, 8]
    assert all(structure_cycle(c, 1) for c in range(40))  # 1: every cycle


class LateSoftmax(nn.Module):
    """Returns logits until ``softmax_from`` optimizer steps, then probabilities (the bug)."""

    def __init__(self, softmax_from: int) -> None:
        super().__init__()
        self.net = Net()
        self.softmax_from = softmax_from
        self.steps = 0

    def forward(self, x):
        out = self.net(x)
        return out.softmax(1) if self.steps >= self.softmax_from else out


def _late_softmax_run(start: int, steps: int, **config) -> Watch:
    model = LateSoftmax(start)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    crit = nn.CrossEntropyLoss()
    data = batches(8)
    with watch(model, opt, loss_fn=crit, every=10, **config) as guards:
        for step in range(steps):
            x, y = data[step % len(data)]
            opt.zero_grad()
            crit(model(x), y).backward()
            opt.step()
            model.steps += 1
    return guards


def test_a_structural_bug_that_begins_late_is_found_at_the_next_structural_cycle():
    # cycles of 10 steps; structural ones: 0, 1, 2, 4, 8, 16 (steps 160..), 32 (steps 320..)
    with warns("softmax-into-cross-entropy"):
        guards = _late_softmax_run(start=175, steps=330)
    assert codes(guards) == ["softmax-into-cross-entropy"]
    assert guards.findings[0].step == 320


def test_structure_every_1_checks_every_cycle():
    with warns("softmax-into-cross-entropy"):
        guards = _late_softmax_run(start=175, steps=200, structure_every=1)
    assert [f.step for f in guards.findings] == [180]


def test_a_value_bug_that_begins_late_is_found_in_its_own_cycle_with_its_step():
    model = Poisoned()
    model.poison_at = {357}  # a lean cycle (35): no structural checks there
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    done = 0
    data = batches(8)
    guards = watch(model, opt, loss_fn=crit, every=10)
    with warns("nonfinite-grad"), pytest.raises(NonFiniteError), guards:
        for step in range(400):
            x, y = data[step % len(data)]
            opt.zero_grad()
            crit(model(x), y).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)  # its norms: every layer's
            opt.step()
            done += 1
    finding = guards.findings[0]
    assert finding.code == "nonfinite-grad" and finding.where == "middle"
    assert finding.step == 357 and done == 360  # read after step 360: the first after 357


def _fit(model, data, *, guards=None, log_every=1000, epochs=3, observers=(), loss=None):
    config = {
        "run": {"quiet": True, "log_every": log_every},
        "train": {"max_epochs": epochs, "clip_norm": None},
        "schedule": {"name": "constant"},
        "data": {"batch_size": 16, "shuffle": False},
        "guards": guards or {},
    }
    x, y = data
    return tw.fit(model, (x, y), (x, y), config=config, observers=list(observers), loss=loss)


def test_fit_reads_at_validation_only_when_the_losses_are_not_finite(monkeypatch):
    reads = []
    original = Watch.read
    monkeypatch.setattr(Watch, "read", lambda self: (reads.append(self.ctx.steps), original(self)))
    data = random_data(64)
    result = _fit(Net(), data, guards={"every": 1000}, epochs=5)  # 4 steps an epoch
    assert result.findings == []
    # after step 1 (the cadence: every 1000 steps from the first) and at the end; not at
    # each of the 5 validations, whose losses were finite
    assert reads == [1, 20]


def test_fit_reads_before_the_checkpoint_when_validation_is_not_finite(monkeypatch):
    reads = []
    original = Watch.read
    monkeypatch.setattr(Watch, "read", lambda self: (reads.append(self.ctx.steps), original(self)))

    class PoisonedInTraining(Poisoned):  # counts training forwards only
        def forward(self, x):
            if not self.training:
                on, self.poison_at = self.poison_at, set()
                try:
                    return super().forward(x)
                finally:
                    self.calls -= 1
                    self.poison_at = on
            return super().forward(x)

    model = PoisonedInTraining()
    model.poison_at = {5}  # the 6th training forward: step 5, in epoch 2 (4 steps each)
    data = random_data(64)
    with warns("nonfinite-grad"):
        result = _fit(model, data, guards={"every": 1000}, epochs=5)
    assert codes(result) == ["nonfinite-grad"] and result.findings[0].step == 5
    assert reads[:2] == [1, 8]  # the validation after epoch 2 read, and the run stopped there
    assert "non-finite" in result.stop_reason or "nan" in result.stop_reason.lower()


def test_fit_follows_the_loss_without_a_hook_on_the_loss_module():
    class NoLossHooks(tw.Observer):
        def on_step_end(self, report):
            assert not crit._forward_hooks and not crit._forward_pre_hooks

    crit = nn.CrossEntropyLoss()
    data = random_data(64)
    result = _fit(Net(), data, observers=[NoLossHooks()], loss=crit)
    assert result.findings == []


def test_fit_hooks_the_model_forward_only_in_the_armed_windows():
    seen = []

    class Hooks(tw.Observer):
        def on_step_end(self, report):
            seen.append((report.step, bool(model._forward_hooks)))

    model = Net()
    data = random_data(64)
    result = _fit(model, data, guards={"every": 10}, epochs=6, observers=[Hooks()])
    assert result.findings == [] and not model._forward_hooks  # removed at the end
    hooked = [step for step, on in seen if on]
    # after step s the next window's table is in place: hooked for steps 0-2 of each cycle
    assert hooked == [s for s in range(1, 25) if s % 10 in (0, 1, 2)]


@pytest.mark.parametrize("target", ["class", "regression"])
def test_fit_names_a_nan_input_batch_between_the_windows(target):
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    if target == "class":
        model, loss = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)), None
        y = torch.randint(0, 3, (64,))
        x[44, 1] = float("nan")  # batch 5 of epoch 1 (8 samples each, no shuffle): step 5
        where = "input 0"
    else:
        model, loss = nn.Linear(4, 1), nn.MSELoss()
        y = torch.randn(64, 1)
        y[44, 0] = float("nan")  # the target of step 5: no forward ever sees it
        where = "batch[1]"
    config = {
        "run": {"quiet": True},
        "data": {"batch_size": 8, "shuffle": False},
        "train": {"max_epochs": 2},
        "guards": {"every": 100, "nonfinite": "stop"},
    }
    with warns("nonfinite-input"):
        result = tw.fit(model, (x, y), config=config, loss=loss)
    finding = result.findings[0]
    assert codes(result) == ["nonfinite-input"] and finding.where == where
    assert finding.step == 5 and "epoch 1, batch 6" in finding.message


def test_fit_reads_after_a_sampled_step_at_the_loops_next_log(monkeypatch):
    """A read syncs a GPU: after the first step's checks fit() reads at once, then each
    sampled step's read waits for the loop's next log (where the loop syncs anyway)."""
    reads = []
    original = Watch.read
    monkeypatch.setattr(Watch, "read", lambda self: (reads.append(self.ctx.steps), original(self)))
    result = _fit(Net(), random_data(64), guards={"every": 10}, log_every=7, epochs=10)
    assert result.findings == [] and result.steps == 40
    # sampled steps end at 1, 11, 21, 31; the logs fall on 7, 14, 21, 28, 35; the end at 40
    assert reads == [1, 14, 21, 35, 40]


def test_fit_reads_right_after_a_sampled_step_when_it_logs_rarer_than_that(monkeypatch):
    reads = []
    original = Watch.read
    monkeypatch.setattr(Watch, "read", lambda self: (reads.append(self.ctx.steps), original(self)))
    _fit(Net(), random_data(64), guards={"every": 10}, log_every=15, epochs=10)
    assert reads == [1, 11, 21, 31, 40]
