"""Whole-batch fetching gives exactly the batches of the reference DataLoader, faster."""

import pytest
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

import trainwell as tw
from trainwell.data import (
    BatchLoader,
    SeededDataLoader,
    TensorLoader,
    fits_on_device,
    make_loader,
    place_tensors,
    shard_order,
)

from .helpers import AugmentingBatches, same_batches, tensors


@pytest.mark.parametrize("world_size", [1, 3])
def test_tensor_loader_equals_reference_dataloader_over_the_same_permutation(world_size):
    x, y = tensors(23)
    for rank in range(world_size):
        loader = make_loader((x, y), batch_size=4, seed=7, rank=rank, world_size=world_size)
        assert isinstance(loader, TensorLoader)
        for epoch in (0, 3):
            loader.set_epoch(epoch)
            order = shard_order(23, 7, epoch, rank=rank, world_size=world_size).tolist()
            reference = DataLoader(TensorDataset(x, y), batch_size=4, sampler=order)
            ours, theirs = list(loader), list(reference)
            assert len(ours) == len(loader) == len(theirs)
            assert same_batches([tuple(b) for b in theirs], ours)


class Squares(Dataset):
    """Per-sample __getitem__ only: what DataLoader sees as the reference."""

    def __len__(self):
        return 17

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i), float(i * i)]), "y": i}


class SquaresBatched(Squares):
    def __init__(self):
        self.calls = []

    def __getitems__(self, indices):
        self.calls.append(list(indices))
        return [self[i] for i in indices]


def test_getitems_dataset_uses_batch_loader_with_one_call_per_batch_and_same_batches():
    dataset = SquaresBatched()
    fast = make_loader(dataset, batch_size=5, seed=2)
    assert isinstance(fast, BatchLoader)
    reference = make_loader(Squares(), batch_size=5, seed=2)
    assert isinstance(reference, SeededDataLoader)
    for epoch in (0, 1):
        fast.set_epoch(epoch)
        reference.set_epoch(epoch)
        dataset.calls.clear()
        ours = list(fast)
        assert same_batches(list(reference), ours)
        assert [len(c) for c in dataset.calls] == [5, 5, 5, 2]  # one call per batch
        assert sorted(sum(dataset.calls, [])) == list(range(17))


def test_batch_loader_keeps_per_batch_seeds_and_the_main_process_rng():
    """Same augmented values as a DataLoader over the same sampler; training RNG untouched."""
    fast = make_loader(AugmentingBatches(), batch_size=3, seed=5)
    again = make_loader(AugmentingBatches(), batch_size=3, seed=5)
    assert isinstance(fast, BatchLoader)
    torch.manual_seed(11)
    expected_next = torch.rand(3)
    torch.manual_seed(11)
    batches = list(fast)
    assert torch.equal(torch.rand(3), expected_next)
    dataloader = SeededDataLoader(
        fast.dataset, batch_sampler=fast.batch_sampler, collate_fn=fast.collate_fn
    )
    dataloader.set_epoch(0)  # the shared sampler moved on to epoch 1 after fast's pass
    assert same_batches(list(dataloader), batches)
    assert same_batches(list(again), batches)  # a function of (seed, epoch), not of history
    assert not same_batches(list(make_loader(AugmentingBatches(), batch_size=3, seed=6)), batches)


def test_workers_or_a_custom_collate_fall_back_to_a_seeded_dataloader():
    def collate(samples):
        return len(samples)

    loader = make_loader(SquaresBatched(), batch_size=4, collate_fn=collate)
    assert isinstance(loader, BatchLoader)  # a custom collate still skips DataLoader
    assert list(loader) == [4, 4, 4, 4, 1]
    threaded = make_loader(SquaresBatched(), batch_size=4, num_workers=1, persistent_workers=False)
    assert isinstance(threaded, SeededDataLoader)


def test_tensor_dataset_and_arrays_take_the_tensor_path():
    x, y = tensors(10)
    assert isinstance(make_loader(TensorDataset(x, y)), TensorLoader)
    assert isinstance(make_loader((x.numpy(), y.numpy())), TensorLoader)


