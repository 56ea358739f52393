"""fit() does exactly what the hand-written loop does: same seed, same weights, bit for bit."""

import copy

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.data import epoch_order

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3)
        )

    def forward(self, x):
        return self.body(x)


def data(n=200, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()


def quiet_config(**sections):
    base = {"run": {"quiet": True, "seed": 7}}
    for key, value in sections.items():
        base[key] = value
    return tw.build_config(base)


def hand_loop(model, x, y, *, epochs, batch, lr, seed):
    """The 30-line loop a careful person writes, with the same data order."""
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        order = epoch_order(len(x), seed, epoch)
        for i in range(0, len(x), batch):
            index = order[i : i + batch]
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x[index]), y[index])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
    return model


def test_fit_matches_hand_written_loop_bit_for_bit():
    x, y = data()
    torch.manual_seed(0)
    model_fit = Net()
    model_hand = copy.deepcopy(model_fit)
    cfg = quiet_config(
        data={"batch_size": 32},
        train={"max_epochs": 3, "clip_norm": 1.0},
        optim={"lr": 1e-2, "weight_decay": 0.0, "impl": "for_loop"},
        schedule={"name": "constant"},
    )
    result = tw.fit(model_fit, (x, y), (x[:50], y[:50]), config=cfg)
    hand_loop(model_hand, x, y, epochs=3, batch=32, lr=1e-2, seed=7)
    assert result.steps == 3 * 7
    for (name, a), b in zip(model_fit.state_dict().items(), model_hand.state_dict().values()):
        assert torch.equal(a, b), f"{name} differs between fit() and the hand loop"


def test_parity_fails_when_the_data_order_differs():
    """Guard against a vacuous parity test: a different seed must give different weights."""
    x, y = data()
    torch.manual_seed(0)
    model_fit = Net()
    model_hand = copy.deepcopy(model_fit)
    cfg = quiet_config(
        data={"batch_size": 32},
        train={"max_epochs": 1},
        optim={"lr": 1e-2, "weight_decay": 0.0, "impl": "for_loop"},
        schedule={"name": "constant"},
    )
    tw.fit(model_fit, (x, y), config=cfg)
    hand_loop(model_hand, x, y, epochs=1, batch=32, lr=1e-2, seed=8)
    assert not torch.equal(model_fit.body[0].weight, model_hand.body[0].weight)
