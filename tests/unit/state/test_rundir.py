"""The run directory's claim (trainwell.state.rundir): the lock, a stale lock taken over,
refusing a run it would overwrite, overwrite set aside until the first step and put back by a
run that failed before it, and default names that never collide."""

import json
import os
import socket
import subprocess
import sys

import pytest

from trainwell.state.rundir import (
    LOCK_FILE,
    RunDirBusyError,
    RunDirectory,
    RunDirLock,
    RunDirTakenError,
    RunDirWarning,
    new_run_dir,
    run_in,
)


def _finished_run(path):
    (path / "checkpoints").mkdir(parents=True)
    (path / "checkpoints" / "best.pt").write_bytes(b"old best")
    (path / "config.yaml").write_text("old: config\n")
    (path / "metrics.jsonl").write_text('{"kind": "epoch"}\n')
    return path


def _dead_pid():
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return int(proc.stdout)


def test_a_second_lock_on_a_held_directory_is_refused_naming_the_holder(tmp_path):
    first = RunDirLock(tmp_path)
    first.acquire()
    record = json.loads((tmp_path / LOCK_FILE).read_text())
    assert record["pid"] == os.getpid() and record["host"] == socket.gethostname()
    with pytest.raises(RunDirBusyError, match=rf"pid {os.getpid()} on"):
        RunDirLock(tmp_path).acquire()
    first.release()
    assert not (tmp_path / LOCK_FILE).exists()  # a clean release leaves no record behind
    again = RunDirLock(tmp_path)
    again.acquire()
    assert again.held
    again.release()


def test_a_lock_left_by_a_dead_process_is_taken_over_with_a_note(tmp_path):
    dead = _dead_pid()
    (tmp_path / LOCK_FILE).write_text(json.dumps({"pid": dead, "host": socket.gethostname()}))
    lock = RunDirLock(tmp_path)
    with pytest.warns(RunDirWarning, match=rf"taking over the lock of pid {dead} on"):
        lock.acquire()
    assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
    lock.release()


def test_the_lock_dies_with_its_process(tmp_path):
    holder = subprocess.run(
        [sys.executable, "-c", "import sys; from trainwell.state.rundir import RunDirLock; "
         f"RunDirLock({str(tmp_path)!r}).acquire(); sys.exit(0)"],
        check=True,
    )  # fmt: skip
    assert holder.returncode == 0 and (tmp_path / LOCK_FILE).exists()  # died holding it
    lock = RunDirLock(tmp_path)
    with pytest.warns(RunDirWarning, match="no longer running"):
        lock.acquire()
    lock.release()


def test_what_counts_as_a_run(tmp_path):
    assert run_in(tmp_path / "missing") == []
    assert run_in(tmp_path) == []
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "checkpoints").mkdir()
    assert run_in(tmp_path) == []  # unrelated files and an empty checkpoints/ are no run
    _finished_run(tmp_path / "run")
    assert run_in(tmp_path / "run") == ["config.yaml", "metrics.jsonl", "checkpoints/"]


def test_a_directory_holding_a_run_is_refused_and_left_unlocked(tmp_path):
    run = _finished_run(tmp_path / "run")
    claim = RunDirectory(run, continuing=False, overwrite=False)
    with pytest.raises(RunDirTakenError) as caught:
        claim.claim()
    message = str(caught.value)
    assert "already holds a run" in message
    for way_out in ("--resume auto", "--run-dir", "--overwrite", "run.overwrite=true"):
        assert way_out in message
    assert not (run / LOCK_FILE).exists()
    assert (run / "checkpoints" / "best.pt").read_bytes() == b"old best"
    RunDirectory(run, continuing=True, overwrite=False).claim().release()  # a resume may
    RunDirectory(tmp_path / "empty", continuing=False, overwrite=False).claim().release()


def test_overwrite_sets_the_old_run_aside_and_deletes_it_at_the_first_step(tmp_path):
    run = _finished_run(tmp_path / "run")
    (run / "notes.txt").write_text("mine")
    claim = RunDirectory(run, continuing=False, overwrite=True).claim()
    assert (run / "checkpoints" / "best.pt").is_file()  # claiming changes nothing
    claim.start("new: config\n")
    assert (run / "config.yaml").read_text() == "new: config\n"
    assert list((run / "checkpoints").iterdir()) == []
    assert not (run / "metrics.jsonl").exists()
    claim.commit()
    claim.release()
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "config.yaml", "notes.txt"]


def test_a_run_that_fails_before_its_first_step_puts_everything_back(tmp_path):
    run = _finished_run(tmp_path / "run")
    with (
        pytest.raises(ValueError),
        RunDirectory(run, continuing=False, overwrite=True).claim() as c,
    ):
        c.start("new: config\n")
        (run / "metrics.jsonl").write_text("")  # what the failing run had opened
        raise ValueError("shape error at the first step")
    assert (run / "config.yaml").read_text() == "old: config\n"
    assert (run / "metrics.jsonl").read_text() == '{"kind": "epoch"}\n'
    assert (run / "checkpoints" / "best.pt").read_bytes() == b"old best"
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "config.yaml", "metrics.jsonl"]


def test_a_failed_resume_keeps_the_config_it_found_and_a_new_run_leaves_nothing(tmp_path):
    run = _finished_run(tmp_path / "run")
    with (
        pytest.raises(ValueError),
        RunDirectory(run, continuing=True, overwrite=False).claim() as c,
    ):
        c.start("changed: config\n")
        raise ValueError("failed")
    assert (run / "config.yaml").read_text() == "old: config\n"
    fresh = tmp_path / "fresh"
    with pytest.raises(ValueError), RunDirectory(fresh, continuing=False, overwrite=False) as c:
        c.claim().start("new: config\n")
        raise ValueError("failed")
    assert list(fresh.iterdir()) == []  # the same command can simply be run again


def test_default_run_directories_started_in_the_same_second_differ(tmp_path):
    made = [new_run_dir(tmp_path / "runs", "digits-20250101-120000") for _ in range(3)]
    assert [p.name for p in made] == [
        "digits-20250101-120000",
        "digits-20250101-120000-2",
        "digits-20250101-120000-3",
    ]
    assert all(p.is_dir() for p in made)
