# ruff: noqa
"""A Lightning-free research trainer class, attributes set in __init__."""

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import OneCycleLR


class Trainer:
    def __init__(self, model: nn.Module, train_loader, val_loader, epochs: int, lr: float):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.epochs = epochs
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.scheduler = OneCycleLR(
            self.optimizer, max_lr=lr, epochs=epochs, steps_per_epoch=len(train_loader)
        )
        self.history = {"train_loss": [], "val_loss": []}

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for x, y in self.train_loader:
            self.optimizer.zero_grad(set_to_none=True)
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(self.train_loader)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total = 0.0
        for x, y in self.val_loader:
            total += self.criterion(self.model(x), y).item()
        return total / len(self.val_loader)

    def fit(self):
        for epoch in range(self.epochs):
            train_loss = self.train_epoch()
            val_loss = self.validate()
            self.scheduler.step()  # expect: TW004
            self.history["train_loss"].append(train_loss)
            self.history["val_loss"].append(val_loss)


class CorrectTrainer(Trainer):
    def train_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            self.optimizer.zero_grad(set_to_none=True)
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
