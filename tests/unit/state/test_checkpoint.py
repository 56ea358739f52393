"""Checkpoints: atomic writes, safe loading, step files with last/best links, finding a resume."""

import hashlib
import json
import os
import warnings

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.state.checkpoint import CheckpointWarning, find_checkpoint, list_checkpoints, verify
from trainwell.state.checkpointer import restore, state_of
from trainwell.state.weights import load_weights


class Custom:
    """An arbitrary Python object: loading it needs code execution."""

    def __init__(self):
        self.value = 3


def _files(directory):
    return sorted(p.name for p in directory.iterdir())


# --------------------------------------------------------------------------- save_atomic


def test_save_atomic_writes_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "ckpt.pt"
    sha, size = tw.save_atomic({"a": torch.arange(3)}, target)
    data = target.read_bytes()
    assert size == len(data)
    assert sha == hashlib.sha256(data).hexdigest()
    assert _files(target.parent) == ["ckpt.pt"]
    assert torch.equal(torch.load(target, weights_only=True)["a"], torch.arange(3))
    tw.save_atomic({"a": torch.arange(5)}, target)  # replaces
    assert _files(target.parent) == ["ckpt.pt"]
    assert torch.equal(torch.load(target, weights_only=True)["a"], torch.arange(5))


def test_save_atomic_failure_keeps_old_file_and_no_temp(tmp_path):
    target = tmp_path / "ckpt.pt"
    tw.save_atomic({"a": torch.ones(2)}, target)
    before = target.read_bytes()
    inode = os.stat(target).st_ino
    with pytest.raises(Exception):  # noqa: B017 - whatever pickle raises for a lambda
        tw.save_atomic({"a": lambda: 0}, target)
    assert target.read_bytes() == before
    assert os.stat(target).st_ino == inode
    assert _files(tmp_path) == ["ckpt.pt"]


def test_save_atomic_replaces_by_rename_not_in_place(tmp_path):
    target = tmp_path / "ckpt.pt"
    tw.save_atomic({"a": 1}, target)
    os.link(target, tmp_path / "old_link.pt")  # a reader holding the old file
    tw.save_atomic({"a": 2}, target)
    assert torch.load(tmp_path / "old_link.pt", weights_only=True) == {"a": 1}
    assert torch.load(target, weights_only=True) == {"a": 2}


# --------------------------------------------------------------------------- load_checkpoint


def test_load_checkpoint_round_trip(tmp_path):
    payload = {"format": 1, "manifest": {"step": 3}, "state": {"w": torch.randn(2, 2)}}
    tw.save_atomic(payload, tmp_path / "c.pt")
    loaded = tw.load_checkpoint(tmp_path / "c.pt")
    assert loaded["manifest"] == {"step": 3}
    assert torch.equal(loaded["state"]["w"], payload["state"]["w"])


def test_load_checkpoint_refuses_pickled_objects(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"state": {"obj": Custom()}}, path)
    with pytest.raises(tw.CheckpointError, match="untrusted"):
        tw.load_checkpoint(path)


