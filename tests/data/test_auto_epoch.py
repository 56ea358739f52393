"""Every pass over a loader is the next epoch, as with DataLoader(shuffle=True); set_epoch wins.

A user's own ``for epoch ...: for batch in loader`` must not see epoch 0's order and
augmentations again on every pass. Each new iteration starts the epoch after the last one;
``set_epoch(e, start_batch)`` (what ``start_epoch`` and ``fit()`` use) decides the next one.
"""

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader

from trainwell.data import (
    BatchLoader,
    BatchSeededDataset,
    EpochBatchSampler,
    SeededDataLoader,
    TensorLoader,
    collate_batch,
    make_loader,
    start_epoch,
)

from .helpers import Augmenting, AugmentingBatches, same_batches, tensors

N, BATCH, SEED = 12, 4, 3  # 3 batches per epoch: fast, with workers too
KINDS = ["tensors", "getitems", "dataloader", "sampler"]
WORKERS = [0, 2]
PASSES = 3


def build(kind, workers=0, persistent=True):
    """A loader of one kind over N samples (``sampler``: a plain DataLoader over our sampler)."""
    common = {"batch_size": BATCH, "seed": SEED, "num_workers": workers}
    common["persistent_workers"] = persistent
    if kind == "tensors":
        loader = make_loader(tensors(N), **common)
        assert isinstance(loader, TensorLoader)
    elif kind == "getitems":
        loader = make_loader(AugmentingBatches(N), **common)
        assert isinstance(loader, BatchLoader if workers == 0 else SeededDataLoader)
    elif kind == "dataloader":
        loader = make_loader(Augmenting(N), **common)
        assert isinstance(loader, SeededDataLoader)
    else:
        loader = DataLoader(
            BatchSeededDataset(Augmenting(N)),
            batch_sampler=EpochBatchSampler(N, BATCH, seed=SEED),
            collate_fn=collate_batch,
            num_workers=workers,
            persistent_workers=persistent and workers > 0,
        )
        assert make_loader(loader) is loader  # passed through unchanged
    return loader


def summary(batches):
    """JSON-able (sample indices, values) of each batch; values are exact through JSON."""
    return [[b[1].tolist(), b[0].tolist()] for b in batches]


def plain_passes(kind, workers=0, persistent=True, passes=PASSES):
    loader = build(kind, workers, persistent)
    return [summary(list(loader)) for _ in range(passes)]


def every_kind():
    """What a second process compares: plain passes of every kind and worker count."""
    return {
        f"{kind}/{workers}": plain_passes(kind, workers) for kind in KINDS for workers in WORKERS
    }


def noise_by_sample(passes):
    """Per pass: sample index -> its augmentation (value minus the sample's base value)."""
    result = []
    for batches in passes:
        noise = {}
        for indices, values in batches:
            for i, row in zip(indices, values):
                noise[i] = [v - i for v in row]
        result.append(noise)
    return result


def assert_three_different_epochs(kind, passes):
    orders = [sum((indices for indices, _ in batches), []) for batches in passes]
    assert all(sorted(order) == list(range(N)) for order in orders)
    assert len({tuple(order) for order in orders}) == PASSES, f"{kind}: a pass repeated an order"
    if kind != "tensors":  # datasets augment: each pass draws new augmentations per sample
        noise = noise_by_sample(passes)
        for i in range(N):
            assert len({tuple(n[i]) for n in noise}) == PASSES, f"{kind}: sample {i} repeated"


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("kind", KINDS)
def test_each_plain_pass_is_the_next_epoch(kind, workers):
    passes = plain_passes(kind, workers)
    assert_three_different_epochs(kind, passes)
    # pass k is epoch k, exactly as the explicit API (and fit()) computes it
    reference = build(kind)
    explicit = [summary(start_epoch(reference, epoch)) for epoch in range(PASSES)]
    assert passes == explicit


@pytest.mark.parametrize("kind", ["getitems", "dataloader", "sampler"])
def test_workers_that_are_not_persistent_advance_too(kind):
    passes = plain_passes(kind, workers=2, persistent=False)
    assert_three_different_epochs(kind, passes)
    assert passes == plain_passes(kind, workers=0)


def test_another_process_sees_the_same_passes():
    here = every_kind()
    for key, passes in here.items():
        assert_three_different_epochs(key.split("/")[0], passes)
    module = __name__
    # this module's import root, as pytest computed it (tests/ or the repo root)
    root = Path(__file__).resolve().parents[len(module.split(".")) - 1]
    script = (
        f"import sys, json; sys.path.insert(0, {str(root)!r}); import importlib; "
        f"print(json.dumps(importlib.import_module({module!r}).every_kind()))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONHASHSEED": "1"},  # a different hash seed than ours, probably
    )
    assert proc.returncode == 0, proc.stderr
    there = json.loads(proc.stdout.strip().splitlines()[-1])
    assert there == json.loads(json.dumps(here))


