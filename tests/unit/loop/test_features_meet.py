"""Where features meet in one process: a training step_fn and validation, a step of your own
and the config, the strategy seam, and the observers' read-only view of a step."""

import dataclasses
import warnings

import pytest
import torch
from tests.fixtures import blobs, mlp, quiet_config
from torch import nn
from torch.nn import functional as F

import trainwell as tw
from trainwell.config.checks import STRATEGY_NAMES
from trainwell.step import Optimizers, TrainStep
from trainwell.strategy import SingleDevice, registry


def mixup(model, batch):
    """A training-time augmentation: each sample mixed with another, labels mixed alike."""
    x, y = batch
    other = torch.arange(len(x)).flip(0)
    mixed = 0.6 * x + 0.4 * x[other]
    out = model(mixed)
    return 0.6 * F.cross_entropy(out, y) + 0.4 * F.cross_entropy(out, y[other]), out


def test_a_training_step_fn_never_runs_in_validation():
    (x, y), (xv, yv) = blobs(), blobs(seed=1)
    model, modes = mlp(), []

    def step_fn(model, batch):
        modes.append(model.training)
        return mixup(model, batch)

    config = quiet_config(monitor={"restore_best": False})
    result = tw.fit(model, (x, y), (xv, yv), loss=nn.CrossEntropyLoss(), step_fn=step_fn,
                    metrics=["accuracy"], config=config)  # fmt: skip
    assert modes and all(modes)  # called for training only
    direct = tw.evaluate(model, (xv, yv), metrics=["accuracy"])
    assert result.final["val_accuracy"] == pytest.approx(direct["accuracy"])
    assert result.final["val_loss"] == pytest.approx(direct["loss"], rel=1e-6)


def test_a_val_step_fn_is_how_validation_runs_when_given():
    (x, y), (xv, yv) = blobs(), blobs(seed=1)
    model, modes = mlp(), []

    def doubled(model, batch):
        modes.append(model.training)
        out = model(batch[0])
        return 2 * F.cross_entropy(out, batch[1]), out

    config = quiet_config(monitor={"restore_best": False})
    result = tw.fit(model, (x, y), (xv, yv), val_step_fn=doubled, metrics=["accuracy"],
                    config=config)  # fmt: skip
    assert modes and not any(modes)
    direct = tw.evaluate(model, (xv, yv), step_fn=doubled, metrics=["accuracy"])
    assert result.final["val_loss"] == pytest.approx(direct["loss"], rel=1e-6)
    assert result.final["val_loss"] == pytest.approx(2 * tw.evaluate(model, (xv, yv))["loss"])


def test_a_step_fn_without_a_loss_for_validation_says_what_validation_uses():
    with pytest.warns(UserWarning, match=r"plain forward.*loss=.*val_step_fn="):
        tw.fit(mlp(), blobs(), blobs(seed=1), step_fn=mixup,
               config=quiet_config(train={"max_epochs": 1}))  # fmt: skip


def test_a_single_logit_under_cross_entropy_is_an_error_not_a_zero_loss():
    x, y = blobs()
    with pytest.raises(tw.ShapeError, match="MSELoss"):
        tw.fit(nn.Linear(4, 1), (x, y.float()[:, None]), config=quiet_config())


class OwnStep(TrainStep):
    """A supervised step of one's own: cross-entropy through ``self.trained``."""

    def forward_backward(self, window):
        total = None
        for micro in window:
            x, y = self.to_device(micro.batch)
            with self.autocast():
                loss = F.cross_entropy(self.trained(x), y)
            weighted = micro.weigh(loss)
            self.backward(weighted, last=micro.is_last)
            total = weighted.detach() if total is None else total + weighted.detach()
        return total


def own_step(model, **kwargs):
    return OwnStep(model, Optimizers.single(torch.optim.SGD(model.parameters(), lr=0.1)), **kwargs)


def test_a_step_of_your_own_names_the_config_keys_it_cannot_honour():
    model = mlp()
    config = quiet_config(schedule={"name": "constant"}, train={"clip_norm": 3.0, "max_epochs": 1})
    with pytest.warns(UserWarning, match=r"optim\.lr=0\.05.*schedule\.name='constant'.*"
                                         r"train\.clip_norm=3\.0.*are not applied"):  # fmt: skip
        tw.fit(model, blobs(), train_step=own_step(model), config=config)


