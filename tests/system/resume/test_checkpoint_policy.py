"""Checkpoint policy: verification and fallback, retention, NaN refusal, signals, safe loading."""

import json
import os
import re
import signal
import subprocess
import sys
import warnings
from functools import partial

import pytest
import torch
from tests.fixtures import blobs as shared_blobs
from tests.fixtures import mlp
from torch import nn

import trainwell as tw
from trainwell.state.checkpoint import CheckpointWarning, find_checkpoint, list_checkpoints, verify
from trainwell.state.weights import export_weights, load_weights

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

blobs = partial(shared_blobs, 192, 0, features=6, scale=1.0, shift=2.0)
make_model = partial(mlp, features=6)


def config(run_dir, **checkpoint):
    return tw.build_config(
        {
            "run": {"dir": str(run_dir), "quiet": True},
            "data": {"batch_size": 32},
            "train": {"max_epochs": 4},
            "optim": {"lr": 0.02},
            "checkpoint": {"min_interval_s": 0, **checkpoint},  # every epoch: the policy
        }
    )


def train(run_dir, observers=(), **checkpoint):
    x, y = blobs()
    model = make_model()
    result = tw.fit(
        model, (x, y), (x[:48], y[:48]), config=config(run_dir, **checkpoint), observers=observers
    )
    return model, result


def test_manifest_sidecars_hold_step_epoch_metrics_and_checksum(tmp_path):
    _, result = train(tmp_path, keep_last=10)
    directory = tmp_path / "checkpoints"
    files = list_checkpoints(directory)
    assert [p.name for p in files] == [f"step-{s:08d}.pt" for s in (24, 18, 12, 6)]
    manifest = verify(files[0])
    assert manifest["step"] == 24 and manifest["epoch"] == 4
    assert set(manifest["metrics"]) >= {"val_loss", "train_loss"}
    assert len(manifest["sha256"]) == 64 and manifest["bytes"] == files[0].stat().st_size
    assert manifest["config"]["train"]["max_epochs"] == 4
    assert os.path.samefile(directory / "last.pt", files[0])
    assert result.last_checkpoint == directory / "last.pt"


def test_retention_keeps_newest_and_best(tmp_path):
    # lr so large that validation gets worse after the first epoch: best stays at step 6.
    x, y = blobs()
    model = make_model()
    cfg = config(tmp_path, keep_last=1, keep_best=1)
    cfg = cfg.replace(
        optim=tw.build_config({"optim": {"lr": 3.0, "name": "sgd", "momentum": 0.0}}).optim
    )
    tw.fit(model, (x, y), (x[:48], y[:48]), config=cfg)
    sidecars = {
        p.name: json.loads(p.with_suffix(".json").read_text())
        for p in list_checkpoints(tmp_path / "checkpoints")
    }
    best_step = min(sidecars.values(), key=lambda m: m["metrics"]["val_loss"])["step"]
    names = sorted(sidecars)
    assert "step-00000024.pt" in names  # newest
    assert f"step-{best_step:08d}.pt" in names  # best by val_loss
    assert len(names) == (1 if best_step == 24 else 2)
    assert json.loads((tmp_path / "checkpoints" / "best.json").read_text())["step"] == best_step


