"""The checks tests/gpu runs on CUDA (tests/device_checks.py), run here on the CPU: each
passes on trainwell and fails on a deliberately wrong implementation, so a GPU run of them
means something."""

import pytest
from tests import device_checks as checks

import trainwell as tw

pytestmark = pytest.mark.cpu_only  # the CPU leg of checks that tests/gpu runs on CUDA


def test_the_scaler_check_passes_on_trainwell_precision():
    checks.scaler_skips_an_inf_step("cpu")


class StepsAnyway(tw.Precision):
    """Wrong: steps the optimizer on unscaled gradients whatever they hold."""

    def step(self, optimizer, *, update_scale=True):
        self._unscaled = False
        optimizer.step()
        if update_scale:
            self.scaler.update()
        return True


class KeepsTheScale(tw.Precision):
    """Wrong: skips the inf step but never lowers the loss scale."""

    def update_scale(self):
        pass

    def step(self, optimizer, *, update_scale=True):
        return super().step(optimizer, update_scale=False)


@pytest.mark.parametrize("wrong", [StepsAnyway, KeepsTheScale])
def test_the_scaler_check_fails_on_a_wrong_precision(wrong):
    with pytest.raises(AssertionError):
        checks.scaler_skips_an_inf_step("cpu", precision_cls=wrong)


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_fused_adamw_with_clipping_matches_eager_fp32(precision):
    checks.fused_clip_matches_eager("cpu", precision)


def test_the_fused_check_fails_when_clipping_sees_scaled_gradients(monkeypatch):
    """Unscaling made a no-op: clipping and the logged norm see fp16's scaled gradients."""
    monkeypatch.setattr(tw.Precision, "unscale_", lambda self, optimizer: None)
    with pytest.raises(AssertionError):
        checks.fused_clip_matches_eager("cpu", "fp16")


def test_channels_last_reaches_the_conv_net():
    seen = checks.channels_last_in_training("cpu")
    assert len(seen) == 4  # 32 samples / batches of 8, one epoch


def test_the_channels_last_check_fails_without_it(monkeypatch):
    import trainwell.parts.device as device

    monkeypatch.setattr(device, "to_channels_last", lambda batch: batch)
    with pytest.raises(AssertionError):
        checks.channels_last_in_training("cpu")
