"""fit() end to end: results, history, early stopping, resume, dict batches, step_fn, errors."""

import copy
import json
from functools import partial

import pytest
import torch
from tests.fixtures import mlp, quiet_config, random_data
from tests.fixtures import separated_blobs as blobs
from torch import nn
from torch.utils.data import DataLoader, Dataset

import trainwell as tw

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

model_fn = partial(mlp, dropout=0.1)
cfg = partial(quiet_config, lr=0.02)


def test_fit_learns_and_reports_history():
    x, y = blobs()
    result = tw.fit(model_fn(), (x, y), (x, y), config=cfg(), metrics=["accuracy"])
    assert [r["epoch"] for r in result.history] == [1, 2, 3]
    assert result.history[-1]["val_accuracy"] > 0.95
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    assert result.best == min(r["val_loss"] for r in result.history)
    assert result.steps == 3 * 4  # 240 samples / batch 64 -> 4 steps per epoch


def test_model_ends_in_train_mode_and_eval_does_not_leak():
    x, y = blobs()
    model = model_fn()
    seen = []
    model[2].register_forward_hook(lambda m, i, o: seen.append(m.training))
    tw.fit(model, (x, y), (x, y), config=cfg(train={"max_epochs": 1}))
    # 4 training batches in train mode, then 1 validation batch (eval batch 256) in eval mode.
    assert seen == [True] * 4 + [False]
    assert model.training


def test_early_stopping_stops_and_says_why():
    x, y = blobs()
    # A learning rate of ~0 means no improvement after the first evaluation.
    config = cfg(
        train={"max_epochs": 20},
        optim={"lr": 1e-12},
        early_stop={"patience": 2, "min_delta": 0.01},
    )
    result = tw.fit(model_fn(), (x, y), (x, y), config=config)
    assert result.epochs == 3
    assert "not improved for 2 evaluations" in result.stop_reason


def test_max_steps_stops_mid_epoch_and_sets_schedule_length():
    x, y = blobs()
    result = tw.fit(model_fn(), (x, y), config=cfg(train={"max_epochs": 10, "max_steps": 6}))
    assert result.steps == 6
    assert result.epochs == 1  # finished epochs; the second was cut short after 2 of 4 steps
    assert [r["epoch"] for r in result.history] == [1, 2]
    assert result.history[-1]["partial"] is True
    assert result.stop_reason == "reached train.max_steps=6"


def test_max_epochs_before_max_steps_sets_the_schedule_length():
    x, y = blobs()
    config = cfg(train={"max_epochs": 2, "max_steps": 400}, schedule={"name": "warmup_cosine"})
    result = tw.fit(model_fn(), (x, y), config=config)
    assert result.steps == 8
    assert result.history[-1]["lr"] < 0.02 * 0.05  # the cosine decayed over the 8 real steps


def test_resume_after_max_steps_mid_epoch_continues_that_epoch(tmp_path):
    x, y = blobs()
    straight = model_fn()
    const = {"name": "constant"}
    tw.fit(straight, (x, y), config=cfg(train={"max_epochs": 3, "max_steps": 10}, schedule=const))
    run = {"dir": str(tmp_path)}
    tw.fit(
        model_fn(),
        (x, y),
        config=cfg(run=run, train={"max_epochs": 3, "max_steps": 5}, schedule=const),
    )
    resumed = model_fn()
    with pytest.warns(UserWarning, match=r"different config \(train.max_steps: 5 -> 10\)"):
        tw.fit(
            resumed,
            (x, y),
            config=cfg(
                run=run,
                train={"max_epochs": 3, "max_steps": 10},
                schedule=const,
                checkpoint={"resume": "auto"},
            ),
        )
    for a, b in zip(straight.parameters(), resumed.parameters()):
        assert torch.equal(a, b)


def test_run_dir_outputs_and_resume_continue_exactly(tmp_path):
    x, y = blobs()
    straight = model_fn()
    tw.fit(straight, (x, y), (x, y), config=cfg(train={"max_epochs": 4}))

    class Crash(tw.Observer):  # the process dies after epoch 2's checkpoint
        def on_epoch_end(self, record):
            self.should_stop = record["epoch"] == 2

    run = {"dir": str(tmp_path / "run")}
    first = tw.fit(
        model_fn(),
        (x, y),
        (x, y),
        config=cfg(run=run, train={"max_epochs": 4}),
        observers=[Crash()],
    )
    assert first.epochs == 2
    assert first.last_checkpoint.is_file() and first.best_checkpoint.is_file()
    fresh = model_fn()  # a new process would build a new model
    second = tw.fit(
        fresh,
        (x, y),
        (x, y),
        config=cfg(run=run, train={"max_epochs": 4}, checkpoint={"resume": "auto"}),
    )
    assert [r["epoch"] for r in second.history] == [1, 2, 3, 4]
    for a, b in zip(straight.parameters(), fresh.parameters()):
        assert torch.equal(a, b)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["epochs"] == 4 and summary["best"] == second.best
    records = [
        json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    ]
    assert [r["epoch"] for r in records if r["kind"] == "epoch"] == [1, 2, 3, 4]
    assert (tmp_path / "run" / "config.yaml").read_text().count("max_epochs: 4") == 1


