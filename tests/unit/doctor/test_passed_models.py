"""Issue 29 item 3: a model passed as ``model.eval()`` is still the model."""

from __future__ import annotations

from trainwell.doctor import check_source

SCRIPT = """\
import torch

def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum()
    return correct

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    acc = evaluate(model.eval(), val_loader)
"""


def test_eval_written_inside_a_call_argument_is_seen() -> None:
    found = [(f.line, f.code) for f in check_source(SCRIPT, "train.py")]
    assert found == [(6, "TW012")]
    # the same helper under no_grad is silent
    guarded = SCRIPT.replace("def evaluate", "@torch.no_grad()\ndef evaluate")
    assert [f.code for f in check_source(guarded, "train.py")] == []
