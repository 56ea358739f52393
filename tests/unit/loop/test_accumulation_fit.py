"""Accumulating k micro-batches in fit() equals training on one k x batch."""

import copy

import pytest
import torch
from torch import nn

import trainwell as tw

# CPU semantics: fp32 equality of the weights (precision=auto picks bf16 on CUDA)
pytestmark = pytest.mark.cpu_only


def regression_data(n):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, 6, generator=g)
    y = (x @ torch.randn(6, 4, generator=g)).argmax(1)
    return x, y


def run(model, x, y, *, batch, accumulate, epochs=2):
    cfg = tw.build_config(
        {
            "run": {"quiet": True},
            "data": {"batch_size": batch},
            "train": {"max_epochs": epochs, "accumulate_steps": accumulate, "clip_norm": None},
            "optim": {"name": "sgd", "lr": 0.5, "momentum": 0.0, "weight_decay": 0.0},
            "schedule": {"name": "constant"},
        }
    )
    return tw.fit(model, (x, y), config=cfg)


@pytest.mark.parametrize("n", [96, 88])  # 88 samples: windows of 4, 4 and 3 micro-batches
def test_k_micro_batches_equal_one_big_batch(n):
    x, y = regression_data(n)
    torch.manual_seed(0)
    small = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
    big = copy.deepcopy(small)
    result_small = run(small, x, y, batch=8, accumulate=4)
    result_big = run(big, x, y, batch=32, accumulate=1)
    assert result_small.steps == result_big.steps == 2 * 3
    for a, b in zip(small.parameters(), big.parameters()):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_wrong_divisor_would_be_detected():
    """Scaling the short window by 1/k instead of 1/n moves the weights measurably."""
    x, y = regression_data(88)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
    reference = copy.deepcopy(model)
    run(reference, x, y, batch=32, accumulate=1, epochs=1)
    acc = tw.Accumulation(4)
    loader = tw.make_loader((x, y), batch_size=8, seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    torch.manual_seed(0)
    for window in acc.windows(loader):
        optimizer.zero_grad()
        for micro in window:
            xb, yb = micro.batch
            (nn.functional.cross_entropy(model(xb), yb) / 4).backward()  # the classic bug
        optimizer.step()
    diff = max(
        (a - b).abs().max().item() for a, b in zip(model.parameters(), reference.parameters())
    )
    assert diff > 1e-4
