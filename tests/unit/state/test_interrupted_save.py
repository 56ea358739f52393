"""Ctrl-C twice: the second one aborts the save in progress; its temporary file goes, the file
it was replacing stays, and it is an interrupt (exit 130), not a failed write (exit 4)."""

from __future__ import annotations

import os
import signal
import threading

import pytest
import torch

import trainwell.state.atomic as atomic
from trainwell.state.preemption import Preemption, interrupted_twice

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="signals: main thread"
)


def test_the_second_ctrl_c_raises_and_is_remembered():
    with Preemption() as preemption:
        assert not interrupted_twice()
        signal.raise_signal(signal.SIGINT)
        assert preemption.requested == "SIGINT" and not interrupted_twice()
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        assert interrupted_twice()
    assert not interrupted_twice()  # over with the run


def test_ctrl_c_inside_torchs_writer_is_an_interrupt_with_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "step.pt"
    atomic.save_atomic({"a": torch.ones(3)}, target)
    before = target.read_bytes()
    real = atomic._HashingWriter.write

    def write(self, data):
        if self.size > 0:  # mid-file: torch swallows the KeyboardInterrupt, says RuntimeError
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
        return real(self, data)

    monkeypatch.setattr(atomic._HashingWriter, "write", write)
    with Preemption(), pytest.raises(KeyboardInterrupt):
        atomic.save_atomic({"a": torch.zeros(1000)}, target)
    assert not interrupted_twice()  # cleared with the run: a later write failure is one
    assert target.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["step.pt"]


def test_ctrl_c_between_link_and_rename_leaves_no_temp_file(tmp_path, monkeypatch):
    source, target = tmp_path / "step.pt", tmp_path / "last.pt"
    source.write_bytes(b"new")
    target.write_bytes(b"old")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic.link_atomic(source, target)
    assert target.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["last.pt", "step.pt"]
