"""Order and seeds are pure functions of (seed, epoch, rank, world size); resume is exact."""

import pytest
import torch

from trainwell.data import (
    EpochBatchSampler,
    TensorLoader,
    batch_seed,
    epoch_order,
    make_loader,
    shard_order,
    start_epoch,
)

from .helpers import Augmenting, AugmentingBatches, same_batches, tensors


def loaders(world_size=1, rank=0, n=23):
    """One loader per path over the same samples: tensors, whole-batch dataset, DataLoader."""
    x, _ = tensors(n)
    common = {"batch_size": 4, "seed": 3, "rank": rank, "world_size": world_size}
    return {
        "tensors": make_loader((x, torch.arange(n)), **common),
        "getitems": make_loader(AugmentingBatches(n), **common),
        "dataloader": make_loader(Augmenting(n), **common),
    }


@pytest.mark.parametrize("world_size", [1, 2])
@pytest.mark.parametrize("path", ["tensors", "getitems", "dataloader"])
def test_mid_epoch_resume_continues_with_the_same_batches(path, world_size):
    for rank in range(world_size):
        uninterrupted = loaders(world_size, rank)[path]
        full = [list(start_epoch(uninterrupted, epoch)) for epoch in range(3)]
        for epoch, stop in [(0, 2), (1, 1), (2, 4)]:
            resumed = loaders(world_size, rank)[path]  # a new process: nothing carried over
            tail = list(start_epoch(resumed, epoch, start_batch=stop))
            assert same_batches(full[epoch][stop:], tail), (path, rank, epoch)
        assert not same_batches(full[0], full[1])  # epochs differ


@pytest.mark.parametrize("n", [23, 24, 3, 1])
def test_shards_are_equal_sized_cover_everything_and_pad_with_the_head(n):
    world = 4
    order = epoch_order(n, 1, 0)
    shards = [shard_order(n, 1, 0, rank=r, world_size=world) for r in range(world)]
    assert len({len(s) for s in shards}) == 1
    merged = torch.stack(shards, 1).reshape(-1)  # interleave back: rank r took r, r+4, ...
    assert torch.equal(merged[:n], order)
    assert torch.equal(merged[n:], order.repeat(3)[: len(merged) - n])


@pytest.mark.parametrize("drop_last", [False, True])
def test_tensor_loader_and_sampler_shard_alike(drop_last):
    x, y = tensors(23)
    for rank in range(3):
        sampler = EpochBatchSampler(23, 3, seed=9, rank=rank, world_size=3, drop_last=drop_last)
        loader = TensorLoader((x, y), 3, seed=9, rank=rank, world_size=3, drop_last=drop_last)
        for epoch in (0, 1):
            sampler.set_epoch(epoch)
            loader.set_epoch(epoch)
            assert [list(b) for b in sampler] == [b[1].tolist() for b in loader]
            assert len(sampler) == len(loader) == (2 if drop_last else 3)


def test_order_ignores_global_rng():
    x, y = tensors(23)
    loader = make_loader((x, y), batch_size=5, seed=1)
    torch.manual_seed(0)
    a = [b[1] for b in loader]
    torch.manual_seed(99)
    loader.set_epoch(0)  # the same epoch again (a plain pass would be epoch 1)
    assert same_batches(a, [b[1] for b in loader])


def test_batch_seeds_differ_across_batches_epochs_ranks_and_runs_repeat_them():
    seeds = {
        (epoch, batch, rank): batch_seed(0, epoch, batch, rank)
        for epoch in range(5)
        for batch in range(50)
        for rank in range(4)
    }
    assert len(set(seeds.values())) == len(seeds)
    assert batch_seed(0, 2, 7, 1) == batch_seed(0, 2, 7, 1)
    assert batch_seed(0, 2, 7, 1) != batch_seed(1, 2, 7, 1)


def test_sampler_hands_each_batch_its_seed_including_the_rank():
    per_rank = []
    for rank in range(2):
        sampler = EpochBatchSampler(20, 4, seed=5, rank=rank, world_size=2)
        sampler.set_epoch(3)
        per_rank.append([b.seed for b in sampler])
        assert per_rank[-1] == [batch_seed(5, 3, i, rank) for i in range(len(sampler))]
    assert set(per_rank[0]).isdisjoint(per_rank[1])


def test_ranks_draw_different_augmentations():
    # n=8 on 2 ranks with batch 4: each rank has one batch of different samples; compare the
    # noise (value minus the sample's base) so only the augmentation is compared.
    noise = []
    for rank in range(2):
        (batch,) = list(make_loader(AugmentingBatches(8), batch_size=4, rank=rank, world_size=2))
        values, index = batch
        noise.append(values - index[:, None].double())
    assert not torch.equal(noise[0], noise[1])


def test_bad_rank_is_rejected():
    with pytest.raises(ValueError, match="rank"):
        make_loader(tensors(5), rank=2, world_size=2)
    with pytest.raises(ValueError, match="rank"):
        EpochBatchSampler(5, 2, rank=-1, world_size=1)
