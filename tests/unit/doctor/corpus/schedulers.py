# ruff: noqa
"""LR scheduler placement: per-epoch vs per-step schedules."""

import torch
from torch.optim import lr_scheduler
from torch.optim.lr_scheduler import (
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    LambdaLR,
    MultiStepLR,
    OneCycleLR,
    ReduceLROnPlateau,
    StepLR,
)


def fit_step_lr_per_batch(model, loader, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            scheduler.step()  # expect: TW003


def fit_cosine_epochs_per_batch(model, loader, criterion, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)
    for epoch in range(args.epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()  # expect: TW003


def fit_cosine_steps_per_batch(model, loader, criterion, epochs):
    # T_max counts batches, so stepping every batch is right.
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            scheduler.step()


def fit_multistep_per_epoch(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = MultiStepLR(optimizer, milestones=[30, 60, 90], gamma=0.1)
    for epoch in range(100):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        scheduler.step()


def fit_warm_restarts_fractional(model, loader, criterion, epochs):
    # The documented per-batch use: step(epoch + i / iters).
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=10, T_mult=2)
    iters = len(loader)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            scheduler.step(epoch + i / iters)


def fit_one_cycle_per_batch(model, loader, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = OneCycleLR(optimizer, max_lr=0.1, steps_per_epoch=len(loader), epochs=epochs)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            scheduler.step()


def fit_one_cycle_per_epoch(model, loader, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        scheduler.step()  # expect: TW004


def fit_lambda_warmup(model, loader, criterion, epochs, warmup_steps, num_training_steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)

    def lr_lambda(current_step):
        if current_step < warmup_steps:
            return current_step / max(1, warmup_steps)
        return max(0.0, (num_training_steps - current_step) / (num_training_steps - warmup_steps))

    scheduler = LambdaLR(optimizer, lr_lambda)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        scheduler.step()  # expect: TW004


def fit_lambda_epochs(model, loader, criterion, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    scheduler = LambdaLR(optimizer, lambda epoch: 0.95**epoch)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        scheduler.step()


def fit_plateau(model, loader, val_loader, criterion, evaluate, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=3)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        val_loss = evaluate(model, val_loader)
        scheduler.step(val_loss)


def fit_plateau_forgot_metric(model, loader, criterion, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    plateau = lr_scheduler.ReduceLROnPlateau(optimizer, "min")
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        plateau.step()  # expect: TW018


def fit_plateau_epoch(model, loader, criterion, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = ReduceLROnPlateau(optimizer, "min")
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        scheduler.step(epoch)  # expect: TW018


def fit_iterations(model, get_batch, criterion, max_iters):
    # A single iteration loop (no epochs): a StepLR in iterations is fine here.
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = StepLR(optimizer, step_size=500, gamma=0.5)
    for it in range(max_iters):
        x, y = get_batch()
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
        scheduler.step()


def fit_unknown_t_max(model, loader, criterion, cfg):
    # The unit of cfg.schedule_length cannot be read from the source: say nothing.
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = CosineAnnealingLR(optimizer, cfg.schedule_length)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            scheduler.step()


def fit_step_at_last_batch(model, loader, criterion, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=10)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
            if i == len(loader) - 1:
                scheduler.step()
