"""A real small GAN (two watches, one loss module) trained for 600 steps: the loss-trend guard
judges both and stays silent."""

import math

import torch
from torch import nn

from trainwell.guards import watch
from trainwell.guards.loss_trend import LossTrendGuard


def test_a_real_small_gan_is_silent_on_both_watches():
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    disc = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    og = torch.optim.Adam(gen.parameters(), lr=2e-3, betas=(0.5, 0.999))
    od = torch.optim.Adam(disc.parameters(), lr=2e-3, betas=(0.5, 0.999))
    crit = nn.BCEWithLogitsLoss()  # one loss module: both watches see every call
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
    # every=50: 12 reads over 600 steps, so the trend is judged, whatever the default cadence
    with (
        watch(gen, og, loss_fn=crit, every=50) as wg,
        watch(disc, od, loss_fn=crit, every=50) as wd,
    ):
        for _ in range(600):
            angle = torch.rand(64) * 2 * math.pi
            real = torch.stack([angle.cos(), angle.sin()], 1) * 2
            fake = gen(torch.randn(64, 2))
            od.zero_grad(set_to_none=True)
            (crit(disc(real), ones) + crit(disc(fake.detach()), zeros)).backward()
            od.step()
            og.zero_grad(set_to_none=True)
            crit(disc(fake), ones).backward()
            og.step()
    assert wg.findings == [] and wd.findings == []
    assert wg.guard(LossTrendGuard).points >= 10  # judged, not idle
