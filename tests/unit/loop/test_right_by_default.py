"""fit() on documented paths: best weights restored, metrics with step_fn, bookkeeping keys,
guard-stopped runs that say so, NaN validation data, the best checkpoint always saved,
messages for models that cannot take the batch, a run without run.dir that says so."""

import json
import warnings
from functools import partial

import pytest
import torch
from tests.fixtures import blobs, mlp, quiet_config
from torch import nn

import trainwell as tw
from trainwell.guards import GuardWarning
from trainwell.step.evaluation import NonFiniteDataWarning

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

model_fn = mlp
cfg = partial(quiet_config, max_epochs=6)


class Snapshots(tw.Observer):
    """The model's weights at the end of each epoch (after its evaluation)."""

    def __init__(self, model):
        self.model, self.weights = model, {}

    def on_epoch_end(self, record):
        self.weights[record["epoch"]] = {k: v.clone() for k, v in self.model.state_dict().items()}


def _overfitting_run(run_dir=None, **sections):
    """A run whose validation loss is best early and then gets worse (a tiny noisy train set)."""
    x, y = blobs(60, seed=1)
    vx, vy = blobs(300, seed=2)
    model = model_fn()
    snaps = Snapshots(model)
    tree = {"train": {"max_epochs": 12}, "optim": {"lr": 0.1, "weight_decay": 0.0}}
    tree.update(sections)
    if run_dir is not None:
        tree["run"] = {"dir": str(run_dir), "quiet": True}
    result = tw.fit(model, (x, y), (vx, vy), config=cfg(**tree), observers=[snaps])
    return model, snaps, result


@pytest.mark.parametrize("with_run_dir", [False, True])
def test_after_fit_the_model_holds_the_best_weights(tmp_path, with_run_dir):
    model, snaps, result = _overfitting_run(tmp_path / "run" if with_run_dir else None)
    assert result.best_epoch < result.epochs  # the last epoch is not the best one
    for key, value in model.state_dict().items():
        assert torch.equal(value, snaps.weights[result.best_epoch][key]), key
    assert result.weights.startswith(
        f"best (val_loss {result.best:.4g} at epoch {result.best_epoch}"
    )
    assert "weights left in the model: best" in result.describe()


def test_restore_best_can_be_switched_off():
    model, snaps, result = _overfitting_run(monitor={"restore_best": False})
    for key, value in model.state_dict().items():
        assert torch.equal(value, snaps.weights[result.epochs][key])
    assert result.weights == "last"


def test_the_best_checkpoint_is_saved_even_between_checkpoint_epochs(tmp_path):
    model, snaps, result = _overfitting_run(tmp_path, checkpoint={"every_epochs": 5})
    assert result.best_epoch % 5 != 0  # not an epoch of the cadence
    sidecar = json.loads((tmp_path / "checkpoints" / "best.json").read_text())
    assert sidecar["step"] == result.best_step
    saved = tw.load_checkpoint(result.best_checkpoint)["state"]["model"]
    for key, value in saved.items():
        assert torch.equal(value, snaps.weights[result.best_epoch][key])


def test_metrics_with_a_step_fn_that_returns_outputs():
    x, y = blobs()

    def step(model, batch):
        inputs, targets = batch
        outputs = model(inputs)
        return nn.functional.cross_entropy(outputs, targets), outputs

    model = model_fn()
    result = tw.fit(model, (x, y), (x, y), config=cfg(), step_fn=step, metrics=["accuracy"])
    direct = tw.evaluate(model, (x, y), metrics=["accuracy"])
    assert result.history[-1]["val_accuracy"] == pytest.approx(direct["accuracy"])
    assert result.history[-1]["val_loss"] == pytest.approx(direct["loss"])


def test_metrics_with_a_val_step_fn_that_returns_only_a_loss_say_what_to_return():
    x, y = blobs()

    def step(model, batch):
        return nn.functional.cross_entropy(model(batch[0]), batch[1])

    with pytest.raises(tw.ConfigError, match=r"return \(loss, outputs\)"):
        tw.fit(model_fn(), (x, y), (x, y), config=cfg(), val_step_fn=step, metrics=["accuracy"])


class TokenSequences(torch.utils.data.Dataset):
    def __init__(self, n=24):
        g = torch.Generator().manual_seed(0)
        self.rows = [torch.randint(1, 9, (int(k),), generator=g) for k in torch.randint(2, 9, (n,))]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return {"input_ids": self.rows[i], "labels": self.rows[i]}


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed, self.head = nn.Embedding(10, 8), nn.Linear(8, 10)

    def forward(self, input_ids, attention_mask):  # takes no num_tokens: that is bookkeeping
        return self.head(self.embed(input_ids)) * attention_mask[..., None]


def token_loss(logits, labels):
    return nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)


