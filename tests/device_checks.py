"""Checks of what the GPU path must do, written once for any device.

tests/gpu runs them on CUDA; the unit tier (tests/unit/parts/test_device_checks.py) runs the
ones the CPU can run too, against a right and a deliberately wrong implementation, so each
check is seen to fail where it should before it is trusted on a GPU nobody here has.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

import trainwell as tw


def _batch(device: torch.device | str, n: int = 32, features: int = 8, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=generator)
    y = torch.randint(0, 3, (n,), generator=generator)
    return x.to(device), y.to(device)


def scaler_skips_an_inf_step(device: torch.device | str, precision_cls: type = tw.Precision):
    """fp16 with GradScaler: an inf gradient skips the step (weights and optimizer state
    unchanged, ``step`` says False) and lowers the loss scale; the next finite step trains.
    ``precision_cls`` is `trainwell.Precision` or a stand-in the unit tier breaks on purpose."""
    torch.manual_seed(0)
    model = nn.Linear(8, 3).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
    precision = precision_cls("fp16", device)
    x, y = _batch(device)

    def backward(poison: bool) -> None:
        optimizer.zero_grad(set_to_none=True)
        with precision.autocast():
            loss = F.cross_entropy(model(x), y)
        precision.backward(loss)
        if poison:  # what an fp16 overflow leaves in one gradient
            model.weight.grad[0, 0] = float("inf")
        precision.unscale_(optimizer)

    before = [p.detach().clone() for p in model.parameters()]
    scale = precision.scaler.get_scale()
    backward(poison=True)
    assert precision.step(optimizer) is False, "an inf gradient must skip the step"
    for old, new in zip(before, model.parameters()):
        assert torch.equal(old, new.detach()), "a skipped step changed the weights"
    assert not optimizer.state, "a skipped step must leave AdamW's state empty"
    lowered = precision.scaler.get_scale()
    assert lowered < scale, f"the loss scale stayed at {scale} after an inf gradient"
    backward(poison=False)
    assert precision.step(optimizer) is True, "a finite step must be taken"
    assert any(not torch.equal(o, n.detach()) for o, n in zip(before, model.parameters()))
    assert precision.scaler.get_scale() == lowered  # growth waits growth_interval finite steps


def _fit_weights(device: str, precision: str, impl: str, clip_norm: float) -> tuple[Any, list]:
    """Weights and per-step gradient norms of a short fit() on a fixed task."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 3))
    norms: list[float] = []

    class Norms(tw.Observer):
        def on_step_end(self, report) -> None:
            if report.logged:  # read at the log interval (every step here), no extra sync
                norms.append(report.logged["grad_norm"])

    x, y = _batch("cpu", n=256)
    config = {
        "run": {"quiet": True, "device": device, "log_every": 1, "seed": 0},
        "data": {"batch_size": 32, "shuffle": False},
        "train": {"max_epochs": 2, "precision": precision, "clip_norm": clip_norm},
        "optim": {"name": "adamw", "lr": 1e-2, "impl": impl},
        "guards": {"enabled": False},
        "monitor": {"restore_best": False},
    }
    tw.fit(model, (x, y), config=config, observers=[Norms()])
    return {k: v.detach().float().cpu() for k, v in model.state_dict().items()}, norms


def fused_clip_matches_eager(device: str, precision: str, *, atol: float = 2e-2) -> None:
    """fit() with a fused AdamW, clipping and ``precision`` (bf16, fp16) ends within ``atol``
    of a for-loop AdamW in fp32 with the same clipping, and the gradient norms it clips are
    the true (unscaled) ones: clipping before unscaling would see fp16's 65536x scale."""
    weights, norms = _fit_weights(device, precision, "fused", clip_norm=0.5)
    reference, ref_norms = _fit_weights(device, "fp32", "for_loop", clip_norm=0.5)
    assert len(norms) == len(ref_norms) > 0
    for got, want in zip(norms, ref_norms):
        # half-precision forward: norms agree to a few percent, never by the scale factor
        assert abs(got - want) <= 0.05 * want + 1e-3, (norms, ref_norms)
    for key, value in reference.items():
        # 16 AdamW steps from the same start; bf16 rounds activations to 8 bits of mantissa
        torch.testing.assert_close(weights[key], value, atol=atol, rtol=0, msg=key)


class SeenFormats(nn.Module):
    """A small conv net that records the memory format of its input and first weight."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, 3)
        self.seen: list[tuple[bool, bool]] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            cl = torch.channels_last
            self.seen.append(
                (
                    x.is_contiguous(memory_format=cl),
                    self.conv.weight.is_contiguous(memory_format=cl),
                )
            )
        return self.head(F.relu(self.conv(x)).mean(dim=(2, 3)))  # fmt: skip


def channels_last_in_training(device: str) -> list[tuple[bool, bool]]:
    """What a conv net saw during fit() with ``train.channels_last=true``: every training
    forward had a channels-last input and channels-last conv weights."""
    torch.manual_seed(0)
    model = SeenFormats()
    x, y = torch.randn(32, 3, 8, 8), torch.randint(0, 3, (32,))
    config = {
        "run": {"quiet": True, "device": device},
        "data": {"batch_size": 8},
        "train": {"max_epochs": 1, "channels_last": True},
    }
    tw.fit(model, (x, y), config=config)
    assert model.seen, "the model never trained"
    assert all(inp and weight for inp, weight in model.seen), model.seen
    return model.seen
