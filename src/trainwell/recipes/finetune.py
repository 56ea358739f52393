"""Fine-tuning: a trained ``digits`` run's CNN, a new head for another task (odd or even).

It starts from a saved trainwell checkpoint (``model.checkpoint``: a run directory, whose
best checkpoint is used, or a checkpoint file; verified and loaded ``weights_only``), keeps
the convolutional backbone, replaces the last layer by a fresh 2-class head, trains the head
alone for ``train.freeze_epochs`` epochs (``train.freeze=features``), then the whole network
with layer-wise LR decay (``optim.layer_decay``: each block nearer the input learns more
slowly than the one above it). Make the run to start from with
``trainwell train --run-dir runs/digits``, then
``trainwell train --recipe finetune --set model.checkpoint=runs/digits``.
"""

from __future__ import annotations

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
from trainwell.errors import ConfigError
from trainwell.recipes.digits import DigitsCNN, load_digits_tensors
from trainwell.recipes.job import Job
from trainwell.state.weights import load_weights, read_weights

DESCRIPTION = "fine-tune a saved digits run: new odd/even head, frozen then unfrozen backbone"


@dataclass(frozen=True)
class ModelConfig:
    checkpoint: str = ""  # a digits run directory (its best checkpoint) or a checkpoint file
    channels: int = 32  # as the digits run that is loaded
    hidden: int = 128
    dropout: float = 0.2
    val_fraction: float = 0.2


CONFIG = Config(
    data=DataConfig(batch_size=64),
    train=TrainConfig(max_epochs=6, clip_norm=1.0, freeze="features", freeze_epochs=2),
    optim=OptimConfig(lr=1e-3, weight_decay=0.01, layer_decay=0.7, layers="features"),
    schedule=ScheduleConfig(name="warmup_cosine", warmup_ratio=0.05),
    monitor=MonitorConfig(metric="val_accuracy", mode="max"),
    model=ModelConfig(),
)


def pretrained_weights(source: str) -> dict[str, torch.Tensor]:
    """The weights of a run directory's best checkpoint, or of a checkpoint file, verified."""
    if not source:
        raise ConfigError(
            "the finetune recipe starts from a saved digits run: make one with "
            "`trainwell train --run-dir runs/digits`, then pass "
            "--set model.checkpoint=runs/digits"
        )
    path = Path(source)
    if path.is_dir():
        path = path / "checkpoints" / "best.pt"
    if not path.is_file():
        raise ConfigError(f"model.checkpoint={source!r}: no checkpoint at {path}")
    return read_weights(path)


def odd_or_even(labels: torch.Tensor) -> torch.Tensor:
    """The new task's labels: 1 for an odd digit, 0 for an even one."""
    return labels % 2


def build(config: Config) -> Job:
    m: ModelConfig = config.model
    model = DigitsCNN(m.channels, m.hidden, m.dropout)
    load_weights(model, pretrained_weights(m.checkpoint))
    model.classifier[-1] = nn.Linear(m.hidden, 2)  # the new head, freshly initialised
    (x_train, y_train), (x_val, y_val) = load_digits_tensors(m.val_fraction, config.run.seed)
    return Job(
        model=model,
        train_data=(x_train, odd_or_even(y_train)),
        val_data=(x_val, odd_or_even(y_val)),
        loss=nn.CrossEntropyLoss(),
        metrics=["accuracy"],
    )
