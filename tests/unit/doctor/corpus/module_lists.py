# ruff: noqa
"""Sub-modules stored in plain Python containers."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class ListOfLayers(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = [Block(dim) for _ in range(depth)]  # expect: TW013
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class DictOfHeads(nn.Module):
    def __init__(self, dim, tasks):
        super().__init__()
        self.heads = {task: nn.Linear(dim, n) for task, n in tasks.items()}  # expect: TW013

    def forward(self, x, task):
        return self.heads[task](x)


class AppendedLayers(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = []  # expect: TW013
        for d_in, d_out in zip(sizes, sizes[1:]):
            self.layers.append(nn.Linear(d_in, d_out))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class LiteralList(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = [nn.Conv2d(3, 16, 3), nn.Conv2d(16, 32, 3)]  # expect: TW013


class Correct(nn.Module):
    def __init__(self, dim, depth, tasks):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.heads = nn.ModuleDict({task: nn.Linear(dim, n) for task, n in tasks.items()})
        self.dims = [dim] * depth
        self.acts = [nn.ReLU(), nn.GELU()]
        self.names = ["a", "b"]
        layers = [nn.Linear(dim, dim) for _ in range(depth)]
        self.seq = nn.Sequential(*layers)
        self._frozen_teacher = [None]


class NotAModule:
    def __init__(self):
        self.layers = [nn.Linear(4, 4)]


class BuiltThenWrapped(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = []
        for d_in, d_out in zip(sizes, sizes[1:]):
            self.layers.append(nn.Linear(d_in, d_out))
        self.layers = nn.ModuleList(self.layers)


class ListHandedToSequential(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.stages = [nn.Conv2d(8, 8, 3) for _ in range(depth)]
        self.body = nn.Sequential(*self.stages)


class RegisteredByHand(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.blocks = [Block(16) for _ in range(depth)]
        for i, block in enumerate(self.blocks):
            self.add_module(f"block{i}", block)
