"""TW003 examples: an epoch schedule that may be absent (``self.scheduler = None`` in the
other arm of a config choice), stepped behind ``if self.scheduler is not None`` inside the
batch loop, is stepped every batch all the same; and so is one stepped at the end of a
``train_step(batch)`` that the batch loop calls (said at its step). A literal length longer
than the epoch loop runs (``StepLR(step_size=300)`` over ``range(25)`` epochs) counts batches:
stepped per epoch it would never decay."""

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

_PER_CALL = """\
import torch


class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs)

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = ((self.model(x) - y) ** 2).mean()
        loss.backward()
        self.optimizer.step()
        if self.scheduler:
            self.scheduler.step()

    def train_epoch(self):
        {loop}
"""

_LITERAL = """\
import torch


def train(model, loader, criterion, epochs=25):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.{schedule}
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            scheduler.step()
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
    Example(
        "an_epoch_schedule_stepped_by_the_step_function_the_batch_loop_calls",
        _PER_CALL.format(loop="for x, y in self.loader:\n            self.train_step(x, y)"),
        [(17, "TW003")],
    ),
    Example(
        # one optimizer step per epoch (full-batch training): per epoch, as configured
        "an_epoch_schedule_stepped_by_a_step_function_called_once_per_epoch",
        _PER_CALL.format(
            loop="for x, y in self.loader:\n            pass\n        self.train_step(x, y)"
        ),
        [],
    ),
    Example(
        "an_epoch_schedule_stepped_with_the_epoch_by_the_step_function",
        _PER_CALL.format(
            loop="for x, y in self.loader:\n            self.train_step(x, y)"
        ).replace("self.scheduler.step()", "self.scheduler.step(self.epoch)"),
        [],
    ),
    Example(
        "a_literal_step_size_within_the_epoch_count_stepped_every_batch",
        _LITERAL.format(schedule="StepLR(optimizer, step_size=10, gamma=0.5)"),
        [(12, "TW003")],
    ),
    Example(
        # 300 > 25 epochs: per epoch it would never decay, so it counts batches
        "a_literal_step_size_longer_than_the_epoch_loop_stepped_every_batch",
        _LITERAL.format(schedule="StepLR(optimizer, step_size=300, gamma=0.5)"),
        [],
    ),
    Example(
        "literal_milestones_past_the_epoch_count_stepped_every_batch",
        _LITERAL.format(schedule="MultiStepLR(optimizer, milestones=[400, 800])"),
        [],
    ),
    Example(
        "a_cosine_period_of_the_epoch_count_stepped_every_batch",
        _LITERAL.format(schedule="CosineAnnealingLR(optimizer, T_max=25)"),
        [(12, "TW003")],
    ),
)
