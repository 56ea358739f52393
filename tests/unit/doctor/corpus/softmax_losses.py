# ruff: noqa
"""Softmax / log_softmax feeding classification losses."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftmaxClassifier(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.fc = nn.Linear(d_in, n_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.fc(x))


class LogitsInTrainingProbsInEval(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.fc = nn.Linear(d_in, n_classes)

    def forward(self, x):
        logits = self.fc(x)
        if self.training:
            return logits
        return F.softmax(logits, dim=-1)


class LogSoftmaxNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(32, 10)

    def forward(self, x):
        return F.log_softmax(self.body(x), dim=1)


def train_softmax_model(loader):
    model = SoftmaxClassifier(32, 10)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)  # expect: TW007
        loss.backward()
        optimizer.step()


def train_sequential_softmax(loader):
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10), nn.Softmax(dim=1))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)  # expect: TW007
        loss.backward()
        optimizer.step()


def train_functional_softmax(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        probs = torch.softmax(model(x), dim=-1)
        loss = F.cross_entropy(probs.view(-1, 10), y.view(-1))  # expect: TW007
        loss.backward()
        optimizer.step()


def train_log_softmax_into_ce(model, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        optimizer.zero_grad()
        log_probs = model(x).log_softmax(dim=1)
        loss = criterion(log_probs, y)  # expect: TW008
        loss.backward()
        optimizer.step()


def train_log_softmax_nll(loader):
    model = LogSoftmaxNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.NLLLoss()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def train_softmax_nll(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        probs = F.softmax(model(x), dim=1)
        loss = F.nll_loss(probs, y)  # expect: TW009
        loss.backward()
        optimizer.step()


def train_logits_in_training_mode(loader):
    model = LogitsInTrainingProbsInEval(32, 10)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def soft_targets_are_fine(student, teacher, x, y):
    # Probabilities as *targets* (second argument) are what soft-label CE expects.
    with torch.no_grad():
        target = F.softmax(teacher(x), dim=1)
    return F.cross_entropy(student(x), target)


def reported_probabilities(model, x, y):
    logits = model(x)
    probs = logits.softmax(-1)
    loss = F.cross_entropy(logits, y)
    return loss, probs.max(-1).values