def test_data_stays_on_the_cpu_when_training_on_the_cpu():
    x, y = tensors(10)
    loader = make_loader((x, y), batch_size=4, device="cpu")
    assert loader.tensors[0] is x  # not copied
    assert "cpu" in loader.placement
    assert not loader.pin_memory


GB = 2**30


def fake_mem_get_info(free):
    calls = []

    def mem_get_info(device):
        calls.append(device)
        return free, 80 * GB

    return mem_get_info, calls


def test_placement_decision_fits_in_the_fraction_of_free_memory():
    info, calls = fake_mem_get_info(free=8 * GB)
    fits, reason = fits_on_device(GB, "cuda:1", 0.25, mem_get_info=info)
    assert fits and "fits in 25%" in reason
    assert calls == [torch.device("cuda:1")]
    fits, reason = fits_on_device(2 * GB + 1, "cuda", 0.25, mem_get_info=info)
    assert not fits and "pinned" in reason
    assert fits_on_device(2 * GB, "cuda", 0.25, mem_get_info=info)[0]  # the boundary fits
    assert not fits_on_device(1, "cuda", 0.0, mem_get_info=info)[0]  # fraction 0: off


def test_placement_never_asks_cuda_for_cpu_or_mps_or_no_device():
    def boom(device):
        raise AssertionError("mem_get_info must not be called")

    for device in ("cpu", "mps", None):
        assert not fits_on_device(10, device, mem_get_info=boom)[0]


def test_place_tensors_moves_only_what_fits(monkeypatch):
    x, y = tensors(10)
    moved_to = []

    def fake_to(self, device, *args, **kwargs):
        moved_to.append(torch.device(device))
        return self.clone()  # stands in for the device copy on a CUDA-less machine

    monkeypatch.setattr(torch.Tensor, "to", fake_to)
    info, _ = fake_mem_get_info(free=GB)
    placed, reason = place_tensors((x, y), "cuda", 0.5, mem_get_info=info)
    assert moved_to == [torch.device("cuda")] * 2 and placed[0] is not x
    moved_to.clear()
    tiny, _ = fake_mem_get_info(free=100)
    placed, reason = place_tensors((x, y), "cuda", 0.5, mem_get_info=tiny)
    assert moved_to == [] and placed[0] is x and "exceeds" in reason


def test_batches_of_tensor_loader_are_fresh_copies():
    x, y = tensors(8)
    loader = make_loader((x, y), batch_size=8, shuffle=False)
    ((bx, _),) = list(loader)
    bx += 1  # an in-place augmentation on the batch must not corrupt the dataset
    assert torch.equal(x, tensors(8)[0])


def test_public_names_of_the_former_module_still_import():
    from trainwell.data import (  # noqa: F401
        SEED_STRIDE,
        BatchSeededDataset,
        EpochBatchSampler,
        PreservedRNG,
        SeededIndices,
        _as_tensors,
        _is_batch_iterable,
        batch_seed,
        epoch_generator,
        epoch_order,
        seed_worker,
        start_epoch,
    )

    assert tw.TensorLoader is TensorLoader and tw.make_loader is make_loader


def test_every_dtype_and_layout_gathers_the_same_rows_as_indexing():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(30, 6, generator=g)
    columns = (
        base.to(torch.bfloat16),  # no numpy twin: gathered by torch
        base[:, ::2],  # a strided view
        base.t().contiguous().t(),  # column-major
        base > 0,
        (base * 100).to(torch.int16),
        base.to(torch.float16).requires_grad_(),
    )
    loader = make_loader(columns, batch_size=7, seed=3)
    order = shard_order(30, 3, 0)
    for i, batch in enumerate(loader):
        index = order[i * 7 : (i + 1) * 7]
        for got, source in zip(batch, columns):
            assert got.dtype == source.dtype and got.is_contiguous()
            assert torch.equal(got, source.detach()[index])


def test_batches_are_pinned_exactly_when_training_on_cuda(monkeypatch):
    from trainwell.data.placement import wants_pinned_batches

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert wants_pinned_batches("cuda", None) and wants_pinned_batches("cuda:1", True)
    assert not wants_pinned_batches("cuda", False)
    assert not wants_pinned_batches("cpu", None) and not wants_pinned_batches(None, None)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert not wants_pinned_batches("cpu", True)  # pinning needs a CUDA driver
