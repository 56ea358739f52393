"""Workers: identical batches for any worker count; num_workers="auto" measures and explains."""

import logging
import random

import numpy as np
import pytest
import torch
from torch.utils.data import Dataset, TensorDataset

from trainwell.data import (
    BatchLoader,
    SeededDataLoader,
    choose_num_workers,
    make_loader,
    seed_worker,
    start_epoch,
)
from trainwell.data.workers import cpu_count

from .helpers import Augmenting, AugmentingBatches, same_batches, tensors


@pytest.mark.parametrize("dataset_type", [Augmenting, AugmentingBatches])
def test_zero_and_two_workers_give_identical_augmented_batches(dataset_type):
    batches = {}
    for workers in (0, 2):
        loader = make_loader(dataset_type(20), batch_size=3, seed=4, num_workers=workers)
        batches[workers] = [list(start_epoch(loader, epoch)) for epoch in (0, 1)]
        # and a run resumed mid-epoch with this worker count
        batches[workers].append(list(start_epoch(loader, 1, start_batch=4)))
    assert same_batches(batches[0], batches[2])
    assert same_batches(batches[0][1][4:], batches[0][2])
    assert not same_batches(batches[0][0], batches[0][1])  # epochs draw new augmentations


def test_seed_worker_leaves_cuda_generators_alone(monkeypatch):
    # torch.manual_seed would reseed CUDA too: in the main process that resets the model's
    # GPU dropout stream at every batch. seed_worker must seed the CPU streams only.
    def forbidden(seed):
        raise AssertionError("seed_worker reseeded the CUDA generators")

    monkeypatch.setattr(torch.cuda, "manual_seed_all", forbidden)
    seed_worker(123)
    a = (torch.rand(2), np.random.rand(), random.random())
    seed_worker(123)
    b = (torch.rand(2), np.random.rand(), random.random())
    assert torch.equal(a[0], b[0]) and a[1:] == b[1:]


class CpuHeavy(Dataset):
    """Each item costs real CPU work (no sleeping), so fetch time is far above the budget."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.tensor(float(sum(k * k for k in range(i, i + 20_000))))


class FakeClock:
    """Advances by ``tick`` seconds per reading: fetch time becomes exact and load-free."""

    def __init__(self, tick):
        self.now, self.tick = 0.0, tick

    def __call__(self):
        self.now += self.tick
        return self.now


def test_in_memory_data_gets_no_workers_without_measuring():
    x, y = tensors(10)
    for data in ((x, y), TensorDataset(x, y), x.numpy()):
        workers, reason = choose_num_workers(data, batch_size=4, cpus=8, clock=None)
        assert workers == 0 and "in-memory" in reason


def test_fast_dataset_gets_no_workers_and_slow_one_gets_spare_cpus():
    fast = choose_num_workers(Augmenting(40), 8, cpus=8, clock=FakeClock(1e-4))
    assert fast[0] == 0 and "main process" in fast[1]
    slow = choose_num_workers(Augmenting(40), 8, cpus=8, clock=FakeClock(0.05))
    assert slow[0] == 7 and "7 worker" in slow[1]


def test_workers_follow_fetch_time_over_step_time():
    # FakeClock(t): one fetch measures exactly t seconds
    assert (
        choose_num_workers(Augmenting(40), 8, step_time_s=0.01, cpus=8, clock=FakeClock(0.025))[0]
        == 3
    )
    capped = choose_num_workers(Augmenting(40), 8, step_time_s=0.01, cpus=3, clock=FakeClock(0.1))
    assert capped[0] == 2 and "capped" in capped[1]
    small = choose_num_workers(Augmenting(40), 8, step_time_s=1.0, cpus=8, clock=FakeClock(0.01))
    assert small[0] == 0 and "1%" in small[1]
    assert choose_num_workers(Augmenting(40), 8, cpus=1)[0] == 0


def test_measuring_uses_real_fetches_and_leaves_rng_alone():
    torch.manual_seed(3)
    expected = torch.rand(4)
    torch.manual_seed(3)
    workers, reason = choose_num_workers(CpuHeavy(), batch_size=16, cpus=2)
    assert torch.equal(torch.rand(4), expected)
    assert workers == 1 and "1 worker" in reason  # ~10+ ms per batch of real work


@pytest.mark.skipif(cpu_count() < 2, reason="workers need a spare CPU")
def test_make_loader_auto_reports_its_choice(caplog):
    with caplog.at_level(logging.INFO, logger="trainwell.data"):
        loader = make_loader(AugmentingBatches(12), batch_size=4, num_workers="auto")
    assert isinstance(loader, BatchLoader)
    assert "main process" in loader.workers_reason
    assert "num_workers=auto -> 0" in caplog.text
    heavy = make_loader(CpuHeavy(), batch_size=16, num_workers="auto", persistent_workers=False)
    assert isinstance(heavy, SeededDataLoader) and heavy.num_workers >= 1
    assert "worker" in heavy.workers_reason
