"""make_loader: pass-through, whole-batch TensorLoader, (seed, epoch) order, seeded workers."""

import random

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

import trainwell as tw
from trainwell.data import EpochBatchSampler, SeededDataLoader


def _xy(n=23):
    g = torch.Generator().manual_seed(0)
    return torch.randn(n, 3, generator=g), torch.arange(n)


def test_dataloader_and_iterables_pass_through_unchanged():
    x, y = _xy()
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    assert tw.make_loader(loader, batch_size=99) is loader

    def batches():
        yield (x[:2], y[:2])

    gen = batches()
    assert tw.make_loader(gen) is gen


def test_tensor_loader_matches_reference_dataloader_over_same_permutation():
    x, y = _xy(23)
    loader = tw.make_loader((x, y), batch_size=5, seed=3)
    assert isinstance(loader, tw.TensorLoader)
    assert len(loader) == 5
    for epoch in (0, 1):
        loader.set_epoch(epoch)
        reference = DataLoader(
            TensorDataset(x, y), batch_size=5, sampler=tw.epoch_order(23, 3, epoch).tolist()
        )
        ours = list(loader)
        theirs = list(reference)
        assert len(ours) == len(theirs) == 5
        assert [len(b[1]) for b in ours] == [5, 5, 5, 5, 3]
        for (ox, oy), (rx, ry) in zip(ours, theirs):
            assert torch.equal(ox, rx)
            assert torch.equal(oy, ry)


def test_epoch_order_is_a_function_of_seed_and_epoch():
    a = tw.epoch_order(50, seed=1, epoch=0)
    assert torch.equal(torch.sort(a).values, torch.arange(50))
    assert torch.equal(a, tw.epoch_order(50, seed=1, epoch=0))
    torch.manual_seed(12345)  # the global RNG plays no part
    assert torch.equal(a, tw.epoch_order(50, seed=1, epoch=0))
    assert not torch.equal(a, tw.epoch_order(50, seed=1, epoch=1))
    assert not torch.equal(a, tw.epoch_order(50, seed=2, epoch=0))
    assert torch.equal(tw.epoch_order(5, seed=1, epoch=3, shuffle=False), torch.arange(5))


def test_tensor_loader_order_depends_only_on_seed_and_epoch():
    x, y = _xy(30)
    first = tw.make_loader((x, y), batch_size=30, seed=5)
    first.set_epoch(0)
    e0 = next(iter(first))[1]
    first.set_epoch(1)
    e1 = next(iter(first))[1]
    assert not torch.equal(e0, e1)
    # a fresh loader jumping straight to epoch 1 (a resumed run) sees the same order
    fresh = tw.make_loader((x, y), batch_size=30, seed=5)
    fresh.set_epoch(1)
    assert torch.equal(next(iter(fresh))[1], e1)
    # a plain next pass is the next epoch, like DataLoader(shuffle=True); set_epoch wins
    assert not torch.equal(next(iter(fresh))[1], e1)
    fresh.set_epoch(1)
    assert torch.equal(next(iter(fresh))[1], e1)


def test_tensor_loader_drop_last_and_no_shuffle():
    x, y = _xy(23)
    loader = tw.make_loader((x, y), batch_size=5, drop_last=True, shuffle=False)
    batches = list(loader)
    assert len(loader) == len(batches) == 4
    assert torch.equal(torch.cat([b[1] for b in batches]), torch.arange(20))
    assert torch.equal(batches[0][0], x[:5])


def test_numpy_arrays_become_tensor_batches():
    x = np.arange(20, dtype=np.float64).reshape(10, 2)
    y = np.arange(10)
    loader = tw.make_loader((x, y), batch_size=4, shuffle=False)
    assert isinstance(loader, tw.TensorLoader)
    bx, by = next(iter(loader))
    assert isinstance(bx, torch.Tensor) and isinstance(by, torch.Tensor)
    assert bx.dtype == torch.float64 and by.dtype == torch.int64
    assert torch.equal(bx, torch.as_tensor(x[:4]))
    assert by.tolist() == [0, 1, 2, 3]


def test_single_tensor_and_tensor_dataset():
    x, y = _xy(6)
    single = list(tw.make_loader(x, batch_size=4, shuffle=False))
    assert [len(b) for b in single] == [1, 1]  # 1-tuples
    assert torch.equal(single[1][0], x[4:])
    from_ds = tw.make_loader(TensorDataset(x, y), batch_size=6, shuffle=False)
    assert isinstance(from_ds, tw.TensorLoader)
    assert torch.equal(next(iter(from_ds))[1], y)


def test_mismatched_lengths_are_data_error():
    with pytest.raises(tw.DataError, match=r"\(10, 3\).*\(9,\)"):
        tw.make_loader((torch.zeros(10, 3), torch.zeros(9)))
    with pytest.raises(tw.DataError):
        tw.make_loader((np.zeros(4), np.zeros(5)))


