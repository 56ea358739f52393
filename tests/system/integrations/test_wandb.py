"""log.wandb: an offline Weights & Biases run, read back from the run file W&B wrote (its own
protobuf records, in the leveldb-log framing W&B uses)."""

from __future__ import annotations

import json
import struct

import pytest
import torch
from torch import nn

import trainwell as tw

pytest.importorskip("wandb")
from wandb.proto import wandb_internal_pb2  # noqa: E402

X = torch.randn(96, 4, generator=torch.Generator().manual_seed(0))
Y = (X[:, 0] > 0).long()


def records(path):
    """The protobuf records of a .wandb file: 32 KiB blocks of (crc, length, type) chunks."""
    data, pos, chunks, block = path.read_bytes(), 7, [], 32768
    while pos + 7 <= len(data):
        left = block - pos % block
        if left < 7:
            pos += left
            continue
        _, length, kind = struct.unpack("<IHB", data[pos : pos + 7])
        if kind == 0 and length == 0:
            pos += left
            continue
        chunks.append(data[pos + 7 : pos + 7 + length])
        pos += 7 + length
        if kind in (1, 4):  # a whole record, or its last chunk
            record = wandb_internal_pb2.Record()
            record.ParseFromString(b"".join(chunks))
            chunks = []
            yield record


def test_an_offline_run_holds_the_config_and_the_logged_metrics(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_SILENT", "true")
    run = tmp_path / "run"
    config = {
        "run": {"dir": str(run), "quiet": True, "log_every": 3},
        "train": {"max_epochs": 2},
        "data": {"batch_size": 16},
        "log": {"wandb": True},
    }
    import wandb

    given = {}  # what trainwell hands the SDK (its offline writer may flush the config late)
    real_init = wandb.init

    def init(*args, **kwargs):
        given.update(kwargs.get("config") or {})
        return real_init(*args, **kwargs)

    monkeypatch.setattr(wandb, "init", init)
    torch.manual_seed(0)
    result = tw.fit(nn.Linear(4, 2), (X, Y), (X, Y), config=config)
    # the SDK's service process writes the offline file on its own time: tearing it down
    # waits until everything it was handed is on disk (as the SDK does at interpreter exit)
    wandb.teardown()
    [path] = (run / "wandb").glob("offline-run-*/run-*.wandb")
    history, config_seen = [], {}
    for record in records(path):
        kind = record.WhichOneof("record_type")
        if kind == "history":
            items = record.history.item  # "train/loss" is stored as the nested key (train, loss)
            history.append(
                {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in items}
            )
        # the config comes with the run record, or (the SDK's timing) in a config record
        if kind == "run":
            config_seen.update({u.key: json.loads(u.value_json) for u in record.run.config.update})
        if kind == "config":
            config_seen.update({u.key: json.loads(u.value_json) for u in record.config.update})
    assert given["optim"]["lr"] == 0.001 and given["train"]["max_epochs"] == 2
    for key, value in config_seen.items():  # what reached the file is that config (+ the SDK's own)
        assert key == "_wandb" or given[key] == value, key
    val = [h["epoch/val_loss"] for h in history if "epoch/val_loss" in h]
    assert val == pytest.approx([h["val_loss"] for h in result.history])
    train_steps = [h["_step"] for h in history if "train/loss" in h]
    assert train_steps == [3, 6, 9, 12]
