"""The loaders of the auto-epoch tests: every kind over the same small dataset, and what a pass
over each gives (tests/unit/data/test_auto_epoch.py; a second process compares them in
tests/system/process/test_auto_epoch.py)."""

from torch.utils.data import DataLoader

from trainwell.data import (
    BatchLoader,
    BatchSeededDataset,
    EpochBatchSampler,
    SeededDataLoader,
    TensorLoader,
    collate_batch,
    make_loader,
)

from .helpers import Augmenting, AugmentingBatches, tensors

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
