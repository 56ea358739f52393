"""Handwritten digits (UCI, 8x8, 1,797 images, shipped with scikit-learn): a small CNN.

BatchNorm and Dropout are there on purpose: they are the layers whose train/eval mode matters.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from trainwell.config.sections import (
    Config,
    DataConfig,
    EarlyStopConfig,
    MonitorConfig,
    OptimConfig,
    ScheduleConfig,
    TrainConfig,
)
from trainwell.errors import ConfigError
from trainwell.recipes.job import Job

DESCRIPTION = "CNN with BatchNorm + Dropout on scikit-learn's 8x8 handwritten digits (10 classes)"


@dataclass(frozen=True)
class ModelConfig:
    channels: int = 32  # channels of the first conv block (the second has twice as many)
    hidden: int = 128  # width of the hidden fully connected layer
    dropout: float = 0.2  # dropout before the classifier
    val_fraction: float = 0.2  # share of the images held out for validation (stratified)


CONFIG = Config(
    data=DataConfig(batch_size=64),
    train=TrainConfig(max_epochs=20, precision="fp32", clip_norm=1.0),
    optim=OptimConfig(lr=3e-3, weight_decay=0.01),
    schedule=ScheduleConfig(name="warmup_cosine", warmup_ratio=0.05, min_lr_ratio=0.01),
    monitor=MonitorConfig(metric="val_accuracy", mode="max"),
    early_stop=EarlyStopConfig(patience=None),
    model=ModelConfig(),
)


class DigitsCNN(nn.Module):
    def __init__(self, channels: int = 32, hidden: int = 128, dropout: float = 0.2) -> None:
        super().__init__()
        c = channels
        self.features = nn.Sequential(
            nn.Conv2d(1, c, 3, padding=1, bias=False),
            nn.BatchNorm2d(c),
            nn.ReLU(),
            nn.Conv2d(c, 2 * c, 3, padding=1, bias=False),
            nn.BatchNorm2d(2 * c),
            nn.ReLU(),
            nn.MaxPool2d(2),  # 8x8 -> 4x4
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(2 * c * 16, hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, 10),  # logits: CrossEntropyLoss applies log-softmax itself
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


def load_digits_tensors(val_fraction: float, seed: int) -> tuple[tuple[torch.Tensor, ...], ...]:
    """Standardised (N, 1, 8, 8) images and labels, split stratified into train and validation."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        raise ConfigError(
            "the digits recipe needs scikit-learn: pip install 'trainwell[recipes]'"
        ) from None
    images, labels = load_digits(return_X_y=True)
    x_train, x_val, y_train, y_val = train_test_split(
        images, labels, test_size=val_fraction, stratify=labels, random_state=seed
    )
    mean, std = x_train.mean(), x_train.std()  # statistics of the training split only

    def as_tensors(x, y):
        x = torch.tensor((x - mean) / std, dtype=torch.float32).reshape(-1, 1, 8, 8)
        return x, torch.tensor(y, dtype=torch.long)

    return as_tensors(x_train, y_train), as_tensors(x_val, y_val)


def build(config: Config) -> Job:
    m: ModelConfig = config.model
    train, val = load_digits_tensors(m.val_fraction, config.run.seed)
    model = DigitsCNN(m.channels, m.hidden, m.dropout)
    return Job(
        model=model,
        train_data=train,
        val_data=val,
        loss=nn.CrossEntropyLoss(),
        metrics=["accuracy"],
    )