@pytest.mark.parametrize("damage", ["truncate", "flip", "no_sidecar"])
def test_damaged_newest_checkpoint_is_reported_and_the_previous_one_used(tmp_path, damage):
    straight, _ = train(tmp_path / "straight")
    train(tmp_path / "run", keep_last=3)
    newest = list_checkpoints(tmp_path / "run" / "checkpoints")[0]
    if damage == "truncate":
        newest.write_bytes(newest.read_bytes()[:1000])
    elif damage == "flip":
        data = bytearray(newest.read_bytes())
        data[len(data) // 2] ^= 0xFF
        newest.write_bytes(bytes(data))
    else:
        newest.with_suffix(".json").unlink()
    with pytest.warns(CheckpointWarning, match=f"skipping a checkpoint: .*{newest.name}"):
        chosen = find_checkpoint("auto", tmp_path / "run")
    assert chosen.name == "step-00000018.pt"
    # Resuming from the older checkpoint recomputes the last epoch identically.
    x, y = blobs()
    model = make_model()
    with pytest.warns(CheckpointWarning):
        tw.fit(model, (x, y), (x[:48], y[:48]), config=config(tmp_path / "run", resume="auto"))
    for a, b in zip(model.parameters(), straight.parameters()):
        assert torch.equal(a, b)


def test_nan_weights_never_replace_a_good_checkpoint(tmp_path):
    class PoisonAfterEpochTwo(tw.Observer):
        def __init__(self, model):
            self.model = model

        def on_epoch_end(self, record):
            if record["epoch"] == 2:
                with torch.no_grad():
                    self.model[0].weight[0, 0] = float("nan")

    x, y = blobs()
    model = make_model()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tw.fit(
            model,
            (x, y),
            (x[:48], y[:48]),
            config=config(tmp_path),
            observers=[PoisonAfterEpochTwo(model)],
        )
    said = [f"{w.category.__name__}: {w.message}" for w in caught]
    assert any(re.match(r"CheckpointWarning: .*NaN/Inf \(first in '0.weight'\)", m) for m in said)
    assert any(m.startswith("GuardWarning: [nonfinite-grad]") for m in said)
    # The best epoch (2) could not be saved: restoring it is impossible, and said so.
    assert any("restore_best" in m and "keeps the last weights" in m for m in said)
    assert result.weights == "last"
    newest = list_checkpoints(tmp_path / "checkpoints")[0]
    assert newest.name == "step-00000006.pt"  # epoch 1; epochs 2-4 held NaN
    saved = torch.load(newest, weights_only=True)["state"]["model"]
    assert all(torch.isfinite(t).all() for t in saved.values())
    assert result.saves[-1].step == 6


def test_sigterm_saves_after_the_current_step_and_stops(tmp_path):
    class SendSigterm(tw.Observer):
        def on_step_end(self, report):
            if report.step == 5:
                os.kill(os.getpid(), signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    model, result = train(tmp_path, observers=[SendSigterm()])
    assert signal.getsignal(signal.SIGTERM) is previous  # handlers restored
    assert result.preempted == "SIGTERM"
    assert result.steps == 5 and result.saves[-1].step == 5
    assert '"checkpoint.resume=auto"]))   # resume it' in result.describe()  # from Python
    x, y = blobs()
    resumed = make_model()
    tw.fit(resumed, (x, y), (x[:48], y[:48]), config=config(tmp_path, resume="auto"))
    straight, _ = train(tmp_path / "straight")
    for a, b in zip(resumed.parameters(), straight.parameters()):
        assert torch.equal(a, b)


def test_second_sigint_aborts_at_once(tmp_path):
    class DoubleCtrlC(tw.Observer):
        def on_step_end(self, report):
            if report.step == 2:
                os.kill(os.getpid(), signal.SIGINT)
                os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        train(tmp_path, observers=[DoubleCtrlC()])


def test_cli_sigterm_exits_0_after_saving_and_says_how_to_resume(tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "trainwell",
            "train",
            "--recipe",
            "spiral",
            "--run-dir",
            str(run_dir),
            "--set",
            "train.max_epochs=100000",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    # Wait for training to start (the first epoch line), then ask it to stop.
    for line in proc.stderr:
        if line.startswith("epoch "):
            break
    proc.send_signal(signal.SIGTERM)
    rest = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert "preempted by SIGTERM" in rest
    assert f"resume with: trainwell resume {run_dir}" in rest
    assert verify(list_checkpoints(run_dir / "checkpoints")[0])["step"] > 0


class Payload:
    def __reduce__(self):
        return (print, ("this would run arbitrary code",))


def test_pickled_objects_are_refused(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"format": 1, "state": {"model": Payload()}}, path)
    with pytest.raises(tw.CheckpointError, match="untrusted"):
        tw.load_checkpoint(path)
    with pytest.raises(tw.CheckpointError, match="untrusted"):
        load_weights(make_model(), path)


def test_export_safetensors_and_load_weights_reports_keys(tmp_path):
    model, result = train(tmp_path)
    out = export_weights(result.best_checkpoint, tmp_path / "model.safetensors")
    fresh = make_model()
    with torch.no_grad():
        fresh[0].weight.zero_()
    report = load_weights(fresh, out)
    assert report.missing == [] and report.unexpected == []
    assert torch.equal(
        fresh[0].weight,
        torch.load(result.best_checkpoint, weights_only=True)["state"]["model"]["0.weight"],
    )

    # Fine-tuning: a new head with another shape is refused with both shapes named...
    bigger_head = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 5))
    with pytest.raises(tw.ShapeError, match=r"2.weight: checkpoint \(3, 16\) vs model \(5, 16\)"):
        load_weights(bigger_head, out)
    # ...and an extra layer is reported as missing with strict=False.
    extended = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3), nn.Linear(3, 3))
    report = load_weights(extended, out, strict=False)
    assert report.missing == ["3.weight", "3.bias"] and report.unexpected == []
    with pytest.raises(tw.CheckpointError, match="missing keys"):
        load_weights(extended, out)