def test_load_checkpoint_truncated_file(tmp_path):
    path = tmp_path / "c.pt"
    tw.save_atomic({"format": 1, "state": {"w": torch.randn(100, 100)}}, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(tw.CheckpointError, match="truncated or corrupt"):
        tw.load_checkpoint(path)
    path.write_bytes(b"")
    with pytest.raises(tw.CheckpointError):
        tw.load_checkpoint(path)


def test_load_checkpoint_missing_and_foreign_files(tmp_path):
    with pytest.raises(tw.CheckpointError, match="no checkpoint at"):
        tw.load_checkpoint(tmp_path / "nope.pt")
    torch.save(nn.Linear(2, 2).state_dict(), tmp_path / "weights.pt")
    with pytest.raises(tw.CheckpointError, match="not a trainwell checkpoint"):
        tw.load_checkpoint(tmp_path / "weights.pt")


# --------------------------------------------------------------------------- Checkpointer


def _parts(seed):
    torch.manual_seed(seed)
    model = nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    return {
        "model": model,
        "optimizer": opt,
        "counters": tw.Counters(step=seed),
        "rng": tw.RNGState(),
    }


def _save(ckpt, parts, step, val_loss=None, **manifest):
    parts["counters"].step, parts["counters"].epoch = step, step
    metrics = {} if val_loss is None else {"val_loss": val_loss}
    return ckpt.save(parts, parts["counters"], metrics=metrics, **manifest)


def test_checkpointer_saves_step_files_last_and_best(tmp_path):
    ckpt = tw.Checkpointer(tmp_path / "checkpoints", keep_last=2, keep_best=1)
    parts = _parts(1)
    for step, loss in [(1, 1.0), (2, 0.5), (3, 0.8)]:
        record = _save(ckpt, parts, step, loss, config_hash="abc")
        assert record.path == tmp_path / "checkpoints" / f"step-{step:08d}.pt"
    names = _files(tmp_path / "checkpoints")
    assert [n for n in names if n.startswith("step-")] == [
        "step-00000002.json",
        "step-00000002.pt",
        "step-00000003.json",
        "step-00000003.pt",
    ]
    assert "last.pt" in names and "best.pt" in names
    assert not [n for n in names if ".tmp-" in n]
    assert ckpt.last_path == tmp_path / "checkpoints" / "last.pt"
    assert ckpt.best_path == tmp_path / "checkpoints" / "best.pt"
    last = tw.load_checkpoint(ckpt.last_path)
    best = tw.load_checkpoint(ckpt.best_path)
    assert last["manifest"]["step"] == 3 and last["state"]["counters"]["step"] == 3
    assert best["manifest"]["step"] == 2 and best["state"]["counters"]["step"] == 2
    assert best["manifest"]["config_hash"] == "abc"
    assert set(last["state"]) == {"model", "optimizer", "counters", "rng"}
    sidecar = json.loads((tmp_path / "checkpoints" / "step-00000003.json").read_text())
    assert sidecar["metrics"] == {"val_loss": 0.8}
    assert sidecar["bytes"] == (tmp_path / "checkpoints" / "step-00000003.pt").stat().st_size
    assert verify(tmp_path / "checkpoints" / "step-00000003.pt")["step"] == 3


def test_checkpointer_mode_max_and_keep_best(tmp_path):
    ckpt = tw.Checkpointer(tmp_path, keep_last=1, keep_best=2, monitor="val_acc", mode="max")
    parts = _parts(1)
    for step, acc in [(1, 0.9), (2, 0.5), (3, 0.7), (4, 0.1)]:
        parts["counters"].step = step
        ckpt.save(parts, parts["counters"], metrics={"val_acc": acc})
    kept = [n for n in _files(tmp_path) if n.endswith(".pt") and n.startswith("step-")]
    assert kept == ["step-00000001.pt", "step-00000003.pt", "step-00000004.pt"]
    assert tw.load_checkpoint(ckpt.best_path)["manifest"]["step"] == 1
    assert tw.load_checkpoint(ckpt.last_path)["manifest"]["step"] == 4


def test_checkpointer_equal_metric_does_not_move_best(tmp_path):
    ckpt = tw.Checkpointer(tmp_path, keep_last=3)
    parts = _parts(1)
    _save(ckpt, parts, 1, 0.5)
    _save(ckpt, parts, 2, 0.5)
    tracker = tw.BestTracker("val_loss", "min")
    assert tracker.update({"val_loss": 0.5}, step=1, epoch=1)
    assert not tracker.update({"val_loss": 0.5}, step=2, epoch=2)
    assert tw.load_checkpoint(ckpt.best_path)["manifest"]["step"] == tracker.best_step


def test_checkpointer_refuses_nan_weights(tmp_path):
    ckpt = tw.Checkpointer(tmp_path)
    parts = _parts(1)
    _save(ckpt, parts, 1, 1.0)
    with torch.no_grad():
        parts["model"].weight[0, 0] = float("nan")
    with pytest.warns(CheckpointWarning, match="NaN"):
        assert _save(ckpt, parts, 2, 0.1) is None
    assert not (tmp_path / "step-00000002.pt").exists()
    assert tw.load_checkpoint(ckpt.last_path)["manifest"]["step"] == 1


def test_async_save_snapshots_state_at_call_time(tmp_path):
    ckpt = tw.Checkpointer(tmp_path, async_save=True)
    parts = _parts(1)
    expected = parts["model"].weight.detach().clone()
    record = _save(ckpt, parts, 1, 1.0)
    with torch.no_grad():
        parts["model"].weight.add_(100.0)  # training goes on while the write is in flight
    ckpt.wait()
    saved = tw.load_checkpoint(record.path)["state"]["model"]["weight"]
    assert torch.equal(saved, expected)
    ckpt.close()


def test_checkpointer_removes_stale_temp_files(tmp_path):
    stale = tmp_path / ".step-00000001.pt.tmp-123-456"
    stale.write_bytes(b"partial")
    tw.Checkpointer(tmp_path)
    assert not stale.exists()


def test_checkpointer_cadence(tmp_path):
    ckpt_steps = tw.Checkpointer(tmp_path, every_steps=5, every_epochs=2)
    assert [s for s in range(0, 16) if ckpt_steps.due_after_step(s)] == [5, 10, 15]  # not 0
    assert [e for e in range(1, 6) if ckpt_steps.due_after_epoch(e, last=False)] == [2, 4]
    assert ckpt_steps.due_after_epoch(5, last=True)
    assert ckpt_steps.due_after_epoch(3, last=False, best=True)  # a new best: due too


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_min_interval_spaces_cadence_saves_but_not_the_end(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr("trainwell.state.checkpointer.time.monotonic", clock)
    ckpt = tw.Checkpointer(tmp_path, every_epochs=1, every_steps=1, min_interval_s=10.0)
    parts, counters = _parts(1), tw.Counters()
    assert ckpt.due_after_epoch(1, last=False)  # nothing saved yet
    ckpt.save(parts, counters)
    clock.now += 9.0
    assert not ckpt.due_after_epoch(2, last=False) and not ckpt.due_after_step(3)
    assert not ckpt.due_after_epoch(2, last=False, best=True)
    assert ckpt.due_after_epoch(2, last=True)  # the end always saves
    clock.now += 1.0
    assert ckpt.due_after_epoch(3, last=False) and ckpt.due_after_step(4)


def test_auto_interval_is_twenty_times_the_last_save(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr("trainwell.state.checkpointer.time.monotonic", clock)
    ckpt = tw.Checkpointer(tmp_path, every_epochs=1, min_interval_s=None)
    ckpt.save(_parts(1), tw.Counters())
    blocked = ckpt.saves[-1].blocked_s
    clock.now += 19 * blocked
    assert not ckpt.due_after_epoch(2, last=False)
    clock.now += 2 * blocked
    assert ckpt.due_after_epoch(2, last=False)


def test_a_held_best_is_written_before_the_next_save_with_its_own_state(tmp_path):
    ckpt = tw.Checkpointer(tmp_path, keep_last=5, keep_best=1, monitor="val_loss", mode="min")
    parts, counters = _parts(1), tw.Counters()
    counters.step, counters.epoch = 4, 1
    ckpt.save(parts, counters, metrics={"val_loss": 2.0})
    counters.step, counters.epoch = 8, 2
    held_weights = {k: v.clone() for k, v in parts["model"].state_dict().items()}
    ckpt.hold(parts, counters, metrics={"val_loss": 1.0})  # a new best, inside the interval
    with torch.no_grad():
        for p in parts["model"].parameters():
            p.add_(1.0)  # training goes on: the held copy must not change
    assert [p.name for p in list_checkpoints(tmp_path)] == ["step-00000004.pt"]
    counters.step, counters.epoch = 12, 3
    ckpt.save(parts, counters, metrics={"val_loss": 1.5})
    assert [p.name for p in list_checkpoints(tmp_path)][:2] == [
        "step-00000012.pt",
        "step-00000008.pt",
    ]
    best = tw.load_checkpoint(ckpt.best_path)
    assert best["manifest"]["step"] == 8
    for key, value in held_weights.items():
        assert torch.equal(best["state"]["model"][key], value)
    assert tw.load_checkpoint(ckpt.last_path)["manifest"]["step"] == 12


def test_close_writes_a_held_best(tmp_path):
    ckpt = tw.Checkpointer(tmp_path, keep_best=1, monitor="val_loss", mode="min")
    counters = tw.Counters()
    counters.step, counters.epoch = 3, 1
    ckpt.hold(_parts(1), counters, metrics={"val_loss": 1.0})
    ckpt.close()
    assert tw.load_checkpoint(ckpt.best_path)["manifest"]["step"] == 3


# --------------------------------------------------------------------------- restore / weights


def test_restore_loads_every_part_and_rejects_missing(tmp_path):
    source = _parts(1)
    tw.save_atomic({"format": 1, "state": state_of(source)}, tmp_path / "c.pt")
    target = _parts(2)
    restore(target, tw.load_checkpoint(tmp_path / "c.pt")["state"])
    assert torch.equal(target["model"].weight, source["model"].weight)
    assert target["counters"].step == 1
    torch.testing.assert_close(
        target["optimizer"].state_dict()["state"][0]["exp_avg"],
        source["optimizer"].state_dict()["state"][0]["exp_avg"],
    )
    with pytest.raises(tw.CheckpointError, match="'schedule'"):
        restore({**target, "schedule": tw.Counters()}, state_of(source))
    other = _parts(3)
    restore({**other, "early_stopping": None}, state_of(source))  # absent parts are skipped
    assert other["counters"].step == 1


def test_restore_shape_mismatch_names_both_shapes():
    state = {"model": nn.Linear(3, 2).state_dict()}
    with pytest.raises(tw.ShapeError, match=r"\(2, 3\).*\(4, 3\)"):
        restore({"model": nn.Linear(3, 4)}, state)


def test_load_weights_strict_and_prefixes():
    source = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    prefixed = {f"module.{k}": v for k, v in source.state_dict().items()}
    target = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    report = load_weights(target, prefixed)
    assert report.missing == [] and report.unexpected == []
    assert torch.equal(target[1].weight, source[1].weight)
    partial = {k: v for k, v in source.state_dict().items() if k.startswith("0.")}
    with pytest.raises(tw.CheckpointError, match="strict=False"):
        load_weights(target, partial)
    report = load_weights(target, partial, strict=False)
    assert report.missing == ["1.weight", "1.bias"]


# --------------------------------------------------------------------------- find_checkpoint


def test_find_checkpoint(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    with pytest.raises(tw.CheckpointError, match="found no checkpoint"):
        find_checkpoint("auto", run)
    with pytest.raises(tw.CheckpointError, match="run directory"):
        find_checkpoint("auto", None)
    with pytest.raises(tw.CheckpointError, match="no checkpoint in"):
        find_checkpoint(run)
    ckpt = tw.Checkpointer(run / "checkpoints", keep_last=3)
    parts = _parts(1)
    _save(ckpt, parts, 1, 1.0)
    _save(ckpt, parts, 2, 1.0)
    newest = run / "checkpoints" / "step-00000002.pt"
    assert find_checkpoint("auto", run) == newest
    assert find_checkpoint(run) == newest
    assert find_checkpoint(str(run / "checkpoints")) == newest
    assert (
        find_checkpoint(run / "checkpoints" / "step-00000001.pt")
        == run / "checkpoints" / "step-00000001.pt"
    )
    with pytest.raises(tw.CheckpointError, match="does not exist"):
        find_checkpoint(tmp_path / "missing.pt")


def test_find_checkpoint_skips_a_corrupt_newest_with_a_warning(tmp_path):
    ckpt = tw.Checkpointer(tmp_path / "checkpoints", keep_last=3)
    parts = _parts(1)
    _save(ckpt, parts, 1, 1.0)
    _save(ckpt, parts, 2, 1.0)
    newest = tmp_path / "checkpoints" / "step-00000002.pt"
    newest.write_bytes(newest.read_bytes()[:100])  # truncated after its sidecar was written
    with pytest.warns(CheckpointWarning, match="step-00000002"):
        found = find_checkpoint("auto", tmp_path)
    assert found == tmp_path / "checkpoints" / "step-00000001.pt"
    (tmp_path / "checkpoints" / "step-00000001.json").unlink()  # a save that never finished
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CheckpointWarning)
        with pytest.raises(tw.CheckpointError, match="no loadable checkpoint"):
            find_checkpoint("auto", tmp_path)


# --------------------------------------------------------------------------- every read verifies


def test_every_read_of_a_checkpoint_with_a_sidecar_verifies_its_checksum(
    flip_tensor_bytes, tmp_path
):
    ckpt = tw.Checkpointer(tmp_path, keep_last=3)
    parts = _parts(1)
    _save(ckpt, parts, 1, 1.0)
    step = tmp_path / "step-00000001.pt"
    torch.load(step, weights_only=True)  # loads fine before and (silently) after the damage
    flip_tensor_bytes(step)
    torch.load(step, weights_only=True)
    model = nn.Linear(3, 2)
    for path in (step, tmp_path / "last.pt", tmp_path / "best.pt"):  # links share the bytes
        with pytest.raises(tw.CheckpointError, match="checksum"):
            tw.load_checkpoint(path)
        with pytest.raises(tw.CheckpointError, match="checksum"):
            tw.load_weights(model, path)
        with pytest.raises(tw.CheckpointError, match="checksum"):
            tw.export_weights(path, tmp_path / "out.safetensors")
    from trainwell.state.weights import read_weights

    with pytest.raises(tw.CheckpointError, match="step-00000001.pt"):
        read_weights(step)
    # A file without a manifest (a bare export, a foreign .pt) is read as before.
    torch.save(nn.Linear(3, 2).state_dict(), tmp_path / "plain.pt")
    (tmp_path / "plain.json").write_text('{"not": "a manifest"}')
    assert tw.load_weights(model, tmp_path / "plain.pt").missing == []


def test_verified_reads_hash_once_per_unchanged_file(tmp_path, monkeypatch):
    import trainwell.state.checkpoint as checkpoint

    ckpt = tw.Checkpointer(tmp_path)
    _save(ckpt, _parts(1), 1, 1.0)
    path = find_checkpoint(tmp_path)  # verifies
    calls = []
    real = checkpoint.verify
    monkeypatch.setattr(checkpoint, "verify", lambda p: calls.append(p) or real(p))
    tw.load_checkpoint(path)
    assert calls == []  # the resume path does not read a large file twice


# --------------------------------------------------------------------------- export


def test_export_never_overwrites_its_input(tmp_path):
    ckpt = tw.Checkpointer(tmp_path / "checkpoints")
    _save(ckpt, _parts(1), 1, 1.0)
    step = tmp_path / "checkpoints" / "step-00000001.pt"
    before = step.read_bytes()
    os.symlink(step, tmp_path / "alias.pt")
    for out in (step, tmp_path / "alias.pt", tmp_path / "checkpoints" / "last.pt"):
        for fmt in ("pt", "safetensors"):
            with pytest.raises(tw.CheckpointError, match="overwrite"):
                tw.export_weights(step, out, fmt=fmt)
    with pytest.raises(tw.CheckpointError, match="overwrite"):
        tw.export_weights(tmp_path / "checkpoints" / "last.pt", step, fmt="pt")
    assert step.read_bytes() == before
    verify(step)


@pytest.mark.parametrize("fmt", ["pt", "safetensors"])
def test_exported_files_get_the_usual_permissions(tmp_path, fmt):
    ckpt = tw.Checkpointer(tmp_path / "checkpoints")
    _save(ckpt, _parts(1), 1, 1.0)
    old = os.umask(0o027)
    try:
        out = tw.export_weights(
            tmp_path / "checkpoints" / "last.pt", tmp_path / f"m.{fmt}", fmt=fmt
        )
    finally:
        os.umask(old)
    assert oct(out.stat().st_mode & 0o777) == oct(0o640)
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


# --------------------------------------------------------------------------- failed writes


def _failing_writer(monkeypatch, error, after_bytes=2000):
    """Make every checkpoint write fail once ``after_bytes`` have gone out (a disk filling up)."""
    import trainwell.state.atomic as atomic

    real = atomic._HashingWriter.write

    def write(self, data):
        if self.size + len(data) > after_bytes:
            raise error
        return real(self, data)

    monkeypatch.setattr(atomic._HashingWriter, "write", write)


ENOSPC = OSError(28, "No space left on device")
TORCH_ERROR = RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 4096 vs 0")


@pytest.mark.parametrize("error", [ENOSPC, TORCH_ERROR], ids=["oserror", "torch-runtimeerror"])
@pytest.mark.parametrize("async_save", [False, True], ids=["sync", "async"])
def test_a_failed_checkpoint_write_is_a_clear_error_and_keeps_the_previous_one(
    tmp_path, monkeypatch, error, async_save
):
    from trainwell.errors import WriteFailedError

    ckpt = tw.Checkpointer(tmp_path, async_save=async_save, keep_last=3)
    parts = _parts(1)
    _save(ckpt, parts, 1, 1.0)
    ckpt.wait()
    _failing_writer(monkeypatch, error)
    with pytest.raises(WriteFailedError) as caught:
        _save(ckpt, parts, 2, 0.5)
        ckpt.wait()  # an async save reports its error at the next wait()/save()/close()
    message = str(caught.value)
    assert caught.value.exit_code == 4
    assert "step-00000002.pt" in message
    assert "needs about" in message and "free" in message
    assert "step-00000001.pt is intact" in message
    if error is ENOSPC:
        assert "No space left on device" in message
    assert "\n" not in message
    assert _files(tmp_path) == [
        "best.json",
        "best.pt",
        "last.pt",
        "step-00000001.json",
        "step-00000001.pt",
    ]
    assert verify(tmp_path / "step-00000001.pt")["step"] == 1
    assert tw.load_checkpoint(tmp_path / "last.pt")["manifest"]["step"] == 1
    ckpt.close()


def test_save_atomic_write_failure_removes_the_temp_file(tmp_path, monkeypatch):
    from trainwell.errors import WriteFailedError

    target = tmp_path / "weights.pt"
    tw.save_atomic({"a": torch.ones(2)}, target)
    before = target.read_bytes()
    _failing_writer(monkeypatch, ENOSPC, after_bytes=100)
    with pytest.raises(WriteFailedError, match=r"weights\.pt.*needs about .* free"):
        tw.save_atomic({"a": torch.zeros(10_000)}, target)
    assert target.read_bytes() == before
    assert _files(tmp_path) == ["weights.pt"]


# --------------------------------------------------------------------------- pickled objects


def test_refusing_pickled_objects_names_the_class_without_escape_codes(tmp_path):
    path = tmp_path / "old.pt"
    torch.save({"format": 1, "manifest": {}, "state": {"obj": Custom()}}, path)
    with pytest.raises(tw.CheckpointError) as caught:
        tw.load_checkpoint(path)
    message = str(caught.value)
    assert "\x1b" not in message and "\n" not in message
    assert f"{Custom.__module__}.Custom" in message
    assert "untrusted" in message
    assert "--trust-checkpoint" in message and "trusted=True" in message
    assert "add_safe_globals" in message
    assert tw.load_checkpoint(path, trusted=True)["state"]["obj"].value == 3

    weights = tmp_path / "weights.pt"
    torch.save({"weight": torch.ones(2, 3), "bias": torch.zeros(2), "note": Custom()}, weights)
    model = nn.Linear(3, 2)
    with pytest.raises(tw.CheckpointError, match="Custom"):
        tw.load_weights(model, weights, strict=False)
    report = tw.load_weights(model, weights, strict=False, trusted=True)
    assert report.unexpected == ["note"] and torch.equal(model.weight, torch.ones(2, 3))