@pytest.mark.parametrize("kind", KINDS)
def test_explicit_set_epoch_wins_and_is_consumed_by_the_next_pass(kind):
    reference = build(kind)
    epoch = {e: summary(start_epoch(reference, e)) for e in (0, 1, 2, 3, 5, 6)}
    loader = build(kind)
    sampler = getattr(loader, "batch_sampler", None)
    set_epoch = loader.set_epoch if hasattr(loader, "set_epoch") else sampler.set_epoch
    assert summary(loader) == epoch[0]
    set_epoch(5)
    assert summary(loader) == epoch[5]
    assert summary(loader) == epoch[6]  # the explicit epoch was used up: counting goes on
    set_epoch(2, 1)  # mid-epoch: the tail of epoch 2, then all of epoch 3
    assert summary(loader) == epoch[2][1:]
    assert summary(loader) == epoch[3]
    # start_epoch (what fit() calls before every epoch) gives exactly the epoch asked for
    for e in (1, 1, 0):
        assert summary(start_epoch(loader, e)) == epoch[e]
    assert summary(start_epoch(loader, 5, 2)) == epoch[5][2:]
    assert summary(loader) == epoch[6]
    assert len(loader) == 3


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("kind", ["tensors", "getitems", "dataloader"])
def test_mid_epoch_resume_reproduces_the_tail_and_the_epochs_after(kind, workers):
    uninterrupted = plain_passes(kind, workers, passes=3)
    # a new process resumes at batch 2 of the second epoch, told so explicitly
    resumed = build(kind, workers)
    resumed.set_epoch(1, start_batch=2)
    assert len(resumed) == 3  # len() is the whole epoch, as before
    assert summary(resumed) == uninterrupted[1][2:]
    assert summary(resumed) == uninterrupted[2]


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("kind", ["tensors", "getitems", "dataloader"])
def test_state_dict_holds_the_position_of_the_next_batch(kind, workers):
    uninterrupted = plain_passes(kind, workers, passes=3)
    loader = build(kind, workers)
    assert loader.state_dict() == {"epoch": 0, "start_batch": 0}
    assert summary(loader) == uninterrupted[0]
    assert loader.state_dict() == {"epoch": 1, "start_batch": 0}
    seen = []
    for batch in loader:  # a user's loop checkpoints mid-epoch, then dies
        seen.append(batch)
        if len(seen) == 2:
            state = loader.state_dict()
            break
    assert state == {"epoch": 1, "start_batch": 2}
    assert summary(seen) == uninterrupted[1][:2]
    restored = build(kind, workers)
    restored.load_state_dict(json.loads(json.dumps(state)))  # plain values: any checkpoint
    assert summary(restored) == uninterrupted[1][2:]
    assert summary(restored) == uninterrupted[2]
    restored.set_epoch(7)  # an explicit epoch is what the next pass (and a checkpoint) uses
    assert restored.state_dict() == {"epoch": 7, "start_batch": 0}


@pytest.mark.parametrize("kind", ["tensors", "getitems", "dataloader", "sampler"])
def test_a_pickled_loader_carries_its_next_epoch(kind):
    loader = build(kind)
    first = summary(loader)
    copy = pickle.loads(pickle.dumps(loader))
    assert summary(copy) == summary(loader)  # both at epoch 1
    assert summary(copy) != first


@pytest.mark.slow
def test_spawned_workers_advance_like_the_main_process():
    sampler = EpochBatchSampler(N, BATCH, seed=SEED)
    loader = SeededDataLoader(
        BatchSeededDataset(Augmenting(N)),
        batch_sampler=sampler,
        collate_fn=collate_batch,
        num_workers=2,
        persistent_workers=True,
        multiprocessing_context="spawn",
    )
    passes = [summary(loader) for _ in range(PASSES)]
    assert_three_different_epochs("dataloader", passes)
    assert passes == plain_passes("dataloader", 0)


def test_training_rng_is_untouched_by_passes():
    loader = build("getitems")
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    for _ in range(PASSES):
        list(loader)
    assert torch.equal(torch.rand(3), expected)
    assert same_batches(list(start_epoch(loader, 0)), list(start_epoch(build("getitems"), 0)))
