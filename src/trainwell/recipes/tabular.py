"""Tabular data: scikit-learn's breast-cancer set (569 tumours, 30 features, 2 classes), an MLP.

The classes are unbalanced (212 malignant, 357 benign), so the loss weighs each class by the
inverse of its share of the *training* split, and softens its targets (label smoothing):
``CrossEntropyLoss(weight=..., label_smoothing=...)``. Features are standardised with the
training split's statistics only. It monitors the F1 score of the malignant class.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from trainwell.recipes.job import Job

DESCRIPTION = "MLP on scikit-learn's breast-cancer table; class weights, label smoothing, F1"


@dataclass(frozen=True)
class ModelConfig:
    hidden: int = 64  # width of the two hidden layers
    dropout: float = 0.1  # dropout after each hidden layer
    class_weights: bool = True  # weigh the loss by inverse class frequency (training split)
    label_smoothing: float = 0.05  # share of each target spread over the other class
    val_fraction: float = 0.2  # share held out for validation (stratified)
    test_fraction: float = 0.2  # share held out for `trainwell eval --split test` only


CONFIG = Config(
    data=DataConfig(batch_size=32),
    train=TrainConfig(max_epochs=30, clip_norm=1.0),
    optim=OptimConfig(lr=1e-3, weight_decay=0.01),
    schedule=ScheduleConfig(name="warmup_cosine", warmup_ratio=0.05),
    monitor=MonitorConfig(metric="val_f1", mode="max"),
    model=ModelConfig(),
)

MALIGNANT = 0  # scikit-learn's label for a malignant tumour


def load_table(
    val_fraction: float, test_fraction: float, seed: int
) -> tuple[tuple[torch.Tensor, ...], ...]:
    """Standardised features and labels (1: malignant), split stratified into train,
    validation and test."""
    try:
        from sklearn.datasets import load_breast_cancer
        from sklearn.model_selection import train_test_split
    except ImportError:
        raise ConfigError(
            "the tabular recipe needs scikit-learn: pip install 'trainwell[recipes]'"
        ) from None
    features, labels = load_breast_cancer(return_X_y=True)
    labels = (labels == MALIGNANT).astype("int64")  # the positive class of F1: malignant
    x_rest, x_test, y_rest, y_test = train_test_split(
        features, labels, test_size=test_fraction, stratify=labels, random_state=seed
    )
    x_train, x_val, y_train, y_val = train_test_split(
        x_rest,
        y_rest,
        test_size=val_fraction / (1 - test_fraction),
        stratify=y_rest,
        random_state=seed,
    )
    mean, std = x_train.mean(axis=0), x_train.std(axis=0) + 1e-8

    def as_tensors(x, y):
        return torch.tensor((x - mean) / std, dtype=torch.float32), torch.tensor(y)

    return as_tensors(x_train, y_train), as_tensors(x_val, y_val), as_tensors(x_test, y_test)


def inverse_frequency(labels: torch.Tensor, classes: int = 2) -> torch.Tensor:
    """Per-class weights ``n / (classes * count)``: each class weighs the same in total."""
    counts = torch.bincount(labels, minlength=classes).float()
    return len(labels) / (classes * counts)


def build(config: Config) -> Job:
    m: ModelConfig = config.model
    train, val, test = load_table(m.val_fraction, m.test_fraction, config.run.seed)
    features = train[0].shape[1]
    model = nn.Sequential(
        nn.Linear(features, m.hidden),
        nn.ReLU(),
        nn.Dropout(m.dropout),
        nn.Linear(m.hidden, m.hidden),
        nn.ReLU(),
        nn.Dropout(m.dropout),
        nn.Linear(m.hidden, 2),
    )
    weight = inverse_frequency(train[1]) if m.class_weights else None
    return Job(
        model=model,
        train_data=train,
        val_data=val,
        test_data=test,
        loss=nn.CrossEntropyLoss(weight=weight, label_smoothing=m.label_smoothing),
        metrics=["accuracy", "f1", "auroc"],
    )
