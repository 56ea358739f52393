"""Sample order: a pure function of (seed, epoch, rank, world size), and per-batch seeds.

Nothing here reads a global RNG, so a resumed run (or another worker, or another rank)
recomputes exactly the order and the seeds an uninterrupted run used.
"""

from __future__ import annotations

import math

import numpy as np
import torch

SEED_STRIDE = 1_000_003  # a prime, so (seed, epoch) pairs do not collide in practice


def epoch_generator(seed: int, epoch: int) -> torch.Generator:
    """A torch generator whose stream depends only on (seed, epoch)."""
    return torch.Generator().manual_seed(seed * SEED_STRIDE + epoch)


def epoch_order(num_samples: int, seed: int, epoch: int, shuffle: bool = True) -> torch.Tensor:
    """The sample order of one epoch: a permutation fixed by (seed, epoch), or 0..n-1."""
    if not shuffle:
        return torch.arange(num_samples)
    return torch.randperm(num_samples, generator=epoch_generator(seed, epoch))


def samples_per_rank(num_samples: int, world_size: int) -> int:
    """Samples each rank sees per epoch: the order is padded so every rank gets as many."""
    return math.ceil(num_samples / world_size)


def shard_order(
    num_samples: int,
    seed: int,
    epoch: int,
    *,
    shuffle: bool = True,
    rank: int = 0,
    world_size: int = 1,
) -> torch.Tensor:
    """This rank's sample order for ``epoch``.

    Every rank computes the same global order and takes every ``world_size``-th sample from
    position ``rank`` (as ``DistributedSampler`` does). The order is first padded with its own
    head so all ranks get equally many samples: ranks that ran out would otherwise stop
    stepping while the others wait for them in the gradient all-reduce.
    """
    check_rank(rank, world_size)
    order = epoch_order(num_samples, seed, epoch, shuffle)
    if world_size == 1:
        return order
    total = samples_per_rank(num_samples, world_size) * world_size
    # order.repeat(k) is [order, order, ...]: the padding is the order's head (all of it, again
    # and again, for datasets smaller than the world).
    padded = order.repeat(math.ceil(total / num_samples))[:total]
    return padded[rank::world_size]


def num_batches(num_samples: int, batch_size: int, drop_last: bool, world_size: int = 1) -> int:
    """Batches per epoch on one rank."""
    per_rank = samples_per_rank(num_samples, world_size)
    if drop_last:
        return per_rank // batch_size
    return math.ceil(per_rank / batch_size)


def batch_seed(seed: int, epoch: int, batch: int, rank: int = 0) -> int:
    """The RNG seed of one batch: a pure function of (seed, epoch, batch index, rank).

    The rank is part of it so ranks draw different augmentations for their different samples.
    """
    return int(np.random.SeedSequence([seed, epoch, batch, rank]).generate_state(1)[0])


def check_rank(rank: int, world_size: int) -> None:
    """Reject a rank outside ``[0, world_size)`` (a typo there silently duplicates data)."""
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"need 0 <= rank < world_size, got rank={rank}, world_size={world_size}")
