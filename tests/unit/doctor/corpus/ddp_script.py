# ruff: noqa
"""DistributedDataParallel script: the wrapped and the raw model are the same model."""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(0.1)
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.dropout(self.relu(self.net1(x))))


def demo_basic(rank, world_size, dataset, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = ToyModel().to(rank)
    ddp_model = DDP(model, device_ids=[rank])
    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        ddp_model.train()
        for inputs, labels in loader:
            optimizer.zero_grad()
            outputs = ddp_model(inputs.to(rank))
            loss_fn(outputs, labels.to(rank)).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            print(model(torch.randn(2, 10).to(rank)))
    dist.destroy_process_group()


def demo_leak(rank, dataset, epochs):
    model = ToyModel().to(rank)
    ddp_model = DDP(model, device_ids=[rank])
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
    loader = DataLoader(dataset, batch_size=32)
    for epoch in range(epochs):
        for inputs, labels in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(ddp_model(inputs), labels).backward()
            optimizer.step()
        ddp_model.module.eval()  # expect: TW010
        with torch.no_grad():
            print(ddp_model(torch.randn(2, 10)))
