# ruff: noqa
"""Automatic mixed precision recipe with gradient clipping: correct."""

import torch
from torch import nn
from torch.amp import GradScaler, autocast
from torch.optim.lr_scheduler import OneCycleLR


def train_one_epoch(model, loader, optimizer, scheduler, scaler, criterion, device, max_norm):
    model.train()
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with autocast(device_type="cuda", dtype=torch.float16):
            output = model(inputs)
            loss = criterion(output, targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()


@torch.inference_mode()
def validate(model, loader, device):
    model.eval()
    correct = 0
    for inputs, targets in loader:
        correct += (model(inputs.to(device)).argmax(1) == targets.to(device)).sum().item()
    return correct


def main(model, train_loader, val_loader, epochs=10):
    device = torch.device("cuda")
    model = model.to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    scheduler = OneCycleLR(optimizer, max_lr=0.4, epochs=epochs, steps_per_epoch=len(train_loader))
    scaler = GradScaler("cuda")
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, scheduler, scaler, criterion, device, 1.0)
        print(epoch, validate(model, val_loader, device))
