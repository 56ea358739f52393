"""The run directory's logs: your own values (``tw.log``), ``metrics.csv`` and TensorBoard
event files, each read back the way a user reads it (csv, TensorBoard's own reader)."""

from __future__ import annotations

import csv
import json
import warnings

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.errors import ConfigError

X = torch.randn(96, 4, generator=torch.Generator().manual_seed(0))
Y = (X[:, 0] > 0).long()


def run(tmp_path, step_fn=None, val_step_fn=None, **config):
    cfg = {
        "run": {"dir": str(tmp_path / "run"), "quiet": True, "log_every": 2},
        "train": {"max_epochs": 2},
        # timing-dependent warnings (input-bound) have no place in these exact checks
        "data": {"batch_size": 16, "shuffle": False, "input_bound_threshold": None},
    }
    for section, values in config.items():
        cfg.setdefault(section, {}).update(values)
    torch.manual_seed(0)
    return tw.fit(
        nn.Linear(4, 2),
        (X, Y),
        (X, Y),
        loss=nn.CrossEntropyLoss(),
        step_fn=step_fn,
        val_step_fn=val_step_fn,
        config=cfg,
    )


def records(tmp_path, kind):
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


def test_values_logged_from_a_step_fn_are_means_over_calls_steps_and_epochs(tmp_path):
    calls = []

    def step_fn(model, batch):
        x, y = batch
        assert model.training  # validation never runs the training step_fn
        calls.append(len(calls))
        tw.log("call", float(len(calls)))  # 1, 2, 3, ... one per micro-batch
        if len(calls) % 4 == 0:
            tw.log("every_fourth", torch.tensor(10.0 * len(calls)))
        return nn.functional.cross_entropy(model(x), y)

    result = run(tmp_path, step_fn, train={"accumulate_steps": 2})
    steps = records(tmp_path, "step")
    # a step holds calls (2s-1, 2s): its value is 2s - 0.5; a log of steps 1-2 is their mean
    assert [r["call"] for r in steps] == [2.5 + 4 * i for i in range(len(steps))]
    # logged on even steps only: the mean over the steps that logged it
    assert [r["every_fourth"] for r in steps] == [40.0 + 40 * i for i in range(len(steps))]
    epoch1 = result.history[0]
    assert epoch1["train_call"] == pytest.approx(sum(2 * s - 0.5 for s in range(1, 4)) / 3)
    assert epoch1["train_every_fourth"] == pytest.approx(40.0)  # step 2 only (3 steps)


