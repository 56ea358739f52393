# ruff: noqa
"""A beginner's MNIST script with four classic silent bugs."""

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = "cuda" if torch.cuda.is_available() else "cpu"
train_set = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
val_set = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2)
val_loader = DataLoader(val_set, batch_size=256)

model = nn.Sequential(
    nn.Flatten(),
    nn.Linear(784, 256),
    nn.ReLU(),
    nn.Dropout(0.2),
    nn.Linear(256, 10),
)
model.to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

for epoch in range(10):
    running_loss = 0.0
    for images, labels in train_loader:
        images.to(device)  # expect: TW019
        labels = labels.to(device)
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()  # expect: TW001
        running_loss += loss  # expect: TW011
    print(f"epoch {epoch}: loss {running_loss / len(train_loader):.3f}")

    model.eval()  # expect: TW010
    correct = 0
    with torch.no_grad():
        for images, labels in val_loader:
            images, labels = images.to(device), labels.to(device)
            correct += (model(images).argmax(1) == labels).sum().item()
    print(f"val acc {correct / len(val_set):.3f}")
