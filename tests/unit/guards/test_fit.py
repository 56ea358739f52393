"""The guards in fit(): the observer reports, and asks to stop (healthy recipes staying silent:
tests/system/healthy/test_recipes.py).

fit() does not create the guards yet, so these pass `for_fit(...)` as an observer to the real
fit(), and drive it from a small loop that calls the parts in fit()'s order.
"""

import io
import json

import pytest
import torch
from tests.fixtures import Net, batches
from torch import nn

import trainwell as tw
from trainwell.config.guards import GuardsConfig
from trainwell.guards import for_fit
from trainwell.guards.grad_norm import GradNormGuard
from trainwell.observe.base import FitInfo, StepReport
from trainwell.parts.accumulation import Accumulation
from trainwell.parts.clipping import Clipping
from trainwell.parts.schedule import TorchSchedule

from .helpers import codes, warns

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


def test_fit_reports_a_planted_bug_and_a_mis_declared_scheduler():
    class SoftmaxNet(Net):
        def forward(self, x):
            return super().forward(x).softmax(1)  # planted: softmax before CrossEntropyLoss

    model = SoftmaxNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    schedule = TorchSchedule(torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=20))
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    cfg = {"run": {"quiet": True}, "train": {"max_epochs": 2}, "data": {"batch_size": 16}}
    with warns("scheduler-per-epoch", "softmax-into-cross-entropy"):
        result = tw.fit(
            model,
            (x, y),
            loss=nn.CrossEntropyLoss(),
            config=cfg,
            optimizer=opt,
            schedule=schedule,
        )
    assert codes(result) == ["scheduler-per-epoch", "softmax-into-cross-entropy"]
    assert "TorchSchedule(scheduler, interval='step')" in result.findings[0].fix


def test_fit_writes_findings_as_data_to_summary_and_metrics_log(tmp_path):
    class SoftmaxNet(Net):
        def forward(self, x):
            return super().forward(x).softmax(1)  # planted: softmax before CrossEntropyLoss

    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    config = {"run": {"quiet": True, "dir": str(tmp_path)}, "train": {"max_epochs": 2}}
    with warns("softmax-into-cross-entropy"):
        tw.fit(SoftmaxNet(), (x, y), loss=nn.CrossEntropyLoss(), config=config)
    summary = json.loads((tmp_path / "summary.json").read_text())
    (finding,) = summary["guard_findings"]
    assert finding["code"] == "softmax-into-cross-entropy" and finding["step"] == 0
    assert finding["source"].split(":")[0].endswith("test_fit.py")
    assert finding["where"] and finding["why"] and finding["fix"] and finding["switch"]
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    kinds = [r["kind"] for r in records]
    logged = records[kinds.index("finding")]  # logged when found: before any epoch record
    assert kinds.index("finding") < kinds.index("epoch")
    assert {k: logged[k] for k in finding} == finding


class _Poison(Net):
    def __init__(self, bad_from):
        super().__init__()
        self.bad_from, self.calls = bad_from, 0

    def forward(self, x):
        self.calls += 1
        out = super().forward(x)
        return out * float("nan") if self.calls > self.bad_from else out


