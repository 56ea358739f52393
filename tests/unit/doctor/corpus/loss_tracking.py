# ruff: noqa
"""Keeping loss values around: numbers are fine, graph-carrying tensors are not."""

import torch


def history_dict(model, loader, optimizer, criterion, epochs):
    history = {}
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            history[(epoch, step)] = loss  # expect: TW011
    return history


def items_are_fine(model, loader, optimizer, criterion):
    losses = []
    epoch_loss = 0.0
    detached = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        epoch_loss += float(loss)
        detached += loss.detach()
    return losses, epoch_loss, detached


def sequence_loss_summed_then_backward(model, batch, optimizer, criterion):
    # Collecting per-timestep losses and back-propagating their sum is intended.
    optimizer.zero_grad()
    step_losses = []
    hidden = None
    for t in range(batch.size(1) - 1):
        out, hidden = model(batch[:, t], hidden)
        step_losses.append(criterion(out, batch[:, t + 1]))
    total = torch.stack(step_losses).mean()
    total.backward()
    optimizer.step()


def chunked_loss(model, chunks, optimizer, criterion):
    optimizer.zero_grad()
    loss_sum = 0
    for x, y in chunks:
        loss_sum += criterion(model(x), y)
    loss_sum.backward()
    optimizer.step()


def validation_under_no_grad(model, loader, criterion):
    model.eval()
    val_loss = 0
    with torch.no_grad():
        for x, y in loader:
            val_loss += criterion(model(x), y)
    return val_loss / len(loader)


def nested_in_dict_list(model, loader, optimizer, criterion):
    logs = {"loss": []}
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        logs["loss"].append(loss)  # expect: TW011
    return logs


def combined_losses(model, loader, optimizer, criterion, aux_weight):
    for x, y in loader:
        optimizer.zero_grad()
        out, aux = model(x)
        loss = criterion(out, y)
        loss += aux_weight * criterion(aux, y)
        loss.backward()
        optimizer.step()
