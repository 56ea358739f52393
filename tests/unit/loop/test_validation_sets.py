"""Several validation sets: ``fit(val_data={"clean": ..., "noisy": ...})`` validates each, logs
``val_<set>_<metric>``, and the monitor names one of them (default: the first set's loss)."""

import json

import pytest
import torch
from tests.fixtures import blobs, mlp, quiet_config

import trainwell as tw

TRAIN = blobs(240)
CLEAN = blobs(120, seed=1)
NOISY = blobs(90, seed=2, scale=3.0)


def _fit(tmp_path=None, *, sets=None, epochs=3, **sections):
    sections.setdefault("run", {}).update(device="cpu")
    if tmp_path is not None:
        sections["run"]["dir"] = str(tmp_path)
    model = mlp()
    result = tw.fit(
        model,
        TRAIN,
        sets if sets is not None else {"clean": CLEAN, "noisy": NOISY},
        metrics=["accuracy"],
        config=quiet_config(max_epochs=epochs, data={"batch_size": 32}, **sections),
    )
    return model, result


def test_each_set_gets_its_own_metrics_equal_to_evaluate_on_it(tmp_path):
    model, result = _fit(tmp_path, monitor={"restore_best": False})  # the last weights stay
    final = result.final
    for name, data in (("clean", CLEAN), ("noisy", NOISY)):
        alone = tw.evaluate(model, data, metrics=["accuracy"], device="cpu")
        assert final[f"val_{name}_loss"] == pytest.approx(alone["loss"], rel=1e-6)
        assert final[f"val_{name}_accuracy"] == pytest.approx(alone["accuracy"], rel=1e-6)
    assert final["val_clean_loss"] != final["val_noisy_loss"]  # two sets, two numbers
    assert "val_loss" not in final
    epochs = [
        json.loads(line)
        for line in (tmp_path / "metrics.jsonl").read_text().splitlines()
        if json.loads(line)["kind"] == "epoch"
    ]
    assert len(epochs) == 3
    for record in epochs:
        keys = {"val_clean_loss", "val_clean_accuracy", "val_noisy_loss", "val_noisy_accuracy"}
        assert keys <= set(record)
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0].split(",")
    assert {"val_clean_loss", "val_noisy_accuracy"} <= set(header)


def test_the_default_monitor_is_the_first_sets_loss():
    _, result = _fit()
    assert result.monitor == "val_clean_loss"
    losses = [r["val_clean_loss"] for r in result.history]
    assert result.best == min(losses)
    assert result.best_epoch == losses.index(min(losses)) + 1
    _, one = _fit(sets=CLEAN, epochs=1)  # one set keeps its names
    assert {"val_loss", "val_accuracy"} <= set(one.final) and one.monitor == "val_loss"


def test_monitor_on_the_second_set_picks_its_best(tmp_path):
    model, result = _fit(
        tmp_path, epochs=4, monitor={"metric": "val_noisy_accuracy", "mode": "max"}
    )
    values = [r["val_noisy_accuracy"] for r in result.history]
    assert result.monitor == "val_noisy_accuracy"
    assert result.best == max(values)
    assert result.best_epoch == values.index(max(values)) + 1
    assert [r["best"] for r in result.history].count(True) >= 1
    # the model holds the best weights of that set, read back from the best checkpoint
    again = tw.evaluate(model, NOISY, metrics=["accuracy"], device="cpu")
    assert again["accuracy"] == pytest.approx(result.best)
    best = json.loads((tmp_path / "checkpoints" / "best.json").read_text())
    assert best["step"] == result.best_step


def test_early_stopping_watches_the_monitored_set():
    # the noisy set's loss is watched with patience 1: the run stops on its first non-improvement
    _, result = _fit(epochs=30, monitor={"metric": "val_noisy_loss"}, early_stop={"patience": 1})
    values = [r["val_noisy_loss"] for r in result.history]
    assert result.stop_reason.startswith("stopped early: val_noisy_loss")
    assert values[-1] >= min(values[:-1])
    assert len(values) < 30


def test_an_unknown_monitor_name_is_one_line_listing_the_available_ones():
    with pytest.raises(tw.ConfigError) as info:
        _fit(monitor={"metric": "val_noisy_acc"})
    message = str(info.value)
    assert "\n" not in message and "monitor.metric='val_noisy_acc'" in message
    for name in ("val_clean_loss", "val_clean_accuracy", "val_noisy_loss", "val_noisy_accuracy"):
        assert name in message


@pytest.mark.parametrize("sets", [{}, {"bad name": CLEAN}, {3: CLEAN}])
def test_bad_set_names_are_config_errors(sets):
    with pytest.raises(tw.ConfigError, match="val_data"):
        _fit(sets=sets)


@pytest.mark.filterwarnings("ignore:resuming .* with a different config")
def test_resume_with_two_sets_is_exact(tmp_path):
    same = {"monitor": {"restore_best": False}, "schedule": {"name": "constant"}}
    model, straight = _fit(tmp_path / "a", epochs=4, **same)
    _fit(tmp_path / "b", epochs=2, **same)  # a constant LR: 2 epochs then 2 more = 4
    resumed_model, resumed = _fit(tmp_path / "b", epochs=4, checkpoint={"resume": "auto"}, **same)
    keys = ("val_clean_loss", "val_noisy_loss", "val_noisy_accuracy", "best")
    assert [[r[k] for k in keys] for r in resumed.history] == [
        [r[k] for k in keys] for r in straight.history
    ]
    for a, b in zip(model.parameters(), resumed_model.parameters(), strict=True):
        assert torch.equal(a, b)
