"""A user's DataLoader under several processes: every rank reads a disjoint shard of each
epoch, all ranks take the same number of steps, and a resumed epoch continues exactly."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from torch.utils.data import (
    DataLoader,
    DistributedSampler,
    IterableDataset,
    TensorDataset,
    WeightedRandomSampler,
)

from trainwell.data import make_loader, start_epoch
from trainwell.data.sharding import DealtBatches, shard_dataloader
from trainwell.errors import DataError

N = 50


def ids(batches) -> list[list[int]]:
    return [batch[0].tolist() for batch in batches]


def dataset() -> TensorDataset:
    return TensorDataset(torch.arange(N), torch.arange(N) * 10)


def ranks(loader_factory, world: int = 2, seed: int = 3) -> list:
    return [
        make_loader(loader_factory(), rank=r, world_size=world, seed=seed) for r in range(world)
    ]


def test_one_process_gets_its_dataloader_back_unchanged():
    loader = DataLoader(dataset(), batch_size=4, shuffle=True)
    assert make_loader(loader) is loader


@pytest.mark.parametrize("world", [2, 3])
def test_a_shuffled_dataloader_is_split_into_disjoint_shards_of_equal_length(world):
    loaders = ranks(lambda: DataLoader(dataset(), batch_size=4, shuffle=True), world)
    lengths = {len(loader) for loader in loaders}
    assert lengths == {math.ceil(math.ceil(N / world) / 4)}  # the same on every rank
    for epoch in range(2):
        shards = [sum(ids(loader), []) for loader in loaders]
        assert {len(s) for s in shards} == {math.ceil(N / world)}
        seen = sorted(sum(shards, []))
        padding = world * math.ceil(N / world) - N  # the order's head, read twice
        assert len(seen) == N + padding and set(seen) == set(range(N))
        if epoch == 0:
            first = shards
    assert shards != first  # every pass is a new epoch with a new order


def test_the_order_is_the_same_whatever_the_global_rng_of_each_rank():
    torch.manual_seed(0)
    a = make_loader(DataLoader(dataset(), batch_size=5, shuffle=True), rank=0, world_size=2)
    torch.manual_seed(1)  # ranks reseed differently after wrapping the model
    b = make_loader(DataLoader(dataset(), batch_size=5, shuffle=True), rank=1, world_size=2)
    assert not set(sum(ids(a), [])) & set(sum(ids(b), []))


def test_in_order_two_ranks_with_batch_b_make_one_process_s_batch_2b():
    one = ids(DataLoader(dataset(), batch_size=8, shuffle=False))
    r0, r1 = (ids(loader) for loader in ranks(lambda: DataLoader(dataset(), batch_size=4)))
    assert [sorted(a + b) for a, b in zip(r0, r1, strict=True)] == one


def test_collate_function_workers_and_drop_last_are_kept():
    def collate(samples):
        return torch.stack([s[0] for s in samples]), "collated"

    loader = DataLoader(dataset(), batch_size=4, shuffle=True, drop_last=True, collate_fn=collate)
    sharded = make_loader(loader, rank=1, world_size=2)
    batches = list(sharded)
    assert len(batches) == len(sharded) == 25 // 4
    assert all(tag == "collated" and len(x) == 4 for x, tag in batches)


def test_a_resumed_epoch_continues_with_the_batches_of_an_unbroken_one():
    def factory():
        return DataLoader(dataset(), batch_size=4, shuffle=True)

    full = make_loader(factory(), rank=1, world_size=2, seed=7)
    epoch1 = ids(start_epoch(full, 1))
    resumed = make_loader(factory(), rank=1, world_size=2, seed=7)
    assert ids(start_epoch(resumed, 1, start_batch=3)) == epoch1[3:]


def test_another_sampler_has_its_batches_dealt_out_in_turn_from_one_seeded_draw():
    weights = torch.rand(N, generator=torch.Generator().manual_seed(0))

    def factory():
        return DataLoader(dataset(), batch_size=4, sampler=WeightedRandomSampler(weights, N))

    torch.manual_seed(10)
    r0 = make_loader(factory(), rank=0, world_size=2, seed=5)
    torch.manual_seed(11)
    r1 = make_loader(factory(), rank=1, world_size=2, seed=5)
    a, b = ids(r0), ids(r1)
    assert len(a) == len(b) == len(r0) == 7  # 13 batches: rank 1's last is the epoch's first
    reference = factory()
    reference.sampler.generator = torch.Generator().manual_seed(5 * 1_000_003 + 0)
    drawn = ids(reference)
    assert a == drawn[0::2] and b == drawn[1::2] + [drawn[0]]
    assert ids(r0) != a  # the next pass is the next epoch's draw


def test_dealt_batches_pad_every_rank_to_the_same_count():
    batches = [[i] for i in range(5)]
    dealt = [list(DealtBatches(batches, rank, 3)) for rank in range(3)]
    assert dealt == [[[0], [3]], [[1], [4]], [[2], [0]]]
    few = [list(DealtBatches([[0]], rank, 3)) for rank in range(3)]
    assert few == [[[0]], [[0]], [[0]]]


def test_an_already_sharded_dataloader_is_kept_when_it_names_this_rank():
    ds = dataset()
    mine = DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds, num_replicas=2, rank=1))
    assert shard_dataloader(mine, rank=1, world_size=2, seed=0) is mine
    with pytest.raises(DataError, match="num_replicas=2, rank=1, but this process is rank 0"):
        shard_dataloader(mine, rank=0, world_size=2, seed=0)


class Stream(IterableDataset):
    def __iter__(self):
        yield from range(4)


def test_an_iterable_dataset_is_kept_with_a_warning_that_it_must_shard_itself():
    loader = DataLoader(Stream(), batch_size=2)
    with pytest.warns(UserWarning, match="IterableDataset .*Stream.* cannot split a stream"):
        assert make_loader(loader, rank=0, world_size=2) is loader
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once, by rank 0
        assert make_loader(loader, rank=1, world_size=2) is loader


def test_a_dataloader_without_batches_cannot_be_split_and_says_so():
    loader = DataLoader(dataset(), batch_size=None)
    with pytest.raises(DataError, match="batch_size=None"):
        make_loader(loader, rank=0, world_size=2)