def test_checkpoint_loads_with_weights_only(tmp_path):
    x, y = blobs()
    result = tw.fit(model_fn(), (x, y), (x, y), config=cfg(run={"dir": str(tmp_path)}))
    payload = torch.load(result.last_checkpoint, weights_only=True)
    assert set(payload["state"]) >= {
        "model",
        "optimizer",
        "precision",
        "schedule",
        "counters",
        "rng",
        "best",
    }
    assert payload["manifest"]["epoch"] == 3


class DictDataset(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"inputs": self.x[i], "labels": self.y[i]}


def test_dict_batches_and_dataset_input():
    x, y = blobs()
    result = tw.fit(
        model_fn(), DictDataset(x, y), DictDataset(x, y), config=cfg(), metrics=["accuracy"]
    )
    assert result.history[-1]["val_accuracy"] > 0.9


def test_step_fn_escape_hatch_trains_a_regression_model():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(128, 3, generator=g)
    target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
    calls = []

    def step_fn(model, batch):
        xb, yb = batch
        calls.append(1)
        return nn.functional.mse_loss(model(xb), yb)

    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    result = tw.fit(
        model,
        (x, target),
        (x, target),
        step_fn=step_fn,
        loss=nn.MSELoss(),  # validation's loss: the plain forward, never the training step_fn
        config=cfg(optim={"name": "sgd", "lr": 0.1, "weight_decay": 0.0}, train={"max_epochs": 20}),
    )
    assert result.history[-1]["val_loss"] < 0.05 * result.history[0]["val_loss"]
    assert len(calls) >= 20 * 2


def test_user_dataloader_and_torch_scheduler_stepped_per_epoch():
    x, y = blobs()
    loader = DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=60, shuffle=True)
    model = model_fn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    schedule = tw.TorchSchedule(scheduler, interval="epoch")  # StepLR could count either
    tw.fit(model, loader, config=cfg(), optimizer=optimizer, schedule=schedule)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**3)


def test_observer_can_stop_the_run_but_not_change_it():
    class StopAfterTwo(tw.Observer):
        def on_epoch_end(self, record):
            if record["epoch"] == 2:
                self.should_stop, self.stop_reason = True, "enough"

    x, y = blobs()
    result = tw.fit(
        model_fn(), (x, y), config=cfg(train={"max_epochs": 5}), observers=[StopAfterTwo()]
    )
    assert result.epochs == 2 and "enough" in result.stop_reason


def test_step_reports_keep_loss_on_device_and_log_on_cadence():
    class Recorder(tw.Observer):
        def __init__(self):
            self.reports = []

        def on_step_end(self, report):
            self.reports.append(report)

    x, y = blobs()
    rec = Recorder()
    tw.fit(model_fn(), (x, y), config=cfg(run={"log_every": 5}), observers=[rec])
    assert all(isinstance(r.loss, torch.Tensor) and not r.loss.requires_grad for r in rec.reports)
    logged = [r.step for r in rec.reports if r.logged is not None]
    assert logged == [5, 10]
    basic = {"loss", "grad_norm", "lr", "samples_per_s", "data_wait", "interval_s"}
    assert set(rec.reports[4].logged) == basic | {"tflops", "mfu"}  # FLOPs counted at step 2


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_mixed_precision_trains_on_cpu(precision):
    x, y = blobs()
    result = tw.fit(
        model_fn(),
        (x, y),
        (x, y),
        config=cfg(train={"precision": precision, "max_epochs": 5}),
        metrics=["accuracy"],
    )
    assert result.history[-1]["val_accuracy"] > 0.9


# ----------------------------------------------------------------- bad input: clear errors


def test_labels_out_of_range_name_the_range():
    x, y = blobs()
    y = y.clone()
    y[5] = 3  # the model has 3 outputs
    with pytest.raises(tw.DataError, match=r"\[0, 3\)"):
        tw.fit(model_fn(), (x, y), config=cfg())


def test_shape_mismatch_names_both_shapes():
    x, y = blobs()
    with pytest.raises(tw.ShapeError, match=r"\(64, 3\).*\(64, 2\)"):
        tw.fit(model_fn(), (x, nn.functional.one_hot(y % 2, 2).float()), config=cfg())


