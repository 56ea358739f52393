"""Small data shared by the loop tests."""

import torch
from torch import nn


def blobs(n=240, seed=0):
    """``n`` samples of 3 well-separated classes in 4 features: a few epochs learn them."""
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % 3
    x = torch.randn(n, 4, generator=g) * 0.5 + nn.functional.one_hot(y, 4).float() * 3
    return x, y