def _fit_order(model, precision, *, config, accumulate=2, windows=12):
    """fit()'s calls, in fit()'s order, around the observer."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    observer = for_fit(
        model,
        opt,
        loss_fn=crit,
        schedule=None,
        precision=precision,
        accumulate_steps=accumulate,
        config=config,
    )
    observer.on_fit_start(FitInfo(1, windows, windows, 0, 0, "cpu", precision.mode, 0, None))
    clipping, step, ended = Clipping(1.0), 0, 0
    try:
        for window in Accumulation(accumulate).windows(batches(windows * accumulate)):
            opt.zero_grad(set_to_none=True)
            for micro in window:
                with precision.autocast():
                    loss = crit(model(micro.batch[0]), micro.batch[1])
                precision.backward(micro.weigh(loss))
            precision.unscale_(opt)
            norm = clipping(list(model.parameters()))
            stepped = precision.step(opt)
            step += stepped
            report = StepReport(step, 1, 0, loss.detach(), norm, 0.1, stepped, 16, 0.0)
            observer.on_step_end(report)
            ended += 1
            if observer.should_stop:
                break
    finally:
        observer.close()  # fit() closes its observers even when a step fails
    return observer, ended


def test_fit_observer_asks_to_stop_on_nonfinite_gradients():
    with warns("nonfinite-grad"):
        observer, ended = _fit_order(
            _Poison(bad_from=6), tw.Precision("fp32"), config=GuardsConfig(every=4)
        )
    assert codes(observer) == ["nonfinite-grad"]
    assert observer.should_stop and "non-finite" in observer.stop_reason
    assert ended == 5  # window 4 went bad (micro-batch 7); read at the sampled step 4


def test_fit_observer_with_fp16_stops_after_consecutive_scaler_skips():
    with warns("nonfinite-skips"):
        observer, ended = _fit_order(
            _Poison(bad_from=4),
            tw.Precision("fp16", "cpu"),
            config=GuardsConfig(max_consecutive_skips=4),
        )
    assert codes(observer) == ["nonfinite-skips"]
    assert observer.should_stop and ended == 6  # 2 good windows, then 4 skipped


def test_fit_observer_healthy_order_is_silent():
    observer, ended = _fit_order(
        Net(batchnorm=True, dropout=True), tw.Precision("bf16", "cpu"), config=GuardsConfig(every=2)
    )
    assert observer.findings == [] and not observer.should_stop and ended == 12


def test_for_fit_disabled_is_a_plain_observer():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    observer = for_fit(
        model,
        opt,
        loss_fn=None,
        schedule=None,
        precision=None,
        accumulate_steps=1,
        config=GuardsConfig(enabled=False),
    )
    assert not model._forward_hooks and observer.findings == []
    observer.close()


def test_fit_guards_state_round_trips_for_resume():
    def run(state=None):
        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        observer = for_fit(
            model,
            opt,
            loss_fn=nn.CrossEntropyLoss(),
            schedule=None,
            precision=tw.Precision("fp32"),
            accumulate_steps=1,
            config=GuardsConfig(every=1),
        )
        if state is not None:
            observer.load_state_dict(state)
        try:
            for x, y in batches(3):
                nn.functional.cross_entropy(model(x), y).backward()  # planted: never zeroed
                opt.step()
        finally:
            observer.close()
        return observer

    with warns("grad-not-zeroed"):
        first = run()
    state = first.state_dict()
    assert codes(first) == ["grad-not-zeroed"] and state["grad_norm_ema"]
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    state = torch.load(buffer, weights_only=True)  # plain values only: safe to load
    resumed = run(state)
    assert resumed.findings == []  # already reported before the restart
    readings = resumed.watch.guard(GradNormGuard).readings
    assert readings == {k: v + 3 for k, v in state["grad_norm_readings"].items()}


@pytest.mark.filterwarnings("ignore:not saving step:UserWarning")  # the checkpointer's: expected
def test_real_fit_stops_on_nan_gradients_and_keeps_the_last_good_checkpoint(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    state = {"calls": 0}

    def poison(grad):  # from the 10th backward on, layer 0's weight gradient is NaN
        state["calls"] += 1
        return grad * float("nan") if state["calls"] >= 10 else grad

    model[0].weight.register_hook(poison)
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    cfg = {
        "run": {"quiet": True, "dir": str(tmp_path)},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 10},
        "guards": {"every": 4},
        "checkpoint": {"min_interval_s": 0},  # a checkpoint at each epoch, the good ones kept
    }
    with warns("nonfinite-grad"):
        result = tw.fit(model, (x, y), config=cfg)
    assert [f.code for f in result.findings] == ["nonfinite-grad"]
    assert result.findings[0].where == "0"  # names the module whose gradient went bad
    assert 10 <= result.steps <= 10 + 4  # step 10 went bad; the guard reads every 4 steps
    assert (
        result.stop_reason.startswith("stopped by FitGuards") and "non-finite" in result.stop_reason
    )
    newest = tw.load_checkpoint(tmp_path / "checkpoints" / "last.pt")
    assert newest["manifest"]["step"] == 8  # epoch 2's checkpoint; later weights hold NaN
    assert all(torch.isfinite(t).all() for t in newest["state"]["model"].values())


@pytest.mark.parametrize("impl", ["auto", "foreach"])  # auto picks the fused AdamW on CPU
def test_real_fit_fp16_stops_after_consecutive_skips_with_fused_and_unfused_optimizers(impl):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))

    def nan_loss(model, batch):
        x, y = batch
        return nn.functional.cross_entropy(model(x), y) * float("nan")

    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    cfg = {
        "run": {"quiet": True},
        "data": {"batch_size": 8},
        "train": {"max_epochs": 5, "precision": "fp16"},
        "optim": {"impl": impl},
        "guards": {"max_consecutive_skips": 5},
    }
    with warns("nonfinite-skips"):
        result = tw.fit(model, (x, y), config=cfg, step_fn=nan_loss)
    assert [f.code for f in result.findings] == ["nonfinite-skips"]
    assert result.steps == 0  # every step was skipped by the scaler
    assert "5 optimizer steps in a row were skipped" in result.findings[0].message
    assert result.stop_reason.startswith("stopped by FitGuards")


def test_real_fit_names_the_input_batch_when_the_nan_is_in_the_data():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    x[37, 2] = float("nan")  # planted: one bad value in one training sample
    cfg = {
        "run": {"quiet": True},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 3},
        "guards": {"every": 4, "nonfinite": "stop"},
    }
    with warns("nonfinite-input"):
        result = tw.fit(model, (x, y), config=cfg)
    assert [f.code for f in result.findings] == ["nonfinite-input"]
    finding = result.findings[0]
    assert finding.where == "input 0" and 0 <= finding.step < 4  # sample 37's epoch-1 batch
    assert f"input batch of step {finding.step}" in finding.message and "(16, 4)" in finding.message
    assert f"epoch 1, batch {finding.step + 1}" in finding.message
    assert "non-finite" in result.stop_reason and "input" in result.stop_reason


def _nan_at(steps):
    """A step_fn whose loss is NaN on the given (0-based) calls: their gradients are all NaN."""
    calls = {"n": 0}

    def step_fn(model, batch):
        x, y = batch
        loss = nn.functional.cross_entropy(model(x), y)
        bad = calls["n"] in steps
        calls["n"] += 1
        return loss * float("nan") if bad else loss

    return step_fn


@pytest.mark.parametrize("exact", [False, True])
def test_real_fit_skip_step_drops_the_bad_updates_in_the_step_and_trains_on(exact):
    """guards.nonfinite=skip_step in fit(): the step itself (TrainStep.drop_if_nonfinite, a
    visible call) keeps a NaN update from the weights; the run goes on and reports it."""
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    cfg = {
        "run": {"quiet": True},
        "data": {"batch_size": 16, "shuffle": False},
        "train": {"max_epochs": 2},
        "optim": {"name": "sgd", "lr": 0.1, "momentum": 0.0, "weight_decay": 0.0},
        "schedule": {"name": "constant"},
        "guards": {"every": 4, "nonfinite": "skip_step", "skip_exact": exact},
    }
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    snapshots = []

    class Weights(tw.Observer):
        def on_step_end(self, report):
            snapshots.append([p.detach().clone() for p in model.parameters()])

    with warns("nonfinite-grad"):
        result = tw.fit(model, (x, y), config=cfg, step_fn=_nan_at({2, 5}), observers=[Weights()])
    assert result.steps == 8 and not result.stopped_by_guard  # two bad steps: not a stop
    assert [f.code for f in result.findings] == ["nonfinite-grad"]
    for bad in (2, 5):  # plain SGD: a dropped update leaves every weight exactly as it was
        assert all(torch.equal(a, b) for a, b in zip(snapshots[bad - 1], snapshots[bad]))
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert not all(torch.equal(a, b) for a, b in zip(snapshots[2], snapshots[3]))  # trains on