def test_wrapped_model_saves_unwrapped_keys(tmp_path):
    x, y = blobs()
    wrapped = nn.DataParallel(make_model())  # on a CPU machine: a pass-through wrapper
    tw.fit(wrapped, (x, y), config=config(tmp_path))
    saved = torch.load(tmp_path / "checkpoints" / "last.pt", weights_only=True)["state"]["model"]
    assert sorted(saved) == ["0.bias", "0.weight", "2.bias", "2.weight"]


def test_a_submodule_named_module_is_part_of_the_model(tmp_path):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.module = nn.Linear(6, 16)  # the user's own name, not a DDP wrapper
            self.head = nn.Linear(16, 3)

        def forward(self, x):
            return self.head(torch.relu(self.module(x)))

    x, y = blobs()
    torch.manual_seed(0)
    model = Net()
    tw.fit(model, (x, y), config=config(tmp_path))
    saved = torch.load(tmp_path / "checkpoints" / "last.pt", weights_only=True)["state"]["model"]
    assert sorted(saved) == ["head.bias", "head.weight", "module.bias", "module.weight"]
    fresh = Net()
    load_weights(fresh, tmp_path / "checkpoints" / "last.pt")
    assert torch.equal(fresh.head.weight, model.head.weight)


def test_async_save_writes_the_same_state_as_sync(tmp_path):
    sync_model, sync_result = train(tmp_path / "sync")
    async_model, async_result = train(tmp_path / "async", async_save=True)
    a = torch.load(sync_result.last_checkpoint, weights_only=True)["state"]
    b = torch.load(async_result.last_checkpoint, weights_only=True)["state"]
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key])
    assert a["counters"] == b["counters"]
    assert all(s.blocked_s >= 0 and s.write_s > 0 for s in async_result.saves)


def test_slow_save_warns_about_the_grace_period(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train(tmp_path, grace_period_s=1e-9)
    assert any("longer than checkpoint.grace_period_s" in str(w.message) for w in caught)


def test_resuming_from_an_older_checkpoint_drops_the_abandoned_newer_ones(tmp_path):
    train(tmp_path, keep_last=10)  # steps 6, 12, 18, 24
    older = tmp_path / "checkpoints" / "step-00000012.pt"

    class StopAfterEpochThree(tw.Observer):
        def on_epoch_end(self, record):
            self.should_stop = record["epoch"] == 3

    x, y = blobs()
    tw.fit(
        make_model(),
        (x, y),
        (x[:48], y[:48]),
        config=config(tmp_path, keep_last=10, resume=str(older)),
        observers=[StopAfterEpochThree()],
    )
    names = [p.name for p in list_checkpoints(tmp_path / "checkpoints")]
    assert names == ["step-00000018.pt", "step-00000012.pt", "step-00000006.pt"]
    assert find_checkpoint("auto", tmp_path).name == "step-00000018.pt"
