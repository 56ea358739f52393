"""The start and end of a run as a person reads them: the model's modules with their
parameters (frozen and tied ones said as such), and the commands to type next."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import trainwell as tw


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.body = nn.Linear(4, 4)
        self.frozen = nn.Linear(4, 4)
        self.act = nn.ReLU()
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight  # tied: counted once, under embed
        for p in self.frozen.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.head(self.frozen(self.body(self.embed(x))))


@pytest.mark.cpu_only  # the start line says (fp32, single): auto picks bf16 on CUDA
def test_the_start_lists_modules_once_each_with_frozen_ones_and_the_end_the_next_commands(
    tmp_path, capsys
):
    x = torch.randint(0, 10, (32,))
    config = {"run": {"dir": str(tmp_path), "progress": False}, "train": {"max_epochs": 1}}
    tw.fit(Tied(), (x, x), (x, x), config=config)
    out = capsys.readouterr()
    text = out.out + out.err
    total = 10 * 4 + (16 + 4) + (16 + 4)  # the head's weight is the embedding's
    assert f"model Tied: {total:,} parameters (20 frozen), " in text
    rows = [line.split() for line in text.splitlines() if line.startswith("  ") and "," not in line]
    assert ["embed", "40"] in rows and ["body", "20"] in rows and ["frozen", "20", "frozen"] in rows
    assert not any(row[0] in {"head", "act"} for row in rows)  # tied or without parameters
    assert "(fp32, single)" in text
    # fit() from Python: the CLI cannot rebuild this model, so the next steps are Python calls
    for command in ("export", "plot"):
        assert f"trainwell {command} {tmp_path}" in text
    assert "trainwell resume" not in text and "trainwell eval" not in text
    assert '"checkpoint.resume=auto", "train.max_epochs=2"]))' in text
