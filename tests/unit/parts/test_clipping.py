"""Clipping: returns the pre-clip global norm; clips by norm and by value; None only measures."""

import math

import pytest
import torch
from torch import nn

import trainwell as tw


def _params_with_grads(scale=1.0):
    torch.manual_seed(0)
    params = [
        nn.Parameter(torch.randn(4, 3)),
        nn.Parameter(torch.randn(5)),
        nn.Parameter(torch.randn(2)),
    ]
    for p in params:
        p.grad = torch.randn_like(p) * scale
    params[2].grad = None  # a parameter without gradient is ignored
    return params


def _manual_norm(params, norm_type=2.0):
    values = [v for p in params if p.grad is not None for v in p.grad.reshape(-1).tolist()]
    if norm_type == math.inf:
        return max(abs(v) for v in values)
    return sum(abs(v) ** norm_type for v in values) ** (1 / norm_type)


@pytest.mark.parametrize("norm_type", [1.0, 2.0, math.inf])
def test_grad_norm_matches_manual(norm_type):
    params = _params_with_grads()
    assert tw.grad_norm(params, norm_type).item() == pytest.approx(
        _manual_norm(params, norm_type), rel=1e-5
    )


def test_grad_norm_without_grads_is_zero():
    assert tw.grad_norm([nn.Parameter(torch.ones(2))]).item() == 0.0


def test_clip_by_norm_returns_pre_clip_norm_and_clips_to_max_norm():
    params = _params_with_grads(scale=10.0)
    expected = _manual_norm(params)
    assert expected > 1.0
    before = [p.grad.clone() for p in params if p.grad is not None]
    returned = tw.Clipping(max_norm=1.0)(params)
    assert returned.item() == pytest.approx(expected, rel=1e-5)
    assert _manual_norm(params) == pytest.approx(1.0, rel=1e-4)
    # direction preserved: each grad is scaled by the same factor
    after = [p.grad for p in params if p.grad is not None]
    for b, a in zip(before, after):
        torch.testing.assert_close(a, b / expected, rtol=1e-4, atol=1e-6)


def test_clip_by_norm_leaves_small_gradients_alone():
    params = _params_with_grads(scale=0.01)
    before = [p.grad.clone() for p in params if p.grad is not None]
    norm = tw.Clipping(max_norm=5.0)(params)
    assert norm.item() == pytest.approx(_manual_norm(params), rel=1e-5)
    for b, p in zip(before, [p for p in params if p.grad is not None]):
        torch.testing.assert_close(p.grad, b)


def test_clip_by_value_clamps_each_element():
    params = _params_with_grads(scale=3.0)
    before = [p.grad.clone() for p in params if p.grad is not None]
    returned = tw.Clipping(max_norm=None, max_value=0.5)(params)
    pre_clip = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(b) for b in before]))
    after = [p.grad for p in params if p.grad is not None]
    for b, a in zip(before, after):
        torch.testing.assert_close(a, b.clamp(-0.5, 0.5))
    assert any((b.abs() > 0.5).any() for b in before)  # something was really clamped
    # The returned norm is the one before clipping (what logging and guards need to see).
    assert returned.item() == pytest.approx(pre_clip.item(), rel=1e-5)


def test_max_norm_none_only_measures():
    params = _params_with_grads(scale=10.0)
    before = [p.grad.clone() for p in params if p.grad is not None]
    returned = tw.Clipping(max_norm=None)(params)
    assert returned.item() == pytest.approx(_manual_norm(params), rel=1e-5)
    for b, p in zip(before, [p for p in params if p.grad is not None]):
        assert torch.equal(p.grad, b)


def test_clipping_a_model_after_backward():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    (model(torch.randn(8, 3)).sum() * 100).backward()
    expected = (
        torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])
        if hasattr(torch.nn.utils, "get_total_norm")
        else torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()]))
    )
    pre = tw.Clipping(max_norm=0.5)(model.parameters())
    torch.testing.assert_close(pre, expected)
    assert tw.grad_norm(model.parameters()).item() == pytest.approx(0.5, rel=1e-4)


def test_norm_and_value_clipping_together_return_the_pre_clip_norm():
    params = _params_with_grads(scale=3.0)
    expected = _manual_norm(params)
    returned = tw.Clipping(max_norm=1.0, max_value=0.5)(params)
    assert returned.item() == pytest.approx(expected, rel=1e-5)
    assert _manual_norm(params) <= 1.0 + 1e-4
    assert all(p.grad.abs().max() <= 0.5 for p in params if p.grad is not None)
