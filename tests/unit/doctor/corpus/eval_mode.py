# ruff: noqa
"""model.eval() during training: restored, not restored, and unknowable."""

import torch


def validate_and_restore(model, loader):
    model.eval()
    with torch.no_grad():
        total = sum(model(x).sum().item() for x, _ in loader)
    model.train()
    return total


def validate_only(model, loader, criterion):
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in loader:
            losses.append(criterion(model(x), y).item())
    return sum(losses) / len(losses)


def fit_helper_restores(model, train_loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        print(validate_and_restore(model, val_loader))


def fit_train_at_top(model, train_loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(validate_only(model, val_loader, criterion))


def fit_helper_leaks(model, train_loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        print(validate_only(model, val_loader, criterion))  # expect: TW010


def fit_unknown_helper(model, train_loader, val_loader, optimizer, criterion, epochs, evaluator):
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        evaluator.run(model, val_loader)


def fit_periodic_eval_leak(loader, val_loader, criterion, epochs):
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        if epoch % 5 == 0:
            model.eval()  # expect: TW010
            with torch.no_grad():
                print(sum(criterion(model(x), y).item() for x, y in val_loader))


def fit_eval_before_training(model, loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.eval()  # expect: TW010
        with torch.no_grad():
            print(sum(criterion(model(x), y).item() for x, y in val_loader))
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()


def fit_conditional_restore(model, loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        if epoch > 0:
            model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()  # expect: TW010
        with torch.no_grad():
            print(sum(criterion(model(x), y).item() for x, y in val_loader))


def fit_freeze_bn(model, loader, optimizer, criterion, epochs):
    # Fine-tuning with frozen BatchNorm: train() then eval() of the BN layers each epoch.
    for epoch in range(epochs):
        model.train()
        model.backbone.eval()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
