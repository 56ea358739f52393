# ruff: noqa
"""Gradient clipping placement."""

import torch
from torch.nn.utils import clip_grad_norm_, clip_grad_value_


def clip_before_backward(model, loader, optimizer, criterion):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        clip_grad_norm_(model.parameters(), max_norm=1.0)  # expect: TW005
        loss.backward()
        optimizer.step()


def clip_after_step(model, loader, optimizer, criterion):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)  # expect: TW005


def clip_correct(model, loader, optimizer, criterion):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        grad_norm = clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print(grad_norm.item())


def clip_value_correct(model, loader, optimizer, criterion):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        clip_grad_value_(model.parameters(), 0.5)
        optimizer.step()
        optimizer.zero_grad()


def clip_with_accumulation(model, loader, optimizer, criterion, accum=4):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()


def amp_clip_after_unscale(model, loader, optimizer, criterion, scaler):
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()


def amp_clip_with_accumulation(model, loader, optimizer, criterion, scaler, accum):
    for step, (x, y) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y) / accum
        scaler.scale(loss).backward()
        if (step + 1) % accum == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def amp_clip_scaled(model, loader, optimizer, criterion, scaler):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaled = scaler.scale(loss)
        scaled.backward()
        clip_grad_norm_(model.parameters(), 1.0)  # expect: TW006
        scaler.step(optimizer)
        scaler.update()
