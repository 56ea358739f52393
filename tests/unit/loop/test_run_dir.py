"""fit(run.dir=...) never destroys another run: a directory holding a run is refused unless
resumed or overwritten on purpose (run.overwrite), another run's lock is respected, and a run
that fails before its first step leaves the directory as it found it. On CPU."""

import json
import os

import pytest
import torch
from tests.fixtures import blobs, mlp

import trainwell as tw
from trainwell.errors import ConfigError, ShapeError
from trainwell.state.rundir import RunDirBusyError, RunDirLock, RunDirTakenError


def _config(run_dir, **run):
    return {
        "run": {"dir": str(run_dir), "device": "cpu", "quiet": True, **run},
        "train": {"max_epochs": 1},
        "data": {"batch_size": 60},
    }


def _train(run_dir, **run):
    return tw.fit(mlp(), blobs(), blobs(seed=1), config=_config(run_dir, **run))


def _snapshot(run_dir):
    """Every file of the run directory and its bytes."""
    return {
        str(p.relative_to(run_dir)): p.read_bytes()
        for p in sorted(run_dir.rglob("*"))
        if p.is_file()
    }


def test_a_second_run_into_a_finished_run_is_refused_and_changes_nothing(tmp_path):
    _train(tmp_path)
    before = _snapshot(tmp_path)
    assert "checkpoints/best.pt" in before and "metrics.jsonl" in before
    with pytest.raises(RunDirTakenError, match="already holds a run.*--resume auto.*--overwrite"):
        _train(tmp_path)
    assert _snapshot(tmp_path) == before


def test_overwrite_replaces_the_old_run_and_keeps_files_that_are_not_a_runs(tmp_path):
    _train(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    old_steps = (tmp_path / "metrics.jsonl").read_text().count('"kind": "epoch"')
    result = _train(tmp_path, overwrite=True, seed=1)
    assert result.epochs == 1
    assert (tmp_path / "notes.txt").read_text() == "mine"
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert old_steps == 1 and [r["kind"] for r in records].count("epoch") == 1  # not appended
    assert "seed: 1" in (tmp_path / "config.yaml").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".overwritten")]
    manifest = json.loads((tmp_path / "checkpoints" / "best.json").read_text())
    assert manifest["config"]["run"]["seed"] == 1


def test_an_overwrite_that_fails_at_its_first_step_loses_nothing(tmp_path):
    _train(tmp_path)
    before = _snapshot(tmp_path)

    def bad_loss(output, target):
        raise ShapeError("the loss got logits of shape (60, 3) and targets of shape (60, 2)")

    with pytest.raises(ShapeError):
        tw.fit(mlp(), blobs(), blobs(seed=1), loss=bad_loss,
               config=_config(tmp_path, overwrite=True))  # fmt: skip
    assert _snapshot(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {name.split("/")[0] for name in before}
    )


def test_a_run_that_fails_before_its_first_step_can_be_started_again(tmp_path):
    def bad_loss(output, target):
        raise ShapeError("shapes do not fit")

    with pytest.raises(ShapeError):
        tw.fit(mlp(), blobs(), loss=bad_loss, config=_config(tmp_path))
    assert _snapshot(tmp_path) == {}  # nothing that looks like a run
    assert _train(tmp_path).epochs == 1


def test_a_directory_another_run_holds_is_refused_naming_its_pid(tmp_path):
    other = RunDirLock(tmp_path)
    other.acquire()
    try:
        with pytest.raises(RunDirBusyError, match=rf"in use by another run \(pid {os.getpid()}"):
            _train(tmp_path)
    finally:
        other.release()
    assert not (tmp_path / "config.yaml").exists()
    assert _train(tmp_path).epochs == 1  # released by the run that held it: free again


def test_the_lock_is_held_while_training_and_released_after(tmp_path):
    seen = []

    class Probe(tw.Observer):
        def on_step_end(self, report):
            if not seen:
                with pytest.raises(RunDirBusyError):
                    RunDirLock(tmp_path).acquire()
                seen.append(report.step)

    tw.fit(mlp(), blobs(), config=_config(tmp_path), observers=[Probe()])
    assert seen == [1]
    assert not (tmp_path / ".lock").exists()


def test_resume_continues_and_resume_with_overwrite_is_refused(tmp_path):
    _train(tmp_path)
    config = _config(tmp_path)
    config["checkpoint"] = {"resume": "auto"}
    config["train"]["max_epochs"] = 2
    with pytest.warns(UserWarning, match="different config"):
        assert tw.fit(mlp(), blobs(), blobs(seed=1), config=config).epochs == 2
    config["run"]["overwrite"] = True
    with pytest.raises(ConfigError, match="run.overwrite=true deletes the run"):
        tw.fit(mlp(), blobs(), blobs(seed=1), config=config)
    assert (
        torch.load(tmp_path / "checkpoints" / "last.pt", weights_only=True)["manifest"]["epoch"]
        == 2
    )
