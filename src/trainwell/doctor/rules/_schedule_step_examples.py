"""TW004 examples: a per-step schedule stepped right after its optimizer's step(), in a
function that a loop calls once per update (an outer meta-learning step over its tasks'
inner loops), is stepped once per optimizer step: on time."""

from __future__ import annotations

from ._registry import Example

_META_STEP = """\
from transformers import get_linear_schedule_with_warmup


class Trainer:
    def __init__(self, model, loader, config):
        self.model, self.loader = model, loader
        self.opt = torch.optim.AdamW(model.parameters(), lr=config["lr"])
        self.scheduler = get_linear_schedule_with_warmup(
            self.opt, num_warmup_steps=100, num_training_steps=config["episodes"]
        )

    def inner_loop(self, batches):
        fast = deepcopy(self.model)
        inner_opt = torch.optim.SGD(fast.parameters(), lr=0.01)
        for x, y in batches:
            F.cross_entropy(fast(x), y).backward()
            inner_opt.step()
            inner_opt.zero_grad()
        return [p.grad for p in fast.parameters()]

    def outer_loop(self, tasks):
        for task in tasks:
            self.model.set_grads(self.inner_loop(task))
        self.opt.step()
        {stepped}
        self.opt.zero_grad()

    def train(self, episodes):
        for episode in range(episodes):
            self.outer_loop(sample_tasks(self.loader))
"""

EXAMPLES = (
    Example(
        "a_schedule_stepped_after_each_outer_meta_update",
        _META_STEP.format(stepped="self.scheduler.step()"),
        [],
    ),
)
