import torch
from torch.nn import Module
import torch.nn.functional as F
import numpy as np
import collections
import operator as op
from functools import reduce


def to_one_hot(y, classes):
    """Convert a nd-array with integers [y] to a 2D "one-hot" tensor."""
    c = np.zeros(shape=[len(y), classes], dtype="float32")
    c[range(len(y)), y] = 1.0
    c = torch.from_numpy(c)
    return c


def ncr(n, r):
    """N choose r"""
    r = min(r, n - r)
    numer = reduce(op.mul, range(n, n - r, -1), 1)
    denom = reduce(op.mul, range(1, r + 1), 1)
    return numer // denom


class LRUCache(collections.MutableMapping):
    def __init__(self, maxlen: int, *args, **kwargs):
        self.maxlen = maxlen
        self.d = dict(*args, **kwargs)
        while len(self) > maxlen:
            self.popitem()

    def __iter__(self):
        return iter(self.d)

    def __len__(self):
        return len(self.d)

    def __getitem__(self, k):
        return self.d[k]

    def __delitem__(self, k):
        del self.d[k]

    def __setitem__(self, k, v):
        if k not in self and len(self) == self.maxlen:
            self.popitem()
        self.d[k] = v


class GeM(Module):
    """
    Generalized Mean Pooling

    Applies a 2D power-average adaptive pooling over an input signal composed of several input planes.
    The function computed is: :math:`f(X) = pow(sum(pow(X, p)), 1/p)`
        - At p = infinity, one gets Max Pooling
        - At p = 1, one gets Average Pooling
    The output is of size H x W, for any input size.
    The number of output features is equal to the number of input planes.
    Args:
        output_size: the target output size of the image of the form H x W.
                     Can be a tuple (H, W) or a single H for a square image H x H
                     H and W can be either a ``int``, or ``None`` which means the size will
                     be the same as that of the input.

    Adapted from: https://discuss.pytorch.org/t/adding-own-pooling-algorithm-to-pytorch/54742
    """

    def __init__(self, p=3, eps=1e-6):
        super(GeM, self).__init__()
        self.p = torch.nn.Parameter(torch.ones(1) * p)
        self.eps = eps

    def forward(self, x):
        return self.gem(x, p=self.p, eps=self.eps)

    def gem(self, x, p=3, eps=1e-6):
        return F.avg_pool2d(x.clamp(min=eps).pow(p), (x.size(-2), x.size(-1))).pow(
            1.0 / p
        )

    def __repr__(self):
        return (
            self.__class__.__name__
            + "("
            + "p="
            + "{:.4f}".format(self.p.data.tolist()[0])
            + ", "
            + "eps="
            + str(self.eps)
            + ")"
        )