def test_unpackable_batch_is_a_data_error():
    x, _ = blobs()
    loader = [x[:10], x[10:20]]  # inputs only: nothing to compute a loss against

    class Sized(list):
        pass

    with pytest.raises(tw.DataError, match="cannot unpack"):
        tw.fit(model_fn(), DataLoader(x, batch_size=16), config=cfg())
    del loader, Sized


def test_unknown_config_key_suggests_the_right_one():
    with pytest.raises(tw.ConfigError, match="did you mean train.max_epochs"):
        tw.fit(model_fn(), blobs(), config={"train": {"max_epoch": 3}})


def test_resume_without_checkpoint_is_a_checkpoint_error(tmp_path):
    with pytest.raises(tw.CheckpointError, match="no checkpoint"):
        tw.fit(
            model_fn(),
            blobs(),
            config=cfg(run={"dir": str(tmp_path)}, checkpoint={"resume": "auto"}),
        )


def test_model_is_moved_before_the_optimizer_is_built():
    x, y = blobs()
    model = model_fn()
    before = {id(p) for p in model.parameters()}
    result = tw.fit(model, (x, y), config=cfg(train={"max_epochs": 1}))
    assert {id(p) for p in model.parameters()} == before
    assert result.steps == 4
    assert copy.deepcopy(model) is not None


def test_guards_observe_without_changing_the_weights():
    x, y = blobs()
    watched, unwatched = model_fn(), model_fn()
    tw.fit(watched, (x, y), (x, y), config=cfg(guards={"every": 1}))
    tw.fit(unwatched, (x, y), (x, y), config=cfg(guards={"enabled": False}))
    for a, b in zip(watched.parameters(), unwatched.parameters()):
        assert torch.equal(a, b)


def test_a_failing_run_still_closes_its_observers_and_hooks(tmp_path):
    class Boom(tw.Observer):
        closed = False

        def on_step_end(self, report):
            if report.step == 3:
                raise RuntimeError("boom")

        def close(self):
            self.closed = True

    x, y = blobs()
    model = model_fn()
    boom = Boom()
    with pytest.raises(RuntimeError, match="boom"):
        tw.fit(model, (x, y), config=cfg(run={"dir": str(tmp_path)}), observers=[boom])
    assert boom.closed  # every observer is closed: files, progress bars, hooks
    assert not model._forward_hooks and not model._forward_pre_hooks  # guards removed theirs


def test_token_batches_log_tokens_per_second(tmp_path):

    torch.manual_seed(0)
    x = torch.randint(0, 11, (64, 8))
    y = torch.roll(x, -1, dims=1)
    model = torch.nn.Sequential(torch.nn.Embedding(11, 16), torch.nn.Linear(16, 11))

    def loss(logits, targets):
        return torch.nn.functional.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))

    config = {
        "run": {"quiet": True, "log_every": 2, "dir": str(tmp_path)},
        "train": {"max_epochs": 1},
        "data": {"batch_size": 16},
    }
    tw.fit(model, (x, y), config=config, loss=loss)
    logs = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in logs if "samples_per_s" in r]
    assert steps and all(r["tokens_per_s"] == pytest.approx(8 * r["samples_per_s"]) for r in steps)


def test_feature_batches_log_no_tokens(tmp_path):

    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    config = {
        "run": {"quiet": True, "log_every": 2, "dir": str(tmp_path)},
        "train": {"max_epochs": 1},
        "data": {"batch_size": 16},
    }
    tw.fit(torch.nn.Linear(4, 3), (x, y), config=config)
    logs = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in logs if "samples_per_s" in r]
    assert steps and not any("tokens_per_s" in r for r in steps)


class _Blocks(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.2), nn.GELU()) for _ in range(3)
        )
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return self.head(x)


def _fit_blocks(**train):
    torch.manual_seed(0)
    model = _Blocks()
    calls = []
    model.blocks[0][0].register_forward_pre_hook(lambda m, a: calls.append(1))
    x, y = random_data(64, features=8)
    config = {"run": {"quiet": True}, "train": {"max_epochs": 2, **train}}
    result = tw.fit(model, (x, y), config=config)
    model.calls, model.steps = len(calls), result.steps
    return model


def test_activation_checkpointing_trains_the_same_weights_and_is_undone():
    plain = _fit_blocks()
    checkpointed = _fit_blocks(checkpoint_blocks="blocks")
    assert checkpointed.calls == plain.calls + plain.steps  # one recompute per training step
    for a, b in zip(plain.parameters(), checkpointed.parameters(), strict=True):
        assert torch.equal(a, b)  # dropout's RNG preserved through the recompute
    assert all("forward" not in vars(block) for block in checkpointed.blocks)  # undone


def test_activation_checkpointing_names_a_bad_path():
    with pytest.raises(tw.ConfigError, match="'layers' does not exist"):
        _fit_blocks(checkpoint_blocks="layers")