def test_a_val_step_fn_that_logs_collects_nothing_and_warns_nothing(tmp_path):
    def step_fn(model, batch):
        x, y = batch
        tw.log("seen", 1.0)
        return nn.functional.cross_entropy(model(x), y), model(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run(tmp_path, step_fn, val_step_fn=step_fn)
    assert result.history[-1]["train_seen"] == 1.0
    assert "val_seen" not in result.history[-1]


def test_a_value_logged_outside_fit_is_dropped_with_a_warning_once():
    with pytest.warns(UserWarning, match=r"tw.log\('nowhere', \.\.\.\) outside a training step"):
        tw.log("nowhere", 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tw.log("nowhere", 2.0)


def test_a_tensor_of_several_numbers_is_refused_naming_its_shape(tmp_path):
    def step_fn(model, batch):
        x, y = batch
        out = model(x)
        tw.log("per_sample", out.sum(dim=1))
        return nn.functional.cross_entropy(out, y)

    with pytest.raises(ValueError, match=r"tw.log\('per_sample'.*shape \(16,\).*\.mean\(\)"):
        run(tmp_path, step_fn)


def test_metrics_csv_holds_the_jsonl_records_as_columns_and_a_resume_appends(tmp_path):
    run(tmp_path)
    path = tmp_path / "run" / "metrics.csv"
    rows = list(csv.DictReader(path.open()))
    jsonl = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").open()]
    assert [r["kind"] for r in rows] == [r["kind"] for r in jsonl]
    for row, record in zip(rows, jsonl, strict=True):
        for key, value in record.items():
            if isinstance(value, float):
                assert float(row[key]) == pytest.approx(value), key
    assert {"loss", "grad_norm", "val_loss", "train_loss"} <= set(rows[0])
    header = path.read_text().splitlines()[0]
    with pytest.warns(UserWarning, match="different config"):
        run(tmp_path, train={"max_epochs": 3}, checkpoint={"resume": "auto"})
    resumed = list(csv.DictReader(path.open()))
    assert path.read_text().splitlines()[0] == header  # no new column, no second header
    assert len(resumed) > len(rows) and resumed[: len(rows)] == rows
    assert resumed[-1]["kind"] == "epoch" and resumed[-1]["epoch"] == "3"


def test_csv_can_be_switched_off(tmp_path):
    run(tmp_path, log={"csv": False})
    assert not (tmp_path / "run" / "metrics.csv").exists()


def test_tensorboard_event_files_read_back_with_tensorboards_reader(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.hparams import plugin_data_pb2

    result = run(tmp_path, log={"tensorboard": True})
    events = EventAccumulator(str(tmp_path / "run" / "tensorboard"), size_guidance={"scalars": 0})
    events.Reload()
    steps = records(tmp_path, "step")
    logged = events.Scalars("train/loss")
    assert [e.step for e in logged] == [r["step"] for r in steps]
    assert [e.value for e in logged] == pytest.approx([r["loss"] for r in steps])
    val = events.Scalars("epoch/val_loss")
    assert [e.value for e in val] == pytest.approx([h["val_loss"] for h in result.history])
    assert {"train/lr", "train/grad_norm", "train/samples_per_s"} <= set(events.Tags()["scalars"])
    assert events.Scalars("best/val_loss")[0].value == pytest.approx(result.best)
    hparams = {}
    for content in events.PluginTagToContent("hparams").values():
        data = plugin_data_pb2.HParamsPluginData.FromString(content)
        if data.WhichOneof("data") == "session_start_info":
            hparams = dict(data.session_start_info.hparams)
    assert hparams["optim.lr"].number_value == pytest.approx(1e-3)
    assert hparams["data.batch_size"].number_value == 16


def test_tensorboard_true_without_the_package_says_how_to_install_it(tmp_path, monkeypatch):
    import trainwell.observe.tensorboard as tb

    monkeypatch.setattr(tb, "tensorboard_available", lambda: False)
    with pytest.raises(ConfigError, match=r"log.tensorboard=true.*trainwell\[tensorboard\]"):
        run(tmp_path, log={"tensorboard": True})
    assert not list((tmp_path / "run").rglob("step-*"))  # refused before training


def test_a_loop_of_your_own_logs_into_the_same_files_with_run_logger(tmp_path):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    with tw.RunLogger(tmp_path / "run", log_every=3, tensorboard=False) as logger:
        for step in range(7):
            with logger.step():
                optimizer.zero_grad(set_to_none=True)
                loss = nn.functional.cross_entropy(model(X[:16]), Y[:16])
                loss.backward()
                optimizer.step()
                tw.log("loss", loss)
                losses.append(loss.item())
                if step % 2 == 0:
                    tw.log("even_only", float(step))
        logger.epoch(val_loss=0.25)
    steps = records(tmp_path, "step")
    assert [r["step"] for r in steps] == [3, 6, 7]  # every 3 steps, and the rest at close
    assert [r["loss"] for r in steps] == pytest.approx(
        [sum(losses[0:3]) / 3, sum(losses[3:6]) / 3, losses[6]]
    )
    assert [r.get("even_only") for r in steps] == [1.0, 4.0, 6.0]  # (0+2)/2, 4/1, 6/1
    [epoch] = records(tmp_path, "epoch")
    assert epoch == {"kind": "epoch", "epoch": 1, "step": 7, "val_loss": 0.25}
    rows = list(csv.DictReader((tmp_path / "run" / "metrics.csv").open()))
    assert [r["kind"] for r in rows] == ["step", "step", "step", "epoch"]
