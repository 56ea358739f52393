# ruff: noqa
"""Condensed from pytorch/examples imagenet/main.py: correct."""

import time

import torch
import torch.nn as nn
import torch.optim
import torchvision.models as models
from torch.optim.lr_scheduler import StepLR


def train(train_loader, model, criterion, optimizer, epoch, device, print_freq=10):
    model.train()
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % print_freq == 0:
            print(f"Epoch [{epoch}][{i}] loss {loss.item():.4f} time {time.time() - end:.3f}")
            end = time.time()


def validate(val_loader, model, criterion, device):
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, target in val_loader:
            images = images.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            output = model(images)
            loss = criterion(output, target)
            correct += (output.argmax(1) == target).sum().item()
    return correct / len(val_loader.dataset), loss.item()


def save_checkpoint(state, is_best, filename="checkpoint.pth.tar"):
    torch.save(state, filename)


def main_worker(args, train_loader, val_loader):
    device = torch.device("cuda")
    model = models.__dict__[args.arch]()
    model = torch.nn.DataParallel(model).to(device)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(
        model.parameters(), args.lr, momentum=args.momentum, weight_decay=args.weight_decay
    )
    scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    if args.resume:
        checkpoint = torch.load(args.resume, map_location=device)
        args.start_epoch = checkpoint["epoch"]
        model.load_state_dict(checkpoint["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
    best_acc1 = 0
    for epoch in range(args.start_epoch, args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, device)
        acc1, _ = validate(val_loader, model, criterion, device)
        scheduler.step()
        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)
        save_checkpoint(
            {
                "epoch": epoch + 1,
                "state_dict": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
            },
            is_best,
        )
