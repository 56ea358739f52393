"""Input pipeline throughput: trainwell's loaders against DataLoader and bare indexing.

Part 1, loaders alone (60,000 x 784 float32 + int64 labels, batch 256, one shuffled epoch per
repeat): samples/s and the speed ratio against the default
``DataLoader(TensorDataset, batch_size=256, shuffle=True)``. Bare ``X[perm[i:i+b]]`` is the
memory-bandwidth limit of a shuffled gather; trainwell's `TensorLoader` should be within 10% of
it. Also: a ``BatchSampler`` passed as ``sampler`` with ``batch_size=None`` (the DataLoader
trick for whole-batch indexing); two worker processes (respawned each epoch, and persistent);
a Dataset with ``__getitems__`` returning a list of samples, in a default DataLoader and in
trainwell's `BatchLoader` (same fetch + collate, minus DataLoader's machinery and plus
per-batch seeding); and a `trainwell.data.cache` of the same data (memory-mapped files, one
gather per field per batch).

Part 2, end to end: steps/s of ``fit()`` on the default recipe's model (digits CNN, batch 64)
given tensors vs given a default DataLoader.

    python benchmarks/data.py [--repeats 7] [--fit-repeats 5] [--fit-epochs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

import torch
from _harness import interleaved, report
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, TensorDataset

import trainwell as tw
from trainwell.data import cache
from trainwell.recipes.digits import DigitsCNN, load_digits_tensors

N, FEATURES, BATCH = 60_000, 784, 256


class ListOfSamples(Dataset):
    """A map-style dataset with ``__getitems__`` returning a list of samples (torch's contract)."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor) -> None:
        self.x, self.y = x, y

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        return self.x[i], self.y[i]

    def __getitems__(self, indices: list[int]):
        index = torch.as_tensor(indices)
        return list(zip(self.x[index].unbind(0), self.y[index].unbind(0)))


def epochs_of(loader):
    """A function running one epoch of ``loader`` per call (a new epoch order each time)."""
    state = {"epoch": 0}

    def run() -> None:
        if hasattr(loader, "set_epoch"):
            loader.set_epoch(state["epoch"])
        state["epoch"] += 1
        for _batch in loader:
            pass

    return run


def bare_indexing(x: torch.Tensor, y: torch.Tensor):
    def run() -> None:
        perm = torch.randperm(len(x))
        for i in range(0, len(x), BATCH):
            index = perm[i : i + BATCH]
            x[index], y[index]

    return run


def loader_contenders(x: torch.Tensor, y: torch.Tensor, cache_dir: str) -> dict:
    dataset = TensorDataset(x, y)
    cached = cache(dataset, f"{cache_dir}/mnist-like", fingerprint="bench")
    return {
        "DataLoader default": epochs_of(DataLoader(dataset, batch_size=BATCH, shuffle=True)),
        "bare X[perm[i:i+b]]": bare_indexing(x, y),
        "trainwell TensorLoader": epochs_of(tw.make_loader((x, y), batch_size=BATCH)),
        "BatchSampler as sampler": epochs_of(
            DataLoader(
                dataset,
                sampler=BatchSampler(RandomSampler(dataset), BATCH, drop_last=False),
                batch_size=None,
            )
        ),
        "DataLoader 2 workers": epochs_of(
            DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=2)
        ),
        "DataLoader 2 persistent": epochs_of(
            DataLoader(
                dataset, batch_size=BATCH, shuffle=True, num_workers=2, persistent_workers=True
            )
        ),
        "DataLoader __getitems__ ds": epochs_of(
            DataLoader(ListOfSamples(x, y), batch_size=BATCH, shuffle=True)
        ),
        "tw BatchLoader same ds": epochs_of(tw.make_loader(ListOfSamples(x, y), batch_size=BATCH)),
        "tw cache() memmap": epochs_of(tw.make_loader(cached, batch_size=BATCH)),
    }


def fit_config(epochs: int) -> tw.Config:
    return tw.build_config(
        {
            "run": {"quiet": True, "log_every": 1000},
            "data": {"batch_size": 64},
            "train": {"max_epochs": epochs, "clip_norm": 1.0},
            "optim": {"lr": 3e-3, "weight_decay": 0.01},
        }
    )


def fit_contenders(epochs: int) -> tuple[dict, int]:
    (x, y), _val = load_digits_tensors(0.2, 0)
    steps = epochs * -(-len(x) // 64)

    def fit_on(make_data):
        def run() -> None:
            torch.manual_seed(0)
            tw.fit(DigitsCNN(), make_data(), config=fit_config(epochs))

        return run

    return {
        "fit on DataLoader default": fit_on(
            lambda: DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
        ),
        "fit on tensors (X, y)": fit_on(lambda: (x, y)),
    }, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--fit-repeats", type=int, default=5)
    parser.add_argument("--fit-epochs", type=int, default=3)
    args = parser.parse_args()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(N, FEATURES, generator=g)
    y = torch.randint(0, 10, (N,), generator=g)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {load()}")
    print(f"\nloaders: {N:,} x {FEATURES} float32, batch {BATCH}, {args.repeats} repeats")
    with tempfile.TemporaryDirectory() as cache_dir:
        times = interleaved(loader_contenders(x, y, cache_dir), repeats=args.repeats)
    report(times, "DataLoader default", unit_count=N, unit="samples")
    ours = statistics.median(times["trainwell TensorLoader"])
    bare = statistics.median(times["bare X[perm[i:i+b]]"])
    print(f"TensorLoader speed / bare indexing: {bare / ours:.3f} (target >= 0.9)")

    contenders, steps = fit_contenders(args.fit_epochs)
    print(f"\nfit(): digits CNN, batch 64, {args.fit_epochs} epochs ({steps} steps)")
    fit_times = interleaved(contenders, repeats=args.fit_repeats)
    report(fit_times, "fit on DataLoader default", unit_count=steps, unit="steps")
    print(load())


def load() -> str:
    """The machine's load: these ratios move when other processes compete for the cores."""
    if not hasattr(os, "getloadavg"):
        return "load average unknown"
    return "load average (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


if __name__ == "__main__":
    main()
