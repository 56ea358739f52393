"""EMA of the weights (``train.ema_decay``): the average's values, when it moves, what
validation measures, what the model holds after fit(), exact resume, and export."""

from __future__ import annotations

import types
from functools import partial

import pytest
import torch
from tests.fixtures import mlp

import trainwell as tw
from trainwell.parts.ema import EMA, build_ema
from trainwell.state.weights import read_weights

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

X = torch.randn(128, 6, generator=torch.Generator().manual_seed(0))
Y = (X[:, 0] + X[:, 1] > 0).long()


net = partial(mlp, features=6, classes=2, batchnorm=True)


def test_the_average_follows_the_formula_floats_averaged_integers_copied():
    model = net()
    ema = EMA(model, 0.9, warmup=False)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    expected = {k: v.clone().float() for k, v in start.items()}
    for _ in range(3):
        with torch.no_grad():
            for p in model.parameters():
                p.add_(1.0)
        model.train()(X[:32])  # BatchNorm's running statistics and counter move too
        ema.update()
        for name, value in model.state_dict().items():
            if value.is_floating_point():
                expected[name] = 0.9 * expected[name] + 0.1 * value
    for name, value in ema.weights().items():
        if value.is_floating_point():
            torch.testing.assert_close(value, expected[name], rtol=1e-6, atol=1e-6)
    assert ema.weights()["1.num_batches_tracked"] == 3


def test_the_decay_warms_up_from_low_to_the_target():
    ema = EMA(net(), 0.999)
    decays = []
    for _ in range(3):
        decays.append(ema.current_decay())
        ema.update()
    assert decays == pytest.approx([1 / 10, 2 / 11, 3 / 12])
    ema.updates = 100_000
    assert ema.current_decay() == 0.999


def test_only_real_steps_move_it_and_applied_puts_the_model_back_even_on_error():
    model = net()
    ema = EMA(model, 0.5, warmup=False)
    with torch.no_grad():
        model[0].weight.add_(2.0)
    ema.after_step(False)  # GradScaler skipped this step
    assert ema.updates == 0 and not torch.equal(ema.weights()["0.weight"], model[0].weight)
    ema.after_step(True)
    raw = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(RuntimeError, match="inside"), ema.applied():
        assert torch.equal(model[0].weight, ema.weights()["0.weight"])
        raise RuntimeError("inside")
    for name, value in model.state_dict().items():
        assert torch.equal(value, raw[name]), name


def fit(tmp_path, epochs, observers=(), **extra):
    config = {
        "run": {"dir": str(tmp_path), "quiet": True},
        "train": {"max_epochs": epochs, "ema_decay": 0.95},
        "data": {"batch_size": 16},
        **extra,
    }
    model = net()
    result = tw.fit(model, (X, Y), (X, Y), metrics=["accuracy"], config=config, observers=observers)
    return model, result


class StopAfterEpoch(tw.Observer):
    """Stops the run (it saves first) at the end of an epoch, as a preemption would."""

    def __init__(self, epoch):
        self.epoch = epoch

    def on_epoch_end(self, record):
        if record["epoch"] == self.epoch:
            self.should_stop, self.stop_reason = True, "a test stop"


def test_validation_measures_the_average_and_the_model_ends_with_the_best_one(tmp_path):
    model, result = fit(tmp_path, 5)
    assert "EMA" in result.weights
    after = tw.evaluate(model, (X, Y), metrics=["accuracy"])
    assert after["loss"] == pytest.approx(result.best, rel=1e-5)  # monitor: val_loss
    saved = torch.load(result.best_checkpoint, weights_only=True)["state"]
    for name, value in model.state_dict().items():
        assert torch.equal(value, saved["ema"]["weights"][name]), name
    assert not torch.equal(saved["model"]["0.weight"], saved["ema"]["weights"]["0.weight"])


def test_a_resumed_run_continues_the_average_exactly(tmp_path):
    keep_last = {"restore_best": False}
    straight, _ = fit(tmp_path / "straight", 4, monitor=keep_last)
    fit(tmp_path / "cut", 4, [StopAfterEpoch(2)], monitor=keep_last)
    resumed, _ = fit(tmp_path / "cut", 4, monitor=keep_last, checkpoint={"resume": "auto"})
    for name, value in straight.state_dict().items():  # the last averages, both
        assert torch.equal(resumed.state_dict()[name], value), name


def test_export_and_read_weights_choose_the_average_or_the_raw_weights(tmp_path):
    _, result = fit(tmp_path / "ema", 2)
    state = torch.load(result.best_checkpoint, weights_only=True)["state"]
    auto = read_weights(result.best_checkpoint)
    assert torch.equal(auto["0.weight"], state["ema"]["weights"]["0.weight"])
    raw = read_weights(result.best_checkpoint, which="raw")
    assert torch.equal(raw["0.weight"], state["model"]["0.weight"])
    plain = tw.fit(net(), (X, Y), (X, Y), config={"run": {"dir": str(tmp_path / "p"), "quiet": True},
                                               "train": {"max_epochs": 1}})  # fmt: skip
    with pytest.raises(tw.CheckpointError, match="no moving average.*raw"):
        read_weights(plain.best_checkpoint, which="ema")


def test_an_average_of_sharded_weights_is_refused_with_the_way_out():
    fsdp = types.SimpleNamespace(collective_state=True)
    with pytest.raises(tw.ConfigError, match="ema_decay.*fsdp.*ddp"):
        build_ema(0.99, net(), fsdp)
    with pytest.raises(tw.ConfigError, match="between 0 and 1"):
        EMA(net(), 1.0)
