"""Precision: autocast per mode, GradScaler only for fp16, unscale before clipping, skipped steps."""

import copy

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.parts import precision as precision_mod
from trainwell.parts.clipping import Clipping


def _model_and_batch():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
    x = torch.randn(16, 6)
    y = torch.randint(0, 3, (16,))
    return model, x, y


def _grads(model):
    return [p.grad.detach().clone() for p in model.parameters()]


def test_fp32_has_no_autocast_and_no_scaler():
    p = tw.Precision("fp32", "cpu")
    assert p.mode == "fp32"
    assert p.dtype is None
    assert not p.uses_scaler
    assert p.scale is None
    model, x, _ = _model_and_batch()
    with p.autocast():
        out = model(x)
    assert out.dtype == torch.float32


def test_bf16_autocasts_forward_without_scaler():
    p = tw.Precision("bf16", "cpu")
    assert p.dtype == torch.bfloat16
    assert not p.uses_scaler
    assert p.scale is None
    model, x, y = _model_and_batch()
    with p.autocast():
        out = model(x)
    assert out.dtype == torch.bfloat16
    assert model(x).dtype == torch.float32  # only inside the context
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [q.detach().clone() for q in model.parameters()]
    with p.autocast():
        loss = nn.functional.cross_entropy(model(x), y)
    p.backward(loss)
    assert all(q.grad.dtype == torch.float32 for q in model.parameters())
    assert p.step(opt) is True
    assert any(not torch.equal(b, q) for b, q in zip(before, model.parameters()))


def test_fp16_uses_scaler_and_autocast():
    p = tw.Precision("fp16", "cpu")
    assert p.dtype == torch.float16
    assert p.uses_scaler
    model, x, _ = _model_and_batch()
    with p.autocast():
        out = model(x)
    assert out.dtype == torch.float16


def test_unknown_mode_is_config_error():
    with pytest.raises(tw.ConfigError, match="fp8"):
        tw.Precision("fp8", "cpu")


def test_auto_on_cpu_is_fp32():
    """bf16 autocast on a CPU without native bf16 measured 8-20x slower here
    (benchmarks/precision.py); with native bf16 the gain depends on the model: a choice."""
    assert precision_mod.resolve_precision("auto", torch.device("cpu")) == "fp32"
    assert tw.Precision("auto", "cpu").mode == "fp32"


@pytest.mark.parametrize(("bf16_ok", "expected"), [(True, "bf16"), (False, "fp16")])
def test_auto_on_cuda_prefers_bf16(monkeypatch, bf16_ok, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16_ok)
    assert precision_mod.resolve_precision("auto", torch.device("cuda")) == expected


def test_auto_on_mps_is_fp32():
    assert precision_mod.resolve_precision("auto", torch.device("mps")) == "fp32"


