"""A 3-class 2-D spiral (generated), classified by an MLP: the loop of seed 003."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from trainwell.config.sections import (
    Config,
    DataConfig,
    MonitorConfig,
    OptimConfig,
    ScheduleConfig,
    TrainConfig,
)
from trainwell.observe.plots import DecisionBoundary
from trainwell.recipes.job import Job

DESCRIPTION = "MLP on a generated 3-class 2-D spiral (2,000 points)"


@dataclass(frozen=True)
class ModelConfig:
    hidden: int = 128  # width of the two hidden layers
    num_points: int = 2000  # points generated (split 80/20 into train and validation)
    noise: float = 0.2  # angular noise of the spiral arms


CONFIG = Config(
    data=DataConfig(batch_size=64),
    train=TrainConfig(max_epochs=30, clip_norm=1.0),
    optim=OptimConfig(lr=3e-3, weight_decay=0.0),
    schedule=ScheduleConfig(name="warmup_cosine", warmup_ratio=0.02),
    monitor=MonitorConfig(metric="val_accuracy", mode="max"),
    model=ModelConfig(),
)


def make_spiral(
    num_points: int, noise: float, seed: int, classes: int = 3
) -> tuple[torch.Tensor, torch.Tensor]:
    """Points on ``classes`` interleaved spiral arms, with labels."""
    g = torch.Generator().manual_seed(seed)
    per = num_points // classes
    xs, ys = [], []
    for c in range(classes):
        r = torch.linspace(0.05, 1.0, per)
        theta = r * 4.0 + c * 2 * math.pi / classes + noise * torch.randn(per, generator=g)
        xs.append(torch.stack([r * torch.sin(theta), r * torch.cos(theta)], dim=1))
        ys.append(torch.full((per,), c, dtype=torch.long))
    x, y = torch.cat(xs), torch.cat(ys)
    perm = torch.randperm(len(y), generator=g)
    return x[perm], y[perm]


class SpiralMLP(nn.Module):
    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 3),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def build(config: Config) -> Job:
    m: ModelConfig = config.model
    x, y = make_spiral(m.num_points, m.noise, config.run.seed)
    split = int(0.8 * len(y))
    model = SpiralMLP(m.hidden)
    observers = []
    if config.log.plots and config.run.dir is not None:  # the boundary sharpening, per epoch
        gif = Path(config.run.dir) / "plots" / "decision_boundary.gif"
        observers.append(DecisionBoundary(model, x[:split], y[:split], gif))
    return Job(
        model=model,
        train_data=(x[:split], y[:split]),
        val_data=(x[split:], y[split:]),
        loss=nn.CrossEntropyLoss(),
        metrics=["accuracy"],
        observers=observers,
    )
