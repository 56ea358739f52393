"""Every pass over a loader is the next epoch, as with DataLoader(shuffle=True); set_epoch wins.

A user's own ``for epoch ...: for batch in loader`` must not see epoch 0's order and
augmentations again on every pass. Each new iteration starts the epoch after the last one;
``set_epoch(e, start_batch)`` (what ``start_epoch`` and ``fit()`` use) decides the next one.
Another process and spawned workers: tests/system/process/test_auto_epoch.py.
"""

import json
import pickle

import pytest
import torch

from trainwell.data import (
    start_epoch,
)

from .epochs import (
    KINDS,
    PASSES,
    WORKERS,
    assert_three_different_epochs,
    build,
    plain_passes,
    summary,
)
from .helpers import same_batches

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


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


def test_training_rng_is_untouched_by_passes():
    loader = build("getitems")
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    for _ in range(PASSES):
        list(loader)
    assert torch.equal(torch.rand(3), expected)
    assert same_batches(list(start_epoch(loader, 0)), list(start_epoch(build("getitems"), 0)))
