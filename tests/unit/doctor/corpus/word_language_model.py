# ruff: noqa
"""Condensed from pytorch/examples word_language_model: manual SGD, correct."""

import math
import time

import torch
import torch.nn as nn


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(model, criterion, data_source, ntokens, bptt, get_batch, eval_batch_size=10):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(
    model,
    criterion,
    train_data,
    ntokens,
    bptt,
    lr,
    clip,
    get_batch,
    epoch,
    batch_size=20,
    log_interval=200,
):
    model.train()
    total_loss = 0.0
    start_time = time.time()
    hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        if batch % log_interval == 0 and batch > 0:
            cur_loss = total_loss / log_interval
            print(
                f"| epoch {epoch:3d} | loss {cur_loss:5.2f} | ppl {math.exp(cur_loss):8.2f}"
                f" | {time.time() - start_time:.1f}s"
            )
            total_loss = 0
            start_time = time.time()


def main(model, train_data, val_data, ntokens, bptt, get_batch, epochs, lr=20.0, clip=0.25):
    criterion = nn.NLLLoss()
    best_val_loss = None
    for epoch in range(1, epochs + 1):
        train(model, criterion, train_data, ntokens, bptt, lr, clip, get_batch, epoch)
        val_loss = evaluate(model, criterion, val_data, ntokens, bptt, get_batch)
        if not best_val_loss or val_loss < best_val_loss:
            best_val_loss = val_loss
        else:
            lr /= 4.0