def test_fp16_backward_scales_gradients_and_unscale_restores_them_exactly():
    # Loss computed in fp32 (no autocast): the scaled backward then unscale_ must give the exact
    # fp32 gradients (the scale is a power of two).
    model, x, y = _model_and_batch()
    ref = copy.deepcopy(model)
    nn.functional.cross_entropy(ref(x), y).backward()
    expected = _grads(ref)

    p = tw.Precision("fp16", "cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    p.backward(nn.functional.cross_entropy(model(x), y))
    scale = float(p.scale)
    assert scale == 2.0**16
    for g, e in zip(_grads(model), expected):
        torch.testing.assert_close(g, e * scale)
    p.unscale_(opt)
    for g, e in zip(_grads(model), expected):
        torch.testing.assert_close(g, e)
    p.unscale_(opt)  # a second call in the same step is a no-op, not a double division / error
    for g, e in zip(_grads(model), expected):
        torch.testing.assert_close(g, e)
    assert p.step(opt) is True


def test_fp16_clipping_after_unscale_sees_true_gradients():
    model, x, y = _model_and_batch()
    ref = copy.deepcopy(model)
    nn.functional.cross_entropy(ref(x), y).backward()
    expected = _grads(ref)
    expected_norm = torch.linalg.vector_norm(torch.stack([g.norm() for g in expected]))

    p = tw.Precision("fp16", "cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with p.autocast():
        loss = nn.functional.cross_entropy(model(x), y)
    p.backward(loss)
    p.unscale_(opt)
    seen = _grads(model)
    norm = Clipping(max_norm=None)(model.parameters())
    # fp16 forward: equal to the fp32 gradients within half-precision tolerance, not 65536x them
    for g, e in zip(seen, expected):
        torch.testing.assert_close(g, e, rtol=2e-2, atol=2e-3)
    torch.testing.assert_close(norm, expected_norm, rtol=1e-2, atol=1e-4)

    # clipping to half the true norm after unscale leaves exactly max_norm
    max_norm = float(expected_norm) / 2
    pre = Clipping(max_norm=max_norm)(model.parameters())
    torch.testing.assert_close(pre, norm)
    after = tw.grad_norm(model.parameters())
    assert after.item() == pytest.approx(max_norm, rel=1e-4)
    assert p.step(opt) is True


def test_fp16_inf_gradient_skips_step_and_leaves_params_unchanged():
    model, x, y = _model_and_batch()
    p = tw.Precision("fp16", "cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [q.detach().clone() for q in model.parameters()]
    with p.autocast():
        loss = nn.functional.cross_entropy(model(x), y)
    p.backward(loss)
    first = next(model.parameters())
    first.grad[0, 0] = float("inf")
    p.unscale_(opt)
    assert p.step(opt) is False
    for b, q in zip(before, model.parameters()):
        assert torch.equal(b, q)
    assert float(p.scale) == 2.0**15  # backoff halves the scale

    # the next finite step goes through
    opt.zero_grad()
    with p.autocast():
        loss = nn.functional.cross_entropy(model(x), y)
    p.backward(loss)
    assert p.step(opt) is True
    assert any(not torch.equal(b, q) for b, q in zip(before, model.parameters()))


def test_fp16_step_without_explicit_unscale_also_detects_inf():
    model, x, y = _model_and_batch()
    p = tw.Precision("fp16", "cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [q.detach().clone() for q in model.parameters()]
    p.backward(nn.functional.cross_entropy(model(x), y) * float("inf"))
    assert p.step(opt) is False
    assert all(torch.equal(b, q) for b, q in zip(before, model.parameters()))


def test_fp16_state_dict_round_trip_restores_scale():
    model, x, y = _model_and_batch()
    p = tw.Precision("fp16", "cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):  # two skipped steps: 65536 -> 16384
        opt.zero_grad()
        p.backward(nn.functional.cross_entropy(model(x), y) * float("inf"))
        assert p.step(opt) is False
    state = p.state_dict()
    assert state["mode"] == "fp16"

    fresh = tw.Precision("fp16", "cpu")
    fresh.load_state_dict(state)
    assert fresh.scaler.get_scale() == 2.0**14
    assert fresh.scaler.state_dict() == p.scaler.state_dict()


def test_fp16_state_survives_weights_only_save(tmp_path):
    p = tw.Precision("fp16", "cpu")
    model, x, y = _model_and_batch()
    p.backward(nn.functional.cross_entropy(model(x), y))
    torch.save(p.state_dict(), tmp_path / "p.pt")
    loaded = torch.load(tmp_path / "p.pt", weights_only=True)
    fresh = tw.Precision("fp16", "cpu")
    fresh.load_state_dict(loaded)
    assert fresh.scaler.get_scale() == p.scaler.get_scale()


@pytest.mark.parametrize(
    ("saved", "current"), [("fp16", "bf16"), ("bf16", "fp32"), ("fp32", "fp16")]
)
def test_loading_state_of_another_mode_is_config_error(saved, current):
    state = tw.Precision(saved, "cpu").state_dict()
    with pytest.raises(tw.ConfigError, match=f"train.precision={saved}"):
        tw.Precision(current, "cpu").load_state_dict(state)


def test_bf16_state_round_trip():
    state = tw.Precision("bf16", "cpu").state_dict()
    assert state["mode"] == "bf16"
    tw.Precision("bf16", "cpu").load_state_dict(state)  # no error, same mode
