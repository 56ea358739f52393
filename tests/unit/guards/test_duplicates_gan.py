"""Duplicate batches in a GAN: one real batch feeding both the discriminator's update and the
generator's (a relativistic loss forwards it through the discriminator again, here as a fresh
copy, as ``.to(device)`` makes one) is healthy; a real batch fed to two discriminator updates in
a row is the bug."""

import warnings

import torch
from torch import nn

from trainwell.guards import watch


def _relativistic_gan(repeat_real_for_d=False, steps=150):
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
    disc = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(gen.parameters(), 2e-4)
    opt_d = torch.optim.Adam(disc.parameters(), 2e-4)
    bce = nn.BCEWithLogitsLoss()
    g = torch.Generator().manual_seed(1)
    data = [torch.randn(64, 16, generator=g) + 2 for _ in range(steps)]
    if repeat_real_for_d:  # every batch twice in a row: the bug the guard is for
        data = [batch.clone() for batch in data[: steps // 2] for _ in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with watch(disc, opt_d, every=50) as d_watch, watch(gen, opt_g, every=50) as g_watch:
            for real in data:
                fake = gen(torch.randn(64, 8))
                opt_d.zero_grad()
                d_real, d_fake = disc(real), disc(fake.detach())
                loss_d = bce(d_real - d_fake.mean(), torch.ones_like(d_real)) + bce(
                    d_fake - d_real.mean(), torch.zeros_like(d_fake)
                )
                loss_d.backward()
                opt_d.step()
                opt_g.zero_grad()
                d_real, d_fake = disc(real.clone()), disc(fake)  # the same real batch, again
                loss_g = bce(d_fake - d_real.mean(), torch.ones_like(d_fake)) + bce(
                    d_real - d_fake.mean(), torch.zeros_like(d_real)
                )
                loss_g.backward()
                opt_g.step()
    return d_watch, g_watch


def _codes(w):
    return [f.code for f in w.findings]


def test_one_real_batch_for_both_updates_is_not_a_duplicate():
    d_watch, g_watch = _relativistic_gan()
    assert "duplicate-batches" not in _codes(d_watch) + _codes(g_watch)


def test_a_real_batch_fed_to_two_discriminator_updates_is_still_caught():
    d_watch, _ = _relativistic_gan(repeat_real_for_d=True)
    assert "duplicate-batches" in _codes(d_watch)