def test_empty_data_and_unloadable_types_are_data_errors():
    with pytest.raises(tw.DataError, match="empty"):
        tw.make_loader((torch.zeros(0, 3), torch.zeros(0)))
    with pytest.raises(tw.DataError, match="int"):
        tw.make_loader(42)


class IndexDataset(Dataset):
    def __len__(self):
        return 13

    def __getitem__(self, i):
        return i


def test_dataset_gets_seeded_loader_with_epoch_order():
    loader = tw.make_loader(IndexDataset(), batch_size=4, seed=9)
    assert isinstance(loader, SeededDataLoader)
    assert isinstance(loader.batch_sampler, EpochBatchSampler)
    for epoch in (0, 2):
        loader.set_epoch(epoch)
        seen = torch.cat(list(loader))
        assert torch.equal(seen, tw.epoch_order(13, 9, epoch))
    loader.set_epoch(0)
    assert [len(b) for b in loader] == [4, 4, 4, 1]
    dropped = tw.make_loader(IndexDataset(), batch_size=4, drop_last=True)
    assert [len(b) for b in dropped] == [4, 4, 4]


class RandomDataset(Dataset):
    """Each item draws from the three global streams inside whichever process loads it."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = torch.utils.data.get_worker_info()
        return torch.tensor(
            [
                torch.rand(1).item(),
                float(np.random.rand()),
                random.random(),
                info.id if info else -1.0,
            ],
            dtype=torch.float64,
        )


def _worker_values(seed, epochs=(0,), num_workers=2, **kw):
    loader = tw.make_loader(
        RandomDataset(), batch_size=1, shuffle=False, num_workers=num_workers, seed=seed, **kw
    )
    out = []
    for epoch in epochs:
        loader.set_epoch(epoch)
        out.append(torch.cat(list(loader)))
    return out


def test_worker_seeds_differ_across_workers_and_repeat_across_runs():
    (run1,) = _worker_values(seed=0)
    (run2,) = _worker_values(seed=0)
    (other,) = _worker_values(seed=1)
    assert run1[:, 3].tolist() == [0, 1, 0, 1]  # batches alternate between the two workers
    assert torch.equal(run1, run2)
    # batch 0 comes from worker 0, batch 1 from worker 1: every stream differs between them
    for stream in range(3):
        assert run1[0, stream] != run1[1, stream]
        assert len(set(run1[:, stream].tolist())) == 4
    assert not torch.equal(run1[:, :3], other[:, :3])


def test_worker_streams_follow_seed_and_epoch_not_history():
    # persistent workers (the default) live across epochs; a resumed run starts at epoch 1
    uninterrupted = _worker_values(seed=0, epochs=(0, 1))
    resumed = _worker_values(seed=0, epochs=(1,))[0]
    assert not torch.equal(uninterrupted[0][:, :3], uninterrupted[1][:, :3])  # epochs differ
    assert torch.equal(uninterrupted[1], resumed)


def test_random_values_do_not_depend_on_the_number_of_workers():
    (two,) = _worker_values(seed=3, num_workers=2)
    (zero,) = _worker_values(seed=3, num_workers=0)
    assert zero[:, 3].tolist() == [-1.0] * 4
    assert torch.equal(two[:, :3], zero[:, :3])


def test_main_process_loading_leaves_torch_rng_alone_and_the_rest_reproducible():
    """Torch's stream (dropout) never shifts with loading; python's and numpy's global streams
    end as the last batch's seed left them, whatever they were before: reproducible."""
    loader = tw.make_loader(RandomDataset(), batch_size=2, seed=0)
    afters = []
    for before in (5, 6):
        torch.manual_seed(before)
        random.seed(before)
        np.random.seed(before)
        loader.set_epoch(0)
        list(loader)
        afters.append((torch.rand(1).item(), random.random(), float(np.random.rand())))
    torch.manual_seed(5)
    assert afters[0][0] == torch.rand(1).item()  # torch: as if nothing was loaded
    assert afters[0][1:] == afters[1][1:]  # python, numpy: a function of the data seed only


def test_mid_epoch_start_batch_resumes_exactly():
    loader = tw.make_loader(RandomDataset(), batch_size=1, seed=4)
    loader.set_epoch(2)
    full = list(loader)
    loader.set_epoch(2, start_batch=2)
    tail = list(loader)
    assert len(tail) == 2
    for a, b in zip(full[2:], tail):
        assert torch.equal(a, b)
    x, y = _xy(10)
    tensors = tw.make_loader((x, y), batch_size=3, seed=4)
    tensors.set_epoch(1)
    full = list(tensors)
    tensors.set_epoch(1, start_batch=3)
    (last,) = list(tensors)
    assert torch.equal(last[1], full[3][1])
