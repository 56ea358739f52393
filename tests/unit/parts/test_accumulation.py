"""Gradient accumulation: k micro-batches give the gradient of one k x batch."""

import pytest
import torch
from torch import nn

import trainwell as tw


def _grad_vector(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


def _linear():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 2))


def test_windows_group_batches_and_keep_short_last_window():
    acc = tw.Accumulation(steps=4)
    windows = list(acc.windows(range(10)))
    assert [[m.batch for m in w] for w in windows] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [[m.weight for m in w] for w in windows] == [[0.25] * 4, [0.25] * 4, [0.5, 0.5]]
    assert [[m.is_last for m in w] for w in windows] == [
        [False, False, False, True],
        [False, False, False, True],
        [False, True],
    ]
    assert acc.steps_per_epoch(10) == 3
    assert acc.steps_per_epoch(8) == 2
    assert acc.steps_per_epoch(1) == 1


def test_steps_must_be_positive():
    with pytest.raises(ValueError, match="0"):
        tw.Accumulation(steps=0)


def test_accumulated_gradient_equals_big_batch_gradient_including_short_window():
    torch.manual_seed(1)
    batches = [(torch.randn(3, 5), torch.randn(3, 2)) for _ in range(10)]
    model = _linear()
    big = _linear()
    windows = list(tw.Accumulation(steps=4).windows(batches))
    assert [len(w) for w in windows] == [4, 4, 2]
    for window in windows:
        model.zero_grad()
        for micro in window:
            x, y = micro.batch
            (nn.functional.mse_loss(model(x), y) * micro.weight).backward()
        big.zero_grad()
        bx = torch.cat([m.batch[0] for m in window])
        by = torch.cat([m.batch[1] for m in window])
        nn.functional.mse_loss(big(bx), by).backward()
        torch.testing.assert_close(_grad_vector(model), _grad_vector(big))


def _token_batches(counts_per_batch):
    """Dict batches of 2 sequences x 6 tokens with variable numbers of real (unmasked) tokens."""
    g = torch.Generator().manual_seed(3)
    batches = []
    for counts in counts_per_batch:
        mask = torch.zeros(2, 6)
        for row, c in enumerate(counts):
            mask[row, :c] = 1
        batches.append(
            {
                "x": torch.randn(2, 6, 4, generator=g),
                "y": torch.randn(2, 6, 1, generator=g),
                "mask": mask,
                "num_tokens": mask.sum(),
            }
        )
    return batches


def _token_mean_loss(model, batch):
    err = (model(batch["x"]) - batch["y"]).squeeze(-1) ** 2
    return (err * batch["mask"]).sum() / batch["mask"].sum()


@pytest.mark.parametrize("count", ["num_tokens", lambda b: b["mask"].sum()])
def test_count_weighted_token_mean_equals_big_batch_token_mean(count):
    # 6 batches, steps=4 -> windows of 4 and 2, all with different numbers of real tokens
    batches = _token_batches([(6, 1), (2, 2), (5, 6), (1, 1), (3, 6), (6, 4)])
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    big = nn.Linear(4, 1)
    big.load_state_dict(model.state_dict())
    windows = list(tw.Accumulation(steps=4, count=count).windows(batches))
    assert [len(w) for w in windows] == [4, 2]
    total = sum(float(m.weight) for m in windows[0])
    assert total == pytest.approx(1.0)
    for window in windows:
        model.zero_grad()
        for micro in window:
            (_token_mean_loss(model, micro.batch) * micro.weight).backward()
        big.zero_grad()
        cat = {k: torch.cat([m.batch[k] for m in window]) for k in ("x", "y", "mask")}
        _token_mean_loss(big, cat).backward()
        torch.testing.assert_close(_grad_vector(model), _grad_vector(big))


def test_unweighted_token_mean_differs_from_big_batch():
    # The control: plain 1/n weighting is NOT the big-batch token mean when counts vary,
    # so the count-weighted test above is meaningful. (Batches without a num_tokens entry:
    # one that carries it is weighted by it even without a count.)
    batches = [
        {k: v for k, v in b.items() if k != "num_tokens"} for b in _token_batches([(6, 6), (1, 0)])
    ]
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    big = nn.Linear(4, 1)
    big.load_state_dict(model.state_dict())
    (window,) = tw.Accumulation(steps=2).windows(batches)
    for micro in window:
        (_token_mean_loss(model, micro.batch) * micro.weight).backward()
    cat = {k: torch.cat([m.batch[k] for m in window]) for k in ("x", "y", "mask")}
    _token_mean_loss(big, cat).backward()
    assert not torch.allclose(_grad_vector(model), _grad_vector(big))


def test_count_key_weights_are_count_over_window_total():
    batches = [{"n": 1}, {"n": 3}, {"n": 4}]
    (window,) = tw.Accumulation(steps=3, count="n").windows(batches)
    assert [m.weight for m in window] == pytest.approx([1 / 8, 3 / 8, 4 / 8])


def test_counts_over_several_ranks_are_weighed_against_the_global_total():
    """Rank 0 has 8 tokens in its window, rank 1 has 24: DDP averages the two ranks'
    gradients, so rank 0's micro-batches get count x 2 / 32 (the mean total is 16)."""
    seen = []

    def mean_over_ranks(total):
        seen.append(total)
        return torch.tensor((total + 24) / 2)

    batches = [{"n": 1}, {"n": 3}, {"n": 4}]
    accumulation = tw.Accumulation(steps=3, count="n", mean_over_ranks=mean_over_ranks)
    (window,) = accumulation.windows(batches)
    assert seen == [8]
    assert [float(m.weight) for m in window] == pytest.approx([2 / 32, 6 / 32, 8 / 32])


def test_count_key_missing_is_data_error():
    acc = tw.Accumulation(steps=2, count="num_tokens")
    with pytest.raises(tw.DataError, match="num_tokens"):
        list(acc.windows([(torch.zeros(1), torch.zeros(1))]))
    with pytest.raises(tw.DataError, match="num_tokens"):
        list(acc.windows([{"x": torch.zeros(1)}]))