def test_a_step_of_your_own_with_the_default_config_is_silent():
    model = mlp()
    config = tw.build_config({"run": {"quiet": True}, "train": {"max_epochs": 1}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = tw.fit(model, blobs(), train_step=own_step(model), config=config)
    assert result.steps > 0


class Weights(tw.Observer):
    def __init__(self, model):
        self.model, self.by_epoch = model, {}

    def on_epoch_end(self, record):
        self.by_epoch[record["epoch"]] = {k: v.clone() for k, v in self.model.state_dict().items()}


def test_train_freeze_holds_for_a_step_of_your_own():
    model = mlp()
    start = {k: v.clone() for k, v in model.state_dict().items()}
    weights = Weights(model)
    config = quiet_config(train={"freeze": "0", "freeze_epochs": 1, "max_epochs": 2})
    tw.fit(model, blobs(), train_step=own_step(model), observers=[weights], config=config)
    frozen, trained = weights.by_epoch[1], weights.by_epoch[2]
    assert torch.equal(frozen["0.weight"], start["0.weight"])  # epoch 1: frozen
    assert not torch.equal(frozen["2.weight"], start["2.weight"])  # the head trained
    assert not torch.equal(trained["0.weight"], start["0.weight"])  # epoch 2: unfrozen


@pytest.mark.parametrize("given", ["optimizer", "schedule", "step_fn"])
def test_what_a_step_of_your_own_replaces_is_refused_when_also_given(given):
    model = mlp()
    value = {
        "optimizer": torch.optim.SGD(model.parameters(), lr=0.1),
        "schedule": object(),
        "step_fn": mixup,
    }[given]
    with pytest.raises(tw.ConfigError, match=rf"train_step.*{given}"):
        tw.fit(model, blobs(), train_step=own_step(model), config=quiet_config(), **{given: value})


class CountingStrategy(SingleDevice):
    def __init__(self, device="cpu"):
        super().__init__(device)
        self.prepared = 0

    def prepare(self, model):
        self.prepared += 1
        return super().prepare(model)


def test_fit_trains_on_the_strategy_it_is_given_and_builds_no_other():
    model, strategy = mlp(), CountingStrategy()
    step = own_step(model)
    tw.fit(model, blobs(), train_step=step, strategy=strategy, config=quiet_config())
    assert strategy.prepared == 1
    assert step.strategy is strategy


def test_a_step_built_with_a_strategy_of_its_own_is_refused():
    model = mlp()
    step = own_step(model, strategy=SingleDevice("cpu"))
    with pytest.raises(tw.ConfigError, match=r"fit\(strategy=\.\.\.\)"):
        tw.fit(model, blobs(), train_step=step, config=quiet_config())


def test_a_strategy_that_is_not_one_is_refused_naming_the_base_class():
    with pytest.raises(tw.ConfigError, match="BaseStrategy"):
        tw.fit(mlp(), blobs(), strategy="ddp", config=quiet_config())


def test_a_registered_strategy_is_a_name_the_config_takes():
    built = []

    def factory(device, options):
        built.append(CountingStrategy(tw.choose_device(device)))
        return built[-1]

    try:
        registry.register_strategy("counting", factory)
        with pytest.raises(tw.ConfigError, match="did you mean 'counting'"):
            quiet_config(run={"strategy": "countin"})
        tw.fit(mlp(), blobs(), config=quiet_config(run={"strategy": "counting"}))
    finally:
        registry.STRATEGIES.pop("counting", None)
        STRATEGY_NAMES.discard("counting")
    assert len(built) == 1 and built[0].prepared == 1


class ReadOnly(tw.Observer):
    def __init__(self):
        self.checked = 0

    def on_step_end(self, report):
        with pytest.raises(dataclasses.FrozenInstanceError):
            report.loss = torch.zeros(())
        assert isinstance(report.window, tuple)
        self.checked += 1


def test_observers_see_a_frozen_report_of_each_step():
    observer = ReadOnly()
    result = tw.fit(mlp(), blobs(), observers=[observer], config=quiet_config())
    assert observer.checked == result.steps > 0


class WholeStep(OwnStep):
    """The old way: the whole step in ``__call__``, around TrainStep's policies."""

    def __call__(self, window, steps_done):
        return super().__call__(window, steps_done)


def test_a_step_that_replaces_call_is_told_what_it_skips():
    model = mlp()
    with pytest.warns(UserWarning, match=r"overrides TrainStep.__call__.*forward_backward"):
        tw.fit(model, blobs(), train_step=WholeStep(model, Optimizers.single(
            torch.optim.SGD(model.parameters(), lr=0.1))), config=quiet_config())  # fmt: skip
