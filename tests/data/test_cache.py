"""cache(): round trip, fingerprint invalidation, atomic writes that survive a crash."""

import os
import pickle
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, default_collate

import trainwell as tw
from trainwell.data import BatchLoader, CachedDataset, cache, make_loader

from .helpers import same_batches


class Expensive(Dataset):
    """Counts its __getitem__ calls; samples mix tensors, arrays, numbers, tuples and dicts."""

    def __init__(self, n=12, fingerprint="v1", fail_at=None):
        self.n, self.fingerprint, self.fail_at = n, fingerprint, fail_at
        self.calls = 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.calls += 1
        if i == self.fail_at:
            raise RuntimeError("preprocessing failed")
        return {
            "image": torch.arange(6, dtype=torch.float32).reshape(2, 3) * i,
            "half": torch.full((2,), i / 4, dtype=torch.bfloat16),
            "label": i % 3,
            "weight": i / 10,
            "flag": i % 2 == 0,
            "extra": (np.int16(i), np.arange(3, dtype=np.uint8) + i),
        }


def test_round_trip_of_samples_and_batches(tmp_path):
    source = Expensive()
    cached = cache(source, tmp_path / "c")
    assert isinstance(cached, CachedDataset) and len(cached) == 12
    for i in (0, 5, 11, -1):
        got, want = cached[i], source[i % 12]
        assert got["label"] == want["label"] and isinstance(got["label"], int)
        assert got["weight"] == want["weight"] and isinstance(got["weight"], float)
        assert got["flag"] is want["flag"]
        assert torch.equal(got["image"], want["image"])
        assert torch.equal(got["half"], want["half"]) and got["half"].dtype == torch.bfloat16
        assert isinstance(got["extra"], tuple)
        assert got["extra"][0].item() == i % 12 and got["extra"][0].dtype == torch.int16
        assert torch.equal(got["extra"][1], torch.from_numpy(want["extra"][1]))
    indices = [3, 0, 7, 7]
    batch = cached.get_batch(indices)
    reference = default_collate([source[i] for i in indices])
    reference["extra"] = tuple(reference["extra"])  # default_collate turns tuples into lists
    assert same_batches([reference], [batch])
    assert same_batches([default_collate(cached.__getitems__(indices))], [batch])
    with pytest.raises(IndexError):
        cached[12]


def test_cached_dataset_batches_match_a_dataloader_over_the_source(tmp_path):
    source = Expensive(n=10)
    cached = cache(source, tmp_path / "c")
    loader = make_loader(cached, batch_size=4, seed=1)
    assert isinstance(loader, BatchLoader)
    order = tw.epoch_order(10, 1, 0).tolist()
    reference = DataLoader(source, batch_size=4, sampler=order)
    ours = list(loader)
    for ref, got in zip(reference, ours):
        ref["extra"] = tuple(ref["extra"])
        assert same_batches([ref], [got])
    # foreign DataLoaders (which call __getitems__ and collate) get the same batches too
    foreign = DataLoader(cached, batch_size=4, sampler=order)
    assert same_batches([dict(b, extra=tuple(b["extra"])) for b in foreign], ours)


def test_second_call_and_later_runs_reuse_the_cache(tmp_path):
    first = Expensive()
    cache(first, tmp_path / "c")
    assert first.calls == 12
    again = Expensive()
    cached = cache(again, tmp_path / "c")
    assert again.calls == 0
    assert cached[3]["label"] == 0


def test_changed_fingerprint_rebuilds(tmp_path):
    cache(Expensive(fingerprint="v1"), tmp_path / "c")
    changed = Expensive(fingerprint="v2")
    cached = cache(changed, tmp_path / "c")
    assert changed.calls == 12 and cached.fingerprint == "v2"
    by_argument = Expensive(fingerprint="v2")
    cache(by_argument, tmp_path / "c", fingerprint="v3")  # the argument wins over the attribute
    assert by_argument.calls == 12
    longer = Expensive(n=13, fingerprint="v3")
    assert len(cache(longer, tmp_path / "c", fingerprint="v3")) == 13  # length change rebuilds
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]  # old versions cleaned up


