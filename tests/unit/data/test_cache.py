"""cache(): round trip, fingerprint invalidation, atomic writes that survive a crash (a writer
killed mid-write: tests/system/process/test_cache.py)."""

import os
import pickle
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader, Dataset, default_collate

import trainwell as tw
from trainwell.data import BatchLoader, CachedDataset, cache, make_loader

from .helpers import Expensive, same_batches


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
