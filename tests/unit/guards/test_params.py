"""Parameters the optimizer cannot see, or stale copies it still updates."""

import torch
from tests.fixtures import Net, batches
from torch import nn

from trainwell.guards import watch

from .helpers import codes, warns


class ListNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = [nn.Linear(4, 4), nn.Linear(4, 4)]  # planted: a plain list
        self.alias = [self]  # a plain reference to a registered module is fine
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        for block in self.blocks:
            x = block(x).relu()
        return self.head(x)


def test_modules_in_a_plain_list_are_found():
    model = ListNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with warns("unregistered-module"), watch(model, opt) as guards:
        pass
    assert codes(guards) == ["unregistered-module"]
    assert guards.findings[0].where == "ListNet.blocks"
    assert "nn.ModuleList" in guards.findings[0].fix


def test_trainable_parameters_missing_from_the_optimizer_are_found():
    model = Net()
    opt = torch.optim.SGD(model.net[0].parameters(), lr=0.1)  # forgot the head
    with warns("param-not-in-optimizer"), watch(model, opt) as guards:
        pass
    assert codes(guards) == ["param-not-in-optimizer"]
    assert "net.2.weight" in guards.findings[0].message


def test_model_converted_after_the_optimizer_is_found_at_step_time():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt) as guards:
        assert guards.findings == []
        # load_state_dict(assign=True) swaps in new Parameter objects, as model.half()/.to()
        # do for device moves: the optimizer still holds the old ones.
        model.load_state_dict({k: v.clone() for k, v in model.state_dict().items()}, assign=True)
        with warns("optimizer-param-not-in-model", "param-not-in-optimizer"):
            for x, y in batches(2):
                opt.zero_grad()
                crit(model(x), y).backward()
                opt.step()
    assert codes(guards) == ["param-not-in-optimizer", "optimizer-param-not-in-model"]


def test_frozen_parameters_outside_the_optimizer_are_silent():
    model = Net()
    for p in model.net[0].parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(model.net[2].parameters(), lr=0.1)
    with watch(model, opt) as guards:
        pass
    assert guards.findings == []
