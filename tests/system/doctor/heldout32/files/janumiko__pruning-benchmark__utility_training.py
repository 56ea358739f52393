import logging
from pathlib import Path
import random
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

logger = logging.getLogger(__name__)


def train_epoch(
    module: nn.Module,
    train_dl: DataLoader,
    optimizer: optim.Optimizer,
    loss_function: Callable,
    device: torch.device,
) -> float:
    """Train a module for one epoch.

    Args:
        model (nn.Module): A PyTorch module.
        train_dl (DataLoader): Dataloader for the train data.
        optimizer (optim.Optimizer): Optimizer instance.
        loss_function (Callable): Loss function callable.
        device (torch.device, optional): Pytorch device.

    Returns:
        float: Average loss for the epoch.
    """

    module.train()
    train_loss = 0

    total_samples = len(train_dl.dataset)
    processed_samples = 0
    log_batch_iter = max(1, len(train_dl) // 10)

    for batch, (inputs, labels) in enumerate(train_dl):
        inputs, labels = inputs.to(device), labels.to(device)

        # Zero the parameter gradients
        optimizer.zero_grad()

        # Compute prediction error
        prediction = module(inputs)
        loss = loss_function(prediction, labels)

        # Backpropagation
        loss.backward()
        optimizer.step()

        train_loss += loss.item()
        processed_samples += len(inputs)
        if batch % log_batch_iter == 0:
            logger.debug(
                f"Processed {processed_samples}/{total_samples} samples, loss: {loss.item():.6f}"
            )

    return train_loss / len(train_dl)


def validate_epoch(
    module: nn.Module,
    valid_dl: DataLoader,
    loss_function: Callable,
    metrics_functions: Mapping[str, Callable],
    device: torch.DeviceObjType,
) -> dict[str, float]:
    """Validate the model on given data.
    Args:
        model (nn.Module): PyTorch module.
        valid_dl (DataLoader): Dataloader for the validation data.
        loss_function (Callable): Loss function callable.
        metrics_functions (Mapping[str, Callable]): Dictionary with metric_name : callable pairs.
        enable_autocast (bool, optional): Whether to use automatic mixed precision. Defaults to True.
        device (torch.device, optional): Pytorch device.
    Returns:
        dict[str, float]: Dictionary with average loss and metrics for the validation data.
    """

    module.eval()
    metrics = {name: 0.0 for name in metrics_functions.keys()}
    metrics["validation_loss"] = 0.0

    total_samples = len(valid_dl.dataset)
    processed_samples = 0
    log_batch_iter = max(1, len(valid_dl) // 10)

    with torch.no_grad():
        for batch, (X, labels) in enumerate(valid_dl):
            X, labels = X.to(device), labels.to(device)
            # Compute prediction error
            pred = module(X)
            loss = loss_function(pred, labels)

            metrics["validation_loss"] += loss.item()
            for name, func in metrics_functions.items():
                metrics[name] += func(pred, labels)

            processed_samples += len(X)

            if batch % log_batch_iter == 0:
                logger.debug(
                    f"Processed {processed_samples}/{total_samples} samples, loss: {loss.item():.6f}"
                )

    for name, _ in metrics.items():
        metrics[name] /= len(valid_dl)

    return metrics


def set_reproducibility(seed: int) -> None:
    """Set the seed for reproducibility and deterministic behavior

    Args:
        seed (int): The seed to set for reproducibility
    """
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def create_output_csv(path: Path, columns: Sequence[str]) -> None:
    """Create a CSV file with the given columns

    Args:
        path (str): The path to the CSV file
        columns (Sequence[str]): The columns for the CSV file
    """
    df = pd.DataFrame(columns=columns)
    df.to_csv(path, index=False, mode="w")


class EarlyStopper:
    """Early stopping class.
    Monitors a given metric and stops training if it does not improve after a given patience.
    Patience is the number of epochs to wait for improvement before stopping.
    """

    def __init__(self, patience: int, min_delta: float, is_decreasing: bool) -> None:
        """Initialize EarlyStopper.

        Args:
            patience (int): Number of epochs to wait for improvement.
            min_delta (float): Delta which which is used to decide epoch as improvement.
            is_decreasing (bool): Whether the metric should be decreasing or increasing to be considered as improvement.
        """

        self.patience = patience
        self.min_delta = min_delta
        self.counter = 0
        self.is_decreasing = is_decreasing
        self.best_metric_value = float("inf") if is_decreasing else float("-inf")

    def check_stop(self, metric_value: float) -> bool:
        """Check if training should be stopped.

        Args:
            metric_value (float): metric on which to check for improvement.
        Returns:
            bool: Boolean indicating whether training should be stopped.
        """

        if self.is_decreasing:
            if metric_value < self.best_metric_value - self.min_delta:
                self.best_metric_value = metric_value
                self.counter = 0
            else:
                self.counter += 1
        else:
            if metric_value > self.best_metric_value + self.min_delta:
                self.best_metric_value = metric_value
                self.counter = 0
            else:
                self.counter += 1

        return self.counter >= self.patience

    def reset(self) -> None:
        """Reset the early stopper"""
        self.counter = 0
        self.best_metric_value = float("inf") if self.is_decreasing else float("-inf")
