"""Every pass over a loader is the next epoch in other processes too: a second interpreter sees
the same passes, and spawned workers advance like the main process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.unit.data.epochs import (
    BATCH,
    PASSES,
    SEED,
    N,
    assert_three_different_epochs,
    every_kind,
    plain_passes,
    summary,
)
from tests.unit.data.helpers import Augmenting

from trainwell.data import (
    BatchSeededDataset,
    EpochBatchSampler,
    SeededDataLoader,
    collate_batch,
)


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
