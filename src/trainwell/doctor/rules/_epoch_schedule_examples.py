"""TW003 examples: an epoch schedule that may be absent (``self.scheduler = None`` in the
other arm of a config choice), stepped behind ``if self.scheduler is not None`` inside the
batch loop, is stepped every batch all the same."""

from __future__ import annotations

from ._registry import Example

_OPTIONAL = """\
import torch


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if args.lr_scheduler:
            self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, [15, 30])
        else:
            self.scheduler = None

    def train_epoch(self, loader, criterion):
        for x, y in loader:
            loss = criterion(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            {step}
"""

EXAMPLES = (
    Example(
        "an_optional_epoch_schedule_stepped_in_the_batch_loop",
        _OPTIONAL.format(
            step="if self.scheduler is not None:\n                self.scheduler.step()"
        ),
        [(20, "TW003")],
    ),
    Example(
        "an_optional_epoch_schedule_stepped_every_ten_batches",
        _OPTIONAL.format(
            step="if self.scheduler is not None and i % 10 == 0:\n                self.scheduler.step()"
        ).replace("for x, y in loader:", "for i, (x, y) in enumerate(loader):"),
        [],
    ),
)