def test_pad_collate_counts_never_reach_the_model():
    collate = tw.pad_collate(pad_value={"labels": -100})
    loader = torch.utils.data.DataLoader(TokenSequences(), batch_size=4, collate_fn=collate)
    val = torch.utils.data.DataLoader(TokenSequences(8), batch_size=3, collate_fn=collate)
    result = tw.fit(
        TinyLM(),
        loader,
        val,
        loss=token_loss,
        config=cfg(train={"max_epochs": 2, "weight_by": "num_tokens", "accumulate_steps": 2}),
    )
    assert result.steps > 0 and result.history[-1]["val_loss"] < 10


def test_a_run_stopped_by_a_guard_is_not_a_success():
    x, y = blobs()
    x[17, 2] = float("nan")  # one poisoned training sample
    with pytest.warns(GuardWarning, match="nonfinite"):
        result = tw.fit(model_fn(), (x, y), config=cfg(guards={"nonfinite": "stop"}))
    assert not result.ok
    assert result.stopped_by_guard
    assert result.summary()["stopped_by_guard"] == result.stopped_by_guard
    assert "FAILED" in result.describe()


def test_a_healthy_run_is_ok():
    result = tw.fit(model_fn(), blobs(), config=cfg(train={"max_epochs": 1}))
    assert result.ok and result.stopped_by_guard is None


def test_nan_in_validation_data_is_warned_about_with_the_batch():
    x, y = blobs()
    vx = x[:60].clone()
    vx[25, 1] = float("nan")
    with pytest.warns(NonFiniteDataWarning, match=r"inputs \(first in batch 1\)") as caught:
        tw.fit(model_fn(), (x, y), (vx, y[:60]), config=cfg(data={"eval_batch_size": 16}))
    assert caught[0].filename == __file__  # points at the user's fit() call


def test_a_model_that_cannot_take_the_batch_names_shape_and_layer():
    x, y = blobs()
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 3))  # built for 3 features
    with pytest.raises(tw.ShapeError) as error:
        tw.fit(model, (x, y), config=cfg())
    message = str(error.value)
    assert "inputs (" in message and ", 4)" in message  # the batch's shape
    assert "layer '0' (Linear(in_features=3, out_features=16" in message
    assert "\n" not in message


def test_a_model_error_that_is_not_about_shapes_is_left_alone():
    class Broken(nn.Linear):
        def forward(self, x):
            raise RuntimeError("cuDNN error: CUDNN_STATUS_INTERNAL_ERROR (pretend)")

    with pytest.raises(RuntimeError, match="CUDNN_STATUS_INTERNAL_ERROR"):
        tw.fit(Broken(4, 3), blobs(), config=cfg())


def test_fit_without_a_run_dir_says_once_that_nothing_is_saved(capsys):
    tw.fit(model_fn(), blobs(), config=cfg(run={"quiet": False, "progress": False}))
    err = capsys.readouterr().err
    assert err.count("nothing will be saved") == 1


def test_fit_with_a_run_dir_does_not_say_so(tmp_path, capsys):
    run = {"quiet": False, "progress": False, "dir": str(tmp_path)}
    tw.fit(model_fn(), blobs(), config=cfg(run=run, train={"max_epochs": 1}))
    assert "nothing will be saved" not in capsys.readouterr().err


def test_model_is_moved_before_the_optimizer_is_built():
    # With this flag, Module.to() replaces every Parameter object even on the same device,
    # as moving to a GPU does: an optimizer built before the move would train orphans.
    x, y = blobs()
    model = model_fn()
    before = [p.detach().clone() for p in model.parameters()]
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GuardWarning)  # the orphans would be reported too
            tw.fit(model, (x, y), config=cfg(train={"max_epochs": 1}))
    finally:
        torch.__future__.set_overwrite_module_params_on_conversion(False)
    assert all(not torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_a_full_disk_stops_the_metrics_log_not_the_run(tmp_path):
    """A log line that cannot be written is dropped whole, said once, and training goes on."""
    import errno
    import json

    from trainwell.observe.log import MetricsLog, MetricsLogWarning

    class FullAfterFirstLine:
        """The real file until one line is in; then half a line lands and the disk is full."""

        def __init__(self, file):
            self.file, self.lines = file, 0

        def tell(self):
            return self.file.tell()

        def write(self, text):
            if self.lines >= 1:
                self.file.write(text[: len(text) // 2])
                self.file.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            self.lines += 1
            return self.file.write(text)

        def close(self):
            self.file.close()

    log = MetricsLog(tmp_path)
    log.on_fit_start(None)
    log._file._file = FullAfterFirstLine(log._file._file)  # the open file under the log
    log.on_epoch_end({"epoch": 1, "val_loss": 0.5})
    with pytest.warns(MetricsLogWarning, match=r"metrics\.jsonl: No space left.*training goes on"):
        log.on_epoch_end({"epoch": 2, "val_loss": 0.4})
    log.on_epoch_end({"epoch": 3, "val_loss": 0.3})  # silently skipped: said once
    log.close()
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["epoch"] for line in lines] == [1]  # no half line
