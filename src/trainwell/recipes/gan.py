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
from trainwell.recipes import Job
from trainwell.step.optimizers import Optimizers, slot
from trainwell.step.train_step import StepResult, TrainStep

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
    """The discriminator's step, then the generator's, on each batch of real points."""

    def __init__(self, model: GAN, optimizers: Optimizers) -> None:
        super().__init__(model, optimizers)
        self.criterion = nn.BCEWithLogitsLoss()

    def __call__(self, window: Sequence[MicroBatch], steps_done: int) -> StepResult:
        gan, precision, strategy = self.model, self.precision, self.strategy
        d, g = self.optimizers["discriminator"], self.optimizers["generator"]
        real = torch.cat([strategy.to_device(m.batch)[0] for m in window])
        ones = torch.ones(len(real), 1, device=real.device)
        zeros = torch.zeros(len(real), 1, device=real.device)
        z = torch.randn(len(real), gan.latent, device=real.device)

        d.optimizer.zero_grad(set_to_none=True)
        with precision.autocast():
            fake = gan.generator(z)
            d_loss = self.criterion(gan.discriminator(real), ones) + self.criterion(
                gan.discriminator(fake.detach()), zeros
            )
        strategy.backward(d_loss, precision, gan, last=True)
        precision.unscale_(d.optimizer)
        self.drop_if_nonfinite(strategy.clip(d.clipping, d.parameters), d.parameters)
        d_stepped = precision.step(d.optimizer)

        # g_loss's backward also fills the discriminator's .grad: its own zero_grad at the
        # next step clears that (a backward into another optimizer's parameters is healthy)
        g.optimizer.zero_grad(set_to_none=True)
        with precision.autocast():
            g_loss = self.criterion(gan.discriminator(fake), ones)
        strategy.backward(g_loss, precision, gan, last=True)
        precision.unscale_(g.optimizer)
        g_norm = strategy.clip(g.clipping, g.parameters)
        self.drop_if_nonfinite(g_norm, g.parameters)  # guards.nonfinite=skip_step
        lr = g.optimizer.param_groups[-1]["lr"]
        g_stepped = precision.step(g.optimizer)
        stepped = d_stepped and g_stepped
        if stepped:
            d.schedule.after_step(steps_done + 1)
            g.schedule.after_step(steps_done + 1)
        logs = {"d_loss": d_loss.detach(), "g_loss": g_loss.detach()}
        return StepResult(d_loss.detach() + g_loss.detach(), g_norm, lr, stepped, logs)


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
