"""A full disk under TensorBoard's writer thread: the log stops with one warning, the thread
does not die with a traceback, and training goes on (as for metrics.jsonl)."""

from __future__ import annotations

import errno
import json
import threading
import warnings

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.observe.log import MetricsLogWarning

pytest.importorskip("tensorboard")

X = torch.randn(96, 4, generator=torch.Generator().manual_seed(0))
Y = (X[:, 0] > 0).long()


def fill_the_disk_after(monkeypatch, records):
    """TensorBoard's record writer (called from its thread) fails after ``records`` writes."""
    from tensorboard.summary.writer import record_writer

    real = record_writer.RecordWriter.write
    calls = []

    def write(self, data):
        calls.append(len(data))
        if len(calls) > records:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(record_writer.RecordWriter, "write", write)
    return calls


def test_a_full_disk_stops_tensorboard_with_one_warning_and_training_goes_on(tmp_path, monkeypatch):
    calls = fill_the_disk_after(monkeypatch, 3)
    died = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args.exc_value))
    config = {
        "run": {"dir": str(tmp_path / "run"), "quiet": True, "log_every": 2},
        "train": {"max_epochs": 3},
        "data": {"batch_size": 16, "input_bound_threshold": None},
        "log": {"tensorboard": True},
    }
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tw.fit(nn.Linear(4, 2), (X, Y), (X, Y), loss=nn.CrossEntropyLoss(), config=config)
    assert result.ok and result.epochs == 3
    said = [w for w in caught if issubclass(w.category, MetricsLogWarning)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert "tensorboard" in str(said[0].message) and "No space left" in str(said[0].message)
    assert "training goes on" in str(said[0].message)
    assert died == []  # the writer thread did not die with a traceback
    assert len(calls) == 4  # it stopped writing at the first failure
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    epochs = [r for r in map(json.loads, lines) if r["kind"] == "epoch"]
    assert [r["epoch"] for r in epochs] == [1, 2, 3]  # the other logs are whole
