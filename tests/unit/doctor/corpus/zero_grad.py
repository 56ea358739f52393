# ruff: noqa
"""Where gradients are (not) cleared."""

import torch


def zero_between_backward_and_step(model, loader, optimizer, criterion):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.zero_grad()  # expect: TW002
        optimizer.step()


def zero_at_end_of_iteration(model, loader, optimizer, criterion):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def model_zero_grad_set_to_none(model, loader, optimizer, criterion):
    for x, y in loader:
        model.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def grads_set_to_none_by_hand(model, loader, optimizer, criterion):
    for x, y in loader:
        for p in model.parameters():
            p.grad = None
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def zero_only_once_before_loop(model, loader, optimizer, criterion):
    optimizer.zero_grad()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()  # expect: TW001


def skip_bad_batches(model, loader, optimizer, criterion):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        if not torch.isfinite(loss):
            optimizer.zero_grad()
            continue
        optimizer.step()
        optimizer.zero_grad()


def train_step(model, batch, optimizer, criterion):
    x, y = batch
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()  # expect: TW001
    return loss.item()


def run_steps_without_zeroing(model, loader, optimizer, criterion):
    for batch in loader:
        train_step(model, batch, optimizer, criterion)


def run_steps_with_zeroing(model, loader, optimizer, criterion):
    for batch in loader:
        optimizer.zero_grad()
        train_step(model, batch, optimizer, criterion)


def grads_zeroed_in_place(model, loader, optimizer, criterion):
    for x, y in loader:
        for p in model.parameters():
            if p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()
        criterion(model(x), y).backward()
        optimizer.step()


def lbfgs(model, loader, criterion):
    optimizer = torch.optim.LBFGS(model.parameters())
    for x, y in loader:

        def closure():
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            return loss

        optimizer.step(closure)
