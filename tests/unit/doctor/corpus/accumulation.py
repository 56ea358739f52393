# ruff: noqa
"""Gradient accumulation with and without loss scaling."""

import torch
import torch.nn.functional as F


def accumulate_divided_in_place(model, loader, optimizer, accum_steps):
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        loss = loss / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def accumulate_divided_inline(model, loader, optimizer, accum_steps):
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        (loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def accumulate_divided_other_name(model, loader, optimizer, criterion, k):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        scaled = loss / k
        scaled.backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()
        print(loss.item())


def accumulate_augmented_division(model, loader, optimizer, criterion, k):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss /= k
        loss.backward()
        if i % k == k - 1:
            optimizer.step()
            optimizer.zero_grad()


def accumulate_without_division(model, loader, optimizer, criterion, accumulation_steps):
    optimizer.zero_grad()
    for i, (inputs, labels) in enumerate(loader):
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()  # expect: TW017
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def no_accumulation(model, loader, optimizer, criterion, log_every):
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if i % log_every == 0:
            print(loss.item())


def accelerate_accumulation(accelerator, model, loader, optimizer):
    # Accelerate divides the loss itself when gradient_accumulation_steps is configured.
    for step, batch in enumerate(loader):
        outputs = model(**batch)
        loss = outputs.loss
        accelerator.backward(loss)
        if step % accelerator.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def micro_batches_divided(model, batch, optimizer, micro_batches):
    optimizer.zero_grad()
    for micro in torch.chunk(batch, micro_batches):
        loss = model(micro).mean() / micro_batches
        loss.backward()
    optimizer.step()
