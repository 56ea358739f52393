"""A 2-D GAN on a ring of eight Gaussians (generated): two optimizers in one `fit()` step.

The step is a `TrainStep` subclass (`GANStep`): per batch, the discriminator's update on real
and generated points (the generated ones detached), then the generator's update through the
discriminator, each with its own optimizer, schedule and clipping held by name in
`Optimizers`. Both losses are logged (``d_loss``, ``g_loss``), and everything is saved and
restored with the run: a resumed GAN is bit-identical to one that never stopped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from trainwell.config.sections import Config, DataConfig, TrainConfig
from trainwell.parts.accumulation import MicroBatch
from trainwell.parts.clipping import Clipping
from trainwell.recipes.job import Job
from trainwell.step.optimizers import Optimizers, slot
from trainwell.step.train_step import TrainStep

DESCRIPTION = "GAN on a generated ring of 8 Gaussians (two optimizers in one step)"


@dataclass(frozen=True)
class ModelConfig:
    hidden: int = 64  # width of the generator's and the discriminator's hidden layers
    latent: int = 2  # size of the generator's noise input
    num_points: int = 4096  # real points generated
    lr: float = 1e-3  # Adam learning rate of both networks
    clip_norm: float = 5.0  # clipping of each network's gradient global norm


CONFIG = Config(
    data=DataConfig(batch_size=128),
    train=TrainConfig(max_epochs=10),
    model=ModelConfig(),
)


def ring_of_gaussians(num_points: int, seed: int, modes: int = 8) -> torch.Tensor:
    """Points around ``modes`` Gaussians evenly spaced on a circle of radius 2."""
    g = torch.Generator().manual_seed(seed)
    mode = torch.randint(0, modes, (num_points,), generator=g)
    angle = mode.float() * 2 * math.pi / modes
    centres = torch.stack([angle.cos(), angle.sin()], dim=1) * 2.0
    return centres + 0.05 * torch.randn(num_points, 2, generator=g)


def mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(inputs, hidden),
        nn.LeakyReLU(0.2),
        nn.Linear(hidden, hidden),
        nn.LeakyReLU(0.2),
        nn.Linear(hidden, outputs),
    )


class GAN(nn.Module):
    """A generator and a discriminator; ``forward(z)`` generates points."""

    def __init__(self, hidden: int = 64, latent: int = 2) -> None:
        super().__init__()
        self.latent = latent
        self.generator = mlp(latent, hidden, 2)
        self.discriminator = mlp(2, hidden, 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.generator(z)


class GANStep(TrainStep):
    """The discriminator's update, then the generator's loss through it, on each batch of real
    points; `TrainStep` does the rest (zero_grad, unscale, clipping, steps, schedules, and the
    gradient averaging of several processes)."""

    criterion = nn.BCEWithLogitsLoss()

    def forward_backward(self, window: Sequence[MicroBatch]) -> tuple[torch.Tensor, dict]:
        gan, bce = self.model, self.criterion
        real = torch.cat([self.to_device(m.batch)[0] for m in window])
        ones, zeros = torch.ones(len(real), 1, device=real.device), torch.zeros_like(real[:, :1])
        with self.autocast():
            fake = gan.generator(torch.randn(len(real), gan.latent, device=real.device))
            d_loss = bce(gan.discriminator(real), ones) + bce(
                gan.discriminator(fake.detach()), zeros
            )
        self.backward(d_loss)
        self.update("discriminator")  # before the generator's loss reads the discriminator
        with self.autocast():  # its backward also fills D's .grad: cleared at the next zero_grad
            g_loss = bce(gan.discriminator(fake), ones)
        self.backward(g_loss)
        logs = {"d_loss": d_loss.detach(), "g_loss": g_loss.detach()}
        return (d_loss + g_loss).detach(), logs


def build(config: Config) -> Job:
    m: ModelConfig = config.model
    gan = GAN(m.hidden, m.latent)
    betas = (0.5, 0.999)
    d_opt = torch.optim.Adam(gan.discriminator.parameters(), lr=m.lr, betas=betas)
    g_opt = torch.optim.Adam(gan.generator.parameters(), lr=m.lr, betas=betas)
    optimizers = Optimizers(
        {
            "discriminator": slot(d_opt, clipping=Clipping(m.clip_norm), module=gan.discriminator),
            "generator": slot(g_opt, clipping=Clipping(m.clip_norm), module=gan.generator),
        }
    )
    points = ring_of_gaussians(m.num_points, config.run.seed)
    return Job(model=gan, train_data=(points,), train_step=GANStep(gan, optimizers))
