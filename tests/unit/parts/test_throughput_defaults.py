"""GPU throughput defaults, tested for their logic on the CPU: TF32 and cuDNN autotuning only
where safe (and restored after the run), channels-last conv nets, precision=auto."""

import pytest
import torch
from torch import nn

import trainwell as tw
from trainwell.errors import ConfigError
from trainwell.parts import device as device_module
from trainwell.parts.device import fast_kernels
from trainwell.parts.precision import resolve_precision

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

CUDA = torch.device("cuda")  # a device object only: nothing runs on it


@pytest.fixture
def ampere(monkeypatch):
    monkeypatch.setattr(device_module, "tf32_capable", lambda device: device.type == "cuda")


@pytest.fixture(autouse=True)
def restore_globals():
    before = (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
    yield
    torch.set_float32_matmul_precision(before[0])
    torch.backends.cudnn.benchmark = before[1]


def test_ampere_gets_tf32_and_autotuning_for_static_shapes_then_both_are_restored(ampere):
    assert torch.get_float32_matmul_precision() == "highest"
    with fast_kernels(CUDA, deterministic=False, static_shapes=True) as chosen:
        assert chosen == {"matmul_precision": "high", "cudnn_benchmark": True}
        assert torch.get_float32_matmul_precision() == "high"
        assert torch.backends.cudnn.benchmark is True
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.cudnn.benchmark is False


def test_varying_shapes_are_not_autotuned(ampere):
    with fast_kernels(CUDA, deterministic=False, static_shapes=False) as chosen:
        assert chosen["cudnn_benchmark"] is False


def test_deterministic_runs_keep_full_float32_and_no_autotuning(ampere):
    with fast_kernels(CUDA, deterministic=True, static_shapes=True) as chosen:
        assert "matmul_precision" not in chosen and chosen["cudnn_benchmark"] is False
        assert torch.get_float32_matmul_precision() == "highest"
    with (
        pytest.raises(ConfigError, match="run.deterministic"),
        fast_kernels(CUDA, deterministic=True, cudnn_benchmark=True),
    ):
        pass


def test_cpu_changes_nothing_unless_asked():
    with fast_kernels(torch.device("cpu"), deterministic=False, static_shapes=True) as chosen:
        assert chosen == {}
        assert torch.get_float32_matmul_precision() == "highest"
    with fast_kernels(torch.device("cpu"), deterministic=False, matmul_precision="medium"):
        assert torch.get_float32_matmul_precision() == "medium"
    assert torch.get_float32_matmul_precision() == "highest"


def test_precision_auto_is_the_default_and_resolves_per_device(monkeypatch):
    assert tw.build_config().train.precision == "auto"
    assert resolve_precision("auto", torch.device("cpu")) == "fp32"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert resolve_precision("auto", CUDA) == "bf16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert resolve_precision("auto", CUDA) == "fp16"


class SmallConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.head = nn.Linear(4, 3)
        self.seen = []

    def forward(self, x):
        self.seen.append((self.training, x.is_contiguous(memory_format=torch.channels_last)))
        return self.head(self.conv(x).relu().mean(dim=(2, 3)))


def _fit_conv(channels_last):
    torch.manual_seed(0)
    model = SmallConv()
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(96, 2, 6, 6, generator=g), torch.randint(0, 3, (96,), generator=g)
    config = {
        "run": {"quiet": True},
        "data": {"batch_size": 32},
        "train": {"max_epochs": 2, "channels_last": channels_last},
    }
    result = tw.fit(model, (x[:64], y[:64]), (x[64:], y[64:]), config=config)
    return model, result


def test_channels_last_trains_the_same_numbers_in_nhwc():
    model, result = _fit_conv(True)
    assert model.conv.weight.is_contiguous(memory_format=torch.channels_last)
    assert {training for training, _ in model.seen} == {True, False}  # train and validation
    assert all(nhwc for _, nhwc in model.seen)
    reference, expected = _fit_conv(False)
    assert not any(nhwc for _, nhwc in reference.seen)
    assert [r["val_loss"] for r in result.history] == pytest.approx(
        [r["val_loss"] for r in expected.history], rel=1e-4
    )
