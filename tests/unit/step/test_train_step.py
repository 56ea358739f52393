"""The step seam: TrainStep alone in a hand loop (a GAN's two optimizers through fit():
tests/system/recipes/test_gan.py)."""

import pytest
import torch
from tests.fixtures import mlp
from torch import nn

import trainwell as tw
from trainwell.parts.accumulation import Accumulation
from trainwell.step.optimizers import Optimizers
from trainwell.step.train_step import TrainStep

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


def test_train_step_alone_equals_the_hand_written_step():
    """zero_grad → weighted backward → clip → step → schedule, as a hand loop writes them."""
    torch.manual_seed(0)
    x, y = torch.randn(48, 4), torch.randint(0, 3, (48,))
    batches = [(x[i : i + 8], y[i : i + 8]) for i in range(0, 48, 8)]

    def fresh():
        model = mlp(seed=1)
        return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    model, opt = fresh()
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    crit = nn.CrossEntropyLoss()
    for i in range(0, len(batches), 2):  # accumulation 2 by hand
        opt.zero_grad()
        for bx, by in batches[i : i + 2]:
            (crit(model(bx), by) / 2).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()

    model2, opt2 = fresh()
    step = TrainStep(
        model2,
        Optimizers.single(
            opt2,
            tw.TorchSchedule(torch.optim.lr_scheduler.StepLR(opt2, 2, gamma=0.5), "step"),
            tw.Clipping(0.5),
            parameters=list(model2.parameters()),
        ),
        loss_step=lambda m, b: crit(m(b[0]), b[1]),
        precision=tw.Precision("fp32", "cpu"),
    )
    done = 0
    for window in Accumulation(2).windows(batches):
        done += step(window, done).stepped
    assert done == 3
    for a, b in zip(model.parameters(), model2.parameters(), strict=True):
        assert torch.equal(a, b)
    assert opt.param_groups[0]["lr"] == opt2.param_groups[0]["lr"] == 0.05
