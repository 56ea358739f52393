# ruff: noqa
"""Moving tensors to a device: Tensor.to() is not in place, Module.to() is."""

import torch
from torch.utils.data import DataLoader


def train(model, dataset, optimizer, criterion, device):
    model.to(device)
    criterion.to(device)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    for epoch in range(3):
        for inputs, targets in loader:
            inputs.to(device)  # expect: TW019
            targets = targets.to(device)
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()


def hf_batches(model, loader, device):
    # HF BatchEncoding.to() moves in place and returns self: the bare statement is fine.
    for batch in loader:
        batch.to(device)
        model(**batch)


def constants(device):
    mask = torch.ones(4, 4)
    mask.cuda()  # expect: TW019
    weights = torch.tensor([1.0, 2.0]).to(device)
    return mask, weights


def unknown_objects(device, things):
    for thing in things:
        thing.to(device)


def moved_properly(loader, device):
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        print(step, x.shape, y.shape)