def test_failed_build_leaves_nothing_and_keeps_the_old_cache(tmp_path):
    cache(Expensive(fingerprint="v1"), tmp_path / "c")
    with pytest.raises(RuntimeError, match="preprocessing failed"):
        cache(Expensive(fingerprint="v2", fail_at=7), tmp_path / "c")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]
    assert CachedDataset(tmp_path / "c").fingerprint == "v1"
    with pytest.raises(RuntimeError):
        cache(Expensive(fail_at=3), tmp_path / "new")
    assert not (tmp_path / "new").exists()


CRASHING_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    import torch
    from trainwell.data import cache

    class Dies(torch.utils.data.Dataset):
        fingerprint = "v1"
        def __len__(self):
            return 50
        def __getitem__(self, i):
            if i == 30:  # halfway through writing: killed, no cleanup runs
                os.kill(os.getpid(), signal.SIGKILL)
            return torch.full((4,), float(i))

    cache(Dies(), sys.argv[1])
    """
)


def test_sigkill_mid_write_leaves_a_temp_dir_that_is_ignored_and_cleaned(tmp_path):
    target = tmp_path / "c"
    proc = subprocess.run(
        [sys.executable, "-c", CRASHING_WRITER, str(target)], capture_output=True, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    leftovers = [p for p in tmp_path.iterdir() if p.name != "c"]
    assert not target.exists() and len(leftovers) == 1  # the temp dir of the dead writer
    with pytest.raises(tw.DataError, match="no complete"):
        CachedDataset(leftovers[0])  # it has no header: never usable as a cache
    rebuilt = Expensive(n=5)
    cached = cache(rebuilt, target)
    assert rebuilt.calls == 5 and len(cached) == 5
    assert [p.name for p in tmp_path.iterdir()] == ["c"]  # the dead writer's dir is gone


def test_a_cache_with_a_truncated_field_is_rebuilt(tmp_path):
    cache(Expensive(), tmp_path / "c")
    field = next((tmp_path / "c").glob("*.bin"))
    with open(field, "r+b") as handle:
        handle.truncate(field.stat().st_size - 1)
    again = Expensive()
    cache(again, tmp_path / "c")
    assert again.calls == 12


def test_samples_of_varying_shape_or_unsupported_types_are_data_errors(tmp_path):
    class Ragged(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return torch.zeros(i + 1)

    class Strings(Ragged):
        def __getitem__(self, i):
            return "text"

    with pytest.raises(tw.DataError, match="fixed-shape"):
        cache(Ragged(), tmp_path / "a")
    with pytest.raises(tw.DataError, match="str"):
        cache(Strings(), tmp_path / "b")
    assert list(tmp_path.iterdir()) == []


def test_building_leaves_the_training_rng_alone(tmp_path):
    class Random(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return torch.rand(2)

    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    cache(Random(), tmp_path / "c")
    assert torch.equal(torch.rand(3), expected)


def test_pickles_without_the_data_and_serves_workers(tmp_path):
    cached = cache(Expensive(n=200), tmp_path / "c")
    cached[0]  # opens the memory maps
    assert len(pickle.dumps(cached)) < 4000  # the maps are reopened, not copied
    zero = make_loader(cached, batch_size=16, seed=2)
    two = make_loader(cached, batch_size=16, seed=2, num_workers=2, persistent_workers=False)
    assert same_batches(list(zero), list(two))


def test_default_fingerprint_is_class_and_length(tmp_path):
    class Plain(Dataset):
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return torch.tensor([i])

    cache(Plain(3), tmp_path / "c")
    header = (tmp_path / "c" / "header.json").read_text()
    assert "Plain:3" in header
    assert os.path.getsize(tmp_path / "c" / "field0.bin") == 3 * 8
    assert len(cache(Plain(4), tmp_path / "c")) == 4


def test_cache_directory_holds_raw_fields_and_a_header(tmp_path):
    cache(Expensive(n=3), tmp_path / "c")
    names = sorted(p.name for p in Path(tmp_path / "c").iterdir())
    assert names[-1] == "header.json" and all(n.endswith(".bin") for n in names[:-1])
