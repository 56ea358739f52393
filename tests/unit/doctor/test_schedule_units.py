"""Issue 29 item 4: a cosine period counted in batches but stepped once per epoch."""

from __future__ import annotations

import pytest

from trainwell.doctor import check_source

SCRIPT = """\
import torch
def fit(model, loader, train_set, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=PERIOD)
    iters = len(loader)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            PER_BATCH
        PER_EPOCH
"""


def findings(period: str, per_batch: str, per_epoch: str) -> list[tuple[int, str]]:
    text = SCRIPT.replace("PERIOD", period).replace("PER_BATCH", per_batch)
    found = check_source(text.replace("PER_EPOCH", per_epoch), "s.py")
    return [(f.line, f.code) for f in found]


@pytest.mark.parametrize("period", ["len(train_set)", "len(loader)", "epochs * len(loader)"])
def test_period_in_batches_stepped_per_epoch_is_reported(period: str) -> None:
    assert findings(period, "pass", "scheduler.step()") == [(12, "TW004")]
    # the right usages stay silent: a period in epochs stepped per epoch, a period in
    # batches stepped per batch, the documented fractional-epoch step
    assert findings("10", "pass", "scheduler.step()") == []
    assert findings(period, "scheduler.step()", "pass") == []
    assert findings(period, "scheduler.step(epoch + i / iters)", "pass") == []


@pytest.mark.parametrize("length", ["sch_step", "args.lr_step", "cfg.scheduler_step_size"])
def test_the_schedules_own_step_setting_has_no_unit(length: str) -> None:
    # StepLR(step_size=sch_step): the schedule's own "step" (how many epochs or batches
    # between decays), not a count of batches; stepping it per epoch is not TW004
    text = SCRIPT.replace(
        "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=PERIOD)",
        f"torch.optim.lr_scheduler.StepLR(optimizer, step_size={length})",
    )
    text = text.replace("PER_BATCH", "pass").replace("PER_EPOCH", "scheduler.step()")
    assert [(f.line, f.code) for f in check_source(text, "s.py")] == []
    # a count of batches given as the step is still one
    batches = text.replace(f"step_size={length}", "step_size=10 * len(loader)")
    assert [(f.line, f.code) for f in check_source(batches, "s.py")] == [(12, "TW004")]
